#ifndef STARLING_BENCH_TLS_IDENTITY_H_
#define STARLING_BENCH_TLS_IDENTITY_H_

// The measurement's server identity: an ECDSA P-256 key and its
// self-signed certificate (CN and DNS name starling.test), made once with
// openssl for this benchmark and nothing else. Not a secret: fixed so that
// every run signs with the same key, and the figures do not move with a
// fresh key's arithmetic.
namespace starling::bench::tls {

inline constexpr char kCertPem[] = R"(-----BEGIN CERTIFICATE-----
MIIBnjCCAUWgAwIBAgIUbvr8v9WLVQO6SCKt5bQ9SLsGqNMwCgYIKoZIzj0EAwIw
GDEWMBQGA1UEAwwNc3RhcmxpbmcudGVzdDAeFw0yNjEyMDYwOTU5MjJaFw0zNjEy
MDMwOTU5MjJaMBgxFjAUBgNVBAMMDXN0YXJsaW5nLnRlc3QwWTATBgcqhkjOPQIB
BggqhkjOPQMBBwNCAATg8bTo1pyKmds+b9AcyhYI3Is5n80SmAOW55coo4GB5SYa
5H2QfPD0plDjKLlDI60Rh+5FX3d79yZDGy8e5RSIo20wazAdBgNVHQ4EFgQU/+eb
oKfpXmV0sfzwzueTEZ/w6m0wHwYDVR0jBBgwFoAU/+eboKfpXmV0sfzwzueTEZ/w
6m0wDwYDVR0TAQH/BAUwAwEB/zAYBgNVHREEETAPgg1zdGFybGluZy50ZXN0MAoG
CCqGSM49BAMCA0cAMEQCIBWb9FjkF/QWrhifczBeNJLoj8OvG2Sa746oZKFHEGU+
AiBMFIKUqD8SyuFUoJuVlsqlin0l7eqfnkQQlonh4PudCw==
-----END CERTIFICATE-----
)";

inline constexpr char kKeyPem[] = R"(-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgcOHGxxwRaAxwtwKK
PsNEOLY3tlDsMUn8ubdeNHBQ5PqhRANCAATg8bTo1pyKmds+b9AcyhYI3Is5n80S
mAOW55coo4GB5SYa5H2QfPD0plDjKLlDI60Rh+5FX3d79yZDGy8e5RSI
-----END PRIVATE KEY-----
)";

}  // namespace starling::bench::tls

#endif  // STARLING_BENCH_TLS_IDENTITY_H_
