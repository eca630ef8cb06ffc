#include "platform/host/boot_options.h"

#include <gtest/gtest.h>

#include <vector>

namespace starling::host {
namespace {

struct Parsed {
  bool ok;
  BootOptions options;
  std::string error;
};

Parsed parse(std::vector<const char*> args) {
  Parsed parsed{};
  parsed.ok = parse_boot_options(args, &parsed.options, &parsed.error);
  return parsed;
}

TEST(BootOptions, DefaultsWithoutArguments) {
  const auto p = parse({});
  ASSERT_TRUE(p.ok);
  EXPECT_TRUE(p.options.tap.empty());
  EXPECT_EQ(p.options.bootargs, "");
  EXPECT_EQ(p.options.memory_bytes, std::size_t{64} << 20);
  EXPECT_EQ(p.options.mac, (hal::MacAddress{{0x02, 0x53, 0x54, 0x00, 0x00, 0x01}}));
}

TEST(BootOptions, TapMacIpBootargsMemory) {
  const auto p = parse({"--tap=st0", "--mac=02:AA:bb:0c:0D:ff", "--ip=10.0.2.15/24,gw=10.0.2.2",
                        "--bootargs=quiet", "--memory-mib=16"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.options.tap, "st0");
  EXPECT_EQ(p.options.mac, (hal::MacAddress{{0x02, 0xAA, 0xBB, 0x0C, 0x0D, 0xFF}}));
  EXPECT_EQ(p.options.bootargs, "ip=10.0.2.15/24,gw=10.0.2.2 quiet");
  EXPECT_EQ(p.options.memory_bytes, std::size_t{16} << 20);
}

TEST(BootOptions, HelpIsNotAnError) {
  const auto p = parse({"--help"});
  ASSERT_TRUE(p.ok);
  EXPECT_TRUE(p.options.help);
}

TEST(BootOptions, BadArgumentsNameTheArgumentAndTheFix) {
  struct Case {
    const char* arg;
    const char* says;
  } cases[] = {
      {"--tap=", "1 to 15 characters"},
      {"--tap=a-very-long-interface", "1 to 15 characters"},
      {"--mac=02:00:00:00:00", "six hex bytes"},
      {"--mac=02:00:00:00:00:0g", "six hex bytes"},
      {"--mac=02-00-00-00-00-01", "six hex bytes"},
      {"--mac=01:00:5e:00:00:01", "multicast"},
      {"--ip=", "dhcp or A.B.C.D/N"},
      {"--memory-mib=3", "4 to 4096"},
      {"--memory-mib=4097", "4 to 4096"},
      {"--memory-mib=12x", "4 to 4096"},
      {"--frobnicate", "unknown argument '--frobnicate'"},
      {"tap0", "unknown argument 'tap0'"},
  };
  for (const auto& c : cases) {
    const auto p = parse({c.arg});
    EXPECT_FALSE(p.ok) << c.arg;
    EXPECT_NE(p.error.find(c.says), std::string::npos) << c.arg << " -> " << p.error;
  }
}

TEST(BootOptions, ParseMacRejectsWrongLengths) {
  hal::MacAddress mac;
  EXPECT_FALSE(parse_mac("", &mac));
  EXPECT_FALSE(parse_mac("02:00:00:00:00:01:", &mac));
  EXPECT_TRUE(parse_mac("6c:cf:39:00:75:5b", &mac));
  EXPECT_EQ(mac.bytes[5], 0x5b);
}

}  // namespace
}  // namespace starling::host
