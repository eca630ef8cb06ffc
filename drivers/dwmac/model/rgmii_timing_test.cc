// The Star64 timing table against the report it was copied from
// (docs/hardware/star64-reference-drivers.md §2.1): spot checks of each
// list, and the rules for what the report does not cover.

#include "drivers/dwmac/model/rgmii_timing.h"

#include <gtest/gtest.h>

namespace starling::model {
namespace {

// The Star64 device tree's electrical setting: TX clock inverted, 2910 µA.
RgmiiSetting star64(unsigned rx_ps, unsigned tx_ps, unsigned speed = 1000) {
  return RgmiiSetting{.speed_mbps = speed,
                      .rx_delay_ps = rx_ps,
                      .tx_delay_ps = tx_ps,
                      .tx_clock_inverted = true,
                      .rx_clock_drive = 3,
                      .rx_data_drive = 3};
}

RgmiiQuality tx(const RgmiiSetting& s) {
  return kStar64Gmac0Timing.tx(s);
}
RgmiiQuality rx(const RgmiiSetting& s) {
  return kStar64Gmac0Timing.rx(s);
}

// "Success ...": rx 1500 with tx 1500-1950 (the DT's 1500/default 1950),
// rx 600 only from 1800, rx 1900 and 1950 only with tx 1950.
TEST(Star64Timing, MeasuredGoodSettings) {
  for (unsigned tx_ps : {1500u, 1650u, 1800u, 1950u}) {
    EXPECT_EQ(tx(star64(1500, tx_ps)), RgmiiQuality::kGood) << tx_ps;
  }
  EXPECT_EQ(rx(star64(1500, 1950)), RgmiiQuality::kGood);
  EXPECT_EQ(tx(star64(600, 1800)), RgmiiQuality::kGood);
  EXPECT_EQ(tx(star64(1900, 1950)), RgmiiQuality::kGood);
  EXPECT_EQ(tx(star64(1950, 1950)), RgmiiQuality::kGood);
}

// "Failure acquiring DHCP lease or many dropped packets": the vendor's old
// pair (rx 1900, tx 1500), rx 1500 with tx 1200/1350.
TEST(Star64Timing, MeasuredMarginalSettings) {
  EXPECT_EQ(tx(star64(1900, 1500)), RgmiiQuality::kMarginal);
  EXPECT_EQ(tx(star64(1500, 1200)), RgmiiQuality::kMarginal);
  EXPECT_EQ(tx(star64(1500, 1350)), RgmiiQuality::kMarginal);
  EXPECT_EQ(tx(star64(450, 1500)), RgmiiQuality::kMarginal);
  EXPECT_EQ(tx(star64(450, 1650)), RgmiiQuality::kBroken);  // 450's odd one out
}

// "Non-functional": no TX delay at all (Starling's old setting) fails with
// every RX delay; RX delays of 0-300 fail with every TX delay, which the
// model puts down to RX.
TEST(Star64Timing, MeasuredBrokenSettings) {
  for (unsigned rx_ps = 0; rx_ps <= 1800; rx_ps += 150) {
    EXPECT_EQ(tx(star64(rx_ps, 0)), RgmiiQuality::kBroken) << rx_ps;
  }
  EXPECT_EQ(rx(star64(1500, 0)), RgmiiQuality::kGood);  // receive fine, transmit broken
  for (unsigned rx_ps : {0u, 150u, 300u}) {
    EXPECT_EQ(rx(star64(rx_ps, 1950)), RgmiiQuality::kBroken) << rx_ps;
  }
  EXPECT_EQ(rx(star64(450, 1950)), RgmiiQuality::kMarginal);  // no good cell in that row
}

// Not in the report: holes in the table, delays past 1950 ps, RXC_DLY_EN
// with steps, a TX clock not inverted, another drive strength.
TEST(Star64Timing, WhatWasNeverMeasuredIsUntested) {
  EXPECT_EQ(tx(star64(600, 1500)), RgmiiQuality::kUntested);
  EXPECT_EQ(tx(star64(1950, 1650)), RgmiiQuality::kUntested);
  EXPECT_EQ(tx(star64(1500, 2100)), RgmiiQuality::kUntested);
  EXPECT_EQ(tx(star64(2050, 1950)), RgmiiQuality::kUntested);
  EXPECT_EQ(rx(star64(2050, 1950)), RgmiiQuality::kUntested);
  RgmiiSetting plain = star64(1500, 1950);
  plain.tx_clock_inverted = false;
  EXPECT_EQ(tx(plain), RgmiiQuality::kUntested);
  EXPECT_EQ(rx(plain), RgmiiQuality::kGood);
  RgmiiSetting weak = star64(1500, 1950);
  weak.rx_data_drive = 0;
  EXPECT_EQ(rx(weak), RgmiiQuality::kUntested);
  EXPECT_EQ(tx(weak), RgmiiQuality::kGood);
}

// At 100 and 10 Mb/s the delays do not matter; the inversion still does.
TEST(Star64Timing, SlowerSpeedsNeedOnlyTheInversion) {
  for (unsigned speed : {10u, 100u}) {
    EXPECT_EQ(tx(star64(0, 0, speed)), RgmiiQuality::kGood) << speed;
    EXPECT_EQ(rx(star64(0, 0, speed)), RgmiiQuality::kGood) << speed;
    RgmiiSetting plain = star64(1500, 1950, speed);
    plain.tx_clock_inverted = false;
    EXPECT_EQ(tx(plain), RgmiiQuality::kUntested) << speed;
  }
}

}  // namespace
}  // namespace starling::model
