#!/usr/bin/env python3
"""Fairness between peers on the host board (issue 27): the echo app's NIC
on a TAP whose Linux side has two addresses, two hosts on one link. Host A
(10.0.2.2) opens 100 TCP connections to the echo port and holds them idle;
host B (10.0.2.3) must still connect and echo, ten times. With the default
share (starling.tcp_peer_share, 63 of 128), A holds at most 63 and the rest
of its connections are reset and counted (tcp_refused_peer).

Then idle holders give way under pressure: A's connections, idle past the
pressed limit (10 s) while the table is not under pressure (63 of 128),
stay open; when B opens 40 more (103 held, over three quarters), A's idle
connections are closed within the look-again period until the table is back
at three quarters, and counted (tcp_pressed_idle_closes); B's fresh ones
stay, and B still echoes.

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
        pressure_phase(held, failures)
    finally:
        for s in held:
            s.close()
        app.stop()
    return finish(app, failures)


PRESSED_IDLE_S = 10  # apps/echo/main.cc, kTcpIdle.pressed_idle_ns
LOOK_AGAIN_S = 1     # net/tcp/idle_clock.h, IdleClock::kLookAgainNs


def pressure_phase(held, failures):
    """A's idle connections outlive the pressed limit while the table is not
    under pressure, and go once B's connections put it over three quarters."""
    a_open = [s for s in held if still_open(s)]
    time.sleep(PRESSED_IDLE_S + 2 * LOOK_AGAIN_S)
    kept = sum(1 for s in a_open if still_open(s))
    print(f"host A: {kept} of {len(a_open)} idle connections open after "
          f"{PRESSED_IDLE_S + 2 * LOOK_AGAIN_S} s, the table not under pressure")
    if kept != len(a_open):
        failures.append(f"host A lost {len(a_open) - kept} idle connections without pressure")
    before = host_process.echo_stats(GUEST).get("tcp_pressed_idle_closes", 0)
    b_held = []
    for _ in range(40):
        try:
            b_held.append(connect_from(HOST_B))
        except OSError:
            pass
    try:
        time.sleep(3 * LOOK_AGAIN_S)
        a_left = sum(1 for s in a_open if still_open(s))
        b_left = sum(1 for s in b_held if still_open(s))
        print(f"under pressure ({len(a_open)} + {len(b_held)} held): host A keeps {a_left}, "
              f"host B keeps {b_left} of {len(b_held)}")
        # A's quiet connections go until the table is back at three quarters
        # (96 of 128), then the normal limit applies again.
        if a_left + b_left > 96:
            failures.append(f"{a_left} + {b_left} connections still held: the table stayed over "
                            "three quarters")
        if b_left != len(b_held):
            failures.append(f"host B lost {len(b_held) - b_left} connections quiet for less than "
                            f"{PRESSED_IDLE_S} s")
        closed = host_process.echo_stats(GUEST).get("tcp_pressed_idle_closes", 0) - before
        print("tcp_pressed_idle_closes +", closed)
        if closed < len(a_open) - a_left:
            failures.append(f"tcp_pressed_idle_closes rose by {closed}, A lost {len(a_open) - a_left}")
        ok = sum(1 for _ in range(3) if echo_from(HOST_B))
        if ok != 3:
            failures.append(f"host B echoed {ok} of 3 after the idle connections went")
    finally:
        for s in b_held:
            s.close()


def finish(app, failures):
    return report(app, failures, ("host: NIC dwmac (device model) on TAP st0",))


def main():
    return host_process.app_test_main(__file__, __doc__, inside)


if __name__ == "__main__":
    sys.exit(main())
