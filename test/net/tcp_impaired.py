#!/usr/bin/env python3
"""TCP echo streams through a bad link (test/impaired_link.py): goodput,
the longest time without progress, and whether every byte came back.

    tcp_impaired.py (--qemu LAUNCHER | --app BINARY) [--seed N]
        [--loss P --duplicate P --reorder P --corrupt P] [--direction from_app|to_app]
        [--phases "1x192 4x48"] [--max-gap S] [--deadline S]

Each phase (--phases) is STREAMSxKIB: that many streams at once, each of
that many KiB. Runs itself again inside a fresh network namespace (root).
The app under test is on TAP st0 (QEMU's virtio-net, or the host board's DWMAC model);
Linux is at 10.0.2.2 on the relay's TAP. Each stream connects to the echo
port (1236), writes its bytes (seeded, different per stream) while reading
the echo, and checks them. A stream stalls when neither direction moves for
--max-gap seconds; the run ends at --deadline. Exit 0 when every stream came
back exact with no stall and the app's pools are back to their baseline
afterwards; the figures are printed either way.
"""
import argparse
import os
import random
import socket
import subprocess
import sys
import threading
import time

# Kept: bench/lossy_link/sweep.py runs this file as a plain script from the
# source tree (no runfiles, no Bazel-made path), and the sh_tests below
# //test/net run it the same way.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "host_board"))
import host_process  # noqa: E402
from impaired_link import ImpairedLink  # noqa: E402

GUEST = "10.0.2.15"
ECHO_PORT = 1236


class Stream:
    def __init__(self, index, size, seed):
        rng = random.Random(f"{seed}/stream/{index}")
        self.index = index
        self.data = rng.randbytes(size)
        self.sent = 0
        self.received = bytearray()
        self.error = None
        self.start = self.end = None
        self.last_progress = None
        self.longest_gap = 0.0

    def progress(self, now):
        if self.last_progress is not None:
            self.longest_gap = max(self.longest_gap, now - self.last_progress)
        self.last_progress = now

    def run(self, deadline, max_gap):
        self.start = self.last_progress = time.monotonic()
        try:
            s = socket.create_connection((GUEST, ECHO_PORT), timeout=max_gap)
        except OSError as e:
            self.error = f"connect: {e}"
            self.end = time.monotonic()
            return
        with s:
            s.setblocking(False)
            import selectors
            sel = selectors.DefaultSelector()
            sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE)
            while len(self.received) < len(self.data):
                now = time.monotonic()
                if now > deadline:
                    self.error = "deadline"
                    break
                if now - self.last_progress > max_gap:
                    self.error = f"stalled {now - self.last_progress:.1f} s"
                    break
                if self.sent == len(self.data):
                    sel.modify(s, selectors.EVENT_READ)
                for key, events in sel.select(timeout=0.2):
                    now = time.monotonic()
                    if events & selectors.EVENT_WRITE and self.sent < len(self.data):
                        try:
                            n = s.send(self.data[self.sent:self.sent + 65536])
                        except BlockingIOError:
                            n = 0
                        except OSError as e:
                            self.error = f"send: {e}"
                            break
                        if n:
                            self.sent += n
                            self.progress(now)
                    if events & selectors.EVENT_READ:
                        try:
                            chunk = s.recv(65536)
                        except BlockingIOError:
                            chunk = None
                        except OSError as e:
                            self.error = f"recv: {e}"
                            break
                        if chunk == b"":
                            self.error = "closed by the app"
                            break
                        if chunk:
                            self.received += chunk
                            self.progress(now)
                if self.error:
                    break
            sel.close()
        self.end = time.monotonic()
        self.longest_gap = max(self.longest_gap, self.end - self.last_progress)
        if self.error is None and bytes(self.received) != self.data:
            bad = next(i for i, (a, b) in enumerate(zip(self.received, self.data)) if a != b)
            self.error = f"byte {bad} differs"

    def goodput_kib_s(self):
        seconds = max(self.end - self.start, 1e-6)
        return len(self.received) / 1024 / seconds


def run_streams(count, size, seed, deadline_s, max_gap):
    streams = [Stream(i, size, seed) for i in range(count)]
    deadline = time.monotonic() + deadline_s
    threads = [threading.Thread(target=s.run, args=(deadline, max_gap)) for s in streams]
    begin = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    total_s = max(s.end for s in streams) - begin
    return streams, total_s


# The app's counters that say where segments were refused or dropped.
WATCHED = ("tcp_rx_", "tcp_tx_peer", "tcp_resets", "netif_tx_busy", "nic_tx_busy",
           "rx_pool_exhausted", "netif_rx_", "lwip_tcp")
POOL_KEYS = ("tcp_active", "tcp_segs_used", "pbuf_pool_used", "pbuf_ref_used")


def pools():
    stats = host_process.echo_stats(GUEST)
    return {k: v for k, v in stats.items() if k in POOL_KEYS}


# A thread per connection, reading and writing back what it read (socat's
# PIPE can deadlock with a full pipe and a full socket).
LINUX_ECHO_SERVER = """
import socket, threading
def serve(c):
    with c:
        while True:
            data = c.recv(65536)
            if not data:
                break
            c.sendall(data)
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 1236))
s.listen(64)
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
"""


class LinuxEcho:
    """Linux's own TCP echo in place of the app, for comparison: a nested
    namespace at 10.0.2.15 behind a veth whose other end is st0 (the relay's
    app side), a small threaded echo server on 1236. Offloads off on both ends: the relay
    must see wire-sized frames with their checksums."""

    def __init__(self):
        self.ns = f"starling-echo-{os.getpid()}"
        run = lambda *a: subprocess.run(a, check=True, stdout=subprocess.DEVNULL)  # noqa: E731
        subprocess.run(["ip", "link", "del", "st0"], stderr=subprocess.DEVNULL)
        run("ip", "netns", "add", self.ns)
        run("ip", "link", "add", "st0", "type", "veth", "peer", "name", "le0")
        run("ip", "link", "set", "le0", "netns", self.ns)
        for dev, netns in (("st0", None), ("le0", self.ns)):
            prefix = ["ip", "netns", "exec", netns] if netns else []
            run(*prefix, "ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off", "tx",
                "off", "rx", "off")
        run("ip", "link", "set", "st0", "up")
        run("ip", "-n", self.ns, "addr", "add", "10.0.2.15/24", "dev", "le0")
        run("ip", "-n", self.ns, "link", "set", "le0", "up")
        run("ip", "-n", self.ns, "link", "set", "lo", "up")
        self.proc = subprocess.Popen(["ip", "netns", "exec", self.ns, sys.executable, "-c",
                                      LINUX_ECHO_SERVER],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def wait_for(self, _text, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                socket.create_connection((GUEST, ECHO_PORT), timeout=1).close()
                return True
            except OSError:
                time.sleep(0.2)
        return False

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        subprocess.run(["ip", "netns", "del", self.ns], stderr=subprocess.DEVNULL)


def inside(args):
    failures = []
    echo = LinuxEcho() if args.linux else None
    link = ImpairedLink(seed=args.seed)
    # No virtio-net header on QEMU's TAP: with one, the guest's frames reach
    # st0 with their checksums left for the kernel to fill in, and the relay
    # would hand Linux frames it drops. (A socket or dgram back end has no
    # header either.)
    app = echo or host_process.app_for(args, "10.0.2.15/24,gw=10.0.2.2",
                                        tap_options=",vnet_hdr=off")
    try:
        if not app.wait_for("echo: ready", args.timeout):
            failures.append("the echo app never printed 'echo: ready'")
            return finish(app, failures)
        if echo is None and host_process.udp_roundtrip(GUEST, b"warm-up", tries=20) != b"warm-up":
            failures.append("no UDP echo on a clean link")
            for direction, counters in link.counters.items():
                print(f"link {direction}: {counters}")
            return finish(app, failures)
        captures = [subprocess.Popen(["dumpcap", "-q", "-i", dev, "-s", "96", "-w",
                                      os.path.join(args.pcap, f"{dev}.pcapng")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    for dev in (("st0", "st1") if args.pcap else ())]
        time.sleep(1 if captures else 0)  # dumpcap opens its sockets
        baseline = pools()
        link.set(args.direction, loss=args.loss, duplicate=args.duplicate, reorder=args.reorder,
                 corrupt=args.corrupt)
        print(f"link: from the app {link.impairment['from_app']}; to the app "
              f"{link.impairment['to_app']}; seed {args.seed}")
        for phase in args.phases.split():
            count, kib = (int(x) for x in phase.split("x"))
            streams, total_s = run_streams(count, kib * 1024, args.seed, args.deadline,
                                           args.max_gap)
            moved = sum(len(s.received) for s in streams)
            for s in streams:
                print(f"{phase} stream {s.index}: {len(s.received)}/{len(s.data)} bytes echoed, "
                      f"{s.goodput_kib_s():.1f} KiB/s, longest gap {s.longest_gap:.2f} s"
                      + (f", {s.error}" if s.error else ""))
                if s.error:
                    failures.append(f"{phase} stream {s.index}: {s.error}")
            print(f"{phase}: {moved / 1024 / max(total_s, 1e-6):.1f} KiB/s together, "
                  f"longest gap {max(s.longest_gap for s in streams):.2f} s")
        link.set(loss=0.0, duplicate=0.0, reorder=0.0, corrupt=0.0)
        for capture in captures:
            capture.terminate()
            capture.wait()
        for direction, counters in link.counters.items():
            print(f"link {direction}: {counters}")
        if echo is not None:
            return finish(app, failures)
        stats = host_process.echo_stats(GUEST)
        print("app:", " ".join(f"{k}={stats[k]}" for k in sorted(stats)
                              if k.startswith(WATCHED) and stats[k]))
        # Every pool back to its baseline once the streams have closed.
        settle = time.monotonic() + 20
        after = pools()
        while after != baseline and time.monotonic() < settle:
            time.sleep(0.5)
            after = pools()
        print("pools before:", baseline, "after:", after)
        if after != baseline:
            failures.append(f"pools not back to baseline: {baseline} -> {after}")
    finally:
        link.stop()
        app.stop()
    return finish(app, failures)


def finish(app, failures):
    if isinstance(app, LinuxEcho):
        for f in failures:
            print("FAIL:", f)
        print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
        return 1 if failures else 0
    return host_process.report(app, failures)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--app")
    which.add_argument("--qemu")
    which.add_argument("--linux", action="store_true",
                       help="Linux's own echo (socat) behind the same link, for comparison")
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--loss", type=float, default=0.0)
    parser.add_argument("--duplicate", type=float, default=0.0)
    parser.add_argument("--reorder", type=float, default=0.0)
    parser.add_argument("--corrupt", type=float, default=0.0)
    parser.add_argument("--direction", choices=("from_app", "to_app"),
                        help="impair one direction only (default: both)")
    parser.add_argument("--phases", default="1x256",
                        help="space-separated STREAMSxKIB runs, one after the other: "
                             "'1x192 4x48' is one stream of 192 KiB, then four of 48 at once")
    parser.add_argument("--pcap", metavar="DIR",
                        help="write DIR/st0.pcapng (the app's side of the relay) and "
                        "DIR/st1.pcapng (Linux's side), headers only, for diagnosis")
    parser.add_argument("--max-gap", type=float, default=10.0)
    parser.add_argument("--deadline", type=float, default=120.0)
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        return inside(args)
    argv = [a for a in sys.argv[1:]]
    for flag in ("--qemu", "--app", "--pcap"):
        if getattr(args, flag[2:], None) and flag in argv:
            i = argv.index(flag)
            argv[i + 1] = os.path.abspath(argv[i + 1])
    return host_process.run_in_namespace(__file__, argv, timeout=args.deadline + 180,
                                         peer_cidr=None)


if __name__ == "__main__":
    sys.exit(main())
