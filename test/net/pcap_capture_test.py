#!/usr/bin/env python3
"""Packet capture: the runner's --pcap option writes the guest NIC's traffic
to a pcap file (QEMU's filter-dump); tshark must find the UDP echo exchange
in it: the request to guest port 1235 and the reply with the same payload,
and the guest's ARP request for its gateway before any frame from outside.

  pcap_capture_test.py --launcher LAUNCHER
"""
import argparse
import os
import shutil
import socket
import subprocess
import sys

from echo_guest import EchoGuest, report

MARK = b"starling-pcap-check"
GUEST_MAC = "52:54:00:12:34:56"  # QEMU's default for the first NIC
GATEWAY = "10.0.2.2"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--launcher", required=True)
    args = ap.parse_args()
    tshark = shutil.which("tshark")
    if not tshark:
        print("FAIL: tshark missing. Fix: sudo ./setup.sh (installs tshark)")
        return 1
    out_dir = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR") or os.environ.get("TEST_TMPDIR") or "/tmp"
    pcap = os.path.join(out_dir, "echo.pcap")
    guest = EchoGuest(args.launcher, 60, runner_args=("--pcap", pcap))
    failures = []
    try:
        if not guest.wait_ready():
            failures.append("never saw 'echo: ready'")
            return report(failures, guest.console(), [])
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(1.0)
        for _ in range(5):
            s.sendto(MARK, ("127.0.0.1", guest.udp_port))
            try:
                if s.recvfrom(2048)[0] == MARK:
                    break
            except socket.timeout:
                continue
        else:
            failures.append("no echo reply")
    finally:
        guest.stop()  # QEMU flushes the capture when it exits
    fields = ["-T", "fields", "-e", "ip.src", "-e", "udp.srcport", "-e", "ip.dst", "-e", "udp.dstport", "-e", "data.data"]
    result = subprocess.run([tshark, "-r", pcap, "-Y", "udp.port == 1235", *fields],
                            capture_output=True, text=True, timeout=60)
    print(f"tshark -r echo.pcap -Y 'udp.port == 1235':\n{result.stdout}")
    rows = [line.split("\t") for line in result.stdout.splitlines() if line.strip()]
    payload = MARK.hex()
    requests = [r for r in rows if len(r) >= 5 and r[2] == "10.0.2.15" and r[3] == "1235" and r[4] == payload]
    replies = [r for r in rows if len(r) >= 5 and r[0] == "10.0.2.15" and r[1] == "1235" and r[4] == payload]
    if not requests:
        failures.append("the capture has no request to 10.0.2.15:1235 with the payload")
    if not replies:
        failures.append("the capture has no reply from 10.0.2.15:1235 with the payload")
    if result.returncode != 0:
        failures.append(f"tshark failed: {result.stderr.strip()}")
    # The guest asks for its gateway's MAC as its link comes up, before any
    # frame from the gateway could have made it ask (net/netif/netif.h,
    # ask_for_gateway): the first frame the gateway sends is not the echo
    # request waiting for an ARP exchange.
    order = subprocess.run([tshark, "-r", pcap, "-T", "fields", "-e", "frame.number", "-e", "eth.src",
                            "-e", "arp.opcode", "-e", "arp.dst.proto_ipv4"],
                           capture_output=True, text=True, timeout=60)
    frames = [line.split("\t") for line in order.stdout.splitlines() if line.strip()]
    asked = next((int(f[0]) for f in frames
                  if len(f) >= 4 and f[1] == GUEST_MAC and f[2] == "1" and f[3] == GATEWAY), None)
    first_in = next((int(f[0]) for f in frames if len(f) >= 2 and f[1] != GUEST_MAC), None)
    print(f"the guest's ARP request for {GATEWAY}: frame {asked}; the first frame from outside: {first_in}")
    if asked is None or (first_in is not None and asked > first_in):
        failures.append(f"the guest did not ask for its gateway {GATEWAY} before the first frame from it")
    return report(failures, guest.console(), [])


if __name__ == "__main__":
    sys.exit(main())
