#!/usr/bin/env python3
"""Writes the netif_rx seed corpus: frames to the echo app's address
(10.0.2.15) from a peer at 10.0.2.2, each a 2-byte big-endian length and the
frame. Checksums are right (the fuzzer's netif does not check them anyway).
Run from this folder: python3 make_seeds.py."""
import struct

US_MAC = bytes.fromhex("525400123456")
PEER_MAC = bytes.fromhex("525400abcdef")
US = bytes([10, 0, 2, 15])
PEER = bytes([10, 0, 2, 2])


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def eth(ethertype, payload, dst=US_MAC):
    return dst + PEER_MAC + struct.pack("!H", ethertype) + payload


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
mss = b"\x02\x04\x05\xb4"
seeds = {
    "arp_request": frames(arp_request()),
    "udp_echo": frames(arp_request(), eth(0x0800, ip(17, udp(1235, b"hello echo")))),
    "icmp_echo": frames(eth(0x0800, ip(1, b"\x08\x00" + struct.pack("!H", csum(b"\x08\x00\x00\x00\x12\x34\x00\x01ping")) + b"\x12\x34\x00\x01ping"))),
    "tcp_syn": frames(arp_request(), eth(0x0800, ip(6, tcp(1236, SYN, 1000, options=mss)))),
    "tcp_session": frames(
        arp_request(),
        eth(0x0800, ip(6, tcp(1236, SYN, 1000, options=mss))),
        eth(0x0800, ip(6, tcp(1236, ACK, 1001, 6511))),
        eth(0x0800, ip(6, tcp(1236, ACK | PSH, 1001, 6511, b"echo me"))),
        eth(0x0800, ip(6, tcp(1236, ACK | FIN, 1008, 6511))),
    ),
    "tcp_rst_closed_port": frames(eth(0x0800, ip(6, tcp(80, SYN, 5)))),
    "ip_fragments": frames(
        eth(0x0800, ip(17, udp(1235, b"A" * 40)[:24], ident=7, frag=0x2000)),
        eth(0x0800, ip(17, udp(1235, b"A" * 40)[24:], ident=7, frag=3)),
    ),
    "udp_closed_port": frames(eth(0x0800, ip(17, udp(9, b"discard")))),
}
for name, data in seeds.items():
    with open("corpus/" + name, "wb") as f:
        f.write(data)
