#!/usr/bin/env python3
"""virtio-net checksum offload against Linux, end to end (issue 14).

apps/echo in QEMU with its NIC on a TAP (QEMU's tap backend has vnet
headers, so the device offers CSUM and GUEST_CSUM), in namespace A. A
second namespace B reaches the guest through A, which routes between the
TAP and a veth pair whose A end has TX checksumming turned off (ethtool):
every frame the guest leaves to the device (NEEDS_CSUM, only the
pseudo-header sum in the field) is completed by Linux's software checksum
on its way to B, and B's own stack checks it on receipt. So:

  - B's UDP and TCP clients get their echoes byte for byte and B's
    InCsumErrors counters do not move: Linux validated the guest's frames;
  - the guest says it left UDP/TCP checksums to the NIC
    (netif_tx_checksum_offload=1) and trusted frames the device vouched for
    (netif_rx_checksum_trusted > 0: B's traffic arrives with NEEDS_CSUM);
  - raw frames written onto the TAP from A carry no vouching: one with a
    right UDP checksum is echoed, the same frame with a wrong checksum is
    dropped by lwIP's own check, never echoed.

Needs root (namespaces, TAP, ethtool), like the other TAP tests.
"""
import argparse
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import time

from host_process import TapNamespace
from packets import internet_checksum as checksum
from stats_line import parse_stats_line

GUEST = "10.0.2.15"
GUEST_MAC = bytes.fromhex("525400123456")
A_TAP = "10.0.2.2"
A_VETH, B_VETH = "10.0.4.1", "10.0.4.2"
SIZES = (1, 18, 100, 577, 1000, 1472)


def snmp_csum_errors():
    """InCsumErrors of Udp and Tcp in this namespace (/proc/net/snmp)."""
    with open("/proc/net/snmp") as f:
        lines = f.read().splitlines()
    out = {}
    for i in range(0, len(lines) - 1, 2):
        names, values = lines[i].split(), lines[i + 1].split()
        if names[0] in ("Udp:", "Tcp:") and "InCsumErrors" in names:
            out[names[0][:-1]] = int(values[names.index("InCsumErrors")])
    return out


def client_b():
    """In namespace B: UDP and TCP echoes through A; exit code 0 on success."""
    failures = []
    before = snmp_csum_errors()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(1.0)
        for round_ in range(20):
            if len(failures) >= 3:
                break  # bounded: a broken offload fails in seconds, not minutes
            for n in SIZES:
                payload = bytes((i * 7 + n + round_) & 0xFF for i in range(n))
                for _ in range(3 if round_ == 0 else 1):  # the first may wait for ARP
                    s.sendto(payload, (GUEST, 1235))
                    try:
                        data, _ = s.recvfrom(2048)
                        break
                    except socket.timeout:
                        data = None
                if data != payload:
                    failures.append(f"udp echo of {n} bytes: {'none' if data is None else 'differs'}")
    sent = bytes((i * 13) & 0xFF for i in range(64 * 1024))
    got = b""
    try:
        with socket.create_connection((GUEST, 1236), timeout=5) as t:
            t.sendall(sent)
            t.shutdown(socket.SHUT_WR)
            while len(got) < len(sent):
                chunk = t.recv(65536)
                if not chunk:
                    break
                got += chunk
    except OSError as e:
        failures.append(f"tcp echo: {e}")
    if got != sent:
        failures.append(f"tcp echo: {len(got)} of {len(sent)} bytes, {'equal' if sent.startswith(got) else 'differ'}")
    after = snmp_csum_errors()
    for proto in ("Udp", "Tcp"):
        delta = after.get(proto, 0) - before.get(proto, 0)
        print(f"B: {proto} InCsumErrors +{delta}")
        if delta:
            failures.append(f"B's {proto} saw {delta} bad checksums from the guest")
    print(f"B: {len(SIZES) * 20} udp echoes and {len(sent)} tcp bytes checked")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


def udp_frame(src_port, payload, wrong):
    src, dst = socket.inet_aton(A_TAP), socket.inet_aton(GUEST)
    udp = struct.pack("!HHHH", src_port, 1235, 8 + len(payload), 0) + payload
    pseudo = src + dst + struct.pack("!BBH", 0, 17, len(udp))
    c = checksum(pseudo + udp) or 0xFFFF
    if wrong:
        c ^= 0x0101
    udp = udp[:6] + struct.pack("!H", c) + udp[8:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    with open("/sys/class/net/st0/address") as f:
        our_mac = bytes.fromhex(f.read().strip().replace(":", ""))
    return GUEST_MAC + our_mac + b"\x08\x00" + ip + udp


def raw_a():
    """In namespace A: a right and a wrong UDP checksum, straight onto the TAP."""
    failures = []
    port = 40123
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rx, \
            socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as raw:
        rx.bind((A_TAP, port))
        rx.settimeout(1.0)
        raw.bind(("st0", 0))
        for wrong in (False, True, False):
            payload = b"wrong checksum" if wrong else b"right checksum"
            raw.send(udp_frame(port, payload, wrong))
            try:
                data, _ = rx.recvfrom(2048)
            except socket.timeout:
                data = None
            if wrong and data is not None:
                failures.append("a frame with a wrong UDP checksum (not vouched for) was echoed")
            if not wrong and data != payload:
                failures.append(f"a right raw frame was not echoed ({data!r})")
            print(f"A: raw frame with a {'wrong' if wrong else 'right'} checksum: "
                  f"{'echoed' if data else 'no echo'}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


def stats():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(1.0)
        for _ in range(3):
            s.sendto(b"STARLING-STATS".ljust(1024), (GUEST, 1235))
            try:
                return parse_stats_line(s.recv(4096)) or {}
            except socket.timeout:
                continue
    return {}


def inside_a(args):
    """In namespace A (made by run()): B, the veth, QEMU, the three checks."""
    b = f"starling-{os.getppid()}-b"
    sh = lambda *c: subprocess.run(c, check=True, stdout=subprocess.DEVNULL)  # noqa: E731
    failures = []
    sh("ip", "netns", "add", b)
    guest = None
    try:
        sh("ip", "link", "add", "va", "type", "veth", "peer", "name", "vb", "netns", b)
        sh("ip", "addr", "add", f"{A_VETH}/24", "dev", "va")
        sh("ip", "link", "set", "va", "up")
        ethtool = shutil.which("ethtool", path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")
        if ethtool is None:
            raise SystemExit("FAIL: no ethtool: install it (setup.sh lists it; apt-get install ethtool)")
        sh(ethtool, "-K", "va", "tx", "off")  # Linux completes the guest's checksums here
        with open("/proc/sys/net/ipv4/ip_forward", "w") as f:  # this namespace's
            f.write("1")
        sh("ip", "-n", b, "link", "set", "lo", "up")
        sh("ip", "-n", b, "addr", "add", f"{B_VETH}/24", "dev", "vb")
        sh("ip", "-n", b, "link", "set", "vb", "up")
        sh("ip", "-n", b, "route", "add", "default", "via", A_VETH)
        log = open(os.path.join(os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR", "/tmp"), "console.log"), "wb")
        env = dict(os.environ, STARLING_ECHO_NETDEV="tap,id=n0,ifname=st0,script=no,downscript=no")
        guest = subprocess.Popen([args.launcher, "--timeout", "120"], stdin=subprocess.DEVNULL,
                                 stdout=log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 60
        while b"echo: ready" not in open(log.name, "rb").read():
            if guest.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("FAIL: the guest never said 'echo: ready'")
            time.sleep(0.1)
        me = os.path.abspath(__file__)
        if subprocess.run(["ip", "netns", "exec", b, sys.executable, me, "--client-b"],
                          timeout=120).returncode != 0:
            failures.append("B's echoes through the router (above)")
        if subprocess.run([sys.executable, me, "--raw-a"], timeout=60).returncode != 0:
            failures.append("raw frames on the TAP (above)")
        s = stats()
        print("guest: netif_tx_checksum_offload=%s netif_rx_checksum_trusted=%s" %
              (s.get("netif_tx_checksum_offload"), s.get("netif_rx_checksum_trusted")))
        if s.get("netif_tx_checksum_offload") != 1:
            failures.append("the guest did not leave TX checksums to the device (no CSUM negotiated?)")
        if int(s.get("netif_rx_checksum_trusted", 0)) == 0:
            failures.append("the guest trusted no received frame (no GUEST_CSUM negotiated?)")
    finally:
        if guest is not None:
            guest.terminate()
            guest.wait(timeout=10)
        subprocess.run(["ip", "netns", "del", b], stderr=subprocess.DEVNULL)
    text = open(os.path.join(os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR", "/tmp"), "console.log"),
                errors="replace").read()
    if "PANIC" in text:
        failures.append("console shows PANIC")
    for f in failures:
        print("FAIL:", f)
    print("PASS" if not failures else "---- console ----\n" + text[-2000:])
    return 1 if failures else 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--launcher")
    p.add_argument("--inside", action="store_true")
    p.add_argument("--client-b", action="store_true")
    p.add_argument("--raw-a", action="store_true")
    args = p.parse_args()
    if args.client_b:
        return client_b()
    if args.raw_a:
        return raw_a()
    if args.inside:
        return inside_a(args)
    args.launcher = os.path.abspath(args.launcher)
    with TapNamespace(tap="st0") as ns:
        return ns.run([sys.executable, os.path.abspath(__file__), "--inside",
                       "--launcher", args.launcher], timeout=300).returncode


if __name__ == "__main__":
    sys.exit(main())
