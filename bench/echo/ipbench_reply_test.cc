#include "bench/echo/ipbench_reply.h"

#include <gtest/gtest.h>

namespace starling::bench {
namespace {

TEST(IpbenchReply, Codes) {
  EXPECT_TRUE(reply_has_code("100 IPBENCH V1.0", "100"));
  EXPECT_TRUE(reply_has_code("200 OK (Ready to go)", "200"));
  EXPECT_TRUE(reply_has_code("200", "200"));
  EXPECT_FALSE(reply_has_code("2000 OK", "200"));
  EXPECT_FALSE(reply_has_code("400 expected HELLO", "200"));
  EXPECT_FALSE(reply_has_code("", "200"));
}

TEST(IpbenchReply, StopReply) {
  const auto u =
      parse_stop_reply("220 VALID DATA (Data to follow)\nContent-length: 11\n,1234,56789");
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->idle_cycles, 1234u);
  EXPECT_EQ(u->total_cycles, 56789u);
  // CRLF lines and a trailing newline after the body are tolerated.
  EXPECT_TRUE(parse_stop_reply("220 VALID DATA\r\nContent-length: 4\r\n,1,2\n").has_value());
}

TEST(IpbenchReply, StopReplyRejectsWhatIsWrong) {
  EXPECT_FALSE(parse_stop_reply("").has_value());
  EXPECT_FALSE(parse_stop_reply("400 expected STOP\n").has_value());
  // Length disagrees with the body (cut short by a close).
  EXPECT_FALSE(parse_stop_reply("220 VALID DATA\nContent-length: 11\n,1234,567").has_value());
  EXPECT_FALSE(parse_stop_reply("220 VALID DATA\nContent-length: x\n,1,2").has_value());
  EXPECT_FALSE(parse_stop_reply("220 VALID DATA\nContent-length: 4\n1,2,").has_value());
  EXPECT_FALSE(parse_stop_reply("220 VALID DATA\nContent-length: 5\n,1,-2").has_value());
  EXPECT_FALSE(parse_stop_reply("220 VALID DATA\nContent-length: 3\n,12").has_value());
  // More idle than total cycles cannot be.
  EXPECT_FALSE(parse_stop_reply("220 VALID DATA\nContent-length: 4\n,9,1").has_value());
}

}  // namespace
}  // namespace starling::bench
