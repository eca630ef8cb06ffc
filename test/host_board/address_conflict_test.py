#!/usr/bin/env python3
"""Address conflict detection against a real host (issue 28, item 4): the
echo app (host board: the DWMAC driver over the device model) on a TAP whose
Linux side also holds the app's address, 10.0.2.15, so Linux answers the
app's RFC 5227 probes for it.

Checks: the console names the conflict and Linux's hardware address; once
Linux lets the address go, a later probe finds it free ("conflict over");
the app kept its address throughout and echoes; the stats line counts the
conflict (addr_conflicts). Then Linux claims the address once more with one
gratuitous ARP (an ARP reply with 10.0.2.15 as its sender, from a raw socket):
counted again, and free again after the probe that follows.

Bounded: each wait has a deadline (RFC 5227's probe takes at most ~9 s); the
app is stopped and the namespace removed at the end.
"""
import os
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import host_process  # noqa: E402

GUEST = "10.0.2.15"
PROBE_S = 15  # three probes 1-2 s apart, then two announcements 2 s apart, with slack


def st0_mac():
    with open("/sys/class/net/st0/address") as f:
        return f.read().strip()


def claim_once(mac):
    """One ARP reply from Linux's side of the TAP: 10.0.2.15 is at `mac`."""
    hw = bytes.fromhex(mac.replace(":", ""))
    ip = socket.inet_aton(GUEST)
    frame = (b"\xff" * 6 + hw + struct.pack("!H", 0x0806) +
             struct.pack("!HHBBH", 1, 0x0800, 6, 4, 2) + hw + ip + b"\xff" * 6 + ip)
    with socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as s:
        s.bind(("st0", 0))
        s.send(frame.ljust(60, b"\0"))


def inside(args):
    failures = []
    subprocess.run(["ip", "addr", "add", GUEST + "/32", "dev", "st0"], check=True)
    mac = st0_mac()
    app = host_process.app_for(args, GUEST + "/24,gw=10.0.2.2")
    try:
        if not app.wait_for("echo: ready", args.timeout):
            failures.append("the echo app never printed 'echo: ready'")
            return host_process.echo_report(app, failures, args)
        line = f"net: address conflict: {GUEST} is used by {mac}"
        if not app.wait_for(line, PROBE_S):
            failures.append(f"no conflict reported within {PROBE_S} s (want: {line})")
        else:
            print("console:", line)
        subprocess.run(["ip", "addr", "del", GUEST + "/32", "dev", "st0"], check=True)
        if not app.wait_for("net: address conflict over", PROBE_S):
            failures.append(f"no 'conflict over' within {PROBE_S} s of Linux letting the address go")
        if host_process.udp_roundtrip(GUEST, b"still here", tries=5) != b"still here":
            failures.append("the app does not echo after the conflict")
        first = host_process.echo_stats(GUEST).get("addr_conflicts", 0)
        print("addr_conflicts after Linux answered the probe:", first)
        if first < 1:
            failures.append(f"addr_conflicts is {first}: the conflict was not counted")

        claim_once(mac)
        deadline = time.monotonic() + 5
        now = first
        while now <= first and time.monotonic() < deadline:
            time.sleep(0.2)
            now = host_process.echo_stats(GUEST).get("addr_conflicts", 0)
        print("addr_conflicts after one gratuitous ARP claiming the address:", now)
        if now != first + 1:
            failures.append(f"addr_conflicts went {first} -> {now} on one claim, not +1")
        overs = app.console().count("net: address conflict over")
        deadline = time.monotonic() + PROBE_S
        while app.console().count("net: address conflict over") <= overs and \
                time.monotonic() < deadline:
            time.sleep(0.2)
        if app.console().count("net: address conflict over") <= overs:
            failures.append("no probe found the address free again after the claim")
        if host_process.udp_roundtrip(GUEST, b"and still", tries=5) != b"and still":
            failures.append("the app does not echo after the claim")
    finally:
        app.stop()
    return host_process.echo_report(app, failures, args)


def main():
    return host_process.app_test_main(__file__, __doc__, inside)


if __name__ == "__main__":
    sys.exit(main())
