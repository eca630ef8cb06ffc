#include <gtest/gtest.h>

#include <string>

#include "net/ipbench/protocol.h"

namespace starling::net::ipbench {
namespace {

TEST(UtilisationProtocol, FullSessionExactReplies) {
  UtilisationProtocol p;
  EXPECT_EQ(UtilisationProtocol::kGreeting, "100 IPBENCH V1.0\n");
  auto o = p.feed("HELLO\n", {});
  EXPECT_EQ(o.reply, "200 OK (Ready to go)\n");
  EXPECT_FALSE(o.close);
  EXPECT_EQ(p.feed("LOAD cpu_target_lukem\n", {}).reply, "200 OK\n");
  EXPECT_EQ(p.feed("SETUP args::\"\"\n", {}).reply, "200 OK\n");
  o = p.feed("START\n", {100, 1000});
  EXPECT_EQ(o.reply, "");
  EXPECT_FALSE(o.close);
  o = p.feed("STOP\n", {350, 2000});
  EXPECT_EQ(o.reply, "220 VALID DATA (Data to follow)\nContent-length: 9\n,250,1000");
  EXPECT_TRUE(o.close);
  EXPECT_TRUE(p.closed());
}

TEST(UtilisationProtocol, SplitAndBatchedInputWithCrLf) {
  UtilisationProtocol p;
  EXPECT_EQ(p.feed("HEL", {}).reply, "");
  EXPECT_EQ(p.feed("LO\r\nLOAD cpu_target_lukem\n", {}).reply, "200 OK (Ready to go)\n200 OK\n");
}

TEST(UtilisationProtocol, QuitAtAnyPoint) {
  for (int at = 0; at < 5; ++at) {
    UtilisationProtocol p;
    const char* steps[] = {"HELLO\n", "LOAD cpu_target_lukem\n", "SETUP args::\"\"\n", "START\n"};
    for (int i = 0; i < at && i < 4; ++i) (void)p.feed(steps[i], {});
    auto o = p.feed("QUIT\n", {});
    EXPECT_EQ(o.reply, "");
    EXPECT_TRUE(o.close);
  }
}

TEST(UtilisationProtocol, BadOrderAndGarbageAreErrors) {
  UtilisationProtocol a;
  auto o = a.feed("START\n", {});
  EXPECT_EQ(o.reply, "400 ERROR (expected HELLO)\n");
  EXPECT_TRUE(o.close);
  UtilisationProtocol b;
  (void)b.feed("HELLO\n", {});
  o = b.feed("LOAD something_else\n", {});
  EXPECT_EQ(o.reply, "400 ERROR (expected LOAD cpu_target_lukem)\n");
  UtilisationProtocol c;
  o = c.feed(std::string("\x01\xff garbage\n"), {});
  EXPECT_TRUE(o.close);
  EXPECT_EQ(o.reply, "400 ERROR (expected HELLO)\n");
}

TEST(UtilisationProtocol, OverlongLineIsRejected) {
  UtilisationProtocol p;
  std::string longline(UtilisationProtocol::kMaxLine + 1, 'A');
  auto o = p.feed(longline, {});
  EXPECT_EQ(o.reply, "400 ERROR (line too long)\n");
  EXPECT_TRUE(o.close);
}

}  // namespace
}  // namespace starling::net::ipbench
