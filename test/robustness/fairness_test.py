#!/usr/bin/env python3
"""Fairness between peers (issue 27): the echo app's NIC on a TAP whose Linux
side has two addresses, two hosts on one link; the app is the host board's
process (--app: the DWMAC driver over the device model) or the QEMU image
(--qemu: virtio-net). Host A (10.0.2.2) opens 100 TCP connections to the
echo port and holds them idle; host B (10.0.2.3) must still connect and
echo, ten times. With the default
share (starling.tcp_peer_share, 63 of 128), A holds at most 63 and the rest
of its connections are reset and counted (tcp_refused_peer).

Then idle holders give way under pressure: A's connections, idle past the
pressed limit (10 s) while the table is not under pressure (63 of 128),
stay open; when B opens 40 more (103 held, over three quarters), A's idle
connections are closed within the look-again period until the table is back
at three quarters, and counted (tcp_pressed_idle_closes); B's fresh ones
stay, and B still echoes.

Then what a peer's data can make the stack hold. A opens 20 connections
with a receive buffer too small for the echoes and keeps sending, so the
echo stops reading them and A's data waits unread in the guest: A holds at
most its share of received buffers (starling.tcp_peer_rx_pbufs, 95), and
past it its segments are dropped and counted (tcp_rx_refused_peer); the
echoes A never reads hold at most its share of TCP segments
(starling.tcp_peer_segments, 255 of 512), and past it the echo's writes to A
wait (tcp_tx_peer_waits). The same received-buffer share holds A's
out-of-order segments: 400 one-byte segments with a gap before each, on
each of 20 connections, sent beside Linux's own stack with the
connections' real sequence numbers (read in TCP repair mode). Reassembly:
A sends 200 first fragments that never complete, and B's datagram of three
fragments is still reassembled and echoed, A's excess counted
(reass_refused_peer). Through all of it B echoes ten of ten. After A lets
go, the pools (PBUF_POOL, NIC buffers held, TCP connections and segments,
reassembly) are back at their baseline.

Bounded: connection attempts and reads have timeouts; the app is stopped and
the namespace removed at the end.
"""
import random
import socket
import struct
import sys
import time

import host_process

GUEST = "10.0.2.15"
HOST_A = "10.0.2.2"
HOST_B = "10.0.2.3"


def connect_from(source):
    return host_process.connect_from(source, (GUEST, 1236))


still_open = host_process.still_open


def echo_from(source, size=1024):
    return host_process.tcp_echo_from(source, (GUEST, 1236), size)


def b_echoes(tries=10):
    """Host B's echoes while A holds what it holds: (how many of `tries`
    succeeded, ms from the first attempt to the first success or None).
    The time is printed, never gated."""
    start = time.monotonic()
    ok, first = 0, None
    for _ in range(tries):
        if echo_from(HOST_B):
            ok += 1
            if first is None:
                first = round((time.monotonic() - start) * 1000)
    return ok, first


def inside(args):
    failures = []
    host_process.add_second_host(HOST_B)
    app = host_process.app_for(args, "10.0.2.15/24,gw=10.0.2.2")
    held = []
    try:
        if not app.wait_for("echo: ready", args.timeout):
            failures.append("the echo app never printed 'echo: ready'")
            return finish(app, failures, args)
        for _ in range(100):
            try:
                held.append(connect_from(HOST_A))
            except OSError:
                pass
        time.sleep(1.0)  # the guest accepts or resets each
        alive = sum(1 for s in held if still_open(s))
        print(f"host A: {len(held)} connected, {alive} still open")
        if alive > 63:
            failures.append(f"host A holds {alive} connections, more than its share of 63")
        ok, first = b_echoes()
        print(f"host B: {ok} of 10 echoes, the first after {first} ms")
        if ok != 10:
            failures.append(f"host B echoed {ok} of 10 while host A held its connections")
        counters = host_process.echo_stats(GUEST)
        print("tcp_refused_peer =", counters.get("tcp_refused_peer"))
        if counters.get("tcp_refused_peer", 0) < 100 - 63 - 16:
            failures.append(f"tcp_refused_peer {counters.get('tcp_refused_peer')}: A's excess not counted")
        pressure_phase(held, failures)
        for s in held:
            s.close()
        held = []
        time.sleep(1.0)  # the guest sees the FINs
        baseline = host_process.echo_stats(GUEST)
        unread_phase(failures)
        out_of_order_phase(failures)
        fragment_phase(failures)
        back_to_baseline(baseline, failures)
    finally:
        for s in held:
            s.close()
        app.stop()
    return finish(app, failures, args)


PRESSED_IDLE_S = 10  # apps/echo/main.cc, kTcpIdle.pressed_idle_ns
LOOK_AGAIN_S = 1     # net/tcp/idle_clock.h, IdleClock::kLookAgainNs


def pressure_phase(held, failures):
    """A's idle connections outlive the pressed limit while the table is not
    under pressure, and go once B's connections put it over three quarters."""
    a_open = [s for s in held if still_open(s)]
    time.sleep(PRESSED_IDLE_S + 2 * LOOK_AGAIN_S)
    kept = sum(1 for s in a_open if still_open(s))
    print(f"host A: {kept} of {len(a_open)} idle connections open after "
          f"{PRESSED_IDLE_S + 2 * LOOK_AGAIN_S} s, the table not under pressure")
    if kept != len(a_open):
        failures.append(f"host A lost {len(a_open) - kept} idle connections without pressure")
    before = host_process.echo_stats(GUEST).get("tcp_pressed_idle_closes", 0)
    b_held = []
    for _ in range(40):
        try:
            b_held.append(connect_from(HOST_B))
        except OSError:
            pass
    try:
        time.sleep(3 * LOOK_AGAIN_S)
        a_left = sum(1 for s in a_open if still_open(s))
        b_left = sum(1 for s in b_held if still_open(s))
        print(f"under pressure ({len(a_open)} + {len(b_held)} held): host A keeps {a_left}, "
              f"host B keeps {b_left} of {len(b_held)}")
        # A's quiet connections go until the table is back at three quarters
        # (96 of 128), then the normal limit applies again.
        if a_left + b_left > 96:
            failures.append(f"{a_left} + {b_left} connections still held: the table stayed over "
                            "three quarters")
        if b_left != len(b_held):
            failures.append(f"host B lost {len(b_held) - b_left} connections quiet for less than "
                            f"{PRESSED_IDLE_S} s")
        closed = host_process.echo_stats(GUEST).get("tcp_pressed_idle_closes", 0) - before
        print("tcp_pressed_idle_closes +", closed)
        if closed < len(a_open) - a_left:
            failures.append(f"tcp_pressed_idle_closes rose by {closed}, A lost {len(a_open) - a_left}")
        ok = sum(1 for _ in range(3) if echo_from(HOST_B))
        if ok != 3:
            failures.append(f"host B echoed {ok} of 3 after the idle connections went")
    finally:
        for s in b_held:
            s.close()


def unread_phase(failures):
    """A's data waits unread in the guest: at most its share is held, past
    it A's segments are dropped and counted, and B still echoes."""
    start = host_process.echo_stats(GUEST)
    before = start.get("tcp_rx_refused_peer", 0)
    a = []
    try:
        for _ in range(20):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)  # the echoes soon stop
            s.bind((HOST_A, 0))
            s.settimeout(2.0)
            try:
                s.connect((GUEST, 1236))
            except OSError:
                s.close()
                continue
            s.setblocking(False)
            a.append(s)
        payload = bytes(1400)
        end = time.monotonic() + 3.0
        while time.monotonic() < end:
            for s in a:
                try:
                    s.send(payload)
                except OSError:  # full send buffer, or reset
                    pass
            time.sleep(0.01)
        now = host_process.echo_stats(GUEST)
        refused = now.get("tcp_rx_refused_peer", 0) - before
        waits = now.get("tcp_tx_peer_waits", 0) - start.get("tcp_tx_peer_waits", 0)
        ok, first = b_echoes()
        print(f"host A: {len(a)} connections sending unread data; tcp_rx_refused_peer +{refused}, "
              f"tcp_tx_peer_waits +{waits}, tcp_segs_used {now.get('tcp_segs_used')}; "
              f"host B: {ok} of 10 echoes, the first after {first} ms")
        if refused <= 0:
            failures.append("host A's unread data was never refused: no share of received buffers")
        if waits <= 0:
            failures.append("the echoes to host A never waited: no share of TCP segments")
        if ok != 10:
            failures.append(f"host B echoed {ok} of 10 while host A's data waited unread")
    finally:
        for s in a:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST
            s.close()


TCP_REPAIR, TCP_REPAIR_QUEUE, TCP_QUEUE_SEQ = 19, 20, 21  # linux/tcp.h
TCP_RECV_QUEUE, TCP_SEND_QUEUE = 1, 2


def sequence_numbers(s):
    """(snd_nxt, rcv_nxt) of a connected socket, read in TCP repair mode
    (CAP_NET_ADMIN, which the namespace's root has) and left at once."""
    s.setsockopt(socket.IPPROTO_TCP, TCP_REPAIR, 1)
    try:
        numbers = []
        for which in (TCP_SEND_QUEUE, TCP_RECV_QUEUE):
            s.setsockopt(socket.IPPROTO_TCP, TCP_REPAIR_QUEUE, which)
            numbers.append(struct.unpack("I", s.getsockopt(socket.IPPROTO_TCP, TCP_QUEUE_SEQ, 4))[0])
        return tuple(numbers)
    finally:
        s.setsockopt(socket.IPPROTO_TCP, TCP_REPAIR, 0)


def tcp_segment(src, sport, dst, dport, seq, ack, payload):
    """An IPv4 packet (header checksum left to the kernel) carrying one TCP
    segment with ACK set."""
    header = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF,
                         5 << 4, 0x10, 65535, 0, 0)
    pseudo = socket.inet_aton(src) + socket.inet_aton(dst) + struct.pack("!BBH", 0, 6, 20 + len(payload))
    header = header[:16] + struct.pack("!H", host_process.internet_checksum(pseudo + header + payload)) + header[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40 + len(payload), 0, 0, 64, socket.IPPROTO_TCP, 0,
                     socket.inet_aton(src), socket.inet_aton(dst))
    return ip + header + payload


def out_of_order_phase(failures):
    """A's connections each carry 400 one-byte segments with a gap before
    each (never completed), sent beside Linux's own stack with the
    connection's real sequence numbers: the out-of-order queues A makes the
    guest hold count toward A's share of received buffers, and B still
    echoes."""
    start = host_process.echo_stats(GUEST)
    a = []
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    try:
        for _ in range(20):
            try:
                a.append(connect_from(HOST_A))
            except OSError:
                pass
        # Up to 3 rounds of 400 more per connection (new gaps each round):
        # on a loaded machine QEMU's TAP queue drops much of a burst, and a
        # round may not bring A to its share.
        for round_ in range(3):
            for s in a:
                snd, rcv = sequence_numbers(s)
                sport = s.getsockname()[1]
                for i in range(400 * round_, 400 * (round_ + 1)):
                    raw.sendto(tcp_segment(HOST_A, sport, GUEST, 1236, snd + 2 * i + 1, rcv, b"x"),
                               (GUEST, 0))
            time.sleep(0.5)
            now = host_process.echo_stats(GUEST)
            refused = now.get("tcp_rx_refused_peer", 0) - start.get("tcp_rx_refused_peer", 0)
            if refused > 0:
                break
        held = now.get("rx_wrappers_used", 0) + now.get("pbuf_pool_used", 0)
        ok, first = b_echoes()
        print(f"host A: {len(a)} connections x {400 * (round_ + 1)} out-of-order segments; "
              f"tcp_rx_refused_peer "
              f"+{refused}; RX buffers and PBUF_POOL held {held}; host B: {ok} of 10 echoes, "
              f"the first after {first} ms")
        # Past its share A's own out-of-order queues are freed first (issue
        # 47: starling_tcp_ooseq_evicted_total) and only then are segments
        # refused, so a refusal is no longer certain; what A makes the guest
        # hold is.
        if held > 95 + 16:  # A's share, and a little for B's echoes and the stats
            failures.append(f"{held} receive buffers held while host A queued out of order: "
                            "more than its share of 95")
        if ok != 10:
            failures.append(f"host B echoed {ok} of 10 while host A's segments waited out of order")
    finally:
        raw.close()
        for s in a:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST
            s.close()


def ipv4_fragment(src, dst, ident, payload, more):
    """An IPv4 fragment at offset 0 (header checksum left to the kernel)."""
    header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident,
                         0x2000 if more else 0, 64, socket.IPPROTO_UDP, 0,
                         socket.inet_aton(src), socket.inet_aton(dst))
    return header + payload


def fragment_phase(failures):
    """A's incomplete datagrams hold only A's share of reassembly: B's
    fragmented datagram is still reassembled and echoed."""
    before = host_process.echo_stats(GUEST).get("reass_refused_peer", 0)
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    udp = struct.pack("!HHHH", 40000, 1235, 8 + 512, 0) + bytes(504)
    for ident in range(200):
        raw.sendto(ipv4_fragment(HOST_A, GUEST, 20000 + ident, udp, more=True), (GUEST, 0))
    raw.close()
    data = random.Random(3).randbytes(3000)  # three fragments at an MTU of 1500
    echoed = False
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
        u.bind((HOST_B, 0))
        u.settimeout(1.0)
        for _ in range(3):
            u.sendto(data, (GUEST, 1235))
            try:
                echoed = u.recvfrom(4096)[0] == data
            except socket.timeout:
                continue
            if echoed:
                break
    refused = host_process.echo_stats(GUEST).get("reass_refused_peer", 0) - before
    print(f"host A: 200 incomplete datagrams, reass_refused_peer +{refused}; "
          f"host B's 3,000-byte datagram echoed: {echoed}")
    if refused < 200 - 7:
        failures.append(f"reass_refused_peer rose by {refused}: host A's excess fragments not counted")
    if not echoed:
        failures.append("host B's fragmented datagram was not echoed while host A flooded fragments")


BASELINE_KEYS = ("pbuf_pool_used", "rx_wrappers_used", "tcp_conns", "tcp_segs_used", "reass_used")


def back_to_baseline(baseline, failures):
    """Once A has let go (its connections reset, its fragments past their 15 s
    reassembly timeout), the pools are where they started."""
    deadline = time.monotonic() + 20
    now = {}
    while time.monotonic() < deadline:
        now = host_process.echo_stats(GUEST)
        if all(now.get(k, 0) <= baseline.get(k, 0) for k in BASELINE_KEYS):
            break
        time.sleep(1.0)
    print("pools after:", {k: (baseline.get(k), now.get(k)) for k in BASELINE_KEYS})
    for k in BASELINE_KEYS:
        if k not in now:
            failures.append(f"{k} missing from the stats line")
        elif now[k] > baseline.get(k, 0):
            failures.append(f"{k} {now[k]}, not back at its baseline {baseline.get(k, 0)}")


def finish(app, failures, args):
    return host_process.echo_report(app, failures, args)


def main():
    return host_process.app_test_main(__file__, __doc__, inside, qemu=True)


if __name__ == "__main__":
    sys.exit(main())
