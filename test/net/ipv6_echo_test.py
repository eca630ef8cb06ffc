#!/usr/bin/env python3
"""IPv6 end to end (issue 30): the echo app on a TAP whose Linux side is a
host and, through scapy, a router. The app is the host board's process
(--app: the DWMAC driver over the device model) or the QEMU image (--qemu:
virtio-net).

1. The app prints its link-local address (EUI-64 from its MAC) as valid.
2. From Linux's fe80::2 on the link: ICMPv6 echo, UDP echo (port 1235) and
   TCP echo (port 1236, 64 KiB verified) to that link-local address.
3. One router advertisement (scapy) with the prefix 2001:db8:1::/64: the
   app prints its SLAAC address as valid, and UDP and TCP echo answer there
   from Linux's 2001:db8:1::2.
4. 200 datagrams to a closed port draw a rate-limited number of ICMPv6
   port unreachables (a burst of 20, then 100 a second), the rest counted.
5. The frame filter: an IPv6 packet with 7 extension headers (the bound is
   6) and one to a group the app never joined are dropped before lwIP
   (netif_rx_long_chain, netif_rx_multicast, read over IPv4's stats
   query), and echo over both families still answers. Where the NIC
   filters exactly (virtio-net's control queue MAC table: --qemu unless
   STARLING_ECHO_NIC turns ctrl_vq off) the unjoined group never reaches
   the netif (netif_rx_multicast +0, nic_rx_filter_updates > 0, no
   fallback); where it does not (no control queue; the DWMAC's hash
   filter, in whose all-nodes bin ff02::18 falls) the netif drops it (+1).
   Joined groups pass either way: Linux's neighbour cache is flushed
   before the first ping, so its solicitation to the app's
   solicited-node group must arrive, and the router advertisement goes to
   all-nodes.

Bounded: a handful of packets, 3-5 s waits; the app is stopped and the
namespace removed at the end.
"""
import os
import re
import socket
import subprocess
import sys
import time

import host_process

GUEST_V4 = "10.0.2.15"
TAP = "st0"
LINUX_LL = "fe80::2"
LINUX_GLOBAL = "2001:db8:1::2"
PREFIX = "2001:db8:1::"


def wait_console(app, pattern, timeout):
    """The first match of `pattern` in the app's console within `timeout` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = re.search(pattern, app.console())
        if m:
            return m
        time.sleep(0.1)
    return None


def scope_id():
    return socket.if_nametoindex(TAP)


def udp6(address, payload, source=None, tries=5):
    """One UDP echo over IPv6: the reply or None."""
    with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as s:
        s.settimeout(1.0)
        if source:
            s.bind((source, 0, 0, scope_id() if source.startswith("fe80") else 0))
        target = (address, 1235, 0, scope_id() if address.startswith("fe80") else 0)
        for _ in range(tries):
            s.sendto(payload, target)
            try:
                return s.recvfrom(65536)[0]
            except socket.timeout:
                continue
    return None


def tcp6(address, size, source=None):
    """TCP echo of `size` bytes over IPv6; True when every byte came back."""
    data = bytes((i * 13 + i // 256) & 0xFF for i in range(size))
    sid = scope_id() if address.startswith("fe80") else 0
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.settimeout(5.0)
            if source:
                s.bind((source, 0, 0, 0))
            s.connect((address, 1236, 0, sid))
            return host_process.echoed_back(s, data)
    except OSError as e:
        print(f"tcp6 {address}: {e}")
        return False


def ping6(address, tries=3):
    """ICMPv6 echo through a raw socket: True once the reply came."""
    payload = b"starling-ping6"
    with socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6) as s:
        s.settimeout(1.0)
        for seq in range(tries):
            request = bytes([128, 0, 0, 0, 0x12, 0x34, 0, seq]) + payload  # kernel fills the sum
            s.sendto(request, (address, 0, 0, scope_id()))
            deadline = time.monotonic() + 1.0
            while time.monotonic() < deadline:
                try:
                    reply, _ = s.recvfrom(2048)
                except socket.timeout:
                    break
                if reply[0] == 129 and reply[4:6] == b"\x12\x34" and reply[8:] == payload:
                    return True
    return False


def closed_port_flood(address, count=200):
    """`count` datagrams to a closed port within a fraction of a second; the
    ICMPv6 port unreachables that came back (counted on a raw socket)."""
    with socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6) as raw, \
            socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as s:
        raw.settimeout(0.2)
        target = (address, 9, 0, scope_id())
        start = time.monotonic()
        for _ in range(count):
            s.sendto(b"closed", target)
        sent_in = time.monotonic() - start
        unreachables = 0
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            try:
                reply, _ = raw.recvfrom(2048)
            except socket.timeout:
                continue
            unreachables += reply[0] == 1 and reply[1] == 4  # destination unreachable, port
    return unreachables, sent_in


def scapy_send(frames):
    from scapy.all import sendp  # noqa: PLC0415 (slow import, only here)
    sendp(frames, iface=TAP, verbose=False)


def router_advertisement(mac):
    from scapy.all import Ether, IPv6, ICMPv6ND_RA, ICMPv6NDOptPrefixInfo, \
        ICMPv6NDOptSrcLLAddr  # noqa: PLC0415
    return (Ether(src=mac, dst="33:33:00:00:00:01") /
            IPv6(src=LINUX_LL, dst="ff02::1", hlim=255) /
            ICMPv6ND_RA(routerlifetime=1800) /
            ICMPv6NDOptSrcLLAddr(lladdr=mac) /
            ICMPv6NDOptPrefixInfo(prefix=PREFIX, prefixlen=64, L=1, A=1, validlifetime=86400,
                                  preferredlifetime=14400))


def hostile_frames(mac, guest_mac, guest_ll):
    from scapy.all import Ether, IPv6, IPv6ExtHdrDestOpt, UDP, Raw  # noqa: PLC0415
    chain = IPv6(src=LINUX_LL, dst=guest_ll)
    for _ in range(7):
        chain = chain / IPv6ExtHdrDestOpt()
    long_chain = Ether(src=mac, dst=guest_mac) / chain / UDP(sport=5555, dport=1235) / Raw(b"x")
    # ff02::18, never joined: its Ethernet address 33:33:00:00:00:18 falls in
    # the all-nodes group's bin of the DWMAC's 64-bin hash filter, so the
    # frame passes the hardware on both NICs and the netif's filter is what
    # drops it (a group in an empty bin the DWMAC drops itself).
    unjoined = (Ether(src=mac, dst="33:33:00:00:00:18") /
                IPv6(src=LINUX_LL, dst="ff02::18") / UDP(sport=5353, dport=1235) / Raw(b"y"))
    return [long_chain, unjoined]


def linux_mac():
    with open(f"/sys/class/net/{TAP}/address") as f:
        return f.read().strip()


def guest_mac_from(link_local):
    """The MAC an EUI-64 link-local address was made from."""
    groups = socket.inet_pton(socket.AF_INET6, link_local)[8:]
    mac = bytes([groups[0] ^ 0x02]) + groups[1:3] + groups[5:8]
    return ":".join(f"{b:02x}" for b in mac)


def device_filters(args):
    """Whether the NIC under test filters multicast exactly: virtio-net
    with its control queue (QEMU's default)."""
    return bool(getattr(args, "qemu", None)) and \
        "ctrl_vq=off" not in os.environ.get("STARLING_ECHO_NIC", "")


def inside(args):
    failures = []
    for address in (LINUX_LL + "/64", LINUX_GLOBAL + "/64"):
        subprocess.run(["ip", "-6", "addr", "add", address, "dev", TAP, "nodad"], check=True)
    app = host_process.app_for(args, "10.0.2.15/24,gw=10.0.2.2")
    try:
        if not app.wait_for("echo: ready", args.timeout):
            failures.append("the echo app never printed 'echo: ready'")
            return host_process.echo_report(app, failures, args)
        ll = wait_console(app, r"net: ipv6 address (fe80::[0-9a-f:]+) valid \(link-local\)", 10)
        if ll is None:
            failures.append("no link-local address became valid")
            return host_process.echo_report(app, failures, args)
        guest_ll = ll.group(1)
        print("link-local:", guest_ll)
        subprocess.run(["ip", "-6", "neigh", "flush", "dev", TAP], check=True)
        if not ping6(guest_ll):
            failures.append(f"no ICMPv6 echo reply from {guest_ll}")
        if udp6(guest_ll, b"hello over ipv6") != b"hello over ipv6":
            failures.append("UDP echo over the link-local address failed")
        if not tcp6(guest_ll, 65536):
            failures.append("TCP echo (64 KiB) over the link-local address failed")

        scapy_send(router_advertisement(linux_mac()))
        slaac = wait_console(app, r"net: ipv6 address (2001:db8:1:[0-9a-f:]+) valid \(SLAAC\)", 10)
        if slaac is None:
            failures.append("no SLAAC address from the router advertisement")
        else:
            global_address = slaac.group(1)
            print("SLAAC:", global_address)
            if udp6(global_address, b"global", source=LINUX_GLOBAL) != b"global":
                failures.append("UDP echo over the SLAAC address failed")
            if not tcp6(global_address, 65536, source=LINUX_GLOBAL):
                failures.append("TCP echo over the SLAAC address failed")

        # RFC 4443 2.4 (f): errors rate-limited (a burst of 20, then 100/s).
        limited_before = host_process.echo_stats(GUEST_V4, only="icmp6_").get("icmp6_limited", 0)
        unreachables, seconds = closed_port_flood(guest_ll)
        limited = host_process.echo_stats(GUEST_V4, only="icmp6_").get("icmp6_limited", 0)
        print(f"200 datagrams to a closed port in {seconds:.2f} s: {unreachables} port "
              f"unreachables, {limited - limited_before} limited")
        if not 1 <= unreachables <= 20 + 100 * (seconds + 1.2):
            failures.append(f"ICMPv6 errors not rate-limited: {unreachables} for 200 datagrams")
        if limited - limited_before < 200 - 20 - 100 * (seconds + 1.2):
            failures.append("icmp6_errors_limited did not count the limited errors")

        before = host_process.echo_stats(GUEST_V4, only="netif_rx_")
        scapy_send(hostile_frames(linux_mac(), guest_mac_from(guest_ll), guest_ll))
        time.sleep(0.5)
        after = host_process.echo_stats(GUEST_V4, only="netif_rx_")
        grew = {key: after.get(key, 0) - before.get(key, 0)
                for key in ("netif_rx_long_chain", "netif_rx_multicast")}
        if "netif_rx_long_chain" not in after or grew["netif_rx_long_chain"] != 1:
            failures.append(f"netif_rx_long_chain grew {grew['netif_rx_long_chain']}, want +1")
        nic = host_process.echo_stats(GUEST_V4, only="nic_rx_filter_")
        print(f"filter: netif_rx_multicast +{grew['netif_rx_multicast']}, {nic}")
        if device_filters(args):
            # Linux's own MLD reports go to ff02::16, not joined either.
            if grew["netif_rx_multicast"] != 0:
                failures.append("the device's filter let an unjoined group through: "
                                f"netif_rx_multicast +{grew['netif_rx_multicast']}")
            if nic.get("nic_rx_filter_updates", 0) < 1 or nic.get("nic_rx_filter_fallbacks") != 0:
                failures.append(f"virtio-net's MAC table was not programmed: {nic}")
        else:
            # Linux's own multicast may land in the same window: at least +1.
            if grew["netif_rx_multicast"] < 1:
                failures.append("the netif did not drop the unjoined group's frame")
            if args.qemu and nic.get("nic_rx_filter_updates") != 0:
                failures.append(f"a filter was programmed without a control queue: {nic}")
        if udp6(guest_ll, b"still there") != b"still there":
            failures.append("UDP echo over IPv6 failed after the hostile frames")
        if host_process.udp_roundtrip(GUEST_V4, b"and ipv4") != b"and ipv4":
            failures.append("UDP echo over IPv4 failed after the hostile frames")
    finally:
        app.stop()
    return host_process.echo_report(app, failures, args)


def main():
    return host_process.app_test_main(__file__, __doc__, inside, qemu=True)


if __name__ == "__main__":
    sys.exit(main())
