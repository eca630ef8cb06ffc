#!/usr/bin/env python3
"""test/impaired_link.py's relay, on its own: in a fresh network namespace
the test holds TAP st0 (the app's side) and watches TAP st1 (Linux's side)
with a packet socket, sends numbered frames both ways and checks what
arrives: a clean link carries every frame, in order and unchanged; each
impairment does what it says (loss drops, duplication doubles, corruption
flips exactly one bit past the Ethernet header, reordering holds a frame
back by its delay); the same seed makes the same choices; rates change
while the link runs. Root (a namespace and two TAPs)."""
import fcntl
import os
import select
import socket
import struct
import subprocess
import sys
import time

import impaired_link
from checks import check, finish
from impaired_link import FROM_APP, TO_APP, ImpairedLink

ETHERTYPE = 0x88B5  # local experimental: the kernel passes it by
FRAMES = 300


def frame(n):
    head = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + struct.pack("!H", ETHERTYPE)
    return head + struct.pack("!I", n) + bytes((n * 7 + i) & 0xFF for i in range(60))


def number(f):
    return struct.unpack("!I", f[14:18])[0]


class Ends:
    """The app's end (st0's TAP file) and Linux's end (a packet socket on st1)."""

    def __init__(self):
        self.app = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
        fcntl.ioctl(self.app, impaired_link.TUNSETIFF,
                    struct.pack("16sH", b"st0", impaired_link.IFF_TAP | impaired_link.IFF_NO_PI))
        subprocess.run(["ip", "link", "set", "st0", "up"], check=True)

    def watch_linux(self):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETHERTYPE))
        s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE: read after the burst
        s.bind(("st1", 0))
        s.setblocking(False)
        self.linux = s

    def from_app(self, frames):
        for f in frames:
            os.write(self.app, f)
            time.sleep(0.0005)

    def from_linux(self, frames):
        for f in frames:
            self.linux.send(f)
            time.sleep(0.0005)

    @staticmethod
    def _collect(read, fd, seconds):
        got = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            readable, _, _ = select.select([fd], [], [], 0.05)
            if not readable:
                continue
            while True:
                try:
                    data = read()
                except BlockingIOError:
                    break
                if data is None:
                    continue
                if len(data) >= 18 and struct.unpack("!H", data[12:14])[0] == ETHERTYPE:
                    got.append((time.monotonic(), data))
        return got

    def at_linux(self, seconds=0.5):
        def read():
            data, address = self.linux.recvfrom(65536)
            return None if address[2] == impaired_link.PACKET_OUTGOING else data
        return self._collect(read, self.linux, seconds)

    def at_app(self, seconds=0.5):
        return self._collect(lambda: os.read(self.app, 65536), self.app, seconds)



def run_one(seed, setup, direction=FROM_APP, count=FRAMES):
    """A fresh link with `seed`, configured by `setup(link)`, `count` frames
    one way; the (time, frame) list that arrived, the send time, the link."""
    ends = Ends()
    link = ImpairedLink(seed=seed)
    try:
        ends.watch_linux()
        setup(link)
        sent = [frame(n) for n in range(count)]
        start = time.monotonic()
        if direction == FROM_APP:
            ends.from_app(sent)
            got = ends.at_linux(0.6)
        else:
            ends.from_linux(sent)
            got = ends.at_app(0.6)
        return got, start, link
    finally:
        link.stop()
        os.close(ends.app)
        subprocess.run(["ip", "link", "del", "st0"], stderr=subprocess.DEVNULL)
        subprocess.run(["ip", "link", "del", "st1"], stderr=subprocess.DEVNULL)


def inside():
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    for direction in (FROM_APP, TO_APP):
        got, _, _ = run_one(1, lambda link: None, direction)
        frames = [f for _, f in got]
        missing = sorted(set(range(FRAMES)) - {number(f) for f in frames})
        check(f"{direction}: a clean link carries every frame in order, unchanged",
              frames == [frame(n) for n in range(FRAMES)],
              f"{len(frames)} of {FRAMES}" + (f", missing {missing[:10]}" if missing else ""))

    got, _, link = run_one(5, lambda link: link.set(FROM_APP, loss=0.3))
    kept = [number(f) for _, f in got]
    dropped = link.counters[FROM_APP].dropped
    check("loss 30% drops about 30%, the rest in order",
          60 <= dropped <= 120 and len(kept) + dropped == FRAMES and kept == sorted(kept),
          f"{dropped} dropped")
    again, _, _ = run_one(5, lambda link: link.set(FROM_APP, loss=0.3))
    check("the same seed drops the same frames", [number(f) for _, f in again] == kept)
    other, _, _ = run_one(6, lambda link: link.set(FROM_APP, loss=0.3))
    check("another seed drops others", [number(f) for _, f in other] != kept)

    got, _, _ = run_one(2, lambda link: link.set(TO_APP, duplicate=1.0), TO_APP, 50)
    counts = [number(f) for _, f in got]
    check("duplicate 100% delivers each frame twice",
          sorted(counts) == sorted(list(range(50)) * 2), f"{len(counts)} frames")

    got, _, _ = run_one(3, lambda link: link.set(FROM_APP, corrupt=1.0), FROM_APP, 50)
    ok = len(got) == 50
    for _, f in got:
        # The number itself may be the corrupted byte: compare with every frame.
        diffs = min(sum(bin(a ^ b).count("1") for a, b in zip(f, frame(n))) for n in range(50))
        ok = ok and diffs == 1 and f[:14] == frame(0)[:14]
    check("corrupt 100% flips exactly one bit past the Ethernet header in each frame", ok)

    def reorder(link):
        link.set(FROM_APP, reorder=0.2, delay_ms=40)
    got, start, link = run_one(4, reorder, FROM_APP, 100)
    order = [number(f) for _, f in got]
    held = link.counters[FROM_APP].held
    check("reorder 20% holds frames back and later ones overtake them",
          sorted(order) == list(range(100)) and order != sorted(order) and 5 <= held <= 40,
          f"{held} held")

    # Rates change while it runs: clean, then everything dropped.
    ends = Ends()
    link = ImpairedLink(seed=9)
    try:
        ends.watch_linux()
        ends.from_app([frame(n) for n in range(20)])
        first = ends.at_linux(0.3)
        link.set(loss=1.0)
        ends.from_app([frame(n) for n in range(20, 40)])
        second = ends.at_linux(0.3)
        check("a rate set while the link runs applies to the next frames",
              len(first) == 20 and len(second) == 0, f"{len(first)} then {len(second)}")
    finally:
        link.stop()
        os.close(ends.app)
    return finish()


def main():
    if "--inside" in sys.argv:
        return inside()
    if os.geteuid() != 0:
        print("FAIL: needs root for a network namespace and TAP devices (as .ci/run runs)")
        return 1
    name = f"starling-link-{os.getpid()}"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        return subprocess.run(["ip", "netns", "exec", name, sys.executable,
                               os.path.abspath(__file__), "--inside"], timeout=120).returncode
    finally:
        subprocess.run(["ip", "netns", "del", name], stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    sys.exit(main())
