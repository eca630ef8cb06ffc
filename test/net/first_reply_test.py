#!/usr/bin/env python3
"""The first datagram from a host the app has never talked to is answered
(issue 28, item 6): the echo app's NIC on a TAP whose Linux side has three
addresses, three hosts on one link; the app is the host board's process
(--app: the DWMAC driver over the device model) or the QEMU image (--qemu:
virtio-net).

Host A (10.0.2.2, the gateway) echoes first, with retries: Linux then knows
the app's hardware address, so the hosts that follow reach it without an ARP
request the app could learn their addresses from. Host B (10.0.2.3) sends
one 40-byte datagram (below the RX copy break: the app echoes a PBUF_POOL
copy) and host C (10.0.2.4) one 600-byte datagram (above it: the app echoes
the NIC's own buffer), each exactly once. To answer, the app must resolve the
host's address, and lwIP holds the reply until the ARP reply comes: the one
reply must arrive, byte for byte, within 3 s. Before the fix the 40-byte
reply was sent as an Ethernet header followed by the datagram's bytes (no
IP or UDP header) and never arrived.

Bounded: one datagram per host and a 3 s wait; the app is stopped and the
namespace removed at the end.
"""
import socket
import subprocess
import sys

import host_process

GUEST = "10.0.2.15"
HOST_A = "10.0.2.2"
NEW_HOSTS = (("10.0.2.3", 40), ("10.0.2.4", 600))


def one_datagram(source, size):
    """Sends one datagram of `size` bytes from `source` to the echo port;
    the reply if it came back within 3 s, else None."""
    payload = bytes((i * 7 + size) & 0xFF for i in range(size))
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind((source, 0))
        s.settimeout(3.0)
        s.sendto(payload, (GUEST, 1235))
        try:
            data, _ = s.recvfrom(65536)
        except socket.timeout:
            return payload, None
    return payload, data


def inside(args):
    failures = []
    for host, _ in NEW_HOSTS:
        host_process.add_second_host(host)
    app = host_process.app_for(args, "10.0.2.15/24,gw=10.0.2.2")
    try:
        if not app.wait_for("echo: ready", args.timeout):
            failures.append("the echo app never printed 'echo: ready'")
            return host_process.echo_report(app, failures, args)
        if host_process.udp_roundtrip(GUEST, b"warm", tries=5) != b"warm":
            failures.append("host A's echo failed: no link")
            return host_process.echo_report(app, failures, args)
        neigh = subprocess.run(["ip", "neigh", "show", GUEST], capture_output=True, text=True).stdout
        print("Linux's neighbour entry for the app:", neigh.strip())
        for host, size in NEW_HOSTS:
            sent, got = one_datagram(host, size)
            print(f"{host}: one {size}-byte datagram, reply: "
                  f"{'none' if got is None else f'{len(got)} bytes'}")
            if got is None:
                failures.append(f"the first datagram from {host} ({size} bytes) was not answered")
            elif got != sent:
                failures.append(f"the reply to {host} differs from what it sent")
    finally:
        app.stop()
    return host_process.echo_report(app, failures, args)


def main():
    return host_process.app_test_main(__file__, __doc__, inside, qemu=True)


if __name__ == "__main__":
    sys.exit(main())
