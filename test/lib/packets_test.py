#!/usr/bin/env python3
"""packets.py against RFC 1071's example and a real IPv4 header."""
import sys

from packets import internet_checksum, ones_complement_sum  # the script's own folder

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
for f in failures:
    print("FAIL:", f)
print("PASS" if not failures else f"{len(failures)} failed")
sys.exit(1 if failures else 0)
