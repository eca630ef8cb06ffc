#!/usr/bin/env python3
"""Real-client checks of the echo app's UDP echo (port 1235 in the guest,
reached through QEMU user networking's hostfwd on 127.0.0.1).

  udp_echo_client.py --launcher LAUNCHER [--timeout S] [--burst N] [--max-loss-percent P]
                     [--append BOOTARGS] [--expect LINE]...

Boots the image (host ports picked free and passed as STARLING_ECHO_*_PORT),
waits for "echo: ready", then:
  1. payloads of 1, 64 and 1472 bytes, each echoed byte for byte (retried up
     to 5 times: slirp may drop the first datagram while ARP resolves);
  2. RTT over 200 sequential round trips of 64 and of 1472 bytes (min/median/max);
  3. a burst of N datagrams (sequence-numbered, 1472 bytes) sent in windows
     of 32 outstanding; counts lost, duplicated and corrupted replies.
Everything is bounded: socket timeouts, a bounded number of packets, and
QEMU's own --timeout. Exit 0 on success.
"""
import argparse
import socket
import statistics
import struct
import sys
import time

from echo_guest import EchoGuest, report


def payload(n, seed):
    return bytes((i * 131 + seed * 7 + 13) & 0xFF for i in range(n))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--launcher", required=True)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--burst", type=int, default=1000)
    ap.add_argument("--max-loss-percent", type=float, default=5.0)
    ap.add_argument("--append", default="")
    ap.add_argument("--expect", action="append", default=[])
    args = ap.parse_args()

    guest = EchoGuest(args.launcher, args.timeout, args.append)
    failures = []
    try:
        if not guest.wait_ready():
            failures.append("never saw 'echo: ready'")
            return report(failures, guest.console(), args.expect)
        udp_port = guest.udp_port

        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(1.0)
        dest = ("127.0.0.1", udp_port)

        # 1. payload sizes, byte for byte
        for n in (1, 64, 1472):
            data = payload(n, n)
            ok = False
            for attempt in range(5):
                s.sendto(data, dest)
                try:
                    reply, _ = s.recvfrom(65535)
                except socket.timeout:
                    continue
                if reply == data:
                    ok = True
                    break
                failures.append(f"{n}-byte echo differs ({len(reply)} bytes back)")
                break
            print(f"udp echo {n} bytes: {'ok' if ok else 'FAIL'} (attempts {attempt + 1})")
            if not ok and not any(str(n) in f for f in failures):
                failures.append(f"no {n}-byte echo after 5 attempts")

        # 2. RTT, sequential, for a small and a full-size payload
        for rtt_size in (64, 1472):
            rtts = []
            for i in range(200):
                data = struct.pack("!I", i) + payload(rtt_size - 4, i)
                t0 = time.perf_counter()
                s.sendto(data, dest)
                try:
                    while True:
                        reply, _ = s.recvfrom(65535)
                        if reply == data:
                            rtts.append((time.perf_counter() - t0) * 1e6)
                            break
                except socket.timeout:
                    pass
            if rtts:
                rtts.sort()
                print(f"udp rtt {rtt_size} bytes: n {len(rtts)}/200 min {rtts[0]:.0f} us median "
                      f"{statistics.median(rtts):.0f} us max {rtts[-1]:.0f} us")
            if len(rtts) < 190:
                failures.append(f"only {len(rtts)}/200 sequential {rtt_size}-byte round trips")

        # 3. burst, windowed: at most `window` outstanding; a receive timeout
        # writes the outstanding ones off as lost and sending goes on.
        n = args.burst
        size = 1472
        window = 32
        got = set()
        bad = dup = 0
        written_off = 0
        s.settimeout(0.2)
        sent = 0
        t0 = time.perf_counter()

        def take():
            nonlocal bad, dup
            try:
                reply, _ = s.recvfrom(65535)
            except socket.timeout:
                return False
            seq = struct.unpack("!I", reply[:4])[0] if len(reply) >= 4 else -1
            if seq < 0 or seq >= n or reply != struct.pack("!I", seq) + payload(size - 4, seq % 251):
                bad += 1
            elif seq in got:
                dup += 1
            else:
                got.add(seq)
            return True

        while sent < n:
            while sent < n and sent - len(got) - bad - written_off < window:
                s.sendto(struct.pack("!I", sent) + payload(size - 4, sent % 251), dest)
                sent += 1
            if not take():
                written_off = sent - len(got) - bad
        end = time.monotonic() + 1.0
        while len(got) + bad < n and time.monotonic() < end:
            take()
        elapsed = time.perf_counter() - t0
        lost = n - len(got)
        print(f"udp burst {n} x {size} bytes (window {window}): received {len(got)} lost {lost} "
              f"duplicated {dup} corrupted {bad} in {elapsed * 1000:.0f} ms "
              f"({len(got) * size * 8 / elapsed / 1e6:.1f} Mb/s payload)")
        if bad or dup:
            failures.append(f"burst: {bad} corrupted, {dup} duplicated replies")
        if lost * 100.0 / n > args.max_loss_percent:
            failures.append(f"burst: lost {lost}/{n} (> {args.max_loss_percent}%)")
    finally:
        guest.stop()
    return report(failures, guest.console(), args.expect)


if __name__ == "__main__":
    sys.exit(main())
