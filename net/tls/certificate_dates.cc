#include "net/tls/certificate_dates.h"

#include "kernel/wall_clock/calendar.h"
#include "kernel/wall_clock/wall_clock.h"

namespace starling::net::tls {
namespace {

constinit CertificateDateStats g_stats{};

std::int64_t unix_seconds(const mbedtls_x509_time& t) {
  wall_clock::Civil c;
  c.year = t.year;
  c.month = static_cast<unsigned>(t.mon);
  c.day = static_cast<unsigned>(t.day);
  c.hour = static_cast<unsigned>(t.hour);
  c.minute = static_cast<unsigned>(t.min);
  c.second = static_cast<unsigned>(t.sec);
  return wall_clock::to_unix(c);
}

}  // namespace

DatesVerdict check_dates(const mbedtls_x509_time& from, const mbedtls_x509_time& to,
                         std::optional<std::int64_t> now_unix_seconds) noexcept {
  if (!now_unix_seconds) return DatesVerdict::kUnchecked;
  if (*now_unix_seconds > unix_seconds(to)) return DatesVerdict::kExpired;
  if (*now_unix_seconds < unix_seconds(from)) return DatesVerdict::kNotYetValid;
  return DatesVerdict::kValid;
}

int verify_certificate_dates(void*, mbedtls_x509_crt* crt, int, std::uint32_t* flags) {
  switch (check_dates(crt->valid_from, crt->valid_to, wall_clock::now_unix_seconds())) {
    case DatesVerdict::kUnchecked:
      ++g_stats.unchecked;
      break;
    case DatesVerdict::kValid:
      break;
    case DatesVerdict::kExpired:
      *flags |= MBEDTLS_X509_BADCERT_EXPIRED;
      ++g_stats.refused;
      break;
    case DatesVerdict::kNotYetValid:
      *flags |= MBEDTLS_X509_BADCERT_FUTURE;
      ++g_stats.refused;
      break;
  }
  return 0;
}

const CertificateDateStats& certificate_date_stats() noexcept {
  return g_stats;
}

}  // namespace starling::net::tls
