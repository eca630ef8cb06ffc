"""Packet arithmetic the Python tests, benchmarks and seed writers share:
the one Internet checksum (RFC 1071) on the Python side, as
kernel/wire/checksum.h is on the C++ side."""
import struct


def ones_complement_sum(data, acc=0):
    """`data` as big-endian 16-bit words (an odd last byte padded with zero)
    added to `acc`, the carries folded back in: 0xFFFF over a header whose
    checksum field is right."""
    if len(data) % 2:
        data = bytes(data) + b"\0"
    total = acc + sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def internet_checksum(data, acc=0):
    """What goes in a checksum field: the complement of the sum, computed
    with the field itself 0."""
    return ~ones_complement_sum(data, acc) & 0xFFFF
