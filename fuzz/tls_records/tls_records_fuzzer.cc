// Fuzzes net/tls's record-layer glue from the network side: the server's
// TlsStream, opened by a tls::ServerContext as the HTTP server opens one,
// over a real net::TcpStream on lwIP's loopback (net/tcp/tests/loopback.h),
// with a peer in the same process whose bytes come from the input. So what
// runs is what runs on the board: bio_recv taking what lwIP holds in
// whatever pieces the segments make, bio_send, the handshake/read/write
// loops and their waits, failure()'s mapping of Mbed TLS's errors onto the
// counters, a deadline cancelling a handshake mid-wait, and
// ServerContext::close() freeing it all.
//
// Input: a 4-byte header, then the peer's bytes.
//   [0] bits 0-1, the mode:
//         0  raw: the rest is what the peer sends from its first byte (a
//            ClientHello, a whole client flight, garbage);
//         1  the same, to a server that asks for a client certificate (so a
//            TLS 1.2 client's Certificate, sent in clear, is parsed);
//         2  a real Mbed TLS client completes a TLS 1.2 handshake first; the
//            rest are operations (below) on the established connection;
//         3  the same over TLS 1.3.
//       bits 2-3, how the peer ends: 0 FIN, 1 RST, 2 silence (the server's
//         deadline ends it: 2 ms for a handshake, then for each read), 3
//         close(); bits 4-6, the server's read buffer after a handshake
//         (kReadSizes); bit 7, the server echoes through try_write first
//         (its two halves as two pieces, which share a record), then
//         write() for the rest (the HTTP server's way), else write()
//         alone.
//   [1..3] raw modes: the sizes of the TCP writes the peer sends, cycled (0:
//       all the rest at once); after kMaxPieces writes, the rest at once.
//       Modes 2 and 3: [1] bit 0, the rest after try_write in one write()
//       (1) or piece by piece (0).
//   Operations (modes 2 and 3), two bytes each, `op` and `n`:
//       length = (op >> 2) << 8 | n;
//       op & 3 == 0  `length` bytes of the input written raw onto the TCP
//                    stream (the peer's TLS bypassed: a forged record);
//                 1  `length` bytes of application data through the peer's
//                    TLS (valid records);
//                 2  the peer's close_notify;
//                 3  the peer waits until the server has taken what was
//                    sent (so the next bytes arrive as a read of their own).
//   The server echoes every byte it reads.
//
// Checks, besides ASan/UBSan/LSan:
//   - the handshake ends when the peer has left (a deadline of kHangNs
//     means it hung), and a failed handshake is counted in exactly one of
//     TlsStats' failure counters (one cut off by its deadline in none: the
//     caller counts those);
//   - a peer without the keys (modes 0 and 1) never completes a handshake;
//   - the server never reads a byte the peer did not send through its TLS,
//     and reads them in order; when the peer sent only valid records and a
//     FIN, the server read all of them and the peer got all of them back;
//   - a session's peak of Mbed TLS memory within kSessionBytes;
//   - after each input, TLS sessions in use, Mbed TLS's memory in use, TCP
//     connection slots and coroutine frames are back to their baselines,
//     and lwIP holds no open connection (TIME_WAIT aside).
//
// The seeds (corpus/) are real handshake messages: make_seeds.cc and
// openssl_seeds.sh write them. Entropy is the host board's (init_mbedtls()), so keys differ between
// runs; what a raw peer sends does not depend on them.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "fuzz/harness.h"
#include "kernel/async/event.h"
#include "kernel/async/executor.h"
#include "kernel/async/frame_allocator.h"
#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/task.h"
#include "kernel/async/timeout.h"
#include "kernel/async/yield.h"
#include "kernel/lib/result.h"
#include "lwip/priv/tcp_priv.h"
#include "mbedtls/ssl.h"
#include "mbedtls/x509_crt.h"
#include "net/address/endpoint.h"
#include "net/tcp/tcp.h"
#include "net/tcp/tests/loopback.h"
#include "net/tls/mbedtls_port.h"
#include "net/tls/test_identity.h"
#include "net/tls/tls.h"

// psa_util.h declares mbedtls_psa_get_random without C linkage for C++.
extern "C" {
#include "mbedtls/psa_util.h"
}

namespace {

using namespace starling;  // NOLINT(google-build-using-namespace): a harness
using async::Task;
namespace tls = net::tls;

constexpr std::uint16_t kPort = 4433;
constexpr std::size_t kHeaderBytes = 4;
// Nothing here waits on lwIP's timers (the loopback delivers at once,
// Nagle is off), so anything this long is a hang, not a slow input.
constexpr std::uint64_t kHangNs = 10 * async::kSecond;
// The server's deadline when the peer falls silent: short, so that such
// inputs stay cheap, and still a real cancellation of a waiting handshake.
constexpr std::uint64_t kSilentNs = 2 * async::kMillisecond;
constexpr std::size_t kMaxPieces = 64;
// Application data per input: bounds an input's time (at a read size of
// one byte, every byte is a record each way).
constexpr std::size_t kMaxAppData = 8 * 1024;
// Rounds a side lets the others run before it goes on anyway.
constexpr int kMaxYields = 256;
// Read sizes from one byte (every record read in pieces) to more than a
// whole record.
constexpr std::size_t kReadSizes[] = {1, 7, 64, 500, 1024, 4096, 16384, 17000};

void check(bool condition, const char* what) {
  fuzz::check(condition, "tls_records", what);
}

enum class Mode : std::uint8_t { kRaw, kRawAsking, kAfterTls12, kAfterTls13 };
enum class End : std::uint8_t { kFin, kReset, kSilent, kClose };

struct Plan {
  Mode mode = Mode::kRaw;
  End end = End::kFin;
  std::size_t read_size = 1;
  bool try_write = false;
  bool join_rest = false;
  std::uint8_t pieces[3] = {};
  std::span<const std::uint8_t> payload;

  bool raw() const { return mode == Mode::kRaw || mode == Mode::kRawAsking; }
};

Plan parse(std::span<const std::uint8_t> input) {
  Plan p;
  const std::uint8_t flags = input[0];
  p.mode = static_cast<Mode>(flags & 3);
  p.end = static_cast<End>(flags >> 2 & 3);
  p.read_size = kReadSizes[flags >> 4 & 7];
  p.try_write = (flags & 0x80) != 0;
  std::copy_n(input.begin() + 1, 3, p.pieces);
  p.join_rest = !p.raw() && (p.pieces[0] & 1) != 0;
  p.payload = input.subspan(kHeaderBytes);
  return p;
}

// The input's operations, read front to back; running out gives zeros.
class Cursor {
 public:
  explicit Cursor(std::span<const std::uint8_t> bytes) : rest_(bytes) {}
  bool empty() const { return rest_.empty(); }
  std::uint8_t u8() {
    if (rest_.empty()) return 0;
    const std::uint8_t b = rest_[0];
    rest_ = rest_.subspan(1);
    return b;
  }
  std::span<const std::uint8_t> take(std::size_t n) {
    n = std::min(n, rest_.size());
    const auto taken = rest_.first(n);
    rest_ = rest_.subspan(n);
    return taken;
  }

 private:
  std::span<const std::uint8_t> rest_;
};

// What the two sides of one input saw.
struct Exchange {
  enum class Handshake : std::uint8_t { kNotRun, kOk, kFailed, kTimedOut };
  Handshake handshake = Handshake::kNotRun;
  // Set when the server's handshake has ended: a real client finishes
  // first (TLS 1.3: its Finished is still on the way), and leaving at once
  // would fail the server's.
  async::Event server_shook;
  // Everything the peer wrote through its TLS, in order (appended before
  // the write, so the server can never read ahead of it).
  std::vector<std::byte> sent;
  // Only valid records, every one of them written, then a FIN.
  bool clean = true;
  std::vector<std::byte> server_read;
  std::vector<std::byte> peer_read;  // the echo, through the peer's TLS
};

bool is_prefix(const std::vector<std::byte>& a, const std::vector<std::byte>& b) {
  return a.size() <= b.size() && std::equal(a.begin(), a.end(), b.begin());
}

net::Endpoint server_endpoint() {
  const auto* ip = net::testing::kLoopbackIp;
  return {net::IpAddress::v4(net::ipv4(ip[0], ip[1], ip[2], ip[3])), kPort};
}

// Lets every other ready task run (the pump delivering what was just
// sent, the server taking it) before this one goes on, so each piece
// reaches bio_recv as a read of its own. Bounded: a side that stays busy
// does not hold the other.
Task<void> let_others_run() noexcept {
  for (int i = 0; i < kMaxYields && async::Executor::current().should_yield(); ++i) {
    co_await async::yield();
  }
  co_return {};
}

// A client configuration for the modes that handshake first: no
// certificate check (the server's chain is not what is tested here), one
// version.
void client_config(mbedtls_ssl_config& conf, mbedtls_ssl_protocol_version version) {
  mbedtls_ssl_config_init(&conf);
  check(mbedtls_ssl_config_defaults(&conf, MBEDTLS_SSL_IS_CLIENT, MBEDTLS_SSL_TRANSPORT_STREAM,
                                    MBEDTLS_SSL_PRESET_DEFAULT) == 0,
        "client configuration");
  mbedtls_ssl_conf_rng(&conf, mbedtls_psa_get_random, MBEDTLS_PSA_RANDOM_STATE);
  mbedtls_ssl_conf_authmode(&conf, MBEDTLS_SSL_VERIFY_NONE);
  mbedtls_ssl_conf_min_tls_version(&conf, version);
  mbedtls_ssl_conf_max_tls_version(&conf, version);
}

// What lives for the whole process: lwIP (process-wide), the executor, the
// server's identity and contexts, the listener.
struct World {
  World() : arena(std::size_t{32} << 20), frames(arena), use_frames(frames) {
    net::testing::init_lwip_once();
    check(tls::init_mbedtls().ok(), "Mbed TLS starts (the host board's entropy)");
    identity = tls::testing::make_test_identity();
    check(!identity.cert_pem.empty(), "a test certificate");
    check(plain.init(identity.cert(), identity.key()).ok(), "the server's context");
    // Its own certificate as the client CA: what a client shows is parsed
    // and checked against it (and, from a fuzzer, rejected).
    check(asking.init(identity.cert(), identity.key(), identity.cert()).ok(),
          "the server's context that asks for client certificates");
    auto l = net::TcpListener::listen(kPort, 4);
    check(l.ok(), "listening");
    listener = std::move(*l);
    client_config(client12, MBEDTLS_SSL_VERSION_TLS1_2);
    client_config(client13, MBEDTLS_SSL_VERSION_TLS1_3);
  }

  std::vector<std::byte> arena;
  async::FrameAllocator frames;
  async::ScopedFrameAllocator use_frames;
  async::Executor executor;
  tls::testing::TestIdentity identity;
  tls::ServerContext plain;
  tls::ServerContext asking;
  net::TcpListener listener;
  mbedtls_ssl_config client12;
  mbedtls_ssl_config client13;
  // Baselines, taken after a warm-up (PSA Crypto's key store grows once).
  std::uint64_t tls_memory = 0;
  std::size_t tcp_connections = 0;
  std::size_t frames_in_use = 0;
};

// The server's echo after a handshake, as the HTTP server answers: read,
// then send, with try_write first when asked (two pieces, as a response's
// head and body: one record), then write() for what it did not take, piece
// by piece (the HTTP server's send_rest) or in one buffer. tls.h asks only
// that the next write begin with the bytes try_write did not take: a
// record Mbed TLS holds half-sent may span both pieces, and mbedtls_ssl_write,
// finishing it, answers with the length it is handed, so the stream must
// count the held record's bytes itself (an earlier TlsStream lost bytes
// here when the rest came joined; this fuzzer found that).
Task<void> echo(tls::Session& session, const Plan& plan, Exchange& x) noexcept {
  std::vector<std::byte> buffer(plan.read_size);
  const std::uint64_t idle = plan.end == End::kSilent ? kSilentNs : kHangNs;
  for (;;) {
    auto n = co_await async::with_timeout(session.read(buffer), idle);
    check(n.ok() || n.error() != Error::kTimedOut || plan.end == End::kSilent,
          "a read hung after the peer left");
    if (!n.ok() || *n == 0) break;
    check(*n <= buffer.size(), "a read within its buffer");
    const std::span<const std::byte> got(buffer.data(), *n);
    x.server_read.insert(x.server_read.end(), got.begin(), got.end());
    check(is_prefix(x.server_read, x.sent),
          "the server read bytes the peer never sent through TLS, or out of order");
    const std::size_t half = plan.try_write ? got.size() / 2 : got.size();
    std::span<const std::byte> pieces[] = {got.first(half), got.subspan(half)};
    std::size_t taken = 0;
    if (plan.try_write) {
      auto t = session.try_write(pieces, true);
      if (!t.ok()) break;
      check(*t <= got.size(), "try_write took at most what it was given");
      taken = *t;
    }
    bool failed = false;
    std::span<const std::byte> joined[] = {got.subspan(taken)};
    if (plan.join_rest) taken = 0;
    using Pieces = std::span<std::span<const std::byte>>;
    for (auto& piece : plan.join_rest ? Pieces(joined) : Pieces(pieces)) {
      const std::size_t skip = std::min(taken, piece.size());
      taken -= skip;
      piece = piece.subspan(skip);
      if (piece.empty()) continue;
      auto written = co_await async::with_timeout(session.write(piece, true), kHangNs);
      check(written.ok() || written.error() != Error::kTimedOut, "a write hung");
      if (!written.ok()) {
        failed = true;
        break;
      }
      check(*written == piece.size(), "write() sent all of it");
    }
    if (failed) break;
    // The peer's reader takes this before the next echo goes: a remote
    // client's own stack would, but here both ends share one lwIP, and a
    // burst of small records (a buffered record echoed a byte at a time)
    // would find net/tcp's unread-segment guard refusing them, each then
    // waiting out a retransmission timeout.
    (void)co_await let_others_run();
  }
  session.notify_close();
  co_return {};
}

Task<void> server(World& w, const Plan& plan, Exchange& x) noexcept {
  auto tcp = co_await async::with_timeout(w.listener.accept(), kHangNs);
  check(tcp.ok(), "the server accepts the peer");
  tls::ServerContext& context = plan.mode == Mode::kRawAsking ? w.asking : w.plain;
  auto opened = context.open(0, *tcp);
  check(opened.ok(), "a session opens (one at a time: the budget has room)");
  tls::Session& session = **opened;
  const bool silent = plan.raw() && plan.end == End::kSilent;
  auto done = co_await async::with_timeout(session.handshake(), silent ? kSilentNs : kHangNs);
  if (done.ok()) {
    x.handshake = Exchange::Handshake::kOk;
  } else if (done.error() == Error::kTimedOut) {
    x.handshake = Exchange::Handshake::kTimedOut;
    check(silent, "the handshake hung after the peer left");
  } else {
    x.handshake = Exchange::Handshake::kFailed;
  }
  x.server_shook.set();
  if (done.ok()) (void)co_await echo(session, plan, x);
  context.close(&session);
  // A failed handshake is reset, as the HTTP server does; a finished
  // session closes, so the echo and close_notify reach the peer.
  if (done.ok()) {
    (void)tcp->close();
  } else {
    tcp->abort();
  }
  co_return {};
}

// How a peer without TLS leaves, then whatever the server still says, read
// until it ends the connection.
Task<void> leave(net::TcpStream& tcp, End end) noexcept {
  switch (end) {
    case End::kReset:
      tcp.abort();
      co_return {};
    case End::kClose:
      co_return tcp.close();
    case End::kFin:
      (void)tcp.shutdown();
      break;
    case End::kSilent:
      break;
  }
  std::vector<std::byte> buffer(4096);
  for (;;) {
    auto n = co_await async::with_timeout(tcp.read(buffer), kHangNs);
    check(n.ok() || n.error() != Error::kTimedOut, "the server neither answered nor left");
    if (!n.ok() || *n == 0) break;
  }
  co_return tcp.close();
}

// Modes 0 and 1: the input's bytes, in pieces.
Task<void> raw_peer(const Plan& plan, Exchange& x) noexcept {
  auto tcp = co_await async::with_timeout(net::TcpStream::connect(server_endpoint()), kHangNs);
  check(tcp.ok(), "the peer connects");
  x.clean = false;
  std::span<const std::uint8_t> rest = plan.payload;
  for (std::size_t i = 0; !rest.empty(); ++i) {
    std::size_t n = i + 1 < kMaxPieces ? plan.pieces[i % 3] : 0;
    if (n == 0 || n > rest.size()) n = rest.size();
    auto written = co_await async::with_timeout(tcp->write(std::as_bytes(rest.first(n))), kHangNs);
    check(written.ok() || written.error() != Error::kTimedOut, "the peer's write hung");
    if (!written.ok()) break;  // the server has reset: it saw enough
    rest = rest.subspan(n);
    (void)co_await let_others_run();
  }
  co_return co_await leave(*tcp, plan.end);
}

// The TLS peer's reader: the echo as it comes, until the server ends. A
// client that read only at the end would have the server's small records
// refused once it held a window's worth of unread segments (net/tcp's
// guard), and each retransmitted after a timeout: seconds per input.
Task<void> read_echo(tls::TlsStream& session, Exchange& x) noexcept {
  std::vector<std::byte> buffer(4096);
  for (;;) {
    auto n = co_await async::with_timeout(session.read(buffer), kHangNs);
    check(n.ok() || n.error() != Error::kTimedOut, "the server neither answered nor left");
    if (!n.ok() || *n == 0) co_return {};
    x.peer_read.insert(x.peer_read.end(), buffer.begin(), buffer.begin() + *n);
  }
}

// Modes 2 and 3: a real client's handshake, then the operations.
Task<void> tls_peer(World& w, const Plan& plan, Exchange& x) noexcept {
  auto tcp = co_await async::with_timeout(net::TcpStream::connect(server_endpoint()), kHangNs);
  check(tcp.ok(), "the peer connects");
  tls::TlsStream session;
  check(session.start(*tcp, plan.mode == Mode::kAfterTls12 ? &w.client12 : &w.client13).ok(),
        "the peer's session starts");
  auto shook = co_await async::with_timeout(session.handshake(), kHangNs);
  check(shook.ok(), "a real client's handshake completes");
  auto server_shook = co_await async::with_timeout(x.server_shook.wait(), kHangNs);
  check(server_shook.ok(), "the server's handshake ends after the client's");
  async::Scope reader;
  check(reader.spawn(read_echo(session, x)).ok(), "the peer's reader starts");
  // The spans given to write() stay valid while later data is appended.
  x.sent.reserve(kMaxAppData);
  Cursor ops(plan.payload);
  while (!ops.empty()) {
    const std::uint8_t op = ops.u8();
    const std::size_t length = static_cast<std::size_t>(op >> 2) << 8 | ops.u8();
    if ((op & 3) == 0) {
      const auto bytes = ops.take(length);
      if (bytes.empty()) continue;
      x.clean = false;
      auto written = co_await async::with_timeout(tcp->write(std::as_bytes(bytes)), kHangNs);
      check(written.ok() || written.error() != Error::kTimedOut, "the peer's write hung");
      if (!written.ok()) break;
    } else if ((op & 3) == 1) {
      const std::size_t n = std::min(length, kMaxAppData - x.sent.size());
      if (n == 0) continue;
      const std::size_t at = x.sent.size();
      for (std::size_t i = 0; i < n; ++i) x.sent.push_back(static_cast<std::byte>(at + i));
      auto written = co_await async::with_timeout(
          session.write(std::span<const std::byte>(x.sent).subspan(at), true), kHangNs);
      check(written.ok() || written.error() != Error::kTimedOut, "the peer's write hung");
      if (!written.ok()) {
        x.clean = false;
        break;
      }
    } else if ((op & 3) == 2) {
      x.clean = false;
      session.notify_close();
    } else {
      (void)co_await let_others_run();
    }
  }
  switch (plan.end) {
    case End::kReset:
    case End::kClose:
      x.clean = false;
      reader.cancel();
      session.finish();
      if (plan.end == End::kReset) {
        tcp->abort();
        co_return {};
      }
      co_return tcp->close();
    case End::kFin:
      (void)tcp->shutdown();
      break;
    case End::kSilent:
      x.clean = false;
      break;
  }
  (void)co_await reader.join();
  session.finish();
  co_return tcp->close();
}

Task<void> run(World& w, const Plan& plan, Exchange& x) noexcept {
  async::Scope pump;
  check(pump.spawn(net::testing::pump()).ok(), "the loopback pump starts");
  {
    async::Scope sides;
    check(sides.spawn(server(w, plan, x)).ok(), "the server starts");
    check(sides.spawn(plan.raw() ? raw_peer(plan, x) : tls_peer(w, plan, x)).ok(),
          "the peer starts");
    auto joined = co_await sides.join();
    check(joined.ok(), "both sides end");
  }
  // The last RST or FIN reaches the other end before the pump stops.
  for (int i = 0; i < kMaxYields && net::testing::queued_packets() > 0; ++i) {
    co_await async::yield();
  }
  pump.cancel();
  co_return {};
}

std::uint64_t failures(const tls::TlsStats& s) {
  return s.alerts_sent + s.alerts_received + s.bad_records + s.no_memory + s.closed_early;
}

void run_input(World& w, std::span<const std::uint8_t> input) {
  const Plan plan = parse(input);
  const tls::TlsStats before = tls::tls_stats();
  Exchange x;
  tls::reset_tls_memory_peak();
  check(w.executor.block_on(run(w, plan, x)).ok(), "the input ran to its end");
  const tls::TlsStats& after = tls::tls_stats();

  if (plan.raw()) {
    // Only the server's TlsStream counted: exactly one verdict per handshake.
    check(after.handshakes == before.handshakes, "a peer without the keys completed a handshake");
    check(x.handshake != Exchange::Handshake::kOk, "a peer without the keys completed a handshake");
    const std::uint64_t counted = failures(after) - failures(before);
    if (x.handshake == Exchange::Handshake::kFailed) {
      check(counted == 1, "a failed handshake counted once, in one kind");
    } else {
      check(counted == 0, "a handshake past its deadline is the caller's to count");
    }
  } else {
    check(x.handshake == Exchange::Handshake::kOk,
          "the server completes a real client's handshake");
    if (x.clean) {
      check(x.server_read == x.sent, "the server read every byte the peer sent");
      check(x.peer_read == x.server_read, "the peer got every byte back");
    }
    check(is_prefix(x.peer_read, x.server_read), "the echo is what the server read, in order");
  }
  // mbedtls_port.h's stated bound per session, which the TLS budget is
  // sized by: a hostile peer must not push its session past it (the raw
  // modes hold one session; the others a client's too, as handshake_test
  // measures a pair).
  const std::uint64_t sessions = plan.raw() ? 1 : 2;
  check(tls::tls_memory_stats().peak - w.tls_memory <= sessions * tls::kSessionBytes,
        "a session within its stated bound (kSessionBytes)");
  check(after.sessions_in_use == 0, "TLS sessions back to none");
  check(tls::tls_memory_stats().in_use == w.tls_memory, "Mbed TLS memory back to its baseline");
  check(net::tcp_stats().connections_in_use == w.tcp_connections,
        "TCP connection slots back to their baseline");
  check(w.listener.pending() == 0, "no connection left waiting to be accepted");
  check(tcp_active_pcbs == nullptr, "no TCP connection left open in lwIP");
  check(w.frames.frames_in_use() == w.frames_in_use, "coroutine frames back to their baseline");
}

World* make_world() {
  auto* w = new World();
  // One connection of each kind first, so that what Mbed TLS allocates
  // once (PSA Crypto's key store) is in the baseline.
  const std::uint8_t tls12[] = {0x02, 0, 0, 0, 0x01, 0x10};
  const std::uint8_t tls13[] = {0x03, 0, 0, 0, 0x01, 0x10};
  const std::uint8_t raw[] = {0x00, 0, 0, 0, 0x16, 0x03, 0x01};
  for (std::span<const std::uint8_t> warm :
       {std::span<const std::uint8_t>(tls12), std::span<const std::uint8_t>(tls13),
        std::span<const std::uint8_t>(raw)}) {
    Exchange x;
    check(w->executor.block_on(run(*w, parse(warm), x)).ok(), "the warm-up ran");
  }
  w->tls_memory = tls::tls_memory_stats().in_use;
  w->tcp_connections = net::tcp_stats().connections_in_use;
  w->frames_in_use = w->frames.frames_in_use();
  return w;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static World* world = make_world();
  if (size < kHeaderBytes) return 0;
  run_input(*world, std::span(data, size));
  return 0;
}
