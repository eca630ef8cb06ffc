#!/usr/bin/env python3
"""http_profile.py's tables and copy attribution, on made-up QEMU logs."""

import io
import os
import tempfile
import unittest

import http_profile


def trace(symbol):
    return f"Trace 0: 0x7f00 [0000000000000000/0000000080200000/0020f001/ff020201] {symbol}\n"


class HttpProfileTest(unittest.TestCase):
    def test_per_request_tables_and_the_difference(self):
        plain = {"tcp_write": 40, "memcpy": 20}
        https = {"tcp_write": 20, "memcpy": 30, "mbedtls_chacha20_update": 100}
        names = {s: s for s in set(plain) | set(https)}
        out = io.StringIO()
        http_profile.report({"plain": plain, "https": https}, names, 10, 5, out)
        text = out.getvalue()
        self.assertIn("== plain: 10 keep-alive requests; 6 instructions per request", text)
        self.assertIn("== https: 10 keep-alive requests; 15 instructions per request", text)
        self.assertIn("== https - plain: 9 instructions per request (x2.50)", text)
        # Largest differences first: ChaCha20's +10, then tcp_write's -2.
        diff = text.split("== https - plain")[1].splitlines()[1:]
        self.assertTrue(diff[0].split()[0] == "+10" and diff[0].endswith("mbedtls_chacha20_update"))
        self.assertTrue(diff[1].split()[0] == "-2" and diff[1].endswith("tcp_write"))

    def test_a_copy_is_put_to_the_function_just_before_it(self):
        lines = [trace("serve_site"), trace("memcpy"), trace("memcpy"), trace("serve_site"),
                 trace("memcpy"), trace("tcp_write"), trace("memcpy"), trace("memcpy"),
                 trace("memcpy"), trace("memset")]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "https.trace.log")
            with open(path, "w") as f:
                f.writelines(lines)
            cost, calls = http_profile.callers(path, {"memcpy", "memset"})
        self.assertEqual(cost[("memcpy", "serve_site")], 3)
        self.assertEqual(calls[("memcpy", "serve_site")], 2)
        self.assertEqual(cost[("memcpy", "tcp_write")], 3)
        self.assertEqual(calls[("memcpy", "tcp_write")], 1)
        # memset straight after memcpy: memcpy called it.
        self.assertEqual(calls[("memset", "memcpy")], 1)


if __name__ == "__main__":
    unittest.main()
