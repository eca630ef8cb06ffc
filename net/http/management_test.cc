// The management routes' decision (net/http/management.h) case by case, the
// constant-time comparison and the boot file's token rules. The server's
// use of them, end to end: https_server_test.
#include "net/http/management.h"

#include <gtest/gtest.h>

#include <string>

namespace starling::net::http {
namespace {

using tls::PeerCertificate;

constexpr std::string_view kToken = "s3cret-s3cret-s3cret";

TEST(Management, NoCredentialsIs401WithTheBearerChallenge) {
  const Admission a = admit_management("", kToken, PeerCertificate::kNone, false);
  EXPECT_FALSE(a.admitted);
  EXPECT_TRUE(a.unauthorized);
  EXPECT_EQ(a.challenge, R"(Bearer realm="starling")");
}

TEST(Management, TheRightTokenIsAdmittedWhateverTheSchemesCase) {
  EXPECT_TRUE(admit_management("Bearer s3cret-s3cret-s3cret", kToken, PeerCertificate::kNone, false)
                  .admitted);
  EXPECT_TRUE(admit_management("bEaReR s3cret-s3cret-s3cret", kToken, PeerCertificate::kNone, false)
                  .admitted);
}

TEST(Management, AWrongTokenOrSchemeIs401InvalidToken) {
  for (const std::string_view auth :
       {"Bearer s3cret-s3cret-s3creT", "Bearer s3cret-s3cret-s3cret-", "Bearer s3cret", "Bearer ",
        "Bearer", "Basic s3cret-s3cret-s3cret", "s3cret-s3cret-s3cret"}) {
    const Admission a = admit_management(auth, kToken, PeerCertificate::kNone, false);
    EXPECT_FALSE(a.admitted) << auth;
    EXPECT_TRUE(a.unauthorized) << auth;
    EXPECT_EQ(a.challenge, R"(Bearer realm="starling", error="invalid_token")") << auth;
  }
}

TEST(Management, NothingConfiguredIs403ToEveryone) {
  for (const std::string_view auth : {"", "Bearer ", "Bearer anything-at-all-here"}) {
    const Admission a = admit_management(auth, "", PeerCertificate::kNone, false);
    EXPECT_FALSE(a.admitted);
    EXPECT_FALSE(a.unauthorized) << "403, not 401: no credential can succeed";
  }
}

TEST(Management, CertificatesDecideWhenNoTokenIsSent) {
  EXPECT_TRUE(admit_management("", "", PeerCertificate::kVerified, true).admitted);
  const Admission rejected = admit_management("", kToken, PeerCertificate::kRejected, true);
  EXPECT_FALSE(rejected.admitted);
  EXPECT_FALSE(rejected.unauthorized);  // 403: a credential came and was refused
  const Admission none = admit_management("", "", PeerCertificate::kNone, true);
  EXPECT_TRUE(none.unauthorized);  // 401: the CA is configured, show a certificate
  // A rejected certificate with the right token: the token admits.
  EXPECT_TRUE(
      admit_management("Bearer s3cret-s3cret-s3cret", kToken, PeerCertificate::kRejected, true)
          .admitted);
}

TEST(Management, ConstantTimeEqualityIsEquality) {
  EXPECT_TRUE(equal_in_constant_time("abc", "abc"));
  EXPECT_FALSE(equal_in_constant_time("abd", "abc"));
  EXPECT_FALSE(equal_in_constant_time("ab", "abc"));
  EXPECT_FALSE(equal_in_constant_time("abcd", "abc"));
  EXPECT_FALSE(equal_in_constant_time("", "abc"));
  EXPECT_TRUE(equal_in_constant_time("", ""));
  // A presented value that is a prefix plus NULs is not the secret.
  EXPECT_FALSE(equal_in_constant_time(std::string_view("abc\0", 4), "abc"));
  EXPECT_FALSE(equal_in_constant_time("abc", std::string_view("abc\0", 4)));
}

TEST(Management, TokenFileRules) {
  EXPECT_EQ(parse_token("0123456789abcdef\n"), "0123456789abcdef");
  EXPECT_EQ(parse_token("0123456789abcdef\r\n \t"), "0123456789abcdef");
  EXPECT_EQ(parse_token("0123456789abcde\n"), "");       // 15: too short to be a secret
  EXPECT_EQ(parse_token("0123456789 abcdef\n"), "");     // a space inside
  EXPECT_EQ(parse_token("0123456789abcdef\x01\n"), "");  // a control
  EXPECT_EQ(parse_token(std::string(kMaxTokenLength, 'a')).size(), kMaxTokenLength);
  EXPECT_EQ(parse_token(std::string(kMaxTokenLength + 1, 'a')), "");
  EXPECT_EQ(parse_token(""), "");
}

}  // namespace
}  // namespace starling::net::http
