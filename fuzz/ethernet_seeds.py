#!/usr/bin/env python3
"""Writes the seed corpora of the two Ethernet fuzzers: frames from a peer to
the stack under test, each as a 2-byte big-endian length and the frame
(the format of netif_rx and of lwIP's LWIP_FUZZ_MULTI_PACKET). Checksums are
right (neither fuzzer's netif checks them anyway); the TCP session acks
lwIP's first ISN (6510 + tcp_ticks: 6511 until lwIP's TCP timer has run).

    python3 fuzz/ethernet_seeds.py   (from the repository root)
"""
import os
import struct
import sys

# Kept: run by hand as a plain script from the source tree (no Bazel-made
# path), it finds test/lib's packets.py here.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "lib"))
from packets import internet_checksum as csum  # noqa: E402
PEER_MAC = bytes.fromhex("525400abcdef")
# Per fuzzer: the stack's MAC and address, the peer's address, a UDP port
# and a TCP port something listens on.
TARGETS = {
    # The echo services (fuzz/netif_rx), QEMU user networking's addresses.
    "netif_rx": (bytes.fromhex("525400123456"), bytes([10, 0, 2, 15]), bytes([10, 0, 2, 2]), 1235, 1236),
    # lwIP's fuzz netif (test/fuzz/fuzz.c) and lwiperf on 5001.
    "lwip_fuzz": (bytes.fromhex("0023c1ded00d"), bytes([172, 30, 115, 84]), bytes([172, 30, 115, 1]), 5000, 5001),
}
US_MAC = US = PEER = None


def eth(ethertype, payload, dst=None):
    return (dst or US_MAC) + PEER_MAC + struct.pack("!H", ethertype) + payload


def ip(proto, payload, ident=1, frag=0x4000):
    header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, frag, 64, proto, 0, PEER, US)
    header = header[:10] + struct.pack("!H", csum(header)) + header[12:]
    return header + payload


def pseudo(proto, length):
    return PEER + US + struct.pack("!BBH", 0, proto, length)


def udp(dport, data, sport=40000):
    h = struct.pack("!HHHH", sport, dport, 8 + len(data), 0)
    c = csum(pseudo(17, 8 + len(data)) + h + data)
    return h[:6] + struct.pack("!H", c) + data


def tcp(dport, flags, seq, ack=0, data=b"", sport=40001, window=65535, options=b""):
    off = (20 + len(options)) // 4
    h = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, off << 4, flags, window, 0, 0) + options
    c = csum(pseudo(6, len(h) + len(data)) + h + data)
    return h[:16] + struct.pack("!H", c) + h[18:] + data


def arp_request():
    body = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) + PEER_MAC + PEER + b"\0" * 6 + US
    return eth(0x0806, body, dst=b"\xff" * 6)


def frames(*fs):
    return b"".join(struct.pack("!H", len(f)) + f for f in fs)


SYN, ACK, PSH, FIN, RST = 0x02, 0x10, 0x08, 0x01, 0x04
MSS = b"\x02\x04\x05\xb4"


def seeds(udp_port, tcp_port):
    mss = MSS
    return {
        "arp_request": frames(arp_request()),
        "udp_echo": frames(arp_request(), eth(0x0800, ip(17, udp(udp_port, b"hello echo")))),
        "icmp_echo": frames(eth(0x0800, ip(1, b"\x08\x00" + struct.pack("!H", csum(b"\x08\x00\x00\x00\x12\x34\x00\x01ping")) + b"\x12\x34\x00\x01ping"))),
        "tcp_syn": frames(arp_request(), eth(0x0800, ip(6, tcp(tcp_port, SYN, 1000, options=mss)))),
        "tcp_session": frames(
            arp_request(),
            eth(0x0800, ip(6, tcp(tcp_port, SYN, 1000, options=mss))),
            eth(0x0800, ip(6, tcp(tcp_port, ACK, 1001, 6511))),
            eth(0x0800, ip(6, tcp(tcp_port, ACK | PSH, 1001, 6511, b"echo me"))),
            eth(0x0800, ip(6, tcp(tcp_port, ACK | FIN, 1008, 6511))),
        ),
        "tcp_rst_closed_port": frames(eth(0x0800, ip(6, tcp(80, SYN, 5)))),
        "ip_fragments": frames(
            eth(0x0800, ip(17, udp(udp_port, b"A" * 40)[:24], ident=7, frag=0x2000)),
            eth(0x0800, ip(17, udp(udp_port, b"A" * 40)[24:], ident=7, frag=3)),
        ),
        "udp_closed_port": frames(eth(0x0800, ip(17, udp(9, b"discard")))),
    }


def main():
    global US_MAC, US, PEER
    for fuzzer, (mac, us, peer, udp_port, tcp_port) in TARGETS.items():
        US_MAC, US, PEER = mac, us, peer
        for name, data in seeds(udp_port, tcp_port).items():
            with open(os.path.join(HERE, fuzzer, "corpus", name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
