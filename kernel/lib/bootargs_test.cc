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

constexpr NumberParam kShare{.key = "starling.x_share",
                             .low = 1,
                             .high = 128,
                             .fallback = 63,
                             .off = true,
                             .help = "connections one peer may hold"};

TEST(NumberParam, TakesANumberInRangeOrOffAndRefusesTheRestWithTheFix) {
  text::Line<160> why;
  auto r = read_number_param("ip=dhcp", kShare, why);
  EXPECT_FALSE(r.found);
  EXPECT_EQ(r.value, 63u);
  r = read_number_param("starling.x_share=7", kShare, why);
  EXPECT_TRUE(r.found && !r.refused);
  EXPECT_EQ(r.value, 7u);
  r = read_number_param("starling.x_share=off", kShare, why);
  EXPECT_EQ(r.value, 0u);
  EXPECT_TRUE(why.view().empty());

  r = read_number_param("starling.x_share=129", kShare, why);
  EXPECT_TRUE(r.refused);
  EXPECT_EQ(r.value, 63u);
  EXPECT_EQ(why.view(), "starling.x_share=129: not 1 to 128 or off; fix: starling.x_share=63");

  text::Line<160> twice;
  r = read_number_param("starling.x_share=2 starling.x_share=3", kShare, twice);
  EXPECT_TRUE(r.refused);
  EXPECT_EQ(r.value, 63u);
  EXPECT_EQ(twice.view(), "starling.x_share=: given twice; fix: starling.x_share=63");

  constexpr NumberParam kNoOff{
      .key = "k", .low = 0, .high = 5, .fallback = 2, .off = false, .help = "a test"};
  text::Line<160> no_off;
  r = read_number_param("k=off", kNoOff, no_off);
  EXPECT_TRUE(r.refused);
  EXPECT_EQ(no_off.view(), "k=off: not 0 to 5; fix: k=2");
}

}  // namespace
}  // namespace starling
