#!/usr/bin/env python3
"""Hostile IPv6 peers (issue 30, item 5), with tools nobody here wrote:
THC-IPv6 (Debian's thc-ipv6, atk6-*), the SI6 toolkit (ipv6toolkit) and
scapy, against the echo app on a TAP (--qemu: virtio-net; --app: the host
board's DWMAC driver over the device model).

Before the attacks: a SLAAC address from one router advertisement, echo
over both families, a TCP connection over IPv6 opened and kept. Then each
attack runs for a bounded time (`timeout`), and after each:

- echo answers over IPv4 and IPv6 (the time until it does is reported);
- the connection opened before passes 4 KiB more, byte for byte;
- every pool watched is back to its baseline within RECOVERY_S: lwIP's
  PBUF_POOL and PBUF pools, TCP PCBs and segments, the NIC's RX buffers,
  packets queued for neighbours (ND6_QUEUE), coroutine frames. Buffers that
  IPv6 reassembly holds (at most IP_REASS_MAX_PBUFS, 64, in 16 datagrams)
  are allowed until lwIP's 60 s reassembly timeout (RFC 8200's) frees them;
  at the end, once it has passed, every pool must be at its baseline
  exactly. The neighbour cache is only checked against its bound (64): its
  entries stay while they are valid (RFC 4861);
- a 3000-byte datagram (fragmented both ways) is echoed over IPv6: an
  attacker's fragments do not keep legitimate ones from reassembly.

Router advertisement floods go last: their prefixes and routers are valid
for the lifetimes they advertise, so the tables they fill stay full
(bounded: 8 prefixes, 3 routers) until those expire; RA Guard on the switch
(RFC 6105) is the network's defence, as for every host. The peaks seen
after each attack and the recovery times are printed, one line an attack.

Bounded: each attack a few seconds; traffic only on the namespace's TAP.
"""
import os
import re
import socket
import subprocess
import sys
import time

import host_process
import ipv6_echo_test as v6  # the link's helpers

GUEST_V4 = "10.0.2.15"
# Half-open TCP connections a SYN flood leaves (at most 8: SYN cookies past
# that) last lwIP's SYN_RCVD timeout, 20 s; everything else recovers at once.
RECOVERY_S = 25.0
WATCH = ("pbuf_pool_used", "pbuf_ref_used", "tcp_pcbs_used", "tcp_segs_used",
         "rx_wrappers_used", "nd6_queue_used", "coroutine_frames_used")
STATS_KEYS = "pbuf_ tcp_pcbs_used tcp_segs_used rx_wrappers_used nd6_ reass6_ coroutine_frames_used"


def stats():
    return host_process.echo_stats(GUEST_V4, only=STATS_KEYS)


BIG = bytes(i & 0xFF for i in range(3000))  # fragmented both ways


def echo_both(guest_ll, global_address):
    """UDP echo over IPv4, over IPv6 to both addresses, and a 3000-byte
    datagram over IPv6 (fragmented by Linux and by lwIP: reassembly
    still serves legitimate traffic while an attacker's fragments wait)."""
    v4 = host_process.udp_roundtrip(GUEST_V4, b"v4", tries=1, timeout=0.5) == b"v4"
    v6ll = v6.udp6(guest_ll, b"v6", tries=1) == b"v6"
    v6g = v6.udp6(global_address, b"v6g", source=v6.LINUX_GLOBAL, tries=1) == b"v6g"
    big = v6.udp6(guest_ll, BIG, tries=2) == BIG
    return v4 and v6ll and v6g and big


# Buffers IPv6 reassembly may hold (IP_REASS_MAX_PBUFS) until lwIP's 60 s
# reassembly timeout frees them: PBUF_POOL copies or the NIC's own buffers.
REASS_PBUFS = 64


def pools_back(now, baseline):
    """Every watched pool at its baseline, except what reassembly holds
    while it holds datagrams (at most REASS_PBUFS buffers more)."""
    if not now:
        return False
    held = (now.get("pbuf_pool_used", 0) - baseline.get("pbuf_pool_used", 0) +
            now.get("rx_wrappers_used", 0) - baseline.get("rx_wrappers_used", 0))
    for k in WATCH:
        if k in ("pbuf_pool_used", "rx_wrappers_used") and now.get("reass6_used", 0) > 0:
            continue
        if now.get(k) != baseline.get(k):
            return False
    return now.get("reass6_used", 0) == 0 or 0 <= held <= REASS_PBUFS


class KeptConnection:
    """A TCP connection over IPv6 opened before the attacks."""

    def __init__(self, address):
        self.s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        self.s.settimeout(5.0)
        self.s.connect((address, 1236, 0, v6.scope_id()))
        self.round = 0

    def passes(self, size=4096):
        self.round += 1
        return host_process.echoed_back(self.s, bytes((i * 7 + self.round) & 0xFF for i in range(size)))


def scapy_attacks(guest_ll, guest_mac, linux_mac):
    """The scapy attacks: name -> a function that sends one bounded burst."""
    from scapy.all import (Ether, IPv6, IPv6ExtHdrFragment, ICMPv6EchoRequest,  # noqa: PLC0415
                           ICMPv6ND_NS, ICMPv6NDOptSrcLLAddr, ICMPv6PacketTooBig,
                           ICMPv6DestUnreach, ICMPv6MLQuery, ICMPv6MLReport, ICMPv6ND_RA,
                           ICMPv6NDOptPrefixInfo, UDP, Raw, RandMAC, sendp)

    def send(frames):
        sendp(frames, iface=v6.TAP, verbose=False)

    eth = Ether(src=linux_mac, dst=guest_mac)

    def nc_exhaustion():
        # 1000 solicitations for our address from 1000 sources in one /64.
        frames = []
        for i in range(1000):
            src = f"2001:db8:1::{0x1000 + i:x}"
            mac = str(RandMAC())
            frames.append(Ether(src=mac, dst=guest_mac) /
                          IPv6(src=src, dst=guest_ll, hlim=255) /
                          ICMPv6ND_NS(tgt=guest_ll) / ICMPv6NDOptSrcLLAddr(lladdr=mac))
        send(frames)

    def tiny_fragments():
        frames = []
        for ident in range(200):
            for off in range(0, 8 * 20, 8):
                frames.append(eth / IPv6(src=v6.LINUX_LL, dst=guest_ll) /
                              IPv6ExtHdrFragment(id=ident, offset=off // 8, m=1, nh=17) /
                              Raw(b"x" * 8))
        send(frames)

    def overlapping_fragments():
        frames = []
        for ident in range(300, 400):
            frames.append(eth / IPv6(src=v6.LINUX_LL, dst=guest_ll) /
                          IPv6ExtHdrFragment(id=ident, offset=0, m=1, nh=58) /
                          Raw(bytes(ICMPv6EchoRequest(data=b"A" * 64))))
            frames.append(eth / IPv6(src=v6.LINUX_LL, dst=guest_ll) /
                          IPv6ExtHdrFragment(id=ident, offset=2, m=0, nh=58) / Raw(b"B" * 64))
        send(frames)

    def atomic_fragments():
        # Offset 0, no more fragments (RFC 6946): to be processed as a whole packet.
        send([eth / IPv6(src=v6.LINUX_LL, dst=guest_ll) /
              IPv6ExtHdrFragment(id=500 + i, offset=0, m=0) /
              UDP(sport=5000, dport=1235) / Raw(b"atomic") for i in range(200)])

    def icmp_error_storm():
        inner = IPv6(src=guest_ll, dst=v6.LINUX_LL) / UDP(sport=1235, dport=5000) / Raw(b"z" * 32)
        send([eth / IPv6(src=v6.LINUX_LL, dst=guest_ll) /
              (ICMPv6PacketTooBig(mtu=1280) if i % 2 else ICMPv6DestUnreach(code=4)) / inner
              for i in range(1000)])

    def mld_flood():
        send([Ether(src=linux_mac, dst="33:33:00:00:00:01") /
              IPv6(src=v6.LINUX_LL, dst="ff02::1", hlim=1) / ICMPv6MLQuery()
              for _ in range(200)] +
             [Ether(src=linux_mac, dst="33:33:00:00:00:16") /
              IPv6(src=v6.LINUX_LL, dst="ff02::16", hlim=1) / ICMPv6MLReport(mladdr=f"ff02::{i:x}")
              for i in range(1, 500)])

    def ra_many_prefixes_and_routers():
        frames = []
        for r in range(20):
            mac = f"02:00:00:00:01:{r:02x}"
            ra = (Ether(src=mac, dst="33:33:00:00:00:01") /
                  IPv6(src=f"fe80::1:{r + 1:x}", dst="ff02::1", hlim=255) /
                  ICMPv6ND_RA(routerlifetime=1800) / ICMPv6NDOptSrcLLAddr(lladdr=mac))
            for p in range(4):
                ra = ra / ICMPv6NDOptPrefixInfo(prefix=f"2001:db8:{100 + r * 4 + p:x}::",
                                                prefixlen=64, L=1, A=1, validlifetime=600,
                                                preferredlifetime=300)
            frames.append(ra)
        send(frames)

    return [
        ("scapy: neighbour cache exhaustion, 1000 sources in one /64", nc_exhaustion),
        ("scapy: tiny fragments (200 datagrams x 20 8-byte fragments)", tiny_fragments),
        ("scapy: overlapping fragments (100 pairs)", overlapping_fragments),
        ("scapy: atomic fragments (200)", atomic_fragments),
        ("scapy: ICMPv6 error storm (1000 packet too big / unreachable)", icmp_error_storm),
        ("scapy: MLD flood (200 queries, 499 reports)", mld_flood),
    ], ("scapy: RA flood, 20 routers x 4 prefixes", ra_many_prefixes_and_routers)


# The attacks that leave incomplete datagrams in IPv6 reassembly (their
# reass6_used rises and stays until lwIP's timeout).
FRAGMENT_ATTACKS = ("thc fragmentation6", "thc implementation6", "thc fuzz_ip6", "si6 frag6",
                    "scapy: tiny fragments", "scapy: overlapping fragments",
                    "scapy: atomic fragments")


def leaves_fragments(name):
    return name.startswith(FRAGMENT_ATTACKS)


def tool_attacks(guest_ll):
    """(name, argv, seconds): each run under `timeout`."""
    ll = guest_ll
    return [
        ("thc flood_advertise6 (NA flood)", ["atk6-flood_advertise6", v6.TAP], 2),
        ("thc flood_solicitate6 (NS flood)", ["atk6-flood_solicitate6", v6.TAP, ll], 2),
        ("thc flood_mld6 (MLD report flood)", ["atk6-flood_mld6", v6.TAP], 2),
        ("thc fragmentation6 (its fragment test cases)", ["atk6-fragmentation6", "-p", v6.TAP, ll], 15),
        ("thc implementation6 (its implementation cases)", ["atk6-implementation6", "-p", v6.TAP, ll], 15),
        ("thc denial6 case 1 (large hop-by-hop header)", ["atk6-denial6", v6.TAP, ll, "1"], 2),
        ("thc denial6 case 2 (large destination header)", ["atk6-denial6", v6.TAP, ll, "2"], 2),
        ("thc denial6 case 3 (hop-by-hop router alert)", ["atk6-denial6", v6.TAP, ll, "3"], 2),
        ("thc fuzz_ip6 (ICMPv6 echo fuzzed, bounded)", ["atk6-fuzz_ip6", "-I", v6.TAP, ll], 4),
        ("thc ndpexhaust26 (our /64 swept)", ["atk6-ndpexhaust26", v6.TAP, "2001:db8:1::/64"], 2),
        ("si6 frag6 (fragment flood)", ["frag6", "-i", v6.TAP, "-d", ll, "-l", "-z", "1", "-P", "64", "-F", "100"], 3),
        ("si6 na6 (NA flood, many sources)", ["na6", "-i", v6.TAP, "-d", ll, "-t", "2001:db8:1::99", "-F", "100", "-l", "-z", "1"], 2),
        ("si6 ns6 (NS flood, many sources)", ["ns6", "-i", v6.TAP, "-d", ll, "-t", ll, "-F", "100", "-l", "-z", "1"], 2),
        ("si6 tcp6 (SYN flood to the echo port)", ["tcp6", "-i", v6.TAP, "-d", ll, "-a", "1236", "-X", "S", "-F", "100", "-l", "-z", "1"], 3),
    ], [
        ("thc flood_router26 (RA flood)", ["atk6-flood_router26", v6.TAP], 2),
        ("si6 ra6 (RAs with many prefixes)", ["ra6", "-i", v6.TAP, "-d", "ff02::1", "-f", "50", "-l", "-z", "1"], 2),
    ]


def run_tool(argv, seconds):
    """Runs one tool for at most `seconds`; fails the test if it stops at
    once with an error (a wrong option would otherwise test nothing)."""
    began = time.monotonic()
    # The SI6 toolkit installs into /usr/sbin, which a test's PATH lacks.
    env = dict(os.environ, PATH=os.environ.get("PATH", "/usr/bin:/bin") + ":/usr/sbin:/sbin")
    try:
        done = subprocess.run(["timeout", "-s", "INT", str(seconds), *argv], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              timeout=seconds + 10)
    except subprocess.TimeoutExpired:
        subprocess.run(["pkill", "-KILL", "-f", argv[0]], stderr=subprocess.DEVNULL)
        return None
    if done.returncode not in (0, 124) and time.monotonic() - began < seconds / 2:
        return f"{argv[0]} stopped at once (exit {done.returncode}): {done.stderr.strip()[:200]}"
    return None


def recover(baseline, guest_ll, global_address, check_pools=True):
    """Seconds until echo answers on both families, and until the watched
    pools are back at baseline (None if not within RECOVERY_S); the peaks
    seen on the way."""
    start = time.monotonic()
    echo_s = pools_s = None
    peaks = {}
    while time.monotonic() - start < RECOVERY_S:
        now = stats()
        for k in WATCH + ("nd6_neighbors", "reass6_used"):
            if k in now:
                peaks[k] = max(peaks.get(k, 0), now[k])
        if echo_s is None and echo_both(guest_ll, global_address):
            echo_s = time.monotonic() - start
        if pools_s is None and pools_back(now, baseline):
            pools_s = time.monotonic() - start
        if echo_s is not None and (pools_s is not None or not check_pools):
            break
        time.sleep(0.2)
    return echo_s, pools_s, peaks


def missing_tools():
    """The attack tools this machine lacks (setup.sh installs them)."""
    import shutil  # noqa: PLC0415
    path = os.environ.get("PATH", "/usr/bin:/bin") + ":/usr/sbin:/sbin"
    names = [argv[0] for _, argv, _ in sum(tool_attacks("fe80::1"), [])]
    return sorted({n for n in names if shutil.which(n, path=path) is None})


def inside(args):
    failures = []
    missing = missing_tools()
    if missing:
        print(f"FAIL: not installed: {', '.join(missing)}. Fix: sudo ./setup.sh "
              "(installs Debian's thc-ipv6 and ipv6toolkit)")
        return 1
    for address in (v6.LINUX_LL + "/64", v6.LINUX_GLOBAL + "/64"):
        subprocess.run(["ip", "-6", "addr", "add", address, "dev", v6.TAP, "nodad"], check=True)
    app = host_process.app_for(args, "10.0.2.15/24,gw=10.0.2.2")
    report_lines = []
    try:
        if not app.wait_for("echo: ready", args.timeout):
            failures.append("the echo app never printed 'echo: ready'")
            return host_process.echo_report(app, failures, args)
        ll = v6.wait_console(app, r"net: ipv6 address (fe80::[0-9a-f:]+) valid \(link-local\)", 10)
        if ll is None:
            failures.append("no link-local address")
            return host_process.echo_report(app, failures, args)
        guest_ll = ll.group(1)
        v6.scapy_send(v6.router_advertisement(v6.linux_mac()))
        slaac = v6.wait_console(app, r"net: ipv6 address (2001:db8:1:[0-9a-f:]+) valid \(SLAAC\)", 10)
        if slaac is None:
            failures.append("no SLAAC address")
            return host_process.echo_report(app, failures, args)
        global_address = slaac.group(1)
        kept = KeptConnection(guest_ll)
        if not kept.passes() or not echo_both(guest_ll, global_address):
            failures.append("echo or the kept connection failed before any attack")
            return host_process.echo_report(app, failures, args)
        time.sleep(1.0)
        baseline = stats()
        print("baseline:", {k: baseline.get(k) for k in WATCH + ("nd6_neighbors", "reass6_used")})
        scapy_list, scapy_ra = scapy_attacks(guest_ll, v6.guest_mac_from(guest_ll), v6.linux_mac())
        tools, tool_ras = tool_attacks(guest_ll)
        attacks = [(n, (lambda a=a, s=s: run_tool(a, s))) for n, a, s in tools] + scapy_list
        # Those that leave incomplete datagrams first: lwIP frees them only
        # at its 60 s reassembly timeout, which the end of the test waits
        # for, and the other attacks then run inside that wait (last, they
        # made it ~45 s longer, this test the last to finish a cold run).
        # While reassembly holds datagrams, pools_back() lets the PBUF_POOL
        # and wrapper counts stand up to REASS_PBUFS above the baseline; the
        # end of the test still wants every pool back at it.
        attacks.sort(key=lambda attack: not leaves_fragments(attack[0]))
        named = [p for p in FRAGMENT_ATTACKS if not any(n.startswith(p) for n, _ in attacks)]
        if named:
            failures.append(f"FRAGMENT_ATTACKS names no attack: {named} (renamed?)")
        ra_attacks = [(n, (lambda a=a, s=s: run_tool(a, s))) for n, a, s in tool_ras] + [scapy_ra]
        for name, attack, is_ra in ([(n, f, False) for n, f in attacks] +
                                    [(n, f, True) for n, f in ra_attacks]):
            began = time.monotonic()
            error = attack()
            took = time.monotonic() - began
            if error:
                failures.append(f"{name}: {error}")
            echo_s, pools_s, peaks = recover(baseline, guest_ll, global_address)
            kept_ok = kept.passes()
            line = (f"{name}: {took:.1f} s; echo back after "
                    f"{'-' if echo_s is None else f'{echo_s:.1f} s'}; pools back after "
                    f"{'-' if pools_s is None else f'{pools_s:.1f} s'}; most held after it {peaks}")
            print(line, flush=True)
            report_lines.append(line)
            if echo_s is None:
                failures.append(f"{name}: echo did not answer on both families within {RECOVERY_S} s")
            if pools_s is None:
                failures.append(f"{name}: pools not back at baseline within {RECOVERY_S} s: "
                                f"{ {k: stats().get(k) for k in WATCH} } vs baseline")
            if not kept_ok:
                failures.append(f"{name}: the connection opened before lost or changed bytes")
            if peaks.get("nd6_neighbors", 0) > 64:
                failures.append(f"{name}: neighbour cache past its bound")
        # Reassembly: every incomplete datagram, and every buffer it held,
        # gone once lwIP's 60 s timeout has passed.
        deadline = time.monotonic() + 70
        while time.monotonic() < deadline and stats().get("reass6_used", 0) != 0:
            time.sleep(1)
        final = stats()
        print("after the reassembly timeout:", {k: final.get(k) for k in WATCH + ("reass6_used",)})
        if final.get("reass6_used", 0) != 0:
            failures.append("IPv6 reassembly still holds datagrams 70 s after the attacks")
        for k in WATCH:
            if final.get(k) != baseline.get(k):
                failures.append(f"{k} is {final.get(k)} at the end, baseline {baseline.get(k)}")
        if not echo_both(guest_ll, global_address):
            failures.append("echo fails at the end")
    finally:
        app.stop()
    print("---- summary ----")
    for line in report_lines:
        print(line)
    return host_process.echo_report(app, failures, args)


def main():
    return host_process.app_test_main(__file__, __doc__, inside, qemu=True, namespace_timeout=600)


if __name__ == "__main__":
    sys.exit(main())
