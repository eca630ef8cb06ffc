#!/usr/bin/env python3
"""Soak: the echo app in QEMU under continuous UDP and TCP load (issue 7).

  soak_client.py --launcher LAUNCHER [--minutes M | --seconds S] [--timeout S]

User networking + hostfwd (real host sockets). For the configured time:
  - UDP: two senders, each datagram numbered and filled with seeded random
    bytes; every echo is compared byte for byte with what was sent under its
    number (a mismatch is a corrupted echo, a missing one is a loss);
  - TCP churn: two workers open a connection, send 1..16 KiB, read the echo,
    compare, and close it (one in eight vanish with an RST instead, SO_LINGER
    0, some before reading the echo);
  - one long-lived TCP connection opened at the start echoes a numbered line
    every second until the end and must never miss or change a byte.
STARLING-STATS (UDP "STARLING-STATS" to 1235, apps/echo/main.cc) is read at
the start, every --report-every seconds, and at the end: the high-water
marks are printed; after the load stops the in-use counts must settle back
to the start's (no growth), and there must be zero corrupted echoes.
Exit 0 on success; the last lines are a summary of the figures.
"""
import argparse
import os
import random
import socket
import struct
import sys
import threading
import time

from checks import check, finish
from echo_guest import EchoGuest
from stats_line import STATS_QUERY, parse_stats_line as parse_stats

# The runfiles tree: TEST_SRCDIR under `bazel test`; under `bazel run` the
# working directory is <runfiles>/starling and the launcher wants RUNFILES_DIR
# (the py_binary stub may set RUNFILES_MANIFEST_FILE instead).
if not os.environ.get("TEST_SRCDIR") and not os.environ.get("RUNFILES_DIR"):
    if os.path.basename(os.getcwd()) == "starling":
        os.environ["RUNFILES_DIR"] = os.path.dirname(os.getcwd())

# In-use counts that must return to the start's once the load has stopped.
POOL_KEYS = ("pbuf_pool_used", "pbuf_ref_used", "rx_wrappers_used", "tcp_pcbs_used",
             "tcp_segs_used", "tcp_active", "tcp_conns")
HIGH_WATER_KEYS = ("pbuf_pool_max", "pbuf_ref_max", "tcp_pcbs_max", "tcp_segs_max",
                   "lwip_heap_max_bytes")
BAD_PACKET_KEYS = ("nic_rx_drops", "nic_rx_errors", "nic_resets", "rx_pool_exhausted",
                   "rx_too_long", "netif_tx_busy_drops", "netif_tx_errors", "udp_echo_drops")
TCP_KEYS = ("tcp_accepted", "tcp_resets", "tcp_refused_pool", "tcp_refused_backlog")


class Counters:
    def __init__(self):
        self.lock = threading.Lock()
        self.v = {}

    def add(self, key, n=1):
        with self.lock:
            self.v[key] = self.v.get(key, 0) + n

    def get(self, key):
        with self.lock:
            return self.v.get(key, 0)


def recv_exact(sock, n):
    got = bytearray()
    while len(got) < n:
        part = sock.recv(min(65536, n - len(got)))
        if not part:
            break
        got += part
    return bytes(got)


class Soak:
    def __init__(self, guest, args):
        self.g = guest
        self.args = args
        self.c = Counters()
        self.stop = threading.Event()
        self.stats_sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.stats_sock.settimeout(1.0)
        self.stats_lock = threading.Lock()

    def stats(self):
        with self.stats_lock:
            for _ in range(10):
                self.stats_sock.sendto(STATS_QUERY, ("127.0.0.1", self.g.udp_port))
                try:
                    while True:
                        data, _ = self.stats_sock.recvfrom(4096)
                        s = parse_stats(data)
                        if s:
                            return s
                except socket.timeout:
                    pass
        return None

    # ------------------------------------------------------------ UDP
    def udp_worker(self, wid):
        rnd = random.Random(100 + wid)
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(0.5)
        sent = {}  # seq -> payload, outstanding
        seq = 0
        window = 8
        dest = ("127.0.0.1", self.g.udp_port)
        while not self.stop.is_set():
            while len(sent) < window:
                size = rnd.randrange(8, 1400)
                body = struct.pack("!II", wid, seq) + rnd.randbytes(size - 8)
                sent[seq] = body
                s.sendto(body, dest)
                self.c.add("udp_sent")
                seq += 1
            try:
                data, _ = s.recvfrom(2048)
            except socket.timeout:
                # everything outstanding is lost: slirp or the guest dropped it
                self.c.add("udp_lost", len(sent))
                sent.clear()
                continue
            if len(data) < 8:
                self.c.add("udp_corrupted")
                continue
            rwid, rseq = struct.unpack("!II", data[:8])
            want = sent.pop(rseq, None) if rwid == wid else None
            if want is None:
                # a late echo of one already counted lost, or a foreign number
                if rwid != wid or rseq >= seq:
                    self.c.add("udp_corrupted")
                else:
                    self.c.add("udp_late")
                continue
            if data != want:
                self.c.add("udp_corrupted")
            else:
                self.c.add("udp_echoed")
            # anything older than this one still outstanding will not come
            for old in [k for k in sent if k < rseq - 64]:
                del sent[old]
                self.c.add("udp_lost")
        s.close()

    # ------------------------------------------------------------ TCP churn
    def tcp_churn_worker(self, wid):
        rnd = random.Random(200 + wid)
        while not self.stop.is_set():
            size = rnd.randrange(1, 16384)
            data = rnd.randbytes(size)
            vanish = rnd.randrange(8) == 0
            c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            c.settimeout(10.0)
            try:
                c.connect(("127.0.0.1", self.g.tcp_port))
                self.c.add("tcp_connections")
                if vanish and rnd.randrange(2) == 0:
                    # RST with the echo still on its way
                    c.sendall(data)
                    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    c.close()
                    self.c.add("tcp_vanished")
                    continue
                c.sendall(data)
                got = recv_exact(c, size)
                if got != data:
                    # short (connection ended early) or different bytes
                    self.c.add("tcp_corrupted" if len(got) == size else "tcp_short")
                else:
                    self.c.add("tcp_echoed")
                    self.c.add("tcp_bytes", size)
                if vanish:
                    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.c.add("tcp_vanished")
                else:
                    c.shutdown(socket.SHUT_WR)
                    c.settimeout(5.0)
                    if c.recv(1) != b"":
                        self.c.add("tcp_corrupted")  # bytes after the echo
            except ConnectionResetError:
                self.c.add("tcp_reset_seen")
            except OSError:
                self.c.add("tcp_errors")
            finally:
                c.close()

    # ------------------------------------------------------------ long-lived
    def long_lived(self):
        c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        c.settimeout(10.0)
        try:
            c.connect(("127.0.0.1", self.g.tcp_port))
            n = 0
            while not self.stop.wait(1.0):
                line = b"long-lived line %08d %s\n" % (n, b"x" * (n % 200))
                c.sendall(line)
                if recv_exact(c, len(line)) != line:
                    self.c.add("long_lived_bad")
                    return
                n += 1
                self.c.add("long_lived_lines")
            c.shutdown(socket.SHUT_WR)
            self.c.add("long_lived_clean_end" if c.recv(1) == b"" else "long_lived_bad")
        except OSError as e:
            print(f"      long-lived connection: {e!r}", flush=True)
            self.c.add("long_lived_bad")
        finally:
            c.close()


def fmt(s, keys):
    return " ".join(f"{k}={s[k]}" for k in keys if k in s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--launcher", required=True)
    ap.add_argument("--minutes", type=float, default=None)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--timeout", type=int, default=0, help="QEMU's own bound (0: load time + 180 s)")
    ap.add_argument("--report-every", type=float, default=60)
    ap.add_argument("--max-udp-loss-percent", type=float, default=5)
    args = ap.parse_args()
    load_s = args.minutes * 60 if args.minutes is not None else args.seconds
    timeout = args.timeout or int(load_s + 180)
    g = EchoGuest(args.launcher, timeout)
    soak = Soak(g, args)
    try:
        if not g.wait_ready():
            check("guest printed 'echo: ready'", False)
            return 1
        start = soak.stats()
        check("stats at the start", start is not None)
        if start is None:
            return 1
        print("      start: " + " ".join(f"{k}={start[k]}" for k in sorted(start)), flush=True)
        threads = [threading.Thread(target=soak.udp_worker, args=(i,)) for i in range(2)]
        threads += [threading.Thread(target=soak.tcp_churn_worker, args=(i,)) for i in range(2)]
        threads.append(threading.Thread(target=soak.long_lived))
        t0 = time.monotonic()
        for t in threads:
            t.start()
        next_report = t0 + args.report_every
        peak = dict(start)
        while time.monotonic() - t0 < load_s:
            time.sleep(min(1.0, max(0.0, load_s - (time.monotonic() - t0))))
            if time.monotonic() >= next_report:
                next_report += args.report_every
                s = soak.stats()
                el = time.monotonic() - t0
                if s:
                    for k in POOL_KEYS:
                        peak[k] = max(peak[k], s[k])
                    print(f"      t={el:.0f}s in-use: {fmt(s, POOL_KEYS)} | high-water: "
                          f"{fmt(s, HIGH_WATER_KEYS)} | udp echoed={soak.c.get('udp_echoed')} "
                          f"tcp conns={soak.c.get('tcp_connections')}", flush=True)
                else:
                    print(f"      t={el:.0f}s no stats reply under load", flush=True)
        soak.stop.set()
        for t in threads:
            t.join(30)
        check("load threads stopped", not any(t.is_alive() for t in threads))
        duration = time.monotonic() - t0
        loaded = soak.stats()
        # Settle: the churn's last closes and lwIP's timers (FIN_WAIT,
        # LAST_ACK retransmissions) end within a few seconds; TIME_WAIT PCBs
        # (tcp_time_wait) are not in POOL_KEYS' tcp_active but are PCBs, so
        # allow 2*MSL for them.
        end = None
        deadline = time.monotonic() + 150
        while time.monotonic() < deadline:
            end = soak.stats()
            if end and all(end[k] == start[k] for k in POOL_KEYS):
                break
            time.sleep(1.0)
        check("stats at the end", end is not None)
        if end is None:
            return 1
        growth = {k: (start[k], end[k]) for k in POOL_KEYS if end[k] != start[k]}
        check(f"no growth of in-use counts after the load stopped {growth or ''}", not growth)
        c = soak.c
        udp_sent, udp_echoed = c.get("udp_sent"), c.get("udp_echoed")
        udp_lost = udp_sent - udp_echoed - c.get("udp_corrupted")
        loss = 100.0 * udp_lost / udp_sent if udp_sent else 100.0
        check(f"zero corrupted UDP echoes ({c.get('udp_corrupted')})", c.get("udp_corrupted") == 0)
        check(f"zero corrupted TCP echoes ({c.get('tcp_corrupted')})", c.get("tcp_corrupted") == 0)
        check(f"the long-lived connection echoed {c.get('long_lived_lines')} lines byte-exact to the end",
              c.get("long_lived_bad") == 0 and c.get("long_lived_clean_end") == 1)
        check("load actually flowed (UDP and TCP)", udp_echoed > 0 and c.get("tcp_echoed") > 0)
        check(f"UDP loss {loss:.2f}% <= {args.max_udp_loss_percent}%", loss <= args.max_udp_loss_percent)
        check("TCP connections that ended early (short/error/reset) <= 1%",
              c.get("tcp_short") + c.get("tcp_errors") + c.get("tcp_reset_seen") <= max(2, c.get("tcp_connections") // 100))
        text = g.console()
        check("console shows no PANIC", "PANIC" not in text)
        check("console shows no FAIL", "FAIL" not in text)
        d = {k: end[k] - start[k] for k in BAD_PACKET_KEYS + TCP_KEYS if k in start and k in end}
        print("---- soak summary ----")
        print(f"load: {duration:.0f} s")
        print(f"udp: sent={udp_sent} echoed={udp_echoed} lost={udp_lost} ({loss:.3f}%) "
              f"late={c.get('udp_late')} corrupted={c.get('udp_corrupted')}")
        print(f"tcp churn: connections={c.get('tcp_connections')} echoed={c.get('tcp_echoed')} "
              f"bytes={c.get('tcp_bytes')} vanished_rst={c.get('tcp_vanished')} short={c.get('tcp_short')} "
              f"errors={c.get('tcp_errors')} resets_seen_by_client={c.get('tcp_reset_seen')} "
              f"corrupted={c.get('tcp_corrupted')}")
        print(f"long-lived: lines={c.get('long_lived_lines')} bad={c.get('long_lived_bad')}")
        print("guest bad packets / TCP (delta over the run): " + " ".join(f"{k}={v}" for k, v in d.items()))
        print("high-water at the start: " + fmt(start, HIGH_WATER_KEYS))
        print("high-water at the end:   " + fmt(end, HIGH_WATER_KEYS))
        if loaded:
            print("in-use just after the load: " + fmt(loaded, POOL_KEYS + ("tcp_time_wait",)))
        print("in-use at the start:        " + fmt(start, POOL_KEYS + ("tcp_time_wait",)))
        print("in-use at the end (settled): " + fmt(end, POOL_KEYS + ("tcp_time_wait",)))
        print("in-use peak seen in reports: " + fmt(peak, POOL_KEYS))
        print("---- console (tail) ----")
        print(text[-1500:])
    finally:
        soak.stop.set()
        g.stop()
    if finish():
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
