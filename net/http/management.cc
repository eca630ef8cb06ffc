#include "net/http/management.h"

namespace starling::net::http {
namespace {

constexpr std::string_view kChallenge = R"(Bearer realm="starling")";
constexpr std::string_view kInvalidToken = R"(Bearer realm="starling", error="invalid_token")";

bool ascii_equal_ignore_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace

bool equal_in_constant_time(std::string_view presented, std::string_view secret) noexcept {
  // Every byte of the secret is looked at, and the presented bytes past
  // its end are never read: the loop's length is the secret's. The
  // accumulator is laundered through an empty asm each round so the
  // compiler cannot turn the loop into an early exit.
  std::uint32_t diff = presented.size() != secret.size() ? 1U : 0U;
  for (std::size_t i = 0; i < secret.size(); ++i) {
    const auto p = static_cast<unsigned char>(i < presented.size() ? presented[i] : 0);
    diff |= p ^ static_cast<unsigned char>(secret[i]);
    asm volatile("" : "+r"(diff));
  }
  return diff == 0;
}

std::string_view parse_token(std::string_view file) noexcept {
  while (!file.empty() && (file.back() == '\n' || file.back() == '\r' || file.back() == ' ' ||
                           file.back() == '\t')) {
    file.remove_suffix(1);
  }
  if (file.size() < kMinTokenLength || file.size() > kMaxTokenLength) return {};
  for (const char c : file) {
    if (c <= ' ' || c > '~') return {};
  }
  return file;
}

Admission admit_management(std::string_view authorization, std::string_view token,
                           tls::PeerCertificate certificate, bool certificates_configured) {
  if (certificate == tls::PeerCertificate::kVerified) return {.admitted = true};
  if (token.empty() && !certificates_configured) return {};  // closed: 403
  if (!authorization.empty()) {
    // "Bearer" SP token (RFC 6750 2.1; the scheme is case-insensitive).
    const auto space = authorization.find(' ');
    const std::string_view scheme = authorization.substr(0, space);
    std::string_view presented =
        space == std::string_view::npos ? std::string_view{} : authorization.substr(space + 1);
    while (!presented.empty() && presented.front() == ' ') presented.remove_prefix(1);
    if (!token.empty() && ascii_equal_ignore_case(scheme, "Bearer") &&
        equal_in_constant_time(presented, token)) {
      return {.admitted = true};
    }
    return {.unauthorized = true, .challenge = kInvalidToken};
  }
  if (certificate == tls::PeerCertificate::kRejected) return {};  // 403
  return {.unauthorized = true, .challenge = kChallenge};
}

}  // namespace starling::net::http
