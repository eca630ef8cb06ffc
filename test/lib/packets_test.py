#!/usr/bin/env python3
"""packets.py against RFC 1071's example and a real IPv4 header;
stats_line.py on a line and on what is not one."""
import sys

from packets import internet_checksum, ones_complement_sum  # the script's own folder
from stats_line import STATS_QUERY, parse_stats_line

failures = []
if ones_complement_sum(bytes.fromhex("0001f203f4f5f6f7")) != 0xDDF2:
    failures.append("RFC 1071's example does not sum to ddf2")
header = bytes.fromhex("450000730000400040110000c0a80001c0a800c7")
if internet_checksum(header) != 0xB861:
    failures.append(f"the IPv4 header's checksum is {internet_checksum(header):04x}, not b861")
if ones_complement_sum(header[:10] + bytes.fromhex("b861") + header[12:]) != 0xFFFF:
    failures.append("a header with its checksum does not sum to ffff")
if ones_complement_sum(b"\x12\x34\x56") != 0x6834:
    failures.append("an odd length is not padded with zero")
if parse_stats_line(b"STARLING-STATS rx=12 tx_busy=0\r\n") != {"rx": 12, "tx_busy": 0}:
    failures.append("a stats line is not parsed")
if parse_stats_line(b"hello") is not None or len(STATS_QUERY) != 1024:
    failures.append("a reply that is not a stats line was taken for one, or the query is not padded")
for f in failures:
    print("FAIL:", f)
print("PASS" if not failures else f"{len(failures)} failed")
sys.exit(1 if failures else 0)
