#ifndef STARLING_NET_TLS_CERTIFICATE_DATES_H_
#define STARLING_NET_TLS_CERTIFICATE_DATES_H_

#include <cstdint>
#include <optional>

#include "mbedtls/x509_crt.h"

// A client certificate's validity period, checked against the wall clock
// (kernel/wall_clock, set by SNTP: net/sntp). Mbed TLS is built without
// MBEDTLS_HAVE_TIME_DATE (its time is the monotonic clock, for ticket
// lifetimes), so it checks no dates itself; the server's verify callback
// does, here: once the clock is set, a certificate in the client's chain
// past its notAfter is flagged expired and one before its notBefore not
// yet valid (MBEDTLS_X509_BADCERT_EXPIRED / _FUTURE: the session's
// certificate is then rejected, and the management routes answer 403).
// While the clock is unset the dates cannot be checked: the rest of the
// verification (signature, chain to the configured CA) stands, and each
// such certificate is counted (starling_tls_client_cert_dates_total
// {result="unchecked"}), so an operator sees the policy at work.
namespace starling::net::tls {

enum class DatesVerdict : std::uint8_t { kUnchecked, kValid, kExpired, kNotYetValid };

// The verdict on [from, to] (both inclusive, UTC) at `now_unix_seconds`
// (none: the clock is unset).
DatesVerdict check_dates(const mbedtls_x509_time& from, const mbedtls_x509_time& to,
                         std::optional<std::int64_t> now_unix_seconds) noexcept;

// Mbed TLS's verify callback (mbedtls_ssl_conf_verify), called for each
// certificate of the peer's chain: adds the date flags and counts.
int verify_certificate_dates(void* context, mbedtls_x509_crt* crt, int depth, std::uint32_t* flags);

struct CertificateDateStats {
  std::uint64_t unchecked = 0;  // certificates seen while the clock was unset
  std::uint64_t refused = 0;    // certificates out of their validity period
};
const CertificateDateStats& certificate_date_stats() noexcept;

}  // namespace starling::net::tls

#endif  // STARLING_NET_TLS_CERTIFICATE_DATES_H_
