#!/usr/bin/env python3
"""Fairness between peers for HTTP (issue 27): apps/httpd on a TAP whose
Linux side has two addresses, two hosts on one link; the app is the host
board's process (--app: the DWMAC driver over the device model) or the QEMU
image (--qemu: virtio-net).

Host A (10.0.2.2) holds everything HTTP lets it hold: 40 connections that
send half a request head and then nothing (slowloris), and 10 more that
make one request and then keep the connection alive, quiet. With the
default share (httpd.peer_slots, 31 of 64) A gets at most 31 slots; the
rest of its connections are answered 503 with Retry-After and closed, and
counted (starling_http_connections_refused_peer_total). Host B (10.0.2.3)
meanwhile fetches / ten times and /metrics, every time with a 200, each
answer whole. Then A lets go; the slots and body buffers are back at the
scrape's own.

Bounded: every connection and read has a timeout; the app is stopped and
the namespace removed at the end.
"""
import os
import sys
import time

import host_process
from host_process import report

# test/http is on the path: //test:scenario.bzl sets PYTHONPATH.
from http_checks import AUTH, boot_files, curl, metrics

GUEST = "10.0.2.15"
HOST_A = "10.0.2.2"
HOST_B = "10.0.2.3"
PEER_SLOTS = 31  # net/http/server.h: (64 - 1) / 2


def connect_from(source):
    return host_process.connect_from(source, (GUEST, 80), timeout=3.0)


def answer_of(s, wait=0.5):
    """What the server said on `s` within `wait` seconds (b"" if nothing)."""
    s.settimeout(wait)
    try:
        return s.recv(4096)
    except OSError:
        return b""


def fetch_from_b(path):
    """curl from host B's address: (HTTP status, body bytes)."""
    r = curl("--interface", HOST_B, "--header", AUTH, "--output", "-", "--write-out",
             "\n%{http_code}", f"http://{GUEST}{path}")
    body, _, code = r.stdout.rpartition(b"\n")
    return (code.decode() if r.returncode == 0 else f"curl exit {r.returncode}"), body


def inside(args):
    failures = []
    host_process.add_second_host(HOST_B)
    app = host_process.app_for(args, f"{GUEST}/24,gw={HOST_A}", "STARLING_HTTPD_NETDEV",
                               boot_files(os.environ.get("TEST_TMPDIR", "/tmp")))
    held = []
    try:
        if not app.wait_for("httpd: serving http on port 80", args.timeout):
            failures.append("httpd never printed 'httpd: serving http on port 80'")
            return finish(app, failures, args)
        code, index = fetch_from_b("/")
        if code != "200":
            failures.append(f"host B's first GET / was {code}")
        before = metrics(80, GUEST, source=HOST_B)[2]
        # A's slow heads, then A's quiet kept-alive connections.
        for _ in range(40):
            try:
                s = connect_from(HOST_A)
                s.sendall(b"GET / HTTP/1.1\r\nHost: starling\r\n")  # the blank line never comes
                held.append(s)
            except OSError:
                pass
        for _ in range(10):
            try:
                s = connect_from(HOST_A)
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: starling\r\n\r\n")
                held.append(s)
            except OSError:
                pass
        time.sleep(1.0)
        answers = [answer_of(s) for s in held]
        refused = sum(1 for a in answers if a.startswith(b"HTTP/1.1 503") and b"Retry-After:" in a)
        print(f"host A: {len(held)} connections (40 slow heads, 10 kept alive); "
              f"{refused} answered 503 with Retry-After")
        if refused < len(held) - PEER_SLOTS:
            failures.append(f"only {refused} of host A's {len(held)} connections refused: "
                            f"it holds more than its {PEER_SLOTS} slots")
        ok, first, start = 0, None, time.monotonic()
        for _ in range(10):
            code, body = fetch_from_b("/")
            if code == "200" and body == index:
                ok += 1
                if first is None:  # printed, never gated
                    first = round((time.monotonic() - start) * 1000)
        code, _ = fetch_from_b("/metrics")
        print(f"host B: {ok} of 10 GET / whole, the first after {first} ms; GET /metrics {code}")
        if ok != 10:
            failures.append(f"host B fetched {ok} of 10 while host A held its share")
        if code != "200":
            failures.append(f"host B's GET /metrics was {code} while host A held its share")
        during = metrics(80, GUEST, source=HOST_B)[2]
        counted = (during.get("starling_http_connections_refused_peer_total", 0) -
                   before.get("starling_http_connections_refused_peer_total", 0))
        print(f"starling_http_connections_refused_peer_total +{counted:g}, "
              f"slots {during.get('starling_http_slots'):g}")
        if counted < len(held) - PEER_SLOTS:
            failures.append(f"refused_peer_total rose by {counted:g}: A's excess not counted")
        for s in held:
            s.close()
        held = []
        deadline = time.monotonic() + 10
        after = {}
        while time.monotonic() < deadline:
            after = metrics(80, GUEST, source=HOST_B)[2]
            if after.get("starling_http_slots") == 1 and after.get("starling_http_body_buffers") <= 1:
                break
            time.sleep(0.5)
        print(f"after: slots {after.get('starling_http_slots')}, "
              f"body buffers {after.get('starling_http_body_buffers')}")
        if after.get("starling_http_slots") != 1:
            failures.append(f"slots {after.get('starling_http_slots')}: not back at the scrape's own")
        if after.get("starling_http_body_buffers", 2) > 1:
            failures.append("body buffers not back at the scrape's own")
    finally:
        for s in held:
            s.close()
        app.stop()
    return finish(app, failures, args)


def finish(app, failures, args):
    return report(app, failures, ("httpd: serving http on port 80 (64 slots",))


def main():
    return host_process.app_test_main(__file__, __doc__, inside, qemu=True)


if __name__ == "__main__":
    sys.exit(main())
