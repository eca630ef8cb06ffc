#include "platform/star64/mac_address.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel/fdt/tree_writer.h"

namespace starling::board {
namespace {

using fdt::TreeWriter;

constexpr hal::MacAddress kBoardMac{{0x6c, 0xcf, 0x39, 0x00, 0x75, 0x6a}};
constexpr hal::MacAddress kOtherMac{{0x02, 0x00, 0x00, 0x00, 0x00, 0x01}};

std::vector<std::byte> mac_bytes(const hal::MacAddress& mac) {
  std::vector<std::byte> out;
  for (auto b : mac.bytes) out.push_back(static_cast<std::byte>(b));
  return out;
}

// What a Star64 DT looks like where it matters: /aliases, /chosen, and the
// two GMACs under /soc (either may carry an address).
struct TreeSpec {
  std::optional<std::string> alias;  // /aliases/ethernet0
  std::optional<std::vector<std::byte>> gmac0_local;
  std::optional<std::vector<std::byte>> gmac0_mac;  // "mac-address"
  std::optional<std::vector<std::byte>> gmac1_local;
  std::optional<std::string> bootargs;

  TreeSpec& with_alias(std::string v) {
    alias = std::move(v);
    return *this;
  }
  TreeSpec& with_gmac0_local(std::vector<std::byte> v) {
    gmac0_local = std::move(v);
    return *this;
  }
  TreeSpec& with_gmac0_mac(std::vector<std::byte> v) {
    gmac0_mac = std::move(v);
    return *this;
  }
  TreeSpec& with_gmac1_local(std::vector<std::byte> v) {
    gmac1_local = std::move(v);
    return *this;
  }
  TreeSpec& with_bootargs(std::string v) {
    bootargs = std::move(v);
    return *this;
  }
};

std::vector<std::byte> build(const TreeSpec& spec) {
  TreeWriter b;
  b.begin_node("").property_cells("#address-cells", {2}).property_cells("#size-cells", {2});
  if (spec.alias) b.begin_node("aliases").property_string("ethernet0", *spec.alias).end_node();
  if (spec.bootargs) b.begin_node("chosen").property_string("bootargs", *spec.bootargs).end_node();
  b.begin_node("soc");
  b.begin_node("ethernet@16030000").property_strings("compatible", {"starfive,jh7110-dwmac"});
  if (spec.gmac0_local) b.property("local-mac-address", *spec.gmac0_local);
  if (spec.gmac0_mac) b.property("mac-address", *spec.gmac0_mac);
  b.end_node();
  b.begin_node("ethernet@16040000");
  if (spec.gmac1_local) b.property("local-mac-address", *spec.gmac1_local);
  b.end_node();
  b.end_node();  // soc
  b.end_node();
  return b.finish();
}

MacChoice choose(const std::vector<std::byte>& blob) {
  auto tree = fdt::DeviceTree::open(blob.data(), blob.size());
  EXPECT_TRUE(tree.ok());
  if (!tree.ok()) return {};
  return choose_mac(&*tree);
}

TEST(ParseMacTest, AcceptsBothCases) {
  hal::MacAddress mac;
  ASSERT_EQ(parse_mac("6c:cf:39:00:12:34", &mac), MacError::kNone);
  EXPECT_EQ(mac, (hal::MacAddress{{0x6c, 0xcf, 0x39, 0x00, 0x12, 0x34}}));
  ASSERT_EQ(parse_mac("6C:CF:39:00:AB:Ff", &mac), MacError::kNone);
  EXPECT_EQ(mac, (hal::MacAddress{{0x6c, 0xcf, 0x39, 0x00, 0xab, 0xff}}));
}

TEST(ParseMacTest, RefusesMalformedAndLeavesTheOutputAlone) {
  for (const char* text :
       {"", "6c:cf:39:00:12", "6c:cf:39:00:12:34:", "6c-cf-39-00-12-34", "6c:cf:39:00:12:3g",
        "6ccf39001234", "6c:cf:39:00:1:234", " 6c:cf:39:00:12:3", "6c:cf:39:00:12:34x"}) {
    hal::MacAddress mac = kOtherMac;
    EXPECT_EQ(parse_mac(text, &mac), MacError::kMalformed) << text;
    EXPECT_EQ(mac, kOtherMac) << text;
  }
}

TEST(ParseMacTest, RefusesMulticastAndZero) {
  hal::MacAddress mac;
  EXPECT_EQ(parse_mac("01:00:5e:00:00:01", &mac), MacError::kMulticast);
  EXPECT_EQ(parse_mac("ff:ff:ff:ff:ff:ff", &mac), MacError::kMulticast);
  EXPECT_EQ(parse_mac("00:00:00:00:00:00", &mac), MacError::kZero);
}

TEST(ParseMacBootargsTest, FindsTheTokenAmongOthers) {
  const auto arg =
      parse_mac_bootargs("console=ttyS0 ip=10.0.0.2/24 starling.mac=02:00:00:00:00:01");
  EXPECT_TRUE(arg.found);
  EXPECT_EQ(arg.error, MacError::kNone);
  EXPECT_EQ(arg.mac, kOtherMac);
}

TEST(ParseMacBootargsTest, AbsentIsNotAnError) {
  const auto arg = parse_mac_bootargs("ip=dhcp mac=02:00:00:00:00:01 xstarling.mac=1");
  EXPECT_FALSE(arg.found);
  EXPECT_EQ(arg.error, MacError::kNone);
}

TEST(ParseMacBootargsTest, MalformedAndDuplicateAreErrors) {
  EXPECT_EQ(parse_mac_bootargs("starling.mac=6c:cf:39").error, MacError::kMalformed);
  EXPECT_EQ(parse_mac_bootargs("starling.mac=").error, MacError::kMalformed);
  EXPECT_EQ(
      parse_mac_bootargs("starling.mac=02:00:00:00:00:01 starling.mac=02:00:00:00:00:02").error,
      MacError::kDuplicate);
}

TEST(DeviceTreeMacTest, ReadsTheGmac0NodeByPath) {
  const auto blob = build(
      TreeSpec().with_gmac0_local(mac_bytes(kBoardMac)).with_gmac1_local(mac_bytes(kOtherMac)));
  auto tree = fdt::DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok());
  auto mac = device_tree_mac(*tree);
  ASSERT_TRUE(mac.ok());
  EXPECT_EQ(*mac, kBoardMac);
}

TEST(DeviceTreeMacTest, FollowsTheEthernet0Alias) {
  const auto blob = build(TreeSpec()
                              .with_alias("/soc/ethernet@16040000")
                              .with_gmac0_local(mac_bytes(kBoardMac))
                              .with_gmac1_local(mac_bytes(kOtherMac)));
  auto tree = fdt::DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok());
  auto mac = device_tree_mac(*tree);
  ASSERT_TRUE(mac.ok());
  EXPECT_EQ(*mac, kOtherMac);
}

TEST(DeviceTreeMacTest, DanglingAliasFallsBackToThePath) {
  const auto blob =
      build(TreeSpec().with_alias("/soc/ethernet@deadbeef").with_gmac0_local(mac_bytes(kBoardMac)));
  auto tree = fdt::DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok());
  auto mac = device_tree_mac(*tree);
  ASSERT_TRUE(mac.ok());
  EXPECT_EQ(*mac, kBoardMac);
}

TEST(DeviceTreeMacTest, MacAddressPropertyWhenNoLocal) {
  const auto blob = build(TreeSpec().with_gmac0_mac(mac_bytes(kBoardMac)));
  auto tree = fdt::DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok());
  auto mac = device_tree_mac(*tree);
  ASSERT_TRUE(mac.ok());
  EXPECT_EQ(*mac, kBoardMac);
}

TEST(DeviceTreeMacTest, MissingZeroAndShortProperties) {
  {
    const auto blob = build(TreeSpec());
    auto tree = fdt::DeviceTree::open(blob.data(), blob.size());
    ASSERT_TRUE(tree.ok());
    EXPECT_EQ(device_tree_mac(*tree).error(), Error::kNotFound);
  }
  {
    const auto blob = build(TreeSpec().with_gmac0_local(std::vector<std::byte>(6)));
    auto tree = fdt::DeviceTree::open(blob.data(), blob.size());
    ASSERT_TRUE(tree.ok());
    EXPECT_EQ(device_tree_mac(*tree).error(), Error::kNotFound);
  }
  {
    const auto blob =
        build(TreeSpec().with_gmac0_local(std::vector<std::byte>(5, std::byte{0x6c})));
    auto tree = fdt::DeviceTree::open(blob.data(), blob.size());
    ASSERT_TRUE(tree.ok());
    EXPECT_EQ(device_tree_mac(*tree).error(), Error::kMalformed);
  }
}

TEST(ChooseMacTest, DefaultWithoutTreeOrAddress) {
  const MacChoice none = choose_mac(nullptr);
  EXPECT_EQ(none.mac, kDefaultMac);
  EXPECT_EQ(none.source, MacSource::kDefault);
  const MacChoice empty = choose(build(TreeSpec().with_bootargs("ip=dhcp")));
  EXPECT_EQ(empty.mac, kDefaultMac);
  EXPECT_EQ(empty.source, MacSource::kDefault);
  EXPECT_EQ(empty.bootarg_error, MacError::kNone);
}

TEST(ChooseMacTest, DeviceTreeBeatsDefault) {
  const MacChoice c = choose(build(TreeSpec().with_gmac0_local(mac_bytes(kBoardMac))));
  EXPECT_EQ(c.mac, kBoardMac);
  EXPECT_EQ(c.source, MacSource::kDeviceTree);
}

TEST(ChooseMacTest, BootargsBeatDeviceTree) {
  const MacChoice c = choose(build(TreeSpec()
                                       .with_gmac0_local(mac_bytes(kBoardMac))
                                       .with_bootargs("starling.mac=02:00:00:00:00:01")));
  EXPECT_EQ(c.mac, kOtherMac);
  EXPECT_EQ(c.source, MacSource::kBootargs);
}

TEST(ChooseMacTest, MalformedBootargKeepsTheDeviceTreeAddressAndSaysWhy) {
  const MacChoice c = choose(
      build(TreeSpec().with_gmac0_local(mac_bytes(kBoardMac)).with_bootargs("starling.mac=6c:cf")));
  EXPECT_EQ(c.mac, kBoardMac);
  EXPECT_EQ(c.source, MacSource::kDeviceTree);
  EXPECT_EQ(c.bootarg_error, MacError::kMalformed);
}

TEST(ChooseMacTest, MalformedDeviceTreePropertyIsReported) {
  const MacChoice c =
      choose(build(TreeSpec().with_gmac0_local(std::vector<std::byte>(7, std::byte{2}))));
  EXPECT_EQ(c.mac, kDefaultMac);
  EXPECT_TRUE(c.device_tree_malformed);
}

TEST(FormatMacTest, LowerCaseHexPairs) {
  char text[17];
  const std::size_t n = hal::format_mac(kDefaultMac, text);
  EXPECT_EQ(std::string_view(text, n), "6c:cf:39:00:75:5b");
  hal::MacAddress round_trip;
  ASSERT_EQ(parse_mac(std::string_view(text, n), &round_trip), MacError::kNone);
  EXPECT_EQ(round_trip, kDefaultMac);
}

TEST(MacErrorTextTest, MalformedNamesTheFix) {
  EXPECT_NE(std::string_view(mac_error_text(MacError::kMalformed)).find("starling.mac=6c:cf:39"),
            std::string_view::npos);
}

}  // namespace
}  // namespace starling::board
