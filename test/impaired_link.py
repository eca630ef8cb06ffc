"""A bad link between a Starling image and Linux, made in user space.

This machine's kernel has no netem, so the impairment is a relay: the app
under test (QEMU's tap netdev, or the host board's --tap) owns TAP `st0`,
whose kernel side has no address; the relay reads the frames the app sends
from st0 with a packet socket and writes them into TAP `st1`, which it opens
itself and which holds Linux's address (10.0.2.2/24 by default); frames
Linux sends on st1 go back the other way onto st0. On the way each frame may
be dropped, duplicated, held back (reordered behind later frames) or
corrupted (one bit flipped past the Ethernet header), by a seeded random
choice per direction, so a run with the same seed and the same frames makes
the same choices. Rates are settable while the link runs (set()).

Run inside a network namespace of the test's own (TapNamespace with no
address on st0: `impaired_namespace()`); root. Only the namespace's two
TAPs carry traffic.

    with impaired_namespace():            # a fresh netns, st0 up, no address
        link = ImpairedLink(seed=7)       # st1 10.0.2.2/24, the relay running
        link.set(loss=0.02, duplicate=0.01, reorder=0.05, corrupt=0.005)
        ...                               # the app on st0, clients to 10.0.2.15
        link.stop()

docs/testing.md ("A bad link") says how tests and benchmarks use it.
"""
import fcntl
import heapq
import os
import random
import select
import socket
import struct
import subprocess
import threading
import time

TUNSETIFF = 0x400454CA
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
ETH_HEADER = 14

# Directions: frames the app sends (towards Linux), and frames Linux sends
# (towards the app).
FROM_APP = "from_app"
TO_APP = "to_app"


class Impairment:
    """What happens to the frames of one direction: each a probability."""

    def __init__(self, loss=0.0, duplicate=0.0, reorder=0.0, corrupt=0.0, delay_ms=15.0):
        self.loss = loss
        self.duplicate = duplicate
        self.reorder = reorder      # held back delay_ms, so later frames overtake it
        self.corrupt = corrupt      # one bit flipped past the Ethernet header
        self.delay_ms = delay_ms

    def __repr__(self):
        return (f"loss {self.loss:.1%} duplicate {self.duplicate:.1%} reorder {self.reorder:.1%} "
                f"({self.delay_ms:g} ms) corrupt {self.corrupt:.1%}")


class Counters:
    def __init__(self):
        self.frames = self.dropped = self.duplicated = self.held = self.corrupted = 0

    def __repr__(self):
        return (f"frames {self.frames} dropped {self.dropped} duplicated {self.duplicated} "
                f"held {self.held} corrupted {self.corrupted}")


def _ip(*args):
    subprocess.run(["ip", *args], check=True, stdout=subprocess.DEVNULL)


def _sysctl(key, value):
    with open("/proc/sys/" + key.replace(".", "/"), "w") as f:
        f.write(str(value))


def _operational(dev):
    try:
        with open(f"/sys/class/net/{dev}/operstate") as f:
            return f.read().strip() in ("up", "unknown")
    except OSError:
        return False


def quiet_app_side(dev="st0"):
    """st0's kernel side must not talk: no IPv6 (no router or neighbour
    solicitations of its own), no ARP answers for st1's address."""
    _sysctl(f"net.ipv6.conf.{dev}.disable_ipv6", 1)
    _sysctl(f"net.ipv4.conf.{dev}.arp_ignore", 8)  # never answer ARP on it
    _ip("link", "set", dev, "arp", "off")


class ImpairedLink:
    def __init__(self, seed, app_dev="st0", linux_dev="st1", linux_cidr="10.0.2.2/24"):
        self.app_dev = app_dev
        self.linux_dev = linux_dev
        self.impairment = {FROM_APP: Impairment(), TO_APP: Impairment()}
        self.counters = {FROM_APP: Counters(), TO_APP: Counters()}
        self._rng = {FROM_APP: random.Random(f"{seed}/{FROM_APP}"),
                     TO_APP: random.Random(f"{seed}/{TO_APP}")}
        self._lock = threading.Lock()
        quiet_app_side(app_dev)
        self._tap = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
        fcntl.ioctl(self._tap, TUNSETIFF,
                    struct.pack("16sH", linux_dev.encode(), IFF_TAP | IFF_NO_PI))
        _ip("addr", "add", linux_cidr, "dev", linux_dev)
        _ip("link", "set", linux_dev, "up")
        self._packet = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        # A burst from the app must wait in the socket while this thread
        # catches up (it shares the interpreter with the test's clients).
        SO_RCVBUFFORCE = 33
        self._packet.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
        self._packet.bind((app_dev, 0))
        self._packet.setblocking(False)
        # Frames written into a TAP before the kernel has activated it are
        # lost: wait (bounded) until both ends say they are up.
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and not all(
                _operational(d) for d in (app_dev, linux_dev)):
            time.sleep(0.02)
        self._held = []  # (due, sequence, direction, frame)
        self._sequence = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="impaired-link", daemon=True)
        self._thread.start()

    def set(self, direction=None, **rates):
        """Changes the rates of one direction (FROM_APP, TO_APP) or both."""
        with self._lock:
            for d in ([direction] if direction else [FROM_APP, TO_APP]):
                for key, value in rates.items():
                    if not hasattr(self.impairment[d], key):
                        raise ValueError(f"no impairment named {key}")
                    setattr(self.impairment[d], key, value)

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=5)
        self._packet.close()
        os.close(self._tap)

    def _send(self, direction, frame):
        try:
            if direction == FROM_APP:
                os.write(self._tap, frame)
            else:
                self._packet.send(frame)
        except (BlockingIOError, OSError):
            pass  # a full queue on a lossy link is one more loss

    def _carry(self, direction, frame, now):
        with self._lock:
            imp = self.impairment[direction]
            rng = self._rng[direction]
            count = self.counters[direction]
            count.frames += 1
            if rng.random() < imp.loss:
                count.dropped += 1
                return
            copies = 1
            if rng.random() < imp.duplicate:
                count.duplicated += 1
                copies = 2
            for _ in range(copies):
                out = frame
                if len(frame) > ETH_HEADER and rng.random() < imp.corrupt:
                    count.corrupted += 1
                    at = rng.randrange(ETH_HEADER, len(frame))
                    out = bytearray(frame)
                    out[at] ^= 1 << rng.randrange(8)
                    out = bytes(out)
                if rng.random() < imp.reorder:
                    count.held += 1
                    self._sequence += 1
                    heapq.heappush(self._held,
                                   (now + imp.delay_ms / 1000.0, self._sequence, direction, out))
                else:
                    self._send(direction, out)

    def _run(self):
        while not self._stop.is_set():
            now = time.monotonic()
            while self._held and self._held[0][0] <= now:
                _, _, direction, frame = heapq.heappop(self._held)
                self._send(direction, frame)
            wait = 0.05 if not self._held else max(0.0, self._held[0][0] - now)
            readable, _, _ = select.select([self._tap, self._packet], [], [], wait)
            now = time.monotonic()
            if self._packet in readable:
                for _ in range(64):
                    try:
                        frame, address = self._packet.recvfrom(65536)
                    except BlockingIOError:
                        break
                    if address[2] == PACKET_OUTGOING:
                        continue  # our own sends towards the app
                    self._carry(FROM_APP, frame, now)
            if self._tap in readable:
                for _ in range(64):
                    try:
                        frame = os.read(self._tap, 65536)
                    except BlockingIOError:
                        break
                    self._carry(TO_APP, frame, now)
