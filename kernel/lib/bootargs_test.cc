#include "kernel/lib/bootargs.h"

#include <cstdint>
#include <string_view>

#include "gtest/gtest.h"

namespace starling {
namespace {

TEST(BootargValue, FindsTheFirstTokenByKey) {
  const std::string_view args = "ip=dhcp starling.stats_from=10.0.0.0/8 starling.stats=x";
  auto v = bootarg_value(args, "starling.stats_from");
  EXPECT_TRUE(v.found);
  EXPECT_EQ(v.value, "10.0.0.0/8");
  EXPECT_EQ(bootarg_value(args, "ip").value, "dhcp");
  EXPECT_FALSE(bootarg_value(args, "starling.stats_fro").found);  // a prefix is not the key
  EXPECT_FALSE(bootarg_value(args, "starling").found);
  EXPECT_FALSE(bootarg_value("", "ip").found);
  EXPECT_TRUE(bootarg_value("k=", "k").found);
}

TEST(BootargValue, SaysWhenAKeyIsRepeated) {
  const auto v =
      bootarg_value("starling.stall_ms=5 ip=dhcp starling.stall_ms=7", "starling.stall_ms");
  EXPECT_TRUE(v.found);
  EXPECT_TRUE(v.repeated);
  EXPECT_FALSE(bootarg_value("starling.stall_ms=5", "starling.stall_ms").repeated);
}

TEST(ParseBootargNumber, TakesWholeNumbersInRangeOnly) {
  std::uint64_t v = 99;
  EXPECT_TRUE(parse_bootarg_number("0", 0, 10, &v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(parse_bootarg_number("10", 0, 10, &v));
  EXPECT_EQ(v, 10u);
  for (std::string_view bad :
       {"", "11", "-1", "+1", " 1", "1 ", "1ms", "0x5", "99999999999999999999"}) {
    v = 42;
    EXPECT_FALSE(parse_bootarg_number(bad, 0, 10, &v)) << bad;
    EXPECT_EQ(v, 42u) << bad;
  }
  EXPECT_FALSE(parse_bootarg_number("0", 1, 10, &v));
}

}  // namespace
}  // namespace starling
