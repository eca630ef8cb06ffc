#!/usr/bin/env python3
"""Fairness between peers on the host board (issue 27): the echo app's NIC
on a TAP whose Linux side has two addresses, two hosts on one link. Host A
(10.0.2.2) opens 100 TCP connections to the echo port and holds them idle;
host B (10.0.2.3) must still connect and echo, ten times. With the default
share (starling.tcp_peer_share, 63 of 128), A holds at most 63 and the rest
of its connections are reset and counted (tcp_refused_peer).

Bounded: connection attempts and reads have timeouts; the app is stopped and
the namespace removed at the end.
"""
import os
import random
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import host_process  # noqa: E402
from host_process import App, report  # noqa: E402

GUEST = "10.0.2.15"
HOST_A = "10.0.2.2"
HOST_B = "10.0.2.3"


def connect_from(source, timeout=2.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((source, 0))
    s.connect((GUEST, 1236))
    return s


def still_open(s):
    """True if the guest has not reset or closed it (a read times out)."""
    s.settimeout(0.05)
    try:
        return s.recv(1) != b""
    except socket.timeout:
        return True
    except OSError:
        return False


def echo_from(source, size=1024):
    data = random.Random(size).randbytes(size)
    try:
        with connect_from(source) as s:
            s.sendall(data)
            got = b""
            while len(got) < size:
                chunk = s.recv(size - len(got))
                if not chunk:
                    break
                got += chunk
            return got == data
    except OSError:
        return False


def inside(args):
    failures = []
    subprocess.run(["ip", "addr", "add", HOST_B + "/24", "dev", "st0"], check=True)
    app = App([args.app, "--tap=st0", "--ip=10.0.2.15/24,gw=10.0.2.2"])
    held = []
    try:
        if not app.wait_for("echo: ready", args.timeout):
            failures.append("the echo app never printed 'echo: ready'")
            return finish(app, failures)
        for _ in range(100):
            try:
                held.append(connect_from(HOST_A))
            except OSError:
                pass
        time.sleep(1.0)  # the guest accepts or resets each
        alive = sum(1 for s in held if still_open(s))
        print(f"host A: {len(held)} connected, {alive} still open")
        if alive > 63:
            failures.append(f"host A holds {alive} connections, more than its share of 63")
        ok = sum(1 for _ in range(10) if echo_from(HOST_B))
        print(f"host B: {ok} of 10 echoes")
        if ok != 10:
            failures.append(f"host B echoed {ok} of 10 while host A held its connections")
        counters = host_process.echo_stats(GUEST)
        print("tcp_refused_peer =", counters.get("tcp_refused_peer"))
        if counters.get("tcp_refused_peer", 0) < 100 - 63 - 16:
            failures.append(f"tcp_refused_peer {counters.get('tcp_refused_peer')}: A's excess not counted")
    finally:
        for s in held:
            s.close()
        app.stop()
    return finish(app, failures)


def finish(app, failures):
    return report(app, failures, ("host: NIC dwmac (device model) on TAP st0",))


def main():
    return host_process.app_test_main(__file__, __doc__, inside)


if __name__ == "__main__":
    sys.exit(main())
