#ifndef STARLING_NET_HTTP_MANAGEMENT_H_
#define STARLING_NET_HTTP_MANAGEMENT_H_

#include <cstddef>
#include <string_view>

#include "net/tls/session.h"

// Who may read a route marked management (Route::management: /metrics in
// httpd): its owner, proven by either credential the server was given at
// boot (docs/tls.md, "Management endpoints"):
//   a bearer token: "Authorization: Bearer <token>", compared in constant
//     time (where a guess differs stays unknown);
//   a client certificate signed by the configured CA (TLS only; the
//     session says whether the peer's verified).
// The site and /healthz are not marked and stay public.
//
//   Admission a = admit_management(request.header("Authorization"), token,
//                                  session.peer_certificate(), server.verifies_clients());
//   a.admitted, else 401 (a.unauthorized: a.challenge is WWW-Authenticate's value) or 403.
namespace starling::net::http {

struct Admission {
  bool admitted = false;
  bool unauthorized = false;        // 401: no credential, or a wrong token
  std::string_view challenge = {};  // the WWW-Authenticate value with 401
};

// The tokens' shortest length: a token is a secret, and one a person could
// guess is none (`openssl rand -hex 32` makes 64 characters).
inline constexpr std::size_t kMinTokenLength = 16;
inline constexpr std::size_t kMaxTokenLength = 256;

// The decision for one request to a management route. `token`: the boot
// token (empty: none configured). With neither a token nor a CA the
// routes are closed to everyone: 403.
//   no Authorization and no certificate          401, Bearer realm
//   "Bearer <wrong token>", or another scheme    401, error="invalid_token"
//   a certificate the CA did not sign             403
//   a right token, or a verified certificate      admitted
Admission admit_management(std::string_view authorization, std::string_view token,
                           tls::PeerCertificate certificate, bool certificates_configured);

// True if `presented` equals `secret`; the time taken depends on
// secret.size() only (never on where they differ, nor on presented's
// length beyond it).
bool equal_in_constant_time(std::string_view presented, std::string_view secret) noexcept;

// A boot file's token: trailing whitespace (the newline an editor or
// `echo` adds) trimmed; empty if it is shorter than kMinTokenLength,
// longer than kMaxTokenLength or holds anything but visible ASCII
// (RFC 6750's b64token characters and more: no spaces, no controls).
std::string_view parse_token(std::string_view file) noexcept;

}  // namespace starling::net::http

#endif  // STARLING_NET_HTTP_MANAGEMENT_H_
