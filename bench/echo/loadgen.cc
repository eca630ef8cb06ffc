// loadgen: the echo benchmark's load generator (docs/benchmarks.md,
// issue 6). For each requested rate: paced packets carrying a sequence
// number and a send timestamp, a warm-up and a cool-down not recorded, a
// fixed number of recorded samples in between, the ipbench utilisation
// service started and stopped around exactly those samples, then one CSV
// row. `loadgen --help` for the flags.
//
// Single-threaded: one loop sends what the schedule says is due, reads what
// has arrived, and sleeps (ppoll) until the next packet is due; a generator
// that falls more than 64 packets behind starts its schedule afresh instead
// of bursting to catch up, and Send_Throughput reports what it really sent.

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/echo/csv.h"
#include "bench/echo/frame.h"
#include "bench/echo/ipbench_reply.h"
#include "bench/echo/options.h"
#include "bench/echo/pacing.h"
#include "bench/echo/payload.h"
#include "bench/echo/rtt_stats.h"
#include "bench/echo/stats_line.h"

namespace starling::bench {
namespace {

constexpr std::size_t kMaxBurst = 64;
constexpr std::uint64_t kMaxLag = 64;
// --closed-loop gives a packet up (it counts as missing) after this long.
constexpr std::uint64_t kClosedLoopWaitNs = 100'000'000;
constexpr int kSocketBufferBytes = 8 << 20;
constexpr std::uint16_t kStatsEtherType = 0x88B5;  // apps/reflector
constexpr std::string_view kStatsQuery = "STARLING-STATS";
constexpr std::size_t kStatsQueryBytes = 1024;  // apps/echo/main.cc
constexpr std::uint16_t kRawSourcePort = 40000;

std::uint64_t mono_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + ts.tv_nsec;
}

std::uint64_t real_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + ts.tv_nsec;
}

// Waits for fd to be readable for at most timeout_ns.
void wait_readable(int fd, std::uint64_t timeout_ns) {
  pollfd p{fd, POLLIN, 0};
  timespec ts{static_cast<time_t>(timeout_ns / 1'000'000'000u),
              static_cast<long>(timeout_ns % 1'000'000'000u)};
  (void)ppoll(&p, 1, &ts, nullptr);
}

void grow_buffers(int fd) {
  // As root the Force variants pass the sysctl limits; otherwise best effort.
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &kSocketBufferBytes, sizeof(int)) != 0) {
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &kSocketBufferBytes, sizeof(int));
  }
  if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &kSocketBufferBytes, sizeof(int)) != 0) {
    (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &kSocketBufferBytes, sizeof(int));
  }
}

// The target as a socket address: IPv4 dotted, or IPv6, a link-local one
// with its interface (fe80::5054:ff:fe12:3456%tap0). Numeric only: nothing
// is looked up.
struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;
  int family = AF_UNSPEC;
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
};

std::optional<SocketAddress> resolve(const std::string& host, std::uint16_t port) {
  addrinfo hints{};
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  hints.ai_family = AF_UNSPEC;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (getaddrinfo(host.c_str(), service.c_str(), &hints, &found) != 0 || found == nullptr) {
    std::fprintf(stderr, "loadgen: '%s' is not an IPv4 or IPv6 address\n", host.c_str());
    return std::nullopt;
  }
  SocketAddress a;
  std::memcpy(&a.storage, found->ai_addr, found->ai_addrlen);
  a.length = found->ai_addrlen;
  a.family = found->ai_family;
  freeaddrinfo(found);
  return a;
}

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// kMaxBurst datagrams or frames for one sendmmsg()/recvmmsg(): a slot of
// `slot_bytes` each, with its iovec and header (and a link-layer address
// per message for a packet socket). Receiving hands them out one by one
// and refills with one call when they are used up.
class MessageBatch {
 public:
  explicit MessageBatch(std::size_t slot_bytes)
      : slot_bytes_(slot_bytes), memory_(slot_bytes * kMaxBurst) {}

  std::uint8_t* slot(std::size_t i) { return memory_.data() + i * slot_bytes_; }
  std::size_t slot_bytes() const { return slot_bytes_; }

  // Sends slots [0, n) of lengths[], to `to` (nullptr: connected); how many went.
  std::size_t send(int fd, const std::size_t* lengths, std::size_t n, const sockaddr* to,
                   socklen_t to_len) {
    for (std::size_t i = 0; i < n; ++i) {
      iov_[i] = {slot(i), lengths[i]};
      headers_[i] = {};
      headers_[i].msg_hdr.msg_iov = &iov_[i];
      headers_[i].msg_hdr.msg_iovlen = 1;
      headers_[i].msg_hdr.msg_name = const_cast<sockaddr*>(to);
      headers_[i].msg_hdr.msg_namelen = to == nullptr ? 0 : to_len;
    }
    const int sent = sendmmsg(fd, headers_.data(), static_cast<unsigned>(n), 0);
    return sent < 0 ? 0 : static_cast<std::size_t>(sent);
  }

  // The next received message (its bytes, and for a packet socket where it
  // came from), reading a new batch when the last is used up; nullopt when
  // nothing is waiting.
  struct Message {
    std::span<const std::uint8_t> bytes;
    const sockaddr_ll* from;
  };
  std::optional<Message> receive(int fd) {
    if (next_ == received_) {
      next_ = received_ = 0;
      for (std::size_t i = 0; i < kMaxBurst; ++i) {
        iov_[i] = {slot(i), slot_bytes_};
        headers_[i] = {};
        headers_[i].msg_hdr.msg_iov = &iov_[i];
        headers_[i].msg_hdr.msg_iovlen = 1;
        headers_[i].msg_hdr.msg_name = &names_[i];
        headers_[i].msg_hdr.msg_namelen = sizeof names_[i];
      }
      const int n = recvmmsg(fd, headers_.data(), kMaxBurst, MSG_DONTWAIT, nullptr);
      if (n <= 0) return std::nullopt;
      received_ = static_cast<std::size_t>(n);
    }
    const std::size_t i = next_++;
    return Message{{slot(i), headers_[i].msg_len}, &names_[i]};
  }

 private:
  std::size_t slot_bytes_;
  std::vector<std::uint8_t> memory_;
  std::array<iovec, kMaxBurst> iov_{};
  std::array<mmsghdr, kMaxBurst> headers_{};
  std::array<sockaddr_ll, kMaxBurst> names_{};
  std::size_t next_ = 0;
  std::size_t received_ = 0;
};

// Room per message: the largest payload, its headers, and a stats answer.
std::size_t slot_bytes_for(const Options& o) {
  return std::max<std::size_t>(o.size, 2048) + 64;
}

// How payloads reach the server and come back.
class Link {
 public:
  virtual ~Link() = default;
  // False if the socket cannot take it now (try again later).
  virtual bool send(std::span<const std::byte> payload) = 0;
  // As many of `payloads` as the socket takes now, in order (one system
  // call where the transport can: sendmmsg); how many.
  virtual std::size_t send_batch(std::span<const std::span<const std::byte>> payloads) {
    std::size_t sent = 0;
    while (sent < payloads.size() && send(payloads[sent])) ++sent;
    return sent;
  }
  // The next received payload (a view into the transport's buffer), or an
  // empty optional when nothing is waiting. Never blocks.
  virtual std::optional<std::span<const std::byte>> receive() = 0;
  virtual int fd() const = 0;
};

class UdpTransport final : public Link {
 public:
  static std::unique_ptr<UdpTransport> open(const Options& o) {
    const auto to = resolve(o.target, o.port);
    if (!to) return nullptr;
    auto t = std::unique_ptr<UdpTransport>(
        new UdpTransport(socket(to->family, SOCK_DGRAM | SOCK_NONBLOCK, 0), slot_bytes_for(o)));
    if (t->fd_.get() < 0) return nullptr;
    grow_buffers(t->fd_.get());
    if (connect(t->fd_.get(), to->get(), to->length) != 0) return nullptr;
    return t;
  }
  bool send(std::span<const std::byte> payload) override {
    return ::send(fd_.get(), payload.data(), payload.size(), 0) ==
           static_cast<ssize_t>(payload.size());
  }
  std::size_t send_batch(std::span<const std::span<const std::byte>> payloads) override {
    std::array<std::size_t, kMaxBurst> lengths{};
    const std::size_t n = std::min(payloads.size(), kMaxBurst);
    for (std::size_t i = 0; i < n; ++i) {
      lengths[i] = std::min(payloads[i].size(), out_.slot_bytes());
      std::memcpy(out_.slot(i), payloads[i].data(), lengths[i]);
    }
    return out_.send(fd_.get(), lengths.data(), n, nullptr, 0);
  }
  std::optional<std::span<const std::byte>> receive() override {
    // ECONNREFUSED (an ICMP port unreachable) and friends: nothing to read.
    auto m = in_.receive(fd_.get());
    if (!m) return std::nullopt;
    return std::as_bytes(m->bytes);
  }
  int fd() const override { return fd_.get(); }

 private:
  UdpTransport(int fd, std::size_t slot_bytes) : fd_(fd), out_(slot_bytes), in_(slot_bytes) {}
  Fd fd_;
  MessageBatch out_;
  MessageBatch in_;
};

// One TCP connection; payloads are fixed-size records in the byte stream.
class TcpTransport final : public Link {
 public:
  static std::unique_ptr<TcpTransport> open(const Options& o) {
    const auto to = resolve(o.target, o.port);
    if (!to) return nullptr;
    auto t =
        std::unique_ptr<TcpTransport>(new TcpTransport(socket(to->family, SOCK_STREAM, 0), o.size));
    if (t->fd_.get() < 0) return nullptr;
    grow_buffers(t->fd_.get());
    const int one = 1;
    (void)setsockopt(t->fd_.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(t->fd_.get(), to->get(), to->length) != 0) return nullptr;
    fcntl(t->fd_.get(), F_SETFL, fcntl(t->fd_.get(), F_GETFL) | O_NONBLOCK);
    return t;
  }
  bool send(std::span<const std::byte> payload) override {
    flush();
    if (!pending_.empty()) return false;
    pending_.assign(payload.begin(), payload.end());
    flush();
    return true;
  }
  std::optional<std::span<const std::byte>> receive() override {
    flush();
    if (consumed_ != 0) {
      stream_.erase(stream_.begin(), stream_.begin() + static_cast<long>(consumed_));
      consumed_ = 0;
    }
    if (stream_.size() < record_) {
      std::byte chunk[65536];
      const ssize_t n = recv(fd_.get(), chunk, sizeof chunk, MSG_DONTWAIT);
      if (n > 0) stream_.insert(stream_.end(), chunk, chunk + n);
    }
    if (stream_.size() < record_) return std::nullopt;
    consumed_ = record_;
    return std::span<const std::byte>(stream_.data(), record_);
  }
  int fd() const override { return fd_.get(); }

 private:
  TcpTransport(int fd, std::size_t record) : fd_(fd), record_(record) {}
  void flush() {
    while (!pending_.empty()) {
      const ssize_t n =
          ::send(fd_.get(), pending_.data(), pending_.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n <= 0) return;
      pending_.erase(pending_.begin(), pending_.begin() + n);
    }
  }
  Fd fd_;
  std::size_t record_;
  std::vector<std::byte> pending_;
  std::vector<std::byte> stream_;
  std::size_t consumed_ = 0;
};

bool parse_mac(const std::string& text, Mac& out) {
  unsigned v[6];
  if (std::sscanf(text.c_str(), "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) !=
      6) {
    return false;
  }
  for (int i = 0; i < 6; ++i) out[i] = static_cast<std::uint8_t>(v[i]);
  return true;
}

// Ethernet frames on an interface (AF_PACKET), for the layer-2 reflector:
// it swaps MACs only, so its replies are IPv4/UDP to the guest's own address
// that no socket of ours would ever see.
class RawTransport final : public Link {
 public:
  static std::unique_ptr<RawTransport> open(const Options& o, std::uint16_t ether_type) {
    auto t = std::unique_ptr<RawTransport>(
        new RawTransport(socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ether_type)), o));
    if (t->fd_.get() < 0) return nullptr;
    grow_buffers(t->fd_.get());
    ifreq ifr{};
    std::snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", o.iface.c_str());
    if (ioctl(t->fd_.get(), SIOCGIFINDEX, &ifr) != 0) return nullptr;
    t->ifindex_ = ifr.ifr_ifindex;
    if (ioctl(t->fd_.get(), SIOCGIFHWADDR, &ifr) != 0) return nullptr;
    std::memcpy(t->flow_.src_mac.data(), ifr.ifr_hwaddr.sa_data, 6);
    if (!parse_mac(o.dst_mac, t->flow_.dst_mac)) return nullptr;
    sockaddr_ll bind_to{};
    bind_to.sll_family = AF_PACKET;
    bind_to.sll_protocol = htons(ether_type);
    bind_to.sll_ifindex = t->ifindex_;
    if (bind(t->fd_.get(), reinterpret_cast<const sockaddr*>(&bind_to), sizeof bind_to) != 0)
      return nullptr;
    t->ether_type_ = ether_type;
    t->to_.sll_family = AF_PACKET;
    t->to_.sll_ifindex = t->ifindex_;
    t->to_.sll_halen = 6;
    std::memcpy(t->to_.sll_addr, t->flow_.dst_mac.data(), 6);
    return t;
  }

  bool send(std::span<const std::byte> payload) override {
    return send_batch(std::span(&payload, 1)) == 1;
  }
  std::size_t send_batch(std::span<const std::span<const std::byte>> payloads) override {
    std::array<std::size_t, kMaxBurst> lengths{};
    const std::size_t n = std::min(payloads.size(), kMaxBurst);
    for (std::size_t i = 0; i < n; ++i) {
      lengths[i] = build(payloads[i], std::span(out_.slot(i), out_.slot_bytes()));
      if (lengths[i] == 0) return out_.send(fd_.get(), lengths.data(), i, address(), sizeof to_);
    }
    return out_.send(fd_.get(), lengths.data(), n, address(), sizeof to_);
  }

  std::optional<std::span<const std::byte>> receive() override {
    while (auto m = in_.receive(fd_.get())) {
      if (m->from->sll_pkttype == PACKET_OUTGOING || m->bytes.size() < 14) continue;  // ours
      if (ether_type_ != ETH_P_IP) return std::as_bytes(m->bytes.subspan(14));
      if (auto payload = udp_payload_of(m->bytes, flow_.src_port, flow_.dst_port)) return payload;
    }
    return std::nullopt;
  }
  int fd() const override { return fd_.get(); }

 private:
  RawTransport(int fd, const Options& o)
      : fd_(fd), out_(slot_bytes_for(o)), in_(slot_bytes_for(o)) {
    inet_pton(AF_INET, o.src_ip.c_str(), &flow_.src_ip);
    inet_pton(AF_INET, o.target.c_str(), &flow_.dst_ip);
    flow_.src_port = kRawSourcePort;
    flow_.dst_port = o.port;
  }
  // The frame for `payload` in `frame`: UDP/IPv4 for the reflector's
  // traffic, or the stats query's Ethernet header and payload; its length
  // (0: it does not fit).
  std::size_t build(std::span<const std::byte> payload, std::span<std::uint8_t> frame) const {
    if (ether_type_ == ETH_P_IP) return build_udp_frame(flow_, payload, frame);
    if (14 + payload.size() > frame.size()) return 0;
    std::memcpy(frame.data(), flow_.dst_mac.data(), 6);
    std::memcpy(frame.data() + 6, flow_.src_mac.data(), 6);
    frame[12] = static_cast<std::uint8_t>(ether_type_ >> 8);
    frame[13] = static_cast<std::uint8_t>(ether_type_);
    std::memcpy(frame.data() + 14, payload.data(), payload.size());
    const std::size_t n = std::max<std::size_t>(14 + payload.size(), kMinFrameBytes);
    std::memset(frame.data() + 14 + payload.size(), 0, n - 14 - payload.size());
    return n;
  }
  const sockaddr* address() const { return reinterpret_cast<const sockaddr*>(&to_); }

  Fd fd_;
  int ifindex_ = 0;
  std::uint16_t ether_type_ = ETH_P_IP;
  UdpFlow flow_;
  sockaddr_ll to_{};
  MessageBatch out_;
  MessageBatch in_;
};

std::unique_ptr<Link> open_transport(const Options& o) {
  switch (o.transport) {
    case Transport::kUdp:
      return UdpTransport::open(o);
    case Transport::kTcp:
      return TcpTransport::open(o);
    case Transport::kRaw:
      return RawTransport::open(o, ETH_P_IP);
  }
  return nullptr;
}

// STARLING-STATS from the guest: UDP to the echo port, or a raw frame of
// type 0x88B5 to the reflector. Three tries, 300 ms each.
std::optional<StatsLine> query_stats(const Options& o) {
  std::unique_ptr<Link> t;
  if (o.transport == Transport::kRaw) {
    t = RawTransport::open(o, kStatsEtherType);
  } else {
    Options udp = o;
    udp.port = o.stats_port;  // the echo app answers stats on its UDP echo port
    t = UdpTransport::open(udp);
  }
  if (!t) return std::nullopt;
  // The echo answers a query padded with spaces to kStatsQueryBytes (its
  // reply is never more than twice the query); the reflector's query is the
  // bare prefix in one frame.
  std::array<char, kStatsQueryBytes> padded;
  padded.fill(' ');
  kStatsQuery.copy(padded.data(), kStatsQuery.size());
  const std::size_t query_bytes =
      o.transport == Transport::kRaw ? kStatsQuery.size() : padded.size();
  const auto query = std::as_bytes(std::span(padded.data(), query_bytes));
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (!t->send(query)) continue;
    const std::uint64_t deadline = mono_ns() + 300'000'000u;
    while (mono_ns() < deadline) {
      wait_readable(t->fd(), 10'000'000u);
      while (auto reply = t->receive()) {
        const std::string_view text(reinterpret_cast<const char*>(reply->data()), reply->size());
        // A raw reply is padded to 60 bytes: cut at the line's end.
        const auto end = text.find('\n');
        if (auto line = parse_stats_line(text.substr(0, end))) return line;
      }
    }
  }
  return std::nullopt;
}

// The ipbench utilisation client, blocking with short timeouts.
class UtilisationClient {
 public:
  static std::unique_ptr<UtilisationClient> connect_to(const Options& o) {
    const auto to = resolve(o.target, o.util_port);
    if (!to) return nullptr;
    auto c = std::unique_ptr<UtilisationClient>(
        new UtilisationClient(socket(to->family, SOCK_STREAM, 0)));
    if (c->fd_.get() < 0) return nullptr;
    const timeval tv{3, 0};
    setsockopt(c->fd_.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(c->fd_.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    const int one = 1;
    (void)setsockopt(c->fd_.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd_.get(), to->get(), to->length) != 0) return nullptr;
    if (!c->expect("100")) return nullptr;
    if (!c->command("HELLO\n") || !c->expect("200")) return nullptr;
    if (!c->command("LOAD cpu_target_lukem\n") || !c->expect("200")) return nullptr;
    if (!c->command("SETUP args::\"\"\n") || !c->expect("200")) return nullptr;
    return c;
  }
  bool start() { return command("START\n"); }
  bool stop() { return command("STOP\n"); }
  // The STOP answer, read up to the server's close.
  std::optional<Utilisation> result() {
    std::string all = buffered_;
    char chunk[512];
    for (;;) {
      const ssize_t n = recv(fd_.get(), chunk, sizeof chunk, 0);
      if (n <= 0) break;
      all.append(chunk, static_cast<std::size_t>(n));
    }
    return parse_stop_reply(all);
  }

 private:
  explicit UtilisationClient(int fd) : fd_(fd) {}
  bool command(std::string_view text) {
    return ::send(fd_.get(), text.data(), text.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(text.size());
  }
  // One line whose code is `code`.
  bool expect(std::string_view code) {
    for (;;) {
      const auto nl = buffered_.find('\n');
      if (nl != std::string::npos) {
        const std::string line = buffered_.substr(0, nl);
        buffered_.erase(0, nl + 1);
        return reply_has_code(line, code);
      }
      char chunk[256];
      const ssize_t n = recv(fd_.get(), chunk, sizeof chunk, 0);
      if (n <= 0) return false;
      buffered_.append(chunk, static_cast<std::size_t>(n));
    }
  }
  Fd fd_;
  std::string buffered_;
};

// Instructions per echoed packet and the high-water marks, from the stats
// lines around one rate.
void report_stats(const Options& o, double rate, const StatsLine& before, const StatsLine& after) {
  std::string out = "rate_bps=" + std::to_string(static_cast<std::uint64_t>(rate));
  auto packets = stats_delta(before, after, "udp_echoed");
  const char* what = "udp_echoed";
  if (o.transport == Transport::kTcp) {
    // Records of --size bytes echoed on the TCP echo port (one segment
    // each at these sizes: the generator sets TCP_NODELAY).
    packets = stats_delta(before, after, "tcp_echoed_bytes");
    what = "tcp_echoed_records";
    const std::uint32_t size = o.size != 0 ? o.size : 1460;
    if (packets) *packets /= size;
  }
  if (!packets) {
    packets = stats_delta(before, after, "reflected");
    what = "reflected";
  }
  auto instret = stats_delta(before, after, "instret");
  const auto cycles = stats_delta(before, after, "cycles");
  const auto uptime = stats_delta(before, after, "uptime_ns");
  char buffer[256];
  if (packets) {
    std::snprintf(buffer, sizeof buffer, " packets=%" PRIu64 " (%s)", *packets, what);
    out += buffer;
  }
  // A board without an instruction counter (the host board) reports 0.
  if (instret && *instret == 0) instret.reset();
  if (packets && *packets > 0 && instret) {
    std::snprintf(buffer, sizeof buffer, " instret_delta=%" PRIu64 " instret_per_packet=%.1f",
                  *instret, static_cast<double>(*instret) / static_cast<double>(*packets));
    out += buffer;
  }
  if (packets && *packets > 0 && cycles) {
    std::snprintf(buffer, sizeof buffer, " cycles_per_packet=%.1f",
                  static_cast<double>(*cycles) / static_cast<double>(*packets));
    out += buffer;
  }
  // Under QEMU -icount shift=0, instret is virtual time and counts the
  // nanoseconds skipped while the guest waits in wfi too; the executor's idle
  // cycles (the same clock) measure exactly those, so the difference is the
  // instructions retired while busy.
  const auto idle = stats_delta(before, after, "idle_cycles");
  if (packets && *packets > 0 && instret && idle && *idle <= *instret) {
    std::snprintf(buffer, sizeof buffer, " busy_instructions_per_packet=%.1f",
                  static_cast<double>(*instret - *idle) / static_cast<double>(*packets));
    out += buffer;
  }
  // How the work came in: device interrupts and netif wake-ups per packet
  // (below 1 when the ring held several frames per wake: suppression while
  // draining), frames per receive batch.
  for (const char* key : {"nic_interrupts", "netif_wakeups"}) {
    const auto n = stats_delta(before, after, key);
    if (packets && *packets > 0 && n) {
      std::snprintf(buffer, sizeof buffer, " %s_per_packet=%.3f", key,
                    static_cast<double>(*n) / static_cast<double>(*packets));
      out += buffer;
    }
  }
  const auto frames = stats_delta(before, after, "netif_rx_frames");
  const auto batches = stats_delta(before, after, "netif_rx_batches");
  if (frames && batches && *batches > 0) {
    std::snprintf(buffer, sizeof buffer, " frames_per_batch=%.2f",
                  static_cast<double>(*frames) / static_cast<double>(*batches));
    out += buffer;
  }
  if (uptime) out += " guest_ns=" + std::to_string(*uptime);
  for (const auto& [key, value] : after) {
    if (key.ends_with("_max") || key.ends_with("_max_bytes") || key.ends_with("drops") ||
        key.ends_with("dropped") || key == "rx_pool_exhausted") {
      out += " " + key + "=" + std::to_string(value);
    }
  }
  out += "\n";
  if (o.stats_file.empty()) {
    std::fputs(("loadgen: stats " + out).c_str(), stderr);
    return;
  }
  if (FILE* f = std::fopen(o.stats_file.c_str(), "a")) {
    std::fputs(out.c_str(), f);
    std::fclose(f);
  } else {
    std::fprintf(stderr, "loadgen: cannot write --stats-file %s: %s\n", o.stats_file.c_str(),
                 std::strerror(errno));
  }
}

struct RateResult {
  CsvRow row;
  std::uint64_t replies = 0;  // any reply of this run at all
  bool util_missing = false;
  std::uint64_t rebased = 0;  // times the generator fell behind its schedule
};

RateResult run_rate(const Options& o, Link& transport, double rate, std::uint32_t run_id) {
  RateResult result;
  const std::uint64_t total = o.warmup + o.samples + o.cooldown;
  const std::uint64_t rec_begin = o.warmup;
  const std::uint64_t rec_end = o.warmup + o.samples;
  ReplyTracker tracker(total, rec_begin, o.samples);
  std::vector<std::uint64_t> rtts;
  rtts.reserve(o.samples);
  std::vector<std::vector<std::byte>> staging(kMaxBurst, std::vector<std::byte>(o.size));
  std::array<std::span<const std::byte>, kMaxBurst> staged{};

  std::unique_ptr<UtilisationClient> util;
  if (o.util_port != 0) {
    util = UtilisationClient::connect_to(o);
    if (!util) result.util_missing = true;
  }
  std::optional<StatsLine> before;
  if (o.stats) {
    before = query_stats(o);
    if (!before) std::fprintf(stderr, "loadgen: no STARLING-STATS answer before the run\n");
  }

  std::uint64_t on_time_recorded = 0;
  auto drain = [&](bool late) {
    while (auto data = transport.receive()) {
      const std::uint64_t now = mono_ns();
      const Reply r = classify_reply(*data, run_id, o.size);
      switch (r.kind) {
        case ReplyKind::kOk:
          ++result.replies;
          if (tracker.on_reply(r.seq, late) == ReplyTracker::Outcome::kFirst && !late &&
              tracker.recorded(r.seq)) {
            ++on_time_recorded;
            rtts.push_back(now - r.send_ns);
          }
          break;
        case ReplyKind::kCorrupted:
          ++result.replies;
          tracker.on_corrupted(r.seq, true);
          break;
        case ReplyKind::kOtherRun:
          break;  // a straggler of the previous rate: that run is over
        case ReplyKind::kForeign:
          tracker.on_corrupted(0, false);
          break;
      }
    }
  };

  const std::uint64_t start = mono_ns() + 1'000'000u;
  const std::uint64_t deadline = start + static_cast<std::uint64_t>(o.max_seconds * 1e9);
  // A generator that falls more than kMaxLag packets behind starts a new
  // schedule from where it is instead of bursting to catch up: the rate it
  // reports is then lower than requested, never higher.
  PacingSchedule schedule(start, rate, o.size);
  std::uint64_t base = 0;  // the packet the schedule's index 0 stands for
  std::uint64_t next = 0;
  std::uint64_t t_rec_begin = 0;
  std::uint64_t t_rec_end = 0;
  bool util_ok = util != nullptr;
  std::uint64_t last_send_ns = 0;
  while (next < total) {
    std::uint64_t now = mono_ns();
    if (now >= deadline) break;
    // --closed-loop: the packet before has to come back first (or be given
    // up after kClosedLoopWaitNs), so the guest never holds two at once and
    // the figure is one packet's path however late this host runs.
    if (o.closed_loop && next > 0 && !tracker.answered(next - 1) &&
        now < last_send_ns + kClosedLoopWaitNs) {
      wait_readable(transport.fd(), last_send_ns + kClosedLoopWaitNs - now);
      drain(false);
      continue;
    }
    std::uint64_t due = std::min(base + schedule.due_count(now), total);
    if (due > next + kMaxLag) {
      ++result.rebased;
      schedule = PacingSchedule(now, rate, o.size);
      base = next;
      due = std::min(next + 1, total);
    }
    // What is due, up to kMaxBurst, in one send_batch() (sendmmsg): the
    // generator's per-packet system call was its limit at the top rates.
    // A batch never crosses the recorded interval's edges, so the
    // utilisation window starts and stops at exactly those packets.
    if (next < due) {
      if (next == rec_begin && t_rec_begin == 0) {
        if (util_ok) util_ok = util->start();
        t_rec_begin = mono_ns();
      }
      if (next == rec_end && t_rec_end == 0) {
        t_rec_end = mono_ns();
        if (util_ok) util_ok = util->stop();
      }
      std::uint64_t limit = due;
      if (next < rec_begin) {
        limit = std::min(limit, rec_begin);
      } else if (next < rec_end) {
        limit = std::min(limit, rec_end);
      }
      if (o.closed_loop) limit = next + 1;
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(limit - next, kMaxBurst));
      for (std::size_t i = 0; i < n; ++i) {
        encode_payload(staging[i], run_id, next + i, mono_ns());
        staged[i] = staging[i];
      }
      // Fewer than n: the socket is full; the schedule slips, honestly.
      next += transport.send_batch(std::span(staged.data(), n));
      last_send_ns = mono_ns();
    }
    drain(false);
    if (next < total) {
      now = mono_ns();
      const std::uint64_t due_at = schedule.due_ns(next - base);
      // Sleep, never spin: on a small shared machine a spinning generator
      // takes the CPU QEMU needs. A late wake-up sends the few packets due
      // together; the average rate holds (kMaxLag bounds the burst).
      if (due_at > now) wait_readable(transport.fd(), due_at - now);
    }
  }
  const std::uint64_t sent_end = mono_ns();
  if (t_rec_begin == 0) t_rec_begin = sent_end;
  if (t_rec_end == 0) {
    t_rec_end = sent_end;
    if (util_ok) util_ok = util->stop();
  }
  // Replies still in flight, then a second window whose replies are late.
  for (int phase = 0; phase < 2; ++phase) {
    const std::uint64_t until = mono_ns() + o.drain_ms * 1'000'000u;
    for (std::uint64_t now = mono_ns(); now < until; now = mono_ns()) {
      wait_readable(transport.fd(), std::min<std::uint64_t>(until - now, 5'000'000u));
      drain(phase == 1);
    }
  }
  if (util_ok) {
    result.row.utilisation = util->result();
    if (!result.row.utilisation) result.util_missing = true;
  } else if (util) {
    result.util_missing = true;
  }
  if (o.stats && before) {
    if (auto after = query_stats(o)) {
      report_stats(o, rate, *before, *after);
    } else {
      std::fprintf(stderr, "loadgen: no STARLING-STATS answer after the run\n");
    }
  }

  const std::uint64_t sent_recorded = std::min(next, rec_end) - std::min(next, rec_begin);
  const double seconds = std::max<double>(t_rec_end - t_rec_begin, 1) / 1e9;
  const double bits = o.size * 8.0;
  result.row.requested_bps = rate;
  result.row.send_bps = sent_recorded * bits / seconds;
  result.row.receive_bps = on_time_recorded * bits / seconds;
  result.row.packet_size = o.size;
  result.row.rtt = compute_rtt_stats(rtts);
  const BadCounts bad = tracker.bad(next);
  result.row.bad_packets = bad.total();
  if (next < total) {
    std::fprintf(stderr,
                 "loadgen: rate %.0f: only %" PRIu64 " of %" PRIu64
                 " packets sent within --max-seconds\n",
                 rate, next, total);
  }
  std::fprintf(stderr,
               "loadgen: rate %.0f: sent %" PRIu64 " recorded %" PRIu64 " answered %" PRIu64
               " missing %" PRIu64 " late %" PRIu64 " duplicated %" PRIu64 " corrupted %" PRIu64
               " fell_behind %" PRIu64 "\n",
               rate, next, sent_recorded, on_time_recorded, bad.missing, bad.late, bad.duplicated,
               bad.corrupted, result.rebased);
  return result;
}

// Boot to first echo: a probe every millisecond until one comes back.
int probe(const Options& o) {
  auto transport = open_transport(o);
  if (!transport) {
    std::fprintf(stderr, "loadgen: cannot open the %s transport: %s\n",
                 o.transport == Transport::kRaw ? "raw" : "udp", std::strerror(errno));
    return 1;
  }
  std::vector<std::byte> payload(o.size);
  const std::uint32_t run_id = 0xFFFF'FFFFu;
  const std::uint64_t deadline = mono_ns() + static_cast<std::uint64_t>(o.probe_timeout_s * 1e9);
  for (std::uint64_t seq = 0; mono_ns() < deadline; ++seq) {
    encode_payload(payload, run_id, seq, mono_ns());
    (void)transport->send(payload);
    wait_readable(transport->fd(), 1'000'000u);
    while (auto data = transport->receive()) {
      if (classify_reply(*data, run_id, o.size).kind == ReplyKind::kOk) {
        const double ms =
            (static_cast<double>(real_ns()) - static_cast<double>(o.since_realtime_ns)) / 1e6;
        std::printf("first_echo_ms=%.1f\n", ms);
        return 0;
      }
    }
  }
  std::fprintf(stderr, "loadgen: no echo within --probe-timeout %.0f s\n", o.probe_timeout_s);
  return 1;
}

int main_with(const Options& o) {
  if (o.probe) return probe(o);
  for (double rate : o.rates_bps) {
    const double seconds = (o.warmup + o.samples + o.cooldown) * o.size * 8.0 / rate;
    if (seconds > o.max_seconds) {
      std::fprintf(stderr,
                   "loadgen: --rates: %.0f bit/s needs %.1f s for %" PRIu64
                   " packets, more than --max-seconds %.1f (raise the rate or lower --samples)\n",
                   rate, seconds, o.warmup + o.samples + o.cooldown, o.max_seconds);
      return 2;
    }
  }
  auto transport = open_transport(o);
  if (!transport) {
    std::fprintf(stderr, "loadgen: cannot reach %s port %u: %s\n", o.target.c_str(), o.port,
                 std::strerror(errno));
    return 1;
  }
  if (o.header) std::printf("%.*s\n", static_cast<int>(kCsvHeader.size()), kCsvHeader.data());
  std::fflush(stdout);
  int status = 0;
  const std::uint32_t base = static_cast<std::uint32_t>(getpid()) << 8;
  for (std::size_t i = 0; i < o.rates_bps.size(); ++i) {
    const RateResult r =
        run_rate(o, *transport, o.rates_bps[i], base + static_cast<std::uint32_t>(i));
    std::printf("%s\n", format_csv_row(r.row).c_str());
    std::fflush(stdout);
    if (r.util_missing) {
      std::fprintf(stderr, "loadgen: no utilisation figures from %s:%u\n", o.target.c_str(),
                   o.util_port);
      if (o.require_util) status = 1;
    }
    if (r.replies == 0) {
      std::fprintf(stderr, "loadgen: no reply at all at %.0f bit/s\n", o.rates_bps[i]);
      status = 1;
    }
  }
  return status;
}

}  // namespace
}  // namespace starling::bench

int main(int argc, char** argv) {
  // Wake-ups on time (the default slack is 50 µs): the pacing sleeps.
  (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  std::vector<std::string_view> args(argv + 1, argv + argc);
  const auto parsed = starling::bench::parse_options(args);
  if (!parsed.options) {
    std::fprintf(stderr, "loadgen: %s\n", parsed.error.c_str());
    return 2;
  }
  if (parsed.options->help) {
    std::fputs(starling::bench::kUsage, stdout);
    return 0;
  }
  return starling::bench::main_with(*parsed.options);
}
