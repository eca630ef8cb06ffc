#!/usr/bin/env python3
"""Hostile TLS peers against apps/httpd's HTTPS (issue 31), on the host
board (--app, under ASan) or the riscv64 image in QEMU (--qemu), on a TAP
in a namespace of the test's own. The handshake limit is 2 s
(httpd.handshake_timeout_ms=2000). Real handshake bytes come from Python's
ssl (a MemoryBIO client); the rest is written by hand, byte for byte.

1. A handshake flood from eight source addresses at once: each holds three
   connections with half a ClientHello sent, and runs full handshakes
   (Python's ssl) as fast as it can, one at a time: each source at its
   four handshakes in progress (httpd.peer_handshakes's default), 32 in
   all. Meanwhile a ninth host fetches /healthz over HTTPS, every time
   answered; TLS memory stays within its budget while the flood runs.
1b. One more source past its turns: six half ClientHellos at once. Four take
   turns, two wait (starling_http_tls_handshakes_waited_total +2); no
   peer ever had more than four in progress
   (starling_http_tls_peer_handshakes_max); the ninth host is served
   meanwhile.
2. A ClientHello dribbled a byte every 50 ms: cut at the handshake limit,
   long before it is whole, and counted.
3. Garbage instead of a record, a record header announcing 18 KiB (over
   TLS's 16 KiB + 2 KiB), a ClientHello cut short by a FIN, and a fatal
   alert in the middle of a TLS 1.2 handshake: each connection ends, and
   each is counted by kind (starling_tls_failures_total).
4. Afterwards: no TLS session, no TLS memory, no slot held beyond the
   scrape's own; the stalled flood connections cut and counted; a new
   client served.
"""
import os
import socket
import ssl
import struct
import sys
import tempfile
import threading
import time

import host_process

# test/http is on the path: //test:scenario.bzl sets PYTHONPATH.
from http_checks import boot_files, get_and_close, metrics, throwaway_pair

GUEST = "10.0.2.15"
HOST = "10.0.2.2"
FLOODERS = [f"10.0.2.{30 + i}" for i in range(8)]
GREEDY = "10.0.2.40"  # past its turns (1b): none of its handshakes from the flood
STALLED_EACH = 3  # and one full handshake at a time: PEER_TURNS
PEER_TURNS = 4  # httpd.peer_handshakes's default
HANDSHAKE_LIMIT_S = 2.0


def client_context(max_tls12=False):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    if max_tls12:
        context.maximum_version = ssl.TLSVersion.TLSv1_2
    return context


def client_hello(max_tls12=False):
    """The bytes of a real ClientHello (Python's ssl, through a MemoryBIO)."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = client_context(max_tls12).wrap_bio(incoming, outgoing, server_hostname="starling.test")
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


def connect(source=None, timeout=5.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    if source:
        s.bind((source, 0))
    s.connect((GUEST, 443))
    return s


def ended(s, within):
    """True if the server closed or reset `s` within `within` seconds
    (whatever it sent first is read and dropped)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        s.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            if s.recv(65536) == b"":
                return True
        except socket.timeout:
            return False
        except OSError:
            return True
    return False


def https_healthz(source=None, why=None):
    """GET /healthz over TLS from `source`: True if answered "ok". What went
    wrong otherwise is appended to `why`, if given."""
    try:
        with connect(source, timeout=10) as raw:
            with client_context().wrap_socket(raw, server_hostname="starling.test") as s:
                reply = get_and_close(s)
        if reply.startswith(b"HTTP/1.1 200 OK") and reply.endswith(b"ok\n"):
            return True
        if why is not None:
            why.append(f"answered {reply[:80]!r}")
    except OSError as e:
        if why is not None:
            why.append(f"{type(e).__name__}: {e}")
    return False


def flood(failures):
    hello = client_hello()
    stalled = []
    for source in FLOODERS:
        host_process.add_second_host(source)
    for source in FLOODERS:
        for _ in range(STALLED_EACH):
            s = connect(source)
            s.sendall(hello[:len(hello) // 2])
            stalled.append(s)
    stop = threading.Event()
    done = []

    def handshakes(source):
        n = 0
        while not stop.is_set():
            try:
                with connect(source, timeout=5) as raw:
                    with client_context().wrap_socket(raw, server_hostname="starling.test"):
                        n += 1
            except OSError:
                pass
        done.append(n)

    threads = [threading.Thread(target=handshakes, args=(source,)) for source in FLOODERS]
    for t in threads:
        t.start()
    served, slowest, peaks = 0, 0.0, []
    try:
        for _ in range(5):
            start = time.monotonic()
            served += https_healthz(HOST)
            slowest = max(slowest, time.monotonic() - start)
            m = metrics(80, GUEST)[2]
            peaks.append((m.get("starling_tls_memory_bytes", -1),
                          m.get("starling_tls_memory_limit_bytes", 0),
                          m.get("starling_tls_sessions", -1)))
            time.sleep(0.2)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=30)
    print(f"flood: {len(stalled)} half-handshakes held, {sum(done)} full handshakes by "
          f"{len(FLOODERS)} sources; the other host: {served} of 5 GET /healthz answered "
          f"(slowest {slowest * 1000:.0f} ms); TLS memory/limit/sessions during: {peaks}")
    if served != 5:
        failures.append(f"during the flood the other host got {served} of 5 answers")
    if sum(done) == 0:
        failures.append("the flood completed no handshake (the test is not testing)")
    for used, limit, sessions in peaks:
        if not 0 <= used <= limit or sessions > 64:
            failures.append(f"TLS memory {used} of {limit}, {sessions} sessions during the flood")
    return stalled


def past_the_turns(failures):
    """Six half ClientHellos from one source: four in progress, two waiting
    their turn. Returns the sockets (cut at the limit, later)."""
    host_process.add_second_host(GREEDY)
    before = metrics(80, GUEST)[2]
    hello = client_hello()
    held = []
    for _ in range(PEER_TURNS + 2):
        s = connect(GREEDY)
        s.sendall(hello[:len(hello) // 2])
        held.append(s)
    time.sleep(0.3)
    start = time.monotonic()
    if not https_healthz(HOST):
        failures.append("past one peer's turns: the other host was not served")
    took = time.monotonic() - start
    after = metrics(80, GUEST)[2]
    waited = after.get("starling_http_tls_handshakes_waited_total", 0) - \
        before.get("starling_http_tls_handshakes_waited_total", 0)
    peak = after.get("starling_http_tls_peer_handshakes_max")
    print(f"past the turns: {len(held)} half handshakes from one source, {waited:g} waited; "
          f"the most one peer had in progress {peak}; the other host served in "
          f"{took * 1000:.0f} ms")
    if waited != 2:
        failures.append(f"{waited:g} handshakes waited for their peer's turn, want 2")
    if peak != PEER_TURNS:
        failures.append(f"a peer had {peak} handshakes in progress at once, the limit is {PEER_TURNS}")
    return held


def dribble(failures):
    hello = client_hello()
    s = connect(HOST)
    start = time.monotonic()
    sent = 0
    try:
        for byte in hello:
            s.sendall(bytes([byte]))
            sent += 1
            time.sleep(0.05)
            if time.monotonic() - start > 3 * HANDSHAKE_LIMIT_S:
                break
    except OSError:
        pass
    cut = ended(s, 3 * HANDSHAKE_LIMIT_S)
    waited = time.monotonic() - start
    s.close()
    print(f"dribble: {sent} of {len(hello)} bytes sent, cut after {waited:.1f} s")
    if not cut or sent >= len(hello):
        failures.append(f"a dribbled ClientHello was not cut at the limit ({sent} of "
                        f"{len(hello)} bytes, {waited:.1f} s)")


def bad_records(failures):
    """Each case: (what, bytes to send, then FIN?); the server must end the
    connection within the handshake limit."""
    hello = client_hello()
    oversized = struct.pack("!BHH", 0x16, 0x0303, 18 * 1024 + 1) + bytes(200)
    cases = [
        ("garbage", os.urandom(1000), False),
        ("an 18 KiB record header", oversized, False),
        ("a ClientHello cut short, then FIN", hello[:len(hello) // 3], True),
    ]
    for what, data, fin in cases:
        s = connect(HOST)
        s.sendall(data)
        if fin:
            s.shutdown(socket.SHUT_WR)
        if not ended(s, HANDSHAKE_LIMIT_S + 2):
            failures.append(f"{what}: the connection was not ended")
        s.close()
    # A fatal alert (handshake_failure) after the server's first flight of
    # a TLS 1.2 handshake, where the record layer is still plaintext.
    s = connect(HOST)
    s.sendall(client_hello(max_tls12=True))
    got = b""
    s.settimeout(2)
    try:
        while b"\x0e\x00\x00\x00" not in got:  # ServerHelloDone
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    except OSError:
        pass
    if b"\x0e\x00\x00\x00" not in got:
        failures.append(f"no TLS 1.2 server flight before the alert ({len(got)} bytes)")
    s.sendall(bytes([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28]))
    if not ended(s, HANDSHAKE_LIMIT_S + 2):
        failures.append("an alert mid-handshake: the connection was not ended")
    s.close()


def inside(args):
    failures = []
    work = tempfile.mkdtemp(prefix="starling-tls-hostile-")
    cert, key = throwaway_pair(work, GUEST)
    initrd = boot_files(work, f"tls/cert.pem={cert}", f"tls/key.pem={key}")
    bootargs = f"httpd.handshake_timeout_ms={int(HANDSHAKE_LIMIT_S * 1000)}"
    if getattr(args, "qemu", None):
        os.environ["STARLING_HTTPD_NETDEV"] = "tap,id=n0,ifname=st0,script=no,downscript=no"
        app = host_process.App([args.qemu, "--timeout", "600", "--", "-initrd", initrd,
                                "-append", f"ip={GUEST}/24 {bootargs}"])
    else:
        app = host_process.App([args.app, "--tap=st0", f"--ip={GUEST}/24,gw={HOST}",
                                f"--initrd={initrd}", f"--bootargs={bootargs}"])
    try:
        if not app.wait_for("httpd: serving https on port 443", args.timeout):
            failures.append("httpd never said it was serving https")
            return host_process.report(app, failures)
        if not https_healthz(HOST):
            failures.append("the first HTTPS request failed")
        before = metrics(80, GUEST)[2]

        stalled = flood(failures)
        stalled += past_the_turns(failures)
        # A client's error here is a failure with the guest's log after it
        # (report below), not a traceback without it.
        for attack in (dribble, bad_records):
            try:
                attack(failures)
            except OSError as e:
                failures.append(f"{attack.__name__}: {type(e).__name__}: {e}")

        # The stalled flood connections: cut at the limit, from the server.
        cut = sum(ended(s, 0.5) for s in stalled)
        for s in stalled:
            s.close()
        if cut != len(stalled):
            failures.append(f"{len(stalled) - cut} of {len(stalled)} stalled handshakes not cut")
        time.sleep(HANDSHAKE_LIMIT_S + 1)
        # One second try, reported: CI once saw this request fail fast while
        # the server's counters were all back at their baselines, and it did
        # not recur in 16 runs here, loaded or not. Service that comes back
        # within a second is still recovery; service that does not fails.
        why = []
        if not https_healthz(HOST, why):
            print(f"after: the first new client was not served ({why[-1]}); once more in 1 s")
            time.sleep(1)
            if not https_healthz(HOST, why):
                failures.append("a new client was not served after the attacks "
                                f"({'; then '.join(why)})")
        after = metrics(80, GUEST)[2]

        def grew(name):
            return after.get(name, 0) - before.get(name, 0)
        kinds = {k: grew(f'starling_tls_failures_total{{kind="{k}"}}')
                 for k in ("alert_sent", "alert_received", "bad_record", "closed_early", "timeout")}
        timeouts = grew("starling_http_tls_handshake_timeouts_total")
        print(f"counted: handshake timeouts +{timeouts:g}, failures by kind {kinds}")
        if timeouts < len(stalled) + 1:
            failures.append(f"handshake timeouts +{timeouts:g}, want >= {len(stalled) + 1} "
                            "(the stalled flood and the dribble)")
        if kinds["timeout"] != timeouts:
            failures.append(f"TLS's timeout kind +{kinds['timeout']:g}, the server's +{timeouts:g}")
        if kinds["alert_received"] < 1:
            failures.append("the alert mid-handshake was not counted as alert_received")
        if kinds["alert_sent"] + kinds["bad_record"] < 2:
            failures.append("garbage and the oversized record not counted (alert_sent/bad_record)")
        if kinds["closed_early"] < 1:
            failures.append("the truncated ClientHello not counted as closed_early")
        baseline = {
            "starling_tls_sessions": 0,
            "starling_tls_memory_bytes": before.get("starling_tls_memory_bytes"),
            "starling_http_slots": 1,  # the scrape's own
        }
        for name, want in baseline.items():
            print(f"after: {name} = {after.get(name)} (baseline {want})")
            if after.get(name) != want:
                failures.append(f"{name} is {after.get(name)} after the attacks, want {want}")
        peak, limit = after.get("starling_tls_memory_max_bytes", 0), \
            after.get("starling_tls_memory_limit_bytes", 0)
        print(f"TLS memory peak {peak:g} of {limit:g} bytes")
        if not 0 < peak <= limit:
            failures.append(f"TLS memory peak {peak} not within its limit {limit}")
    finally:
        app.stop()
    return host_process.report(app, failures)


def main():
    return host_process.app_test_main(__file__, __doc__, inside, qemu=True, namespace_timeout=400)


if __name__ == "__main__":
    sys.exit(main())
