// The utilisation service (TCP 1237) end to end over the loopback netif:
// a client speaks the exact lines of docs/benchmarks.md and checks every reply.
#include "net/ipbench/utilisation.h"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/timeout.h"
#include "net/tcp/tcp.h"
#include "net/tcp/tests/tcp_harness.h"

namespace starling::net::ipbench {
namespace {

using async::kMillisecond;
using async::Task;
using net::testing::kServer;
using net::testing::TcpTest;

// A sampler the test steers: returns `now`, counts calls.
struct FakeClock {
  Sample now{};
  std::uint64_t calls = 0;
};
Sample fake_sampler(void* context) noexcept {
  auto* clock = static_cast<FakeClock*>(context);
  ++clock->calls;
  return clock->now;
}

// A client: sends lines, reads replies line by line (or to EOF).
class Client {
 public:
  explicit Client(TcpStream s) : s_(std::move(s)) {}
  TcpStream& stream() { return s_; }

  Task<void> send(std::string_view text) {
    Result<std::size_t> w = co_await s_.write(std::as_bytes(std::span(text.data(), text.size())));
    if (!w) co_return Unexpected(w.error());
    co_return {};
  }
  // One line, '\n' included; kMalformed if the stream ends first.
  Task<std::string> line() {
    for (;;) {
      const std::size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string out = buf_.substr(0, nl + 1);
        buf_.erase(0, nl + 1);
        co_return out;
      }
      Result<std::size_t> n = co_await fill();
      if (!n) co_return Unexpected(n.error());
      if (*n == 0) co_return Unexpected(Error::kMalformed);
    }
  }
  // Everything up to EOF (what is buffered included).
  Task<std::string> rest() {
    for (;;) {
      Result<std::size_t> n = co_await fill();
      if (!n) co_return Unexpected(n.error());
      if (*n == 0) co_return std::exchange(buf_, std::string());
    }
  }

 private:
  Task<std::size_t> fill() {
    std::array<std::byte, 512> tmp;
    Result<std::size_t> n = co_await s_.read(tmp);
    if (!n) co_return Unexpected(n.error());
    buf_.append(reinterpret_cast<const char*>(tmp.data()), *n);
    co_return *n;
  }
  TcpStream s_;
  std::string buf_;
};

// Bounded wrappers: a hung server fails the test instead of the harness.
constexpr std::uint64_t kWait = 2000 * kMillisecond;

Task<Client> connect_client(std::uint16_t port) {
  Result<TcpStream> s = co_await async::with_timeout(TcpStream::connect(kServer(port)), kWait);
  if (!s) co_return Unexpected(s.error());
  co_return Client(std::move(*s));
}

// Sends `request`, expects exactly `reply` as the next line.
Task<void> expect_line(Client& c, std::string_view request, std::string_view reply) {
  Result<void> w = co_await c.send(request);
  EXPECT_TRUE(w.ok()) << request;
  if (!w) co_return w;
  Result<std::string> got = co_await async::with_timeout(c.line(), kWait);
  EXPECT_TRUE(got.ok()) << "no reply to " << request;
  if (!got) co_return Unexpected(got.error());
  EXPECT_EQ(*got, reply) << "reply to " << request;
  co_return {};
}

// Greeting, HELLO, LOAD, SETUP: every reply checked.
Task<void> handshake(Client& c) {
  Result<std::string> greeting = co_await async::with_timeout(c.line(), kWait);
  EXPECT_TRUE(greeting.ok());
  if (!greeting) co_return Unexpected(greeting.error());
  EXPECT_EQ(*greeting, "100 IPBENCH V1.0\n");
  if (!(co_await expect_line(c, "HELLO\n", "200 OK (Ready to go)\n")))
    co_return Unexpected(Error::kMalformed);
  if (!(co_await expect_line(c, "LOAD cpu_target_lukem\n", "200 OK\n")))
    co_return Unexpected(Error::kMalformed);
  if (!(co_await expect_line(c, "SETUP args::\"\"\n", "200 OK\n")))
    co_return Unexpected(Error::kMalformed);
  co_return {};
}

// Waits until the server has sampled (processed a read) after `calls`.
Task<void> wait_for_sample(const FakeClock& clock, std::uint64_t calls) {
  for (int i = 0; i < 200 && clock.calls == calls; ++i) co_await async::sleep_for(kMillisecond);
  EXPECT_GT(clock.calls, calls) << "server never processed the line";
  co_return {};
}

TEST_F(TcpTest, UtilisationFullSessionExactReplies) {
  auto body = []() -> Task<void> {
    Result<TcpListener> l = TcpListener::listen(1237, 4);
    EXPECT_TRUE(l.ok());
    if (!l) co_return Unexpected(l.error());
    FakeClock clock;
    async::Scope server;
    (void)server.spawn(serve_utilisation(*l, fake_sampler, &clock));

    Result<Client> c = co_await connect_client(1237);
    EXPECT_TRUE(c.ok());
    if (!c) co_return Unexpected(c.error());
    EXPECT_TRUE((co_await handshake(*c)).ok());
    clock.now = {100, 1000};
    std::uint64_t calls = clock.calls;
    EXPECT_TRUE((co_await c->send("START\n")).ok());
    (void)co_await wait_for_sample(clock, calls);  // START has no reply
    clock.now = {350, 2000};
    EXPECT_TRUE((co_await c->send("STOP\n")).ok());
    EXPECT_EQ((co_await async::with_timeout(c->line(), kWait)).value_or("?"),
              "220 VALID DATA (Data to follow)\n");
    EXPECT_EQ((co_await async::with_timeout(c->line(), kWait)).value_or("?"),
              "Content-length: 9\n");
    // The data, then the server closes.
    EXPECT_EQ((co_await async::with_timeout(c->rest(), kWait)).value_or("?"), ",250,1000");
    EXPECT_TRUE(c->stream().close().ok());

    // The next client is served (one at a time, not once): QUIT right after
    // the greeting closes with no reply.
    Result<Client> d = co_await connect_client(1237);
    EXPECT_TRUE(d.ok());
    if (!d) co_return Unexpected(d.error());
    EXPECT_EQ((co_await async::with_timeout(d->line(), kWait)).value_or("?"), "100 IPBENCH V1.0\n");
    EXPECT_TRUE((co_await d->send("QUIT\n")).ok());
    EXPECT_EQ((co_await async::with_timeout(d->rest(), kWait)).value_or("?"), "");
    EXPECT_TRUE(d->stream().close().ok());
    co_return {};
  };
  Result<void> r = run(body());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
}

TEST_F(TcpTest, UtilisationOneClientAtATimeAndQuitMidSession) {
  auto body = []() -> Task<void> {
    Result<TcpListener> l = TcpListener::listen(7201, 4);
    if (!l) co_return Unexpected(l.error());
    FakeClock clock;
    async::Scope server;
    (void)server.spawn(serve_utilisation(*l, fake_sampler, &clock));

    Result<Client> a = co_await connect_client(7201);
    if (!a) co_return Unexpected(a.error());
    EXPECT_TRUE((co_await handshake(*a)).ok());
    // A second client connects (the listener's backlog takes it) but is not
    // served while the first one is: no greeting yet.
    Result<Client> b = co_await connect_client(7201);
    if (!b) co_return Unexpected(b.error());
    Result<std::string> early = co_await async::with_timeout(b->line(), 50 * kMillisecond);
    EXPECT_EQ(early.error(), Error::kTimedOut);
    // The first quits mid-session: no reply, the server closes.
    EXPECT_TRUE((co_await a->send("START\n")).ok());
    EXPECT_TRUE((co_await a->send("QUIT\n")).ok());
    EXPECT_EQ((co_await async::with_timeout(a->rest(), kWait)).value_or("?"), "");
    EXPECT_TRUE(a->stream().close().ok());
    // Now the second is served, start to finish, in one batch of lines.
    EXPECT_TRUE((co_await handshake(*b)).ok());
    EXPECT_TRUE((co_await b->send("START\nSTOP\n")).ok());
    EXPECT_EQ((co_await async::with_timeout(b->rest(), kWait)).value_or("?"),
              "220 VALID DATA (Data to follow)\nContent-length: 4\n,0,0");
    EXPECT_TRUE(b->stream().close().ok());
    co_return {};
  };
  Result<void> r = run(body());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
}

// Idle holders give way (issue 27): a client that says nothing between
// commands is closed after the command timeout and the next one in the
// backlog is served; a measuring client (after START) keeps the longer one.
TEST_F(TcpTest, UtilisationSilentClientGivesWayMeasuringClientDoesNot) {
  const UtilisationStats before = utilisation_stats();
  auto body = []() -> Task<void> {
    Result<TcpListener> l = TcpListener::listen(7203, 4);
    if (!l) co_return Unexpected(l.error());
    FakeClock clock;
    async::Scope server;
    (void)server.spawn(
        serve_utilisation(*l, fake_sampler, &clock, kDefaultIdleTimeoutNs, 100 * kMillisecond));
    Result<Client> a = co_await connect_client(7203);
    if (!a) co_return Unexpected(a.error());
    EXPECT_EQ((co_await async::with_timeout(a->line(), kWait)).value_or("?"), "100 IPBENCH V1.0\n");
    // a says nothing; b waits in the backlog and is served once a is closed.
    Result<Client> b = co_await connect_client(7203);
    if (!b) co_return Unexpected(b.error());
    EXPECT_TRUE((co_await handshake(*b)).ok());  // its greeting comes once a is gone
    EXPECT_EQ((co_await async::with_timeout(a->rest(), kWait)).value_or("?"), "");
    EXPECT_TRUE(a->stream().close().ok());
    // b measures: quiet three times the command timeout between START and STOP.
    EXPECT_TRUE((co_await b->send("START\n")).ok());
    co_await async::sleep_for(300 * kMillisecond);
    EXPECT_TRUE((co_await b->send("STOP\n")).ok());
    EXPECT_EQ((co_await async::with_timeout(b->line(), kWait)).value_or("?"),
              "220 VALID DATA (Data to follow)\n");
    EXPECT_TRUE(b->stream().close().ok());
    co_return {};
  };
  Result<void> r = run(body());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
  EXPECT_EQ(utilisation_stats().command_timeouts, before.command_timeouts + 1);
  EXPECT_EQ(utilisation_stats().idle_timeouts, before.idle_timeouts);
}

TEST_F(TcpTest, UtilisationBadCommandIsAnErrorThenClose) {
  auto body = []() -> Task<void> {
    Result<TcpListener> l = TcpListener::listen(7202, 4);
    if (!l) co_return Unexpected(l.error());
    async::Scope server;
    (void)server.spawn(serve_utilisation(*l));  // the real executor sampler
    Result<Client> c = co_await connect_client(7202);
    if (!c) co_return Unexpected(c.error());
    EXPECT_EQ((co_await async::with_timeout(c->line(), kWait)).value_or("?"), "100 IPBENCH V1.0\n");
    EXPECT_TRUE((co_await c->send("START\n")).ok());
    EXPECT_EQ((co_await async::with_timeout(c->rest(), kWait)).value_or("?"),
              "400 ERROR (expected HELLO)\n");
    EXPECT_TRUE(c->stream().close().ok());
    // The service goes on: a full session on the executor's real counters.
    Result<Client> d = co_await connect_client(7202);
    if (!d) co_return Unexpected(d.error());
    EXPECT_TRUE((co_await handshake(*d)).ok());
    EXPECT_TRUE((co_await d->send("START\n")).ok());
    co_await async::sleep_for(20 * kMillisecond);  // the executor idles meanwhile
    EXPECT_TRUE((co_await d->send("STOP\n")).ok());
    EXPECT_EQ((co_await async::with_timeout(d->line(), kWait)).value_or("?"),
              "220 VALID DATA (Data to follow)\n");
    Result<std::string> header = co_await async::with_timeout(d->line(), kWait);
    Result<std::string> data = co_await async::with_timeout(d->rest(), kWait);
    EXPECT_TRUE(header.ok() && data.ok());
    if (!header || !data) co_return Unexpected(Error::kMalformed);
    EXPECT_EQ(*header, "Content-length: " + std::to_string(data->size()) + "\n");
    unsigned long long idle = 0;
    unsigned long long total = 0;
    EXPECT_EQ(std::sscanf(data->c_str(), ",%llu,%llu", &idle, &total), 2) << *data;
    EXPECT_GT(total, 0u);
    EXPECT_LE(idle, total);
    EXPECT_TRUE(d->stream().close().ok());
    co_return {};
  };
  Result<void> r = run(body());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
}

}  // namespace
}  // namespace starling::net::ipbench
