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

Then DHCP (ip=dhcp): a small DHCP server in this test (on the TAP's Linux
side) offers 10.0.2.15, which Linux still holds. The app's DHCP client
probes the lease before binding it, Linux answers, and the app declines it:
the console says so, the server receives the DHCPDECLINE for 10.0.2.15, and
after the client's 10 s back-off it is offered 10.0.2.16, binds that (the
console's address line) and echoes there, the conflict counted.

Bounded: each wait has a deadline (RFC 5227's probe takes at most ~9 s, the
decline's back-off 10 s); the server stops with the test; the app is
stopped and the namespace removed at the end.
"""
import socket
import struct
import subprocess
import sys
import threading
import time

import host_process

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


class DhcpServer:
    """A DHCP server for one client, enough for lwIP's (RFC 2131: DISCOVER,
    OFFER, REQUEST, ACK; DECLINE recorded, its address never offered again),
    on the TAP's Linux side. `events` lists what it received and sent."""

    MAGIC = b"\x63\x82\x53\x63"

    def __init__(self, pool):
        self.pool = list(pool)
        self.declined = set()
        self.events = []
        self._stop = threading.Event()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, b"st0")
        self._sock.bind(("0.0.0.0", 67))
        self._sock.settimeout(0.2)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=2)
        self._sock.close()

    @staticmethod
    def _options(data):
        options, at = {}, 240
        while at < len(data) and data[at] != 255:
            if data[at] == 0:
                at += 1
                continue
            options[data[at]] = data[at + 2:at + 2 + data[at + 1]]
            at += 2 + data[at + 1]
        return options

    def _offer(self):
        return next((a for a in self.pool if a not in self.declined), None)

    def _reply(self, request, kind, address):
        options = bytes([53, 1, kind, 54, 4]) + socket.inet_aton("10.0.2.2")
        options += bytes([51, 4]) + struct.pack("!I", 3600)
        options += bytes([1, 4]) + socket.inet_aton("255.255.255.0")
        options += bytes([3, 4]) + socket.inet_aton("10.0.2.2") + b"\xff"
        packet = (bytes([2, 1, 6, 0]) + request[4:12] + b"\0" * 4 + socket.inet_aton(address) +
                  socket.inet_aton("10.0.2.2") + b"\0" * 4 + request[28:44] + b"\0" * 192 +
                  self.MAGIC + options)
        self._sock.sendto(packet, ("255.255.255.255", 68))

    def _serve(self):
        while not self._stop.is_set():
            try:
                data, _ = self._sock.recvfrom(2048)
            except socket.timeout:
                continue
            except OSError:
                return
            if len(data) < 240 or data[0] != 1 or data[236:240] != self.MAGIC:
                continue
            options = self._options(data)
            kind = options.get(53, b"\0")[0]
            asked = socket.inet_ntoa(options[50]) if len(options.get(50, b"")) == 4 else None
            if kind == 1:  # DISCOVER
                offer = self._offer()
                self.events.append(("discover", None))
                if offer:
                    self._reply(data, 2, offer)
                    self.events.append(("offer", offer))
            elif kind == 3:  # REQUEST
                self.events.append(("request", asked))
                if asked and asked not in self.declined:
                    self._reply(data, 5, asked)
                    self.events.append(("ack", asked))
            elif kind == 4:  # DECLINE
                self.declined.add(asked)
                self.events.append(("decline", asked))


def dhcp_phase(args, failures):
    """ip=dhcp: the lease Linux also holds is declined, the next one bound."""
    subprocess.run(["ip", "addr", "add", GUEST + "/32", "dev", "st0"], check=True)
    server = DhcpServer(["10.0.2.15", "10.0.2.16"])
    app = host_process.app_for(args, "dhcp")
    try:
        line = f"net: address conflict: {GUEST} offered by DHCP is used by another host"
        if not app.wait_for(line, 30):
            failures.append(f"dhcp: no conflict reported for the offered {GUEST} (want: {line})")
        else:
            print("console:", line)
        subprocess.run(["ip", "addr", "del", GUEST + "/32", "dev", "st0"], check=True)
        if ("decline", GUEST) not in server.events:
            failures.append(f"dhcp: the server received no DHCPDECLINE for {GUEST}: {server.events}")
        if not app.wait_for("echo: address 10.0.2.16/24 gw 10.0.2.2 (dhcp)", 40):
            failures.append("dhcp: the client did not bind 10.0.2.16 after declining 10.0.2.15")
        print("dhcp server saw:", server.events)
        if host_process.udp_roundtrip("10.0.2.16", b"leased", tries=5) != b"leased":
            failures.append("dhcp: no echo on the second lease")
        counted = host_process.echo_stats("10.0.2.16").get("addr_conflicts", 0)
        print("dhcp: addr_conflicts =", counted)
        if counted < 1:
            failures.append(f"dhcp: addr_conflicts is {counted}: the declined lease was not counted")
    finally:
        server.stop()
        app.stop()
    return host_process.echo_report(app, failures, args)


def inside(args):
    failures = []
    static = static_phase(args, failures)
    return dhcp_phase(args, failures) or static


def static_phase(args, failures):
    """A static address: Linux answers the probe, then lets it go."""
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
