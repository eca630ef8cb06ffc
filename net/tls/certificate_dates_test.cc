#include "net/tls/certificate_dates.h"

#include <gtest/gtest.h>

#include "kernel/hal/clock.h"
#include "kernel/wall_clock/wall_clock.h"

namespace starling::net::tls {
namespace {

mbedtls_x509_time at(int year, int mon, int day, int hour = 0, int min = 0, int sec = 0) {
  mbedtls_x509_time t{};
  t.year = year;
  t.mon = mon;
  t.day = day;
  t.hour = hour;
  t.min = min;
  t.sec = sec;
  return t;
}

constexpr std::int64_t k2026_12_06 = 1'796'558'400;  // 2026-12-06T12:00:00Z

TEST(CertificateDates, AgainstTheClock) {
  const auto from = at(2026, 1, 1);
  const auto to = at(2027, 1, 1);
  EXPECT_EQ(check_dates(from, to, std::nullopt), DatesVerdict::kUnchecked);
  EXPECT_EQ(check_dates(from, to, k2026_12_06), DatesVerdict::kValid);
  EXPECT_EQ(check_dates(at(2025, 1, 1), at(2026, 12, 6, 11, 59, 59), k2026_12_06),
            DatesVerdict::kExpired);
  EXPECT_EQ(check_dates(at(2025, 1, 1), at(2026, 12, 6, 12, 0, 0), k2026_12_06),
            DatesVerdict::kValid);  // notAfter is inclusive
  EXPECT_EQ(check_dates(at(2026, 12, 6, 12, 0, 1), to, k2026_12_06), DatesVerdict::kNotYetValid);
}

// The callback: flags added and certificates counted, per the clock.
TEST(CertificateDates, TheVerifyCallbackFlagsAndCounts) {
  wall_clock::reset_for_testing();
  mbedtls_x509_crt crt{};
  crt.valid_from = at(2020, 1, 1);
  crt.valid_to = at(2021, 1, 1);  // long expired
  const CertificateDateStats before = certificate_date_stats();
  std::uint32_t flags = 0;
  EXPECT_EQ(verify_certificate_dates(nullptr, &crt, 0, &flags), 0);
  EXPECT_EQ(flags, 0u) << "unset: the dates cannot be held against it";
  EXPECT_EQ(certificate_date_stats().unchecked, before.unchecked + 1);
  ASSERT_TRUE(wall_clock::set(k2026_12_06 * wall_clock::kNanosecondsPerSecond, hal::now_ns()).ok());
  EXPECT_EQ(verify_certificate_dates(nullptr, &crt, 0, &flags), 0);
  EXPECT_EQ(flags, static_cast<std::uint32_t>(MBEDTLS_X509_BADCERT_EXPIRED));
  crt.valid_from = at(2030, 1, 1);
  crt.valid_to = at(2031, 1, 1);
  flags = 0;
  EXPECT_EQ(verify_certificate_dates(nullptr, &crt, 1, &flags), 0);
  EXPECT_EQ(flags, static_cast<std::uint32_t>(MBEDTLS_X509_BADCERT_FUTURE));
  EXPECT_EQ(certificate_date_stats().refused, before.refused + 2);
  wall_clock::reset_for_testing();
}

}  // namespace
}  // namespace starling::net::tls
