#!/usr/bin/env python3
"""tls_profile.py's attribution, parts and console parsing, on a made-up QEMU log."""

import unittest

import tls_profile


def trace(symbol):
    return f"Trace 0: 0x7f00 [0000000000000000/0000000080200000/0020f001/ff020201] {symbol}\n"


class TlsProfileTest(unittest.TestCase):
    def test_only_the_marked_server_calls_count(self):
        lines = [
            trace("mbedtls_ssl_handshake"),  # the client's: no marker yet
            "memory_region_ops_read cpu 0 mr 0x55 addr 0x10000000 value 0x1 size 1 name 'serial'\n",
            trace("starling_tls_cost_full_handshake"),
            trace("Hacl_Curve25519_51_scalarmult"),
            trace("Hacl_Curve25519_51_scalarmult"),
            trace("mbedtls_sha256_update"),
            trace("starling_tls_cost_leave"),
            trace("mbedtls_ecp_mul"),  # the client's again
            trace("starling_tls_cost_keepalive_request"),
            trace("memcpy"),
            trace(""),  # no symbol
            trace("starling_tls_cost_leave"),
        ]
        counts, copies = tls_profile.attribute(lines)
        self.assertEqual(dict(counts["full_handshake"]),
                         {"Hacl_Curve25519_51_scalarmult": 2, "mbedtls_sha256_update": 1})
        self.assertEqual(dict(counts["keepalive_request"]), {"memcpy": 1, "?": 1})
        self.assertFalse(counts["resumed_handshake"])
        self.assertNotIn("mbedtls_ecp_mul", counts["full_handshake"])
        # memcpy's caller: the function just before it in the log.
        self.assertEqual(dict(copies["keepalive_request"]),
                         {("memcpy", "starling_tls_cost_keepalive_request"): 1})

    def test_parts(self):
        self.assertEqual(tls_profile.part_of("Hacl_Curve25519_51_scalarmult"),
                         "X25519 (HACL*'s ladder, the comb)")
        self.assertEqual(tls_profile.part_of("starling_x25519_public_key"),
                         "X25519 (HACL*'s ladder, the comb)")
        self.assertEqual(tls_profile.part_of("mbedtls_mpi_core_montmul"),
                         "P-256 and bignum (ECP, ECDSA, MPI)")
        self.assertEqual(tls_profile.part_of("mbedtls_sha256_update"), "hashes, HMAC, HKDF")
        self.assertEqual(tls_profile.part_of("mbedtls_chacha20_update"),
                         "ChaCha20, Poly1305, AES, GCM")
        self.assertEqual(tls_profile.part_of("mbedtls_ssl_write_record"),
                         "TLS handshake and records")
        self.assertEqual(tls_profile.part_of("add_sub_mpi"), "P-256 and bignum (ECP, ECDSA, MPI)")
        self.assertEqual(tls_profile.part_of("starling::net::tls::p256::mul(Fe const&, Fe const&)"),
                         "P-256 and bignum (ECP, ECDSA, MPI)")
        self.assertEqual(tls_profile.part_of("starling::mem::Heap::release(void*)"), "allocator")
        self.assertEqual(tls_profile.part_of("memset"), "copies and zeroing")
        self.assertEqual(tls_profile.part_of("something_else"), tls_profile.OTHER)

    def test_the_consoles_figures(self):
        console = ("tls_cost: tls.full_handshake.server_instructions=9012338\n"
                   "tls_cost: tls.keepalive_request.server_instructions=44194\n"
                   "tls_cost: profile handshakes=4 requests=15\ntls_cost: done\n")
        self.assertEqual(tls_profile.units_of(console)["keepalive_request"], 15)
        self.assertEqual(tls_profile.units_of(console)["full_handshake"], 4)
        self.assertIsNone(tls_profile.units_of("tls_cost: done\n"))
        self.assertEqual(tls_profile.guest_figures(console),
                         {"full_handshake": 9012338, "keepalive_request": 44194})


if __name__ == "__main__":
    unittest.main()
