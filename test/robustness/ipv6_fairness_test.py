#!/usr/bin/env python3
"""Fairness between IPv6 peers (issue 30, item 4): a peer is a /64. The
echo app on a TAP (--app: the host board's DWMAC driver; --qemu: virtio-net)
learns two on-link prefixes from one router advertisement, 2001:db8:1::/64
and 2001:db8:2::/64. Linux holds 50 addresses in the first (host A, who
could take any number: SLAAC, privacy addresses, or by hand) and one in the
second (host B).

A opens 100 TCP connections to the echo port, two from each of its 50
addresses, and holds them idle. Were a peer an address, every one would be
within a per-address share; as the /64 it is, A holds at most its share
(starling.tcp_peer_share, 63 of 128), and the rest are reset and counted
(tcp_refused_peer). B must still connect and echo, ten times of ten.
After A lets go, B echoes and the TCP pools are back at their baseline.

Bounded: 100 connection attempts and 10 echoes with timeouts; the app is
stopped and the namespace removed at the end.
"""
import socket
import subprocess
import sys
import time

import host_process
import ipv6_echo_test as v6

GUEST_V4 = "10.0.2.15"
A_ADDRESSES = [f"2001:db8:1::{0x100 + i:x}" for i in range(50)]
HOST_B = "2001:db8:2::2"
SHARE = 63


def two_prefix_advertisement(mac):
    from scapy.all import Ether, IPv6, ICMPv6ND_RA, ICMPv6NDOptPrefixInfo, \
        ICMPv6NDOptSrcLLAddr  # noqa: PLC0415
    ra = (Ether(src=mac, dst="33:33:00:00:00:01") /
          IPv6(src=v6.LINUX_LL, dst="ff02::1", hlim=255) /
          ICMPv6ND_RA(routerlifetime=1800) / ICMPv6NDOptSrcLLAddr(lladdr=mac))
    for prefix in ("2001:db8:1::", "2001:db8:2::"):
        ra = ra / ICMPv6NDOptPrefixInfo(prefix=prefix, prefixlen=64, L=1, A=1,
                                        validlifetime=86400, preferredlifetime=14400)
    return ra


def connect_from(source, guest):
    return host_process.connect_from(source, (guest, 1236))


def echo_from(source, guest, size=1024):
    return host_process.tcp_echo_from(source, (guest, 1236), size)


def b_echoes(guest, tries=10):
    start = time.monotonic()
    ok, first = 0, None
    for _ in range(tries):
        if echo_from(HOST_B, guest):
            ok += 1
            if first is None:
                first = round((time.monotonic() - start) * 1000)
    return ok, first


def tcp_counters():
    return host_process.echo_stats(GUEST_V4, only="tcp_")


def inside(args):
    failures = []
    for address in [v6.LINUX_LL] + A_ADDRESSES + [HOST_B]:
        subprocess.run(["ip", "-6", "addr", "add", address + "/64", "dev", v6.TAP, "nodad"],
                       check=True)
    app = host_process.app_for(args, "10.0.2.15/24,gw=10.0.2.2")
    held = []
    try:
        if not app.wait_for("echo: ready", args.timeout):
            failures.append("the echo app never printed 'echo: ready'")
            return host_process.echo_report(app, failures, args)
        v6.scapy_send(two_prefix_advertisement(v6.linux_mac()))
        # The guest's address in A's /64 (SLAAC from the first prefix).
        m = v6.wait_console(app, r"net: ipv6 address (2001:db8:1:[0-9a-f:]+) valid \(SLAAC\)", 10)
        if m is None:
            failures.append("no SLAAC address in 2001:db8:1::/64")
            return host_process.echo_report(app, failures, args)
        guest = m.group(1)
        baseline = tcp_counters()
        for i in range(100):
            try:
                held.append(connect_from(A_ADDRESSES[i % len(A_ADDRESSES)], guest))
            except OSError:
                pass
        time.sleep(1.0)  # the guest accepts or resets each
        alive = sum(1 for s in held if host_process.still_open(s))
        print(f"host A (one /64, {len(A_ADDRESSES)} addresses): {len(held)} connected, "
              f"{alive} still open")
        if alive > SHARE:
            failures.append(f"host A's /64 holds {alive} connections, more than its share of {SHARE}")
        ok, first = b_echoes(guest)
        print(f"host B (another /64): {ok} of 10 echoes, the first after {first} ms")
        if ok != 10:
            failures.append(f"host B echoed {ok} of 10 while host A held its connections")
        counters = tcp_counters()
        refused = counters.get("tcp_refused_peer", 0) - baseline.get("tcp_refused_peer", 0)
        print("tcp_refused_peer +", refused)
        if refused < 100 - SHARE - 16:
            failures.append(f"tcp_refused_peer +{refused}: A's excess not counted as one peer's")
        for s in held:
            s.close()
        held = []
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if tcp_counters().get("tcp_conns") == baseline.get("tcp_conns"):
                break
            time.sleep(0.2)
        after = tcp_counters()
        if after.get("tcp_conns") != baseline.get("tcp_conns"):
            failures.append(f"tcp_conns {after.get('tcp_conns')} after A let go, baseline "
                            f"{baseline.get('tcp_conns')}")
        ok, _ = b_echoes(guest, tries=3)
        if ok != 3:
            failures.append(f"host B echoed {ok} of 3 after A let go")
    finally:
        for s in held:
            s.close()
        app.stop()
    return host_process.echo_report(app, failures, args)


def main():
    return host_process.app_test_main(__file__, __doc__, inside, qemu=True)


if __name__ == "__main__":
    sys.exit(main())
