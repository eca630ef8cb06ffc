#!/usr/bin/env python3
"""apps/httpd booted in QEMU, talked to by real clients through QEMU user
networking's hostfwd (a free loopback port): curl (GET, HEAD, If-None-Match,
a keep-alive connection reused across URLs), Python's http.client (many
requests on one connection), raw sockets for pipelining byte for byte and
for what a hostile client sends (each bad request's status is asserted), a
slowloris, every slot held (503 with Retry-After), then the metrics page
parsed by prometheus_client, showing the slots and connections back at
their baseline and every refusal counted, and linted by Prometheus's own
`promtool check metrics` (Debian's, pinned: @prometheus), which must find
nothing (base units, no `_total` on gauges, ...).

  httpd_qemu_test.py --launcher apps/httpd/qemu.run.sh --index apps/httpd/site/index.html
"""
import argparse
import http.client
import os
import re
import socket
import subprocess
import sys
import time

from qemu_guest import QemuGuest, free_port
from http_checks import AUTH, Checks, check_index, curl, metrics, token_file

check = Checks()

SLOTS = 4
HEAD_TIMEOUT_MS = 1500



def exchange(port, data, read_until_close=True, timeout=5.0, want=None):
    """Sends data on a new connection; the bytes that come back (until the
    server closes, `want` bytes, or the timeout)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(data)
        got = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and (want is None or len(got) < want):
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            except ConnectionResetError:
                break
            if not chunk:
                break
            got += chunk
        return got
    finally:
        s.close()


def status_of(reply):
    m = re.match(rb"HTTP/1\.1 (\d{3}) ", reply)
    return int(m.group(1)) if m else None




def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--launcher", required=True)
    ap.add_argument("--index", required=True)
    ap.add_argument("--promtool", required=True, help="promtool (@prometheus)")
    ap.add_argument("--timeout", type=int, default=120)
    a = ap.parse_args()
    with open(a.index, "rb") as f:
        index = f.read()
    port = free_port()
    guest = QemuGuest(a.launcher, a.timeout, env={"STARLING_HTTPD_PORT": str(port),
                                                    # its own: tests run side by side
                                                    "STARLING_HTTPS_PORT": str(free_port())},
                      runner_args=("--management-token",
                                   token_file(os.environ.get("TEST_TMPDIR", "/tmp"))),
                      qemu_args=("-append",
                                 f"httpd.slots={SLOTS} httpd.peer_slots={SLOTS} "
                                 f"httpd.head_timeout_ms={HEAD_TIMEOUT_MS}"))
    try:
        if not guest.wait_for("httpd: ready"):
            check(False, "httpd printed ready")
            return check.finish(guest)
        base = f"http://127.0.0.1:{port}"
        head = check_index(check, base, index)
        etag = re.search(rb'\r\nETag: ("[0-9a-f]{16}")', head)
        if etag:
            r = curl("--include", "--header", "If-None-Match: " + etag.group(1).decode(), base + "/")
            check(r.stdout.startswith(b"HTTP/1.1 304 Not Modified"), "a matching If-None-Match is 304")
        r = curl("--head", base + "/index.html")
        check(f"Content-Length: {len(index)}".encode() in r.stdout and r.stdout.endswith(b"\r\n\r\n"),
              "HEAD gives GET's Content-Length and no body")
        r = curl("--verbose", base + "/healthz", base + "/style.css", base + "/healthz")
        check(r.stdout.startswith(b"ok\n") and r.stdout.count(b"ok\n") == 2,
              "curl: /healthz, /style.css, /healthz answered")
        check(r.stderr.count(b"Re-using existing connection") == 2,
              "curl reused one keep-alive connection for three URLs")

        payload = bytes((i * 7 + 3) % 256 for i in range(4096))
        r = curl("--verbose", "--header", "Expect: 100-continue", "--header",
                 "Content-Type: application/octet-stream", "--data-binary", "@-", base + "/echo",
                 input_bytes=payload)
        check(r.stdout == payload, "POST /echo (4 KiB, Content-Length) echoed byte for byte")
        check(b"HTTP/1.1 100 Continue" in r.stderr, "Expect: 100-continue got 100 Continue first")
        r = curl("--header", "Transfer-Encoding: chunked", "--data-binary", "@-", base + "/echo",
                 input_bytes=payload[:3000])
        check(r.stdout == payload[:3000], "POST /echo chunked echoed byte for byte")

        before = metrics(port)[2]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        statuses = []
        for i in range(50):
            conn.request("GET", "/healthz" if i % 2 else "/style.css")
            resp = conn.getresponse()
            resp.read()
            statuses.append(resp.status)
        conn.close()
        after = metrics(port)[2]
        check(statuses == [200] * 50, "http.client: 50 requests on one connection, all 200")
        check(after["starling_http_connections_accepted_total"] -
              before["starling_http_connections_accepted_total"] == 2,
              "...on one connection (and the metrics scrape's own)")

        ok = (b"HTTP/1.1 200 OK\r\nServer: starling\r\nContent-Type: text/plain; charset=utf-8\r\n"
              b"Content-Length: 3\r\n\r\nok\n")
        head_ok = ok[:-3]
        pipelined = (b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"
                     b"HEAD /healthz HTTP/1.1\r\nHost: t\r\n\r\n"
                     b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        want = ok + head_ok + ok.replace(b"\r\n\r\nok", b"\r\nConnection: close\r\n\r\nok")
        got = exchange(port, pipelined)
        check(got == want, "three pipelined requests answered in order, byte for byte")
        if got != want:
            print("got:", got)

        bad = [
            ("unknown path", b"GET /nope HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", 404),
            ("wrong method", b"POST /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n"
                             b"Connection: close\r\n\r\n", 405),
            ("malformed", b"GET / HTTP/1.1\r\nHo st: t\r\n\r\n", 400),
            ("no Host", b"GET / HTTP/1.1\r\n\r\n", 400),
            ("HTTP/2.0", b"GET / HTTP/2.0\r\nHost: t\r\n\r\n", 505),
            ("9 KiB header", b"GET / HTTP/1.1\r\nHost: t\r\nX: " + b"a" * 9000 + b"\r\n\r\n", 431),
            ("body over the limit", b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n",
             413),
            ("chunked body over the limit", b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked"
                                            b"\r\n\r\n2001\r\n" + b"z" * 8193 + b"\r\n0\r\n\r\n", 413),
            ("body to a bodyless route", b"PUT / HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello", 405),
            ("smuggling: length and chunked", b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n"
                                              b"Transfer-Encoding: chunked\r\n\r\n", 400),
        ]
        for what, data, want_status in bad:
            got = exchange(port, data)
            check(status_of(got) == want_status, f"{what}: {want_status} (got {status_of(got)})")
        got = exchange(port, b"DELETE /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        check(b"\r\nAllow: GET, HEAD\r\n" in got, "405 lists Allow: GET, HEAD")

        # Slowloris: a head dribbled out and never finished gets 408 at the
        # head deadline (1.5 s), not a slot held forever.
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        start = time.monotonic()
        s.sendall(b"GET / HTTP/1.1\r\n")
        got = b""
        for piece in (b"Host: t\r\n", b"X-A: 1\r\n", b"X-B: 2\r\n", b"X-C: 3\r\n"):
            time.sleep(0.5)
            try:
                s.sendall(piece)
            except OSError:
                break
        try:
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                got += chunk
        except OSError:
            pass
        s.close()
        waited = time.monotonic() - start
        check(status_of(got) == 408, f"slowloris: 408 (got {status_of(got)})")
        check(waited < 5, f"slowloris ended after {waited:.1f} s (head deadline 1.5 s)")

        # Every slot held by an idle connection: one more gets 503 + Retry-After.
        held = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(SLOTS)]
        time.sleep(0.5)
        got = exchange(port, b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        check(status_of(got) == 503 and b"\r\nRetry-After: 1\r\n" in got,
              f"slots all held: 503 with Retry-After (got {status_of(got)})")
        for h in held:
            h.close()
        time.sleep(1.0)

        # /metrics is the owner's (the boot token); the site is not.
        for what, extra, want in (("no token", [], b"401"),
                                  ("a wrong token", ["--header", "Authorization: Bearer " + "f" * 64],
                                   b"401"),
                                  ("the boot token", ["--header", AUTH], b"200")):
            r = curl("--output", "/dev/null", "--write-out", "%{http_code}", *extra, base + "/metrics")
            check(r.stdout == want, f"GET /metrics with {what}: {want.decode()} (got {r.stdout.decode()})")
        status, ctype, values, size = metrics(port)
        check(status == 200, "GET /metrics is 200")
        check(values.get('starling_http_management_requests_total{outcome="unauthorized"}') == 2,
              "the two 401s counted as unauthorized management requests")
        # Prometheus's conventions, as its own linter reads them.
        page = curl("--header", AUTH, base + "/metrics").stdout
        lint = subprocess.run([a.promtool, "check", "metrics"], input=page, capture_output=True)
        findings = (lint.stdout + lint.stderr).decode(errors="replace").strip()
        print("promtool check metrics:", findings or "no findings")
        check(lint.returncode == 0 and not findings,
              f"promtool check metrics finds nothing on the page ({len(page)} bytes)")
        check(ctype == "text/plain; version=0.0.4; charset=utf-8", f"metrics Content-Type ({ctype})")
        print(f"metrics page: {size} bytes")
        check(values.get("starling_http_slots") == 1, "slots back to baseline (the scrape's own)")
        check(values.get("starling_http_slots_limit") == SLOTS, "slots_limit is httpd.slots=")
        check(values.get("starling_http_connections_refused_total", 0) >= 1, "the 503 is counted")
        check(values.get("starling_http_head_timeouts_total", 0) >= 1, "the 408 is counted")
        for code in (100, 304, 400, 404, 405, 408, 413, 431, 503, 505):
            check(values.get(f'starling_http_responses_total{{code="{code}"}}', 0) >= 1,
                  f"responses counted for {code}")
        check(values.get("starling_http_body_buffers") == 1, "body buffers: only the scrape's own held")
        check(values.get("starling_stall_threshold_seconds") == 0.01,
              "the stall detector watches with its default 10 ms (0.010000000 s)")
        check(values.get("starling_tcp_connections", 99) <= 2, "TCP connections back to baseline")
        # The page's own cost (kernel/metrics/page.h): this page shows the
        # render of the scrape before it.
        render_s = values.get("starling_metrics_render_seconds", 0)
        page_bytes = values.get("starling_metrics_page_bytes", 0)
        print(f"metrics page: the one before was {page_bytes:g} bytes, rendered in "
              f"{render_s * 1e6:.1f} us, {values.get('starling_metrics_render_instructions', 0):g} "
              "on the instruction counter (the host's TSC without -icount)")
        check(0 < render_s < 1, "starling_metrics_render_seconds is set (0 < t < 1 s)")
        check(abs(page_bytes - size) < 64, "starling_metrics_page_bytes is the page's size")
        check(values.get("starling_metrics_render_instructions", 0) > 0,
              "starling_metrics_render_instructions is set")
        check(values.get("starling_metrics_renders_total", 0) >= 2, "every render counted")
        check(values.get("starling_metrics_render_failures_total", 1) == 0, "no page too big")
    finally:
        guest.stop()
    return check.finish(guest)



if __name__ == "__main__":
    sys.exit(main())
