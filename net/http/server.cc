#include "net/http/server.h"

#include <algorithm>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

#include "kernel/async/deadline.h"
#include "kernel/async/event.h"
#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/timeout.h"
#include "kernel/text/writer.h"
#include "net/http/connection_stream.h"
#include "net/http/management.h"
#include "net/http/request_parser.h"
#include "net/http/response_head.h"
#include "net/tcp/handoff.h"
#include "net/tcp/idle_clock.h"
#include "net/tcp/tcp.h"
#include "net/tls/session.h"

namespace starling::net::http {
namespace {

using async::Task;

struct Slot {
  char head[kHeadBufferBytes];
  std::byte body[kBodyBytes];
  char response_head[kResponseHeadBytes];
  IpAddress peer;  // the holder: IpAddress::peer() (an IPv4 address, an IPv6 /64)
  bool used;
  bool handshaking;  // a TLS handshake in progress (its peer's turn taken)
};

Slot g_slots[kMaxSlots];
ServerStats g_stats;
bool g_serving = false;

// After a close is decided: what the client still sends is read and
// dropped for at most this long (or until its FIN), so lwIP closes with a
// FIN, not the RST that unread data makes, and the client reads the answer
// before it learns the connection is over (nginx's lingering close).
constexpr std::uint64_t kLingerNs = 2'000'000'000;
constexpr std::size_t kLingerBytes = 64 * 1024;

// A held slot; released when the connection's task ends, or when the task
// never started (the lease was its argument).
class SlotLease {
 public:
  explicit SlotLease(Slot* slot) noexcept : slot_(slot) {
    if (++g_stats.slots_in_use > g_stats.slots_high_water) {
      g_stats.slots_high_water = g_stats.slots_in_use;
    }
  }
  SlotLease(SlotLease&& other) noexcept : slot_(std::exchange(other.slot_, nullptr)) {}
  SlotLease(const SlotLease&) = delete;
  SlotLease& operator=(const SlotLease&) = delete;
  SlotLease& operator=(SlotLease&&) = delete;
  ~SlotLease() {
    if (slot_ != nullptr) {
      slot_->used = false;
      --g_stats.slots_in_use;
    }
  }
  Slot& slot() const noexcept { return *slot_; }

 private:
  Slot* slot_;
};

Slot* free_slot(std::size_t limit, const IpAddress& peer) {
  for (std::size_t i = 0; i < limit; ++i) {
    if (!g_slots[i].used) {
      g_slots[i].used = true;
      g_slots[i].handshaking = false;
      g_slots[i].peer = peer;
      return &g_slots[i];
    }
  }
  return nullptr;
}

// Slots `peer` holds now: a scan of the table, no bookkeeping of its own.
std::size_t slots_of(std::size_t limit, const IpAddress& peer) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < limit; ++i) {
    if (g_slots[i].used && g_slots[i].peer == peer) ++n;
  }
  return n;
}

// TLS handshakes `peer` has in progress now: a scan, as slots_of.
std::size_t handshakes_of(std::size_t limit, const IpAddress& peer) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < limit; ++i) {
    if (g_slots[i].used && g_slots[i].handshaking && g_slots[i].peer == peer) ++n;
  }
  return n;
}

// Set and reset whenever a handshake ends, waking the handshakes that wait
// for their peer's turn to look again.
async::Event g_handshake_ended;

// A slot's turn at a handshake, for its peer's count; given back when the
// handshake ends: done, failed, or cancelled at its deadline (the frame is
// destroyed, and this with it).
class HandshakeTurn {
 public:
  explicit HandshakeTurn(Slot& slot) noexcept : slot_(slot) { slot_.handshaking = true; }
  HandshakeTurn(const HandshakeTurn&) = delete;
  HandshakeTurn& operator=(const HandshakeTurn&) = delete;
  ~HandshakeTurn() {
    slot_.handshaking = false;
    g_handshake_ended.set();
    g_handshake_ended.reset();
  }

 private:
  Slot& slot_;
};

std::span<const std::byte> bytes_of(const char* data, std::size_t n) {
  return std::as_bytes(std::span<const char>(data, n));
}

void count(Status status) {
  ++g_stats.requests;
  ++g_stats.responses[status_index(status)];
}

template <typename Stream>
Task<void> linger_close(Stream& stream) {
  if (auto shut = stream.shutdown(); !shut.ok()) {
    stream.abort();
    co_return {};
  }
  async::Deadline deadline;
  deadline.set(async::deadline_after(kLingerNs));
  std::byte sink[512];
  std::size_t dropped = 0;
  while (dropped < kLingerBytes) {
    auto n = co_await deadline.bound(stream.read(sink));
    if (!n.ok() || *n == 0) break;
    dropped += *n;
  }
  co_return stream.close();
}

// Every slot held: 503 with Retry-After, then a lingering close. A task of
// its own (a frame, no slot) so the accept loop never waits on a client.
Task<void> refuse(StreamHandoff handoff, std::uint32_t retry_after_s) {
  TcpStream stream = handoff.take();
  Response r = status_response(Status::kServiceUnavailable);
  char seconds[12];
  text::TextWriter w(seconds);
  w.put_decimal(retry_after_s);
  r.add_header("Retry-After", std::string_view(seconds, w.size()));
  char head[256];
  const std::size_t n = render_head(r, {.keep_alive = false}, head);
  count(Status::kServiceUnavailable);
  auto queued = co_await async::with_timeout(stream.queue(bytes_of(head, n)), kLingerNs);
  auto written = co_await async::with_timeout(stream.write(r.body), kLingerNs);
  if (!queued.ok() || !written.ok()) {
    stream.abort();
    co_return {};
  }
  g_stats.bytes_sent += n + r.body.size();
  co_return co_await linger_close(stream);
}

class Connection {
 public:
  Connection(TcpStream stream, Slot& slot, const Router& router, const ServerConfig& config,
             bool secure_port)
      : stream_(std::move(stream)),
        slot_(slot),
        router_(router),
        config_(config),
        parser_(slot.head, slot.body),
        secure_port_(secure_port) {}

  Task<void> run();
  // TLS on the slot's session, the handshake under its deadline. False:
  // the connection is over (reset).
  Task<bool> secure();
  // The handshake when its peer has fewer than peer_handshakes in progress.
  Task<void> handshake_in_turn();

  enum class Read : std::uint8_t { kOk, kTimedOut, kEnd, kFailed };
  enum class Next : std::uint8_t { kKeepAlive, kClose, kReset };

 private:
  // A response rendered and counted, and what of it is still to be written.
  struct Outgoing {
    std::span<const std::byte> head;
    std::span<const std::byte> body;  // empty: none (HEAD, 204, 304, empty)
    std::size_t bytes = 0;            // head and body, for bytes_sent
    bool keep_alive = false;
  };

  Read received(const Result<std::size_t>& n);
  Outgoing prepare(Response& response, bool keep_alive);
  std::optional<Next> try_send(Outgoing& out);
  Task<Next> send_rest(Outgoing out);
  Task<Next> answer(Response response, bool keep_alive);
  Task<Next> refuse_request(Status status, bool body_pending);
  Task<Next> one_request(bool first);
  // 401 (with its challenge) or 403 for a management route, counted.
  Task<Next> refuse_management(const Admission& admission, bool body_pending);
  // 308 Permanent Redirect to the same target over https:// (the Host
  // header's name, the TLS port when it is not 443).
  Task<Next> redirect_to_https(bool body_pending);
  // More than three quarters of the slots held: kept-alive connections get
  // the shorter idle limit.
  bool slots_pressed() const noexcept {
    return net::table_pressed(g_stats.slots_in_use, config_.slots);
  }

  ConnectionStream stream_;
  Slot& slot_;
  const Router& router_;
  const ServerConfig& config_;
  RequestParser parser_;
  async::Deadline deadline_;
  std::uint32_t served_ = 0;
  bool secure_port_ = false;  // came on the TLS port: handshake first
};

// What one read into the parser's room (bounded by the armed deadline)
// means for the connection. A read that could not even start (no frame for
// it: kNoMemory) ends the connection. A plain function, not a coroutine of
// its own around the read: that was a frame per request.
Connection::Read Connection::received(const Result<std::size_t>& n) {
  if (!n.ok()) return n.error() == Error::kTimedOut ? Read::kTimedOut : Read::kFailed;
  if (*n == 0) return Read::kEnd;
  parser_.commit(*n);
  g_stats.bytes_received += *n;
  return Read::kOk;
}

// Renders a response's head into the slot (a head that does not fit is a
// 500 instead) and counts it; its body is sent unless HEAD or a body-less
// status.
Connection::Outgoing Connection::prepare(Response& response, bool keep_alive) {
  const Request& request = parser_.request();
  keep_alive = keep_alive && !response.close;
  HeadOptions options{.keep_alive = keep_alive,
                      .http10_keep_alive = keep_alive && request.version_minor == 0,
                      .hsts_max_age_s = stream_.secure() ? config_.hsts_max_age_s : 0,
                      .nosniff = stream_.secure()};
  std::size_t n = render_head(response, options, slot_.response_head);
  if (n == 0) {
    ++g_stats.handler_failures;  // its headers do not fit the head buffer
    response = status_response(Status::kInternalServerError);
    keep_alive = false;
    n = render_head(response, {.keep_alive = false}, slot_.response_head);
  }
  count(response.status);
  const bool send_body =
      request.method != Method::kHead && !has_no_body(response.status) && !response.body.empty();
  const auto head = bytes_of(slot_.response_head, n);
  const auto body = send_body ? response.body : std::span<const std::byte>{};
  return {.head = head, .body = body, .bytes = n + body.size(), .keep_alive = keep_alive};
}

// Head and body in one push, as far as the send buffer takes them now:
// the connection's next step, or nullopt with `out` left holding what must
// wait for room (send_rest). The usual response fits, and then no coroutine
// frame is made and the write deadline is never armed (it bounds only a
// wait, and there is none).
std::optional<Connection::Next> Connection::try_send(Outgoing& out) {
  const std::span<const std::byte> pieces[] = {out.head, out.body};
  const auto taken = stream_.try_write(pieces, true);
  if (!taken.ok()) return Next::kReset;
  const std::size_t n = *taken;
  const std::size_t from_head = std::min(n, out.head.size());
  out.head = out.head.subspan(from_head);
  out.body = out.body.subspan(n - from_head);
  if (!out.head.empty() || !out.body.empty()) return std::nullopt;
  g_stats.bytes_sent += out.bytes;
  return out.keep_alive ? Next::kKeepAlive : Next::kClose;
}

// The rest of a response the send buffer did not take at once, under the
// write deadline: the head's rest queued, then the body, one push. One
// co_await in a loop: each await of a bounded write is ~400 bytes of code.
Task<Connection::Next> Connection::send_rest(Outgoing out) {
  deadline_.set(async::deadline_after(config_.write_timeout_ns));
  for (const bool head : {true, false}) {
    const std::span<const std::byte> piece = head ? out.head : out.body;
    if (piece.empty()) continue;
    const bool push = !head || out.body.empty();
    const auto written =
        co_await deadline_.bound(push ? stream_.write(piece) : stream_.queue(piece));
    if (!written.ok()) {
      if (written.error() == Error::kTimedOut) ++g_stats.write_timeouts;
      co_return Next::kReset;
    }
  }
  g_stats.bytes_sent += out.bytes;
  co_return out.keep_alive ? Next::kKeepAlive : Next::kClose;
}

// Writes a response (the refusals' and the other rare answers' way; the
// handler's answer takes the same steps inline in one_request).
Task<Connection::Next> Connection::answer(Response response, bool keep_alive) {
  Outgoing out = prepare(response, keep_alive);
  if (const auto next = try_send(out)) co_return *next;
  co_return co_await send_rest(out);
}

// An answer the server gives itself (4xx, 5xx). body_pending: part of the
// request may still be on the wire, or its head never became whole; the
// connection then closes after the answer (it is out of step).
Task<Connection::Next> Connection::refuse_request(Status status, bool body_pending) {
  Response r = status_response(status);
  if (status == Status::kMethodNotAllowed) r.allow = router_.allowed(parser_.request().path);
  co_return co_await answer(std::move(r), !body_pending && parser_.request().keep_alive);
}

Task<Connection::Next> Connection::refuse_management(const Admission& admission,
                                                     bool body_pending) {
  Response r = status_response(admission.unauthorized ? Status::kUnauthorized : Status::kForbidden);
  if (admission.unauthorized) {
    ++g_stats.management_unauthorized;
    r.add_header("WWW-Authenticate", admission.challenge);
  } else {
    ++g_stats.management_forbidden;
  }
  co_return co_await answer(std::move(r), !body_pending && parser_.request().keep_alive);
}

Task<Connection::Next> Connection::redirect_to_https(bool body_pending) {
  const Request& request = parser_.request();
  std::string_view host = request.header("Host");
  // host[:port]: the name alone ([v6] kept whole).
  if (const auto colon = host.rfind(':');
      colon != std::string_view::npos && host.find(']', colon) == std::string_view::npos) {
    host = host.substr(0, colon);
  }
  if (host.empty()) co_return co_await refuse_request(Status::kBadRequest, body_pending);
  // The Location in the slot's body buffer (the request's body is not read).
  text::TextWriter w(std::span(reinterpret_cast<char*>(slot_.body), kBodyBytes));
  w.put("https://");
  w.put(host);
  if (config_.tls_port != 443) {
    w.put(":");
    w.put_decimal(config_.tls_port);
  }
  w.put(request.target.empty() || request.target[0] != '/' ? "/" : request.target);
  if (w.overflowed()) co_return co_await refuse_request(Status::kUriTooLong, body_pending);
  Response r = status_response(Status::kPermanentRedirect);
  r.add_header("Location", std::string_view(reinterpret_cast<const char*>(slot_.body), w.size()));
  ++g_stats.redirects;
  co_return co_await answer(std::move(r), !body_pending && request.keep_alive);
}

Task<bool> Connection::secure() {
  if (!stream_.start_tls(*config_.tls, static_cast<std::size_t>(&slot_ - g_slots)).ok()) {
    co_return false;
  }
  auto done = co_await async::with_timeout(handshake_in_turn(), config_.handshake_timeout_ns);
  if (!done.ok() && done.error() == Error::kTimedOut) {
    ++g_stats.handshake_timeouts;
    stream_.handshake_timed_out();
  }
  co_return done.ok();
}

Task<void> Connection::handshake_in_turn() {
  const std::size_t turns = config_.peer_handshakes;
  if (turns != 0 && handshakes_of(config_.slots, slot_.peer) >= turns) {
    ++g_stats.handshakes_waited;
    do {
      co_await g_handshake_ended.wait();
    } while (handshakes_of(config_.slots, slot_.peer) >= turns);
  }
  const HandshakeTurn turn(slot_);
  g_stats.peer_handshakes_peak = std::max<std::uint64_t>(g_stats.peer_handshakes_peak,
                                                         handshakes_of(config_.slots, slot_.peer));
  auto done = co_await stream_.handshake();
  if (!done.ok()) co_return Unexpected(done.error());
  co_return {};
}

Task<Connection::Next> Connection::one_request(bool first) {
  // The head: a first request's clock starts at the connection; a kept-alive
  // connection may be quiet (idle_timeout_ns) until its next request's
  // first byte starts the head's clock.
  bool head_clock = first || parser_.started();
  if (!first && parser_.pending_bytes() > 0) ++g_stats.pipelined;
  // Quiet between requests: the idle limit, shorter while the slots are
  // under pressure, looked at again every second (net/tcp/idle_clock.h).
  net::IdleClock idle(
      {.idle_ns = config_.idle_timeout_ns, .pressed_idle_ns = config_.pressed_idle_timeout_ns});
  deadline_.set(async::deadline_after(head_clock ? config_.head_timeout_ns
                                                 : idle.next_wait_ns(slots_pressed())));
  RequestParser::State state;
  // The head's deadline once its first byte came, armed only if the head
  // needs another read: a kept-alive request whose head comes in one
  // segment (the usual) then moves no timer for it.
  std::optional<std::uint64_t> head_due;
  while ((state = parser_.advance()) == RequestParser::State::kNeedMore) {
    if (head_due) deadline_.set(*std::exchange(head_due, std::nullopt));
    const Read r = received(co_await deadline_.bound(stream_.read(parser_.room())));
    if (r == Read::kTimedOut) {
      if (!head_clock) {
        if (const std::uint64_t wait = idle.next_wait_ns(slots_pressed()); wait > 0) {
          deadline_.set(async::deadline_after(wait));
          continue;
        }
        ++g_stats.idle_closes;
        if (idle.closed_under_pressure()) ++g_stats.pressed_idle_closes;
        co_return Next::kClose;
      }
      ++g_stats.head_timeouts;
      co_return co_await refuse_request(Status::kRequestTimeout, true);
    }
    if (r != Read::kOk) co_return r == Read::kEnd ? Next::kClose : Next::kReset;
    if (!head_clock) {
      head_clock = true;
      head_due = async::deadline_after(config_.head_timeout_ns);
    }
  }
  if (state == RequestParser::State::kError) {
    co_return co_await refuse_request(parser_.error_status(), true);
  }
  // The head is whole: route it before any body is read.
  Request& request = parser_.request();
  const bool body_coming = parser_.chunked() || parser_.declared_length() > 0;
  if (!body_coming) {
    parser_.set_body_limit(0);
    state = parser_.advance();  // the request is whole (its head was all of it)
    if (state != RequestParser::State::kComplete)
      co_return co_await refuse_request(
          state == RequestParser::State::kError ? parser_.error_status() : Status::kBadRequest,
          true);
  }
  if (parser_.unknown_expectation()) {
    co_return co_await refuse_request(Status::kExpectationFailed, body_coming);
  }
  if (config_.plain_redirects && config_.tls != nullptr && !stream_.secure()) {
    co_return co_await redirect_to_https(body_coming);
  }
  const RouteMatch match = router_.match(request.method, request.path);
  if (match.route == nullptr) {
    if (request.method == Method::kOptions && (match.allowed != 0 || request.target == "*")) {
      Response r;
      r.status = Status::kNoContent;
      r.allow = match.allowed != 0 ? match.allowed | method_bit(Method::kOptions) : kGetOrHead;
      co_return co_await answer(std::move(r), !body_coming && request.keep_alive);
    }
    co_return co_await refuse_request(match.status, body_coming);
  }
  if (match.route->management) {
    // Before any body is read: a stranger's request costs no more.
    const Admission admission = admit_management(
        request.header("Authorization"), config_.management_token, stream_.peer_certificate(),
        config_.tls != nullptr && config_.tls->verifies_clients());
    if (!admission.admitted) co_return co_await refuse_management(admission, body_coming);
    ++g_stats.management_admitted;
  }
  if (body_coming) {
    parser_.set_body_limit(match.route->max_body);
    if (parser_.advance() == RequestParser::State::kError) {
      co_return co_await refuse_request(parser_.error_status(), true);  // 413: declared too long
    }
  }
  if (parser_.expects_continue()) {
    static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    deadline_.set(async::deadline_after(config_.write_timeout_ns));
    auto w = co_await deadline_.bound(stream_.write(bytes_of(kContinue.data(), kContinue.size())));
    if (!w.ok()) co_return Next::kReset;
    ++g_stats.responses[status_index(Status::kContinue)];
    g_stats.bytes_sent += kContinue.size();
  }
  deadline_.set(async::deadline_after(config_.body_timeout_ns));
  while ((state = parser_.advance()) == RequestParser::State::kNeedMore) {
    const Read r = received(co_await deadline_.bound(stream_.read(parser_.room())));
    if (r == Read::kTimedOut) {
      ++g_stats.body_timeouts;
      co_return co_await refuse_request(Status::kRequestTimeout, true);
    }
    if (r != Read::kOk) co_return r == Read::kEnd ? Next::kClose : Next::kReset;
  }
  if (state == RequestParser::State::kError) {
    co_return co_await refuse_request(parser_.error_status(), true);
  }
  request.context = match.route->context;
  ++served_;
  auto response =
      co_await async::with_timeout(match.route->handler(request), config_.handler_timeout_ns);
  if (!response.ok()) {
    ++g_stats.handler_failures;
    // Out of time or memory is a moment (503, try again); anything else
    // is the handler's fault (500).
    const Error e = response.error();
    Response r = status_response(e == Error::kTimedOut || e == Error::kNoMemory
                                     ? Status::kServiceUnavailable
                                     : Status::kInternalServerError);
    co_return co_await answer(std::move(r), false);
  }
  // answer()'s steps, inline: its frame and two moves of the Response.
  Outgoing out = prepare(*response, request.keep_alive && served_ < config_.max_requests);
  if (const auto next = try_send(out)) co_return *next;
  co_return co_await send_rest(out);
}

Task<void> Connection::run() {
  if (secure_port_) {
    const auto ok = co_await secure();
    if (!ok.ok() || !*ok) {
      // A peer the handshake refused (a fatal alert sent) gets a FIN after
      // the alert, and what it still sends is read and dropped (the
      // lingering close): reset at once, a client still writing, as
      // sslscan writes its heartbeat record right after its ClientHello,
      // met the RST before it read the alert, and failed now and then
      // (//test/host_board:tls_clients_test). A deadline, memory, or a
      // peer that left: reset.
      if (ok.ok() && stream_.refused_peer()) {
        stream_.drop_tls();
        co_return co_await linger_close(stream_);
      }
      stream_.abort();
      co_return {};
    }
  }
  for (bool first = true;; first = false) {
    // A Task that could not get its frame is kNoMemory: reset, as a
    // connection without a frame is.
    const auto result = co_await one_request(first);
    const Next next = result.ok() ? *result : Next::kReset;
    if (next == Next::kReset) {
      stream_.abort();
      co_return {};
    }
    if (next == Next::kClose) co_return co_await linger_close(stream_);
    parser_.next_request();
  }
}

Task<void> serve_connection(StreamHandoff handoff, SlotLease lease, const Router& router,
                            const ServerConfig& config, bool secure_port) {
  Connection connection(handoff.take(), lease.slot(), router, config, secure_port);
  co_return co_await connection.run();
}

// Connections from one listener into the shared slots, until it fails.
// secure_port: TLS before HTTP. A TLS connection refused for want of a
// slot is reset: the 503 would need a handshake first.
Task<void> accept_loop(TcpListener& listener, const Router& router, const ServerConfig& config,
                       bool secure_port, async::Scope& connections) {
  for (;;) {
    auto stream = co_await listener.accept();
    if (!stream.ok() && stream.error() == Error::kNoMemory) {
      co_await async::sleep_for(async::kMillisecond);  // no frame for the accept: a moment
      continue;
    }
    if (!stream.ok()) co_return Unexpected(stream.error());
    ++g_stats.connections_accepted;
    if (secure_port) ++g_stats.tls_connections;
    const IpAddress peer = stream->peer().address.peer();
    StreamHandoff handoff(std::move(*stream), &g_stats.connections_reset);
    const bool peer_full = slots_of(config.slots, peer) >= config.peer_slots;
    Slot* slot = peer_full ? nullptr : free_slot(config.slots, peer);
    if (slot == nullptr) {
      ++g_stats.connections_refused;
      if (peer_full) ++g_stats.connections_refused_peer;
      if (secure_port) {
        handoff.take().abort();
      } else {
        (void)connections.spawn(refuse(std::move(handoff), config.retry_after_s));
      }
      continue;
    }
    (void)connections.spawn(
        serve_connection(std::move(handoff), SlotLease(slot), router, config, secure_port));
  }
}

// The one server's claim on the slots, given back however serve() ends.
struct Serving {
  Serving() { g_serving = true; }
  Serving(const Serving&) = delete;
  Serving& operator=(const Serving&) = delete;
  ~Serving() { g_serving = false; }
};

}  // namespace

const ServerStats& server_stats() noexcept {
  return g_stats;
}

Task<void> serve(const Router& router, ServerConfig config) noexcept {
  if (g_serving) co_return Unexpected(Error::kBusy);
  Serving serving;
  if (config.slots == 0 || config.slots > kMaxSlots) config.slots = kMaxSlots;
  if (config.peer_slots == kAutoPeerSlots) {
    config.peer_slots = config.slots > 2 ? (config.slots - 1) / 2 : 1;
  }
  g_stats.slots_total = config.slots;
  auto listener = TcpListener::listen(config.port, config.backlog);
  if (!listener.ok()) co_return Unexpected(listener.error());
  TcpListener secure_listener;
  if (config.tls != nullptr) {
    auto l = TcpListener::listen(config.tls_port, config.backlog);
    if (!l.ok()) co_return Unexpected(l.error());
    secure_listener = std::move(*l);
  }
  async::Scope connections;  // destroyed (every connection cancelled) when serve() is
  async::Scope secure_accepts;
  if (secure_listener.valid()) {
    if (!secure_accepts.spawn(accept_loop(secure_listener, router, config, true, connections))) {
      co_return Unexpected(Error::kNoMemory);
    }
  }
  co_return co_await accept_loop(*listener, router, config, false, connections);
}

}  // namespace starling::net::http
