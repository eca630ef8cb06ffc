// net/sntp: the command line's sntp= and sntp.poll_s=, and lwIP's SNTP
// client (with patch 0019) against answers built by hand on a netif over
// FakeNic: what it takes, what it refuses and counts, and the wall clock
// it sets. A real server (chrony) is //test/http:sntp_qemu_test's.
#include "net/sntp/sntp.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "kernel/async/sleep.h"
#include "kernel/wall_clock/wall_clock.h"
#include "lwip/dhcp.h"
#include "net/netif/test_frames.h"
#include "net/netif/test_rig.h"

namespace starling::net {
namespace {

using namespace testing;  // NOLINT: the frame builders and the rig

TEST(SntpBootargs, ServersDhcpOffAndPoll) {
  SntpConfig c;
  text::Line<200> why;
  EXPECT_TRUE(parse_sntp_bootargs("ip=dhcp", c, why));
  EXPECT_EQ(c.mode, SntpConfig::Mode::kDhcp);
  EXPECT_EQ(c.poll_seconds, kSntpDefaultPollSeconds);
  EXPECT_TRUE(parse_sntp_bootargs("sntp=10.0.2.2,2001:db8::123 sntp.poll_s=60", c, why));
  EXPECT_EQ(c.mode, SntpConfig::Mode::kServers);
  ASSERT_EQ(c.server_count, 2u);
  EXPECT_EQ(c.servers[0], IpAddress::v4(0x0A000202));
  EXPECT_TRUE(c.servers[1].is_v6());
  EXPECT_EQ(c.poll_seconds, 60u);
  EXPECT_TRUE(parse_sntp_bootargs("sntp=off", c, why));
  EXPECT_EQ(c.mode, SntpConfig::Mode::kOff);
  EXPECT_TRUE(why.view().empty());
}

TEST(SntpBootargs, RefusedWholeWithTheFix) {
  struct Case {
    const char* bootargs;
    const char* says;
  };
  for (const Case& k :
       {Case{"sntp=10.0.2.300", "sntp=10.0.2.300: not an IPv4 or IPv6 address"},
        Case{"sntp=1.1.1.1,2.2.2.2,3.3.3.3", "more than two servers"},
        Case{"sntp=1.1.1.1 sntp=2.2.2.2", "given twice"}, Case{"sntp.poll_s=5", "sntp.poll_s=5"}}) {
    SntpConfig c;
    text::Line<200> why;
    EXPECT_FALSE(parse_sntp_bootargs(k.bootargs, c, why)) << k.bootargs;
    EXPECT_NE(std::string(why.view()).find(k.says), std::string::npos) << why.view();
    EXPECT_NE(std::string(why.view()).find("fix:"), std::string::npos) << why.view();
    EXPECT_EQ(c.server_count, 0u) << k.bootargs;
  }
}

TEST(NtpTime, RoundTripsThroughLwipsEraArithmetic) {
  // 2026-12-06T12:00:00.25Z: NTP era 0, so a negative offset from era 1.
  const std::int64_t t = 1'796'558'400LL * 1'000'000'000 + 250'000'000;
  const NtpTime n = to_ntp(t);
  EXPECT_LT(n.seconds, 0);
  EXPECT_EQ(n.fraction, 0x40000000u);
  EXPECT_EQ(from_ntp(n), t);
  EXPECT_EQ(static_cast<std::uint32_t>(n.seconds), 4'005'547'200u);  // seconds since 1900
}

// The last SNTP request we sent to the peer (UDP to port 123), if any: its
// source port and transmit timestamp.
struct Request {
  std::uint16_t port = 0;
  Bytes transmit;
};
std::optional<Request> last_request() {
  std::optional<Request> found;
  for (const Bytes& f : NetifTestRig::nic().sent) {
    if (f.size() < 90 || f[23] != std::byte{17} || get16(f, 36) != 123) continue;
    found = Request{.port = get16(f, 34), .transmit = Bytes(f.begin() + 82, f.begin() + 90)};
  }
  return found;
}

struct Answer {
  std::uint8_t leap = 0;
  std::uint8_t stratum = 2;
  bool wrong_origin = false;
  std::int64_t unix_ns = 0;
};
Bytes answer(const Request& request, const Answer& a) {
  Bytes m(48);
  m[0] = std::byte(static_cast<std::uint8_t>(a.leap << 6 | 4 << 3 | 4));
  m[1] = std::byte(a.stratum);
  for (int i = 0; i < 8; ++i) m[24 + i] = request.transmit[i];
  if (a.wrong_origin) m[31] ^= std::byte{1};
  const NtpTime t = to_ntp(a.unix_ns);
  for (std::size_t at : {32u, 40u}) {
    put32(m, at, static_cast<std::uint32_t>(t.seconds));
    put32(m, at + 4, t.fraction);
  }
  return udp_frame(123, request.port, m);
}

class SntpClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    wall_clock::reset_for_testing();
    reset_sntp_stats_for_testing();
  }
  void TearDown() override {
    stop_sntp();
    wall_clock::reset_for_testing();
  }
  NetifTestRig rig_;
};

constexpr std::int64_t kServerTime = 1'796'558'400LL * 1'000'000'000;  // 2026-12-06T12:00Z

// Start (again) against the peer and return its request.
async::Task<Request> poll_the_peer() {
  stop_sntp();
  NetifTestRig::nic().sent.clear();
  SntpConfig c;
  c.mode = SntpConfig::Mode::kServers;
  c.servers[0] = IpAddress::v4(kPeerIp);
  c.server_count = 1;
  c.poll_seconds = 15;
  configure_sntp(c);
  start_sntp(c);
  (void)co_await NetifTestRig::settle();
  auto r = last_request();
  if (!r) co_return Unexpected(Error::kNotFound);
  co_return *r;
}

TEST_F(SntpClientTest, RefusesWhatRfc4330RefusesThenTakesTheTime) {
  Result<void> r = rig_.run([]() -> async::Task<void> {
    auto request = co_await poll_the_peer();
    EXPECT_TRUE(request.ok());
    if (!request.ok()) co_return {};
    // Each refused, and the client goes on waiting for a good answer.
    (void)co_await NetifTestRig::deliver(answer(*request, {.leap = 3, .unix_ns = kServerTime}));
    (void)co_await NetifTestRig::deliver(answer(*request, {.stratum = 16, .unix_ns = kServerTime}));
    (void)co_await NetifTestRig::deliver(
        answer(*request, {.wrong_origin = true, .unix_ns = kServerTime}));
    EXPECT_FALSE(wall_clock::is_set());
    EXPECT_EQ(sntp_stats().refused_unsynchronised, 1u);
    EXPECT_EQ(sntp_stats().refused_stratum, 1u);
    EXPECT_EQ(sntp_stats().refused_origin, 1u);
    (void)co_await NetifTestRig::deliver(answer(*request, {.unix_ns = kServerTime}));
    EXPECT_TRUE(wall_clock::is_set());
    EXPECT_EQ(wall_clock::stats().sets, 1u);
    // The server's time plus half the round trip: milliseconds here.
    const auto now = wall_clock::now_unix_ns();
    EXPECT_TRUE(now.has_value());
    if (now) {
      EXPECT_GE(*now, kServerTime);
      EXPECT_LT(*now, kServerTime + 1'000'000'000);
    }
    co_return {};
  }());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
}

TEST_F(SntpClientTest, RefusesATimeBeforeTheFloorAndStepsBack) {
  Result<void> r = rig_.run([]() -> async::Task<void> {
    auto request = co_await poll_the_peer();
    EXPECT_TRUE(request.ok());
    if (!request.ok()) co_return {};
    (void)co_await NetifTestRig::deliver(answer(*request, {.unix_ns = kServerTime}));
    EXPECT_TRUE(wall_clock::is_set());
    // 1990: refused, the clock keeps its time.
    request = co_await poll_the_peer();
    EXPECT_TRUE(request.ok());
    if (!request.ok()) co_return {};
    (void)co_await NetifTestRig::deliver(
        answer(*request, {.unix_ns = 631'152'000LL * 1'000'000'000}));
    EXPECT_EQ(wall_clock::stats().refused_floor, 1u);
    EXPECT_GE(wall_clock::now_unix_ns().value_or(0), kServerTime);
    // An hour back: taken, and counted.
    request = co_await poll_the_peer();
    EXPECT_TRUE(request.ok());
    if (!request.ok()) co_return {};
    (void)co_await NetifTestRig::deliver(
        answer(*request, {.unix_ns = kServerTime - 3'600LL * 1'000'000'000}));
    EXPECT_EQ(wall_clock::stats().steps_back, 1u);
    EXPECT_LT(wall_clock::now_unix_ns().value_or(kServerTime), kServerTime);
    EXPECT_GT(wall_clock::stats().last_step_abs_ns, 3'599ULL * 1'000'000'000);
    co_return {};
  }());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
}

// Patch 0020: with sntp=dhcp the client starts with no server; the server
// DHCP (option 42) names is polled at once, not when the retry timer, backed
// off meanwhile, next fires; the same servers again (a renewal) poll nothing.
TEST_F(SntpClientTest, AServerFromDhcpIsPolledAtOnce) {
  Result<void> r = rig_.run([]() -> async::Task<void> {
    stop_sntp();
    SntpConfig c;  // Mode::kDhcp
    configure_sntp(c);
    start_sntp(c);
    NetifTestRig::nic().sent.clear();
    (void)co_await NetifTestRig::settle();
    EXPECT_FALSE(last_request().has_value()) << "a request with no server";
    ip4_addr_t server;
    ip4_addr_set_u32(&server, lwip_htonl(kPeerIp));
    dhcp_set_ntp_servers(1, &server);
    (void)co_await NetifTestRig::settle();
    auto request = last_request();
    EXPECT_TRUE(request.has_value()) << "DHCP's server was not polled at once";
    NetifTestRig::nic().sent.clear();
    dhcp_set_ntp_servers(1, &server);
    (void)co_await NetifTestRig::settle();
    EXPECT_FALSE(last_request().has_value()) << "the same server again polled again";
    if (request) {
      (void)co_await NetifTestRig::deliver(answer(*request, {.unix_ns = kServerTime}));
      EXPECT_TRUE(wall_clock::is_set());
    }
    co_return {};
  }());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
}

// Patch 0020: a request that cannot be sent (here an IPv6 server, and the
// rig's netif has no IPv6 route to it) is tried again a second later and
// counted, not left to the 15 s receive timeout.
TEST_F(SntpClientTest, ARequestThatCannotBeSentIsTriedAgainInASecond) {
  Result<void> r = rig_.run([]() -> async::Task<void> {
    stop_sntp();
    SntpConfig c;
    c.mode = SntpConfig::Mode::kServers;
    c.servers[0] = *parse_ip("2001:db8:77::123");
    c.server_count = 1;
    configure_sntp(c);
    start_sntp(c);
    (void)co_await NetifTestRig::settle();
    EXPECT_EQ(sntp_stats().unsent, 1u);
    co_await async::sleep_for(1'200 * async::kMillisecond);
    EXPECT_EQ(sntp_stats().unsent, 2u) << "not tried again within 1.2 s";
    stop_sntp();
    co_return {};
  }());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
}

}  // namespace
}  // namespace starling::net
