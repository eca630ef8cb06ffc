#!/usr/bin/env python3
"""Bad-input tests of the echo app in QEMU with a real client (issue 4).

  robustness_client.py --launcher LAUNCHER --mode wire|tcp [--timeout S]

--mode wire: the guest's NIC is QEMU's socket netdev
  (STARLING_ECHO_NETDEV=socket,id=n0,udp=127.0.0.1:H,localaddr=127.0.0.1:G):
  every Ethernet frame travels as one UDP datagram between QEMU and this
  process, which is the whole wire. It answers ARP for every address but
  the guest's, and crafts IPv4/UDP/TCP frames itself (struct only). Cases:
  malformed/truncated frames, jumbo frames, an RX flood, a TCP client that
  stops answering and then resets.
--mode abuse: the raw wire again, with a TCP client of its own (RawConn):
  a SYN flood beyond the PCB table whose SYN-ACKs are never answered
  (half-open), a slow handshake, a zero-window peer, an RST storm, a client
  that never reads; an echo connection opened first must echo byte-exact
  after each, refusals and resets are counted (tcp_refused_*, tcp_resets).
--mode tcp: user networking + hostfwd (real sockets): more TCP connections
  than MEMP_NUM_TCP_PCB (128), refusals counted, the first ones keep echoing,
  then all vanish with SO_LINGER 0 (RST).

After each case the guest's stats (UDP "STARLING-STATS" to 1235, see
apps/echo/main.cc) must be back at the baseline: pbuf pool, RX wrappers,
TCP PCBs/segments in use; the console must show no PANIC/FAIL. Exit 0 on
success. Everything is bounded (socket timeouts, packet counts, --timeout).
"""
import argparse
import queue
import random
import socket
import struct
import sys
import threading
import time

from checks import check, finish
from echo_guest import EchoGuest, free_port
from packets import internet_checksum as csum
from stats_line import STATS_QUERY, parse_stats_line as parse_stats

GUEST_IP = "10.0.2.15"
HOST_IP = "10.0.2.2"  # the guest's gateway: we are it
HOST_MAC = bytes.fromhex("525400aabbcc")
BCAST = b"\xff" * 6
# Counters that must return to the baseline after every case.
POOL_KEYS = ("pbuf_pool_used", "pbuf_ref_used", "rx_wrappers_used", "tcp_pcbs_used",
             "tcp_segs_used", "tcp_active", "tcp_conns")


# ---------------------------------------------------------------- frames

def ip_hdr(proto, payload_len, src=HOST_IP, dst=GUEST_IP, ident=0, ihl=5, version=4,
           total=None, bad_csum=False, ttl=64):
    total = 20 + payload_len if total is None else total
    h = struct.pack("!BBHHHBBH4s4s", (version << 4) | ihl, 0, total & 0xFFFF, ident & 0xFFFF, 0x4000,
                    ttl, proto, 0, socket.inet_aton(src), socket.inet_aton(dst))
    c = csum(h)
    if bad_csum:
        c ^= 0x5A5A
    return h[:10] + struct.pack("!H", c) + h[12:]


def l4_csum(proto, seg, src=HOST_IP, dst=GUEST_IP):
    pseudo = socket.inet_aton(src) + socket.inet_aton(dst) + struct.pack("!BBH", 0, proto, len(seg))
    return csum(pseudo + seg)


def udp_seg(sport, dport, payload, length=None):
    length = 8 + len(payload) if length is None else length
    seg = struct.pack("!HHHH", sport, dport, length & 0xFFFF, 0) + payload
    c = l4_csum(17, seg) or 0xFFFF
    return seg[:6] + struct.pack("!H", c) + seg[8:]


def tcp_seg(sport, dport, seq, ack, flags, payload=b"", offset=5, window=65535, fix_csum=True):
    seg = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF,
                      (offset & 0xF) << 4, flags, window, 0, 0) + payload
    if fix_csum:
        seg = seg[:16] + struct.pack("!H", l4_csum(6, seg)) + seg[18:]
    return seg


FIN, SYN, RST, PSH, ACK = 1, 2, 4, 8, 16


class Wire:
    """The guest's Ethernet wire over QEMU's socket netdev."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.host_port = self.sock.getsockname()[1]
        self.guest_side_port = free_port(socket.SOCK_DGRAM)
        self.guest_mac = None
        self.ip_frames = queue.Queue()
        self.sent = 0
        self.tcp_owned = {6123}
        self._stop = False
        self._thread = threading.Thread(target=self._rx, daemon=True)
        self._thread.start()

    def netdev(self):
        return (f"socket,id=n0,udp=127.0.0.1:{self.host_port},"
                f"localaddr=127.0.0.1:{self.guest_side_port}")

    def send(self, frame):
        self.sock.sendto(frame, ("127.0.0.1", self.guest_side_port))
        self.sent += 1

    def eth(self, ethertype, payload, dst=None):
        return (dst or self.guest_mac or BCAST) + HOST_MAC + struct.pack("!H", ethertype) + payload

    def _rx(self):
        self.sock.settimeout(0.2)
        while not self._stop:
            try:
                frame, _ = self.sock.recvfrom(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            if len(frame) < 14:
                continue
            ethertype = struct.unpack("!H", frame[12:14])[0]
            if ethertype == 0x0806 and len(frame) >= 42:
                op = struct.unpack("!H", frame[20:22])[0]
                sha, spa, tpa = frame[22:28], frame[28:32], frame[38:42]
                if socket.inet_ntoa(spa) == GUEST_IP:
                    self.guest_mac = sha
                if op == 1 and socket.inet_ntoa(tpa) != GUEST_IP:
                    reply = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 2) + HOST_MAC + tpa + sha + spa
                    self.send(sha + HOST_MAC + b"\x08\x06" + reply)
            elif ethertype == 0x0800:
                if self.guest_mac is None:
                    self.guest_mac = frame[6:12]
                ip = frame[14:]
                ihl = (ip[0] & 0xF) * 4
                if ip[9] == 6 and len(ip) >= ihl + 20:
                    l4 = ip[ihl:]
                    sport, dport, _, gack = struct.unpack("!HHII", l4[:12])
                    if l4[13] & (SYN | ACK) == (SYN | ACK) and dport not in self.tcp_owned:
                        # a SYN-ACK for a connection we never opened (a
                        # malformed-but-valid SYN): reset it, as a host would
                        seg = tcp_seg(dport, sport, gack, 0, RST)
                        self.send(self.eth(0x0800, ip_hdr(6, len(seg)) + seg))
                self.ip_frames.put(frame[14:])

    def drain(self):
        while True:
            try:
                self.ip_frames.get_nowait()
            except queue.Empty:
                return

    def recv_ip(self, proto, match, timeout):
        """The next IPv4 packet of proto with match(l4 header+payload, ip) true."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                ip = self.ip_frames.get(timeout=left)
            except queue.Empty:
                return None
            ihl = (ip[0] & 0xF) * 4
            total = struct.unpack("!H", ip[2:4])[0]
            if ip[9] == proto and match(ip[ihl:total]):
                return ip[ihl:total]

    def udp_frame(self, sport, dport, payload, **kw):
        seg = udp_seg(sport, dport, payload)
        return self.eth(0x0800, ip_hdr(17, len(seg), **kw) + seg)

    def udp_request(self, sport, payload, timeout=1.0, tries=5):
        for _ in range(tries):
            self.send(self.udp_frame(sport, 1235, payload))
            got = self.recv_ip(17, lambda l4: struct.unpack("!HH", l4[:4]) == (1235, sport), timeout)
            if got is not None:
                return got[8:]
        return None

    def stats(self):
        data = self.udp_request(40000 + random.randrange(1000), STATS_QUERY)
        return parse_stats(data) if data else None

    def close(self):
        self._stop = True
        self.sock.close()


# ---------------------------------------------------------------- shared checks

def settled_stats(get, baseline, timeout=15.0):
    """Polls the stats until the pool counts equal the baseline (or timeout)."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = get()
        if last and all(last[k] == baseline[k] for k in POOL_KEYS):
            return last
        time.sleep(0.5)
    return last


def stop_and_check_console(g, w=None):
    """Stops the guest (and closes the wire), then checks and prints its console."""
    text = g.console()
    g.stop()
    if w is not None:
        w.close()
    check("console shows no PANIC", "PANIC" not in text)
    check("console shows no FAIL", "FAIL" not in text)
    print("---- console (tail) ----")
    print(text[-2500:])


def wire_baseline(w, g):
    """Waits for the guest's 'echo: ready', then its settled stats over the
    raw wire (None, reported, if either never comes)."""
    if not g.wait_ready():
        check("guest printed 'echo: ready'", False)
        return None
    baseline = w.stats()
    check("baseline stats over the raw wire", baseline is not None)
    if baseline is None:
        return None
    return settled_stats(w.stats, baseline, 3) or baseline


def back_to_baseline(case, get, baseline):
    s = settled_stats(get, baseline)
    if s is None:
        check(f"{case}: no stats reply", False)
        return None
    diff = {k: (baseline[k], s[k]) for k in POOL_KEYS if s[k] != baseline[k]}
    check(f"{case}: pool counts back at baseline {'' if not diff else diff}", not diff)
    print(f"      {case} stats: " + " ".join(f"{k}={s[k]}" for k in sorted(s)), flush=True)
    return s


def delta(before, after, keys):
    """Counter changes between two stats replies (None if either is missing)."""
    if before is None or after is None:
        check("stats reply before and after the case", False)
        return None
    return {k: after[k] - before[k] for k in keys}


# ---------------------------------------------------------------- wire cases

def echo_works(w, case, timeout=1.0, tries=5):
    payload = bytes(random.randrange(256) for _ in range(200))
    got = w.udp_request(33333, payload, timeout=timeout, tries=tries)
    check(f"{case}: a normal UDP echo afterwards works", got == payload)


def malformed_frames(w):
    rnd = random.Random(4)
    frames = []
    good_udp = udp_seg(5000, 1235, b"x" * 32)
    good_ip = ip_hdr(17, len(good_udp)) + good_udp
    # runts (not 0 bytes: an empty datagram is end-of-connection to QEMU's
    # socket netdev, which then stops reading: a QEMU artefact, not a wire)
    for n in (1, 6, 13, 14):
        frames.append(w.eth(0x0800, b"")[:n])
    frames.append(w.eth(0x0800, good_ip[:10]))          # IPv4 header cut short
    frames.append(w.eth(0x0806, b"\x00\x01\x08\x00"))    # ARP cut short
    frames.append(w.eth(0x0806, b"\x00\x01\x08\x00\x06\x04\x00\x01" + b"\x00" * 5))
    # bad IPv4 headers
    frames.append(w.eth(0x0800, ip_hdr(17, len(good_udp), version=6) + good_udp))
    frames.append(w.eth(0x0800, ip_hdr(17, len(good_udp), version=0) + good_udp))
    for ihl in (0, 1, 4, 15):
        frames.append(w.eth(0x0800, ip_hdr(17, len(good_udp), ihl=ihl) + good_udp))
    frames.append(w.eth(0x0800, ip_hdr(17, len(good_udp), bad_csum=True) + good_udp))
    for total in (0, 8, 19, 20 + len(good_udp) + 1, 1500, 65535):
        frames.append(w.eth(0x0800, ip_hdr(17, len(good_udp), total=total) + good_udp))
    frames.append(w.eth(0x0800, ip_hdr(17, len(good_udp), src="255.255.255.255") + good_udp))
    frames.append(w.eth(0x0800, ip_hdr(17, len(good_udp), src=GUEST_IP) + good_udp))
    frames.append(w.eth(0x0800, ip_hdr(200, len(good_udp)) + good_udp))  # unknown protocol
    # UDP lengths beyond / inside the packet, no header at all
    for length in (0, 7, 9, 41, 1000, 65535):
        seg = udp_seg(5000, 1235, b"y" * 32, length=length)
        frames.append(w.eth(0x0800, ip_hdr(17, len(seg)) + seg))
    frames.append(w.eth(0x0800, ip_hdr(17, 4) + good_udp[:4]))
    # TCP: data offset garbage, truncated header, odd flags, bad checksum
    for off in (0, 1, 4, 6, 15):
        seg = tcp_seg(5001, 1236, 1000, 0, SYN, b"z" * 8, offset=off)
        frames.append(w.eth(0x0800, ip_hdr(6, len(seg)) + seg))
    seg = tcp_seg(5002, 1236, 1000, 0, SYN)
    frames.append(w.eth(0x0800, ip_hdr(6, 10) + seg[:10]))
    for flags in (0, 0xFF, SYN | FIN, SYN | RST, ACK, FIN, RST, PSH | ACK):
        seg = tcp_seg(5003, 1236, rnd.randrange(1 << 32), rnd.randrange(1 << 32), flags, b"q" * 16)
        frames.append(w.eth(0x0800, ip_hdr(6, len(seg)) + seg))
    seg = tcp_seg(5004, 1236, 1, 0, SYN, fix_csum=False)
    frames.append(w.eth(0x0800, ip_hdr(6, len(seg)) + seg))
    # IP fragments that never complete (reassembly must time out, or drop)
    frag = bytearray(ip_hdr(17, 64, ident=77))
    frag[6:8] = struct.pack("!H", 0x2000)  # MF, offset 0
    frag[10:12] = b"\0\0"
    frag[10:12] = struct.pack("!H", csum(bytes(frag)))
    frames.append(w.eth(0x0800, bytes(frag) + b"f" * 64))
    # random junk after a valid-looking Ethernet header, seeded
    for _ in range(400):
        n = rnd.randrange(0, 200)
        junk = bytearray(rnd.randrange(256) for _ in range(n))
        if n >= 20 and rnd.random() < 0.7:
            junk[0] = 0x45
        frames.append(w.eth(rnd.choice((0x0800, 0x0806, 0x86DD, 0x1234)), bytes(junk)))
    for f in frames:
        w.send(f)
        time.sleep(0.0005)
    return len(frames)


def run_wire(args):
    w = Wire()
    g = EchoGuest(args.launcher, args.timeout, env={"STARLING_ECHO_NETDEV": w.netdev()})
    try:
        baseline = wire_baseline(w, g)
        if baseline is None:
            return
        print("      baseline: " + " ".join(f"{k}={baseline[k]}" for k in sorted(baseline)), flush=True)
        echo_works(w, "start")

        # 1. truncated and malformed frames
        before = w.stats()
        n = malformed_frames(w)
        time.sleep(1.0)
        echo_works(w, "malformed")
        after = back_to_baseline("malformed", w.stats, baseline)
        if after:
            print(f"      malformed: sent {n} frames; deltas "
                  f"{delta(before, after, ('nic_rx_frames', 'nic_rx_drops', 'nic_rx_errors', 'netif_rx_frames'))}",
                  flush=True)

        # 2. jumbo frames (longer than the driver's RX buffer)
        before = w.stats()
        sizes = (1519, 1600, 2048, 4000, 9000)
        for size in sizes:
            pad = size - 14 - 20 - 8
            w.send(w.udp_frame(5005, 1235, b"J" * pad))
            time.sleep(0.05)
        time.sleep(1.0)
        echo_works(w, "jumbo")
        after = back_to_baseline("jumbo", w.stats, baseline)
        if after:
            d = delta(before, after, ("nic_rx_drops", "nic_rx_errors", "nic_resets", "rx_too_long"))
            print(f"      jumbo: sent {len(sizes)} frames of {sizes} bytes; deltas {d}", flush=True)
            # Observed with QEMU 7.2: these never reach the guest (QEMU's
            # virtio-net drops them, the guest's counters do not move), so
            # this is reported, not required.
            print(f"      jumbo: counted by the guest: {sum(d.values()) if d else 'unknown'}", flush=True)
        check("jumbo: no PANIC", "PANIC" not in g.console())

        # 3. RX flood: as fast as possible, to the echo port
        before = w.stats()
        w.drain()
        frame = w.udp_frame(5006, 1235, b"F" * 64)
        flood = args.flood
        t0 = time.monotonic()
        for _ in range(flood):
            w.send(frame)
        dt = time.monotonic() - t0
        time.sleep(1.5)
        echoes = 0
        while w.recv_ip(17, lambda l4: struct.unpack("!HH", l4[:4]) == (1235, 5006), 0.05) is not None:
            echoes += 1
        # The guest may still be working through the backlog on a loaded
        # host (CI runs other tests beside this one): allow it up to 20 s.
        echo_works(w, "flood", timeout=2.0, tries=10)
        after = back_to_baseline("flood", w.stats, baseline)
        if after:
            d = delta(before, after, ("nic_rx_frames", "nic_rx_drops", "rx_pool_exhausted",
                                      "netif_tx_busy_drops", "nic_rx_errors", "nic_resets"))
            print(f"      flood: sent {flood} frames in {dt:.2f}s; {echoes} echoes seen; deltas {d}", flush=True)
        check("flood: no PANIC", "PANIC" not in g.console())

        # 4. a TCP client that sends, stops answering, then resets on the
        #    guest's retransmission (the host came back without the connection)
        before = w.stats()
        w.drain()
        sport, iss = 6123, 1000
        w.send(w.eth(0x0800, ip_hdr(6, 20) + tcp_seg(sport, 1236, iss, 0, SYN)))
        synack = w.recv_ip(6, lambda l4: struct.unpack("!HH", l4[:4]) == (1236, sport) and l4[13] & SYN, 3)
        check("vanish: guest answered SYN with SYN-ACK", synack is not None)
        if synack:
            gseq = struct.unpack("!I", synack[4:8])[0] + 1
            data = b"hello from a client about to vanish\n"
            seg = tcp_seg(sport, 1236, iss + 1, gseq, ACK | PSH, data)
            w.send(w.eth(0x0800, ip_hdr(6, len(seg)) + seg))
            echo = w.recv_ip(6, lambda l4: struct.unpack("!HH", l4[:4]) == (1236, sport)
                             and len(l4) > (l4[12] >> 4) * 4, 3)
            check("vanish: data echoed before vanishing", echo is not None and echo[(echo[12] >> 4) * 4:] == data)
            mid = w.stats()
            check("vanish: the connection holds a slot while alive",
                  mid is not None and mid["tcp_conns"] == baseline["tcp_conns"] + 1)
            # silence: no ACK for the echo; wait for the guest's retransmission
            rtx = w.recv_ip(6, lambda l4: struct.unpack("!HH", l4[:4]) == (1236, sport), 8)
            check("vanish: guest retransmits to the silent client", rtx is not None)
            if rtx:
                rseq = struct.unpack("!I", rtx[4:8])[0]
                seg = tcp_seg(sport, 1236, iss + 1 + len(data), 0, RST)
                w.send(w.eth(0x0800, ip_hdr(6, len(seg)) + seg))
                # also an RST at the exact seq the guest expects, as a stack would
                seg = tcp_seg(sport, 1236, struct.unpack("!I", rtx[8:12])[0], rseq, RST)
                w.send(w.eth(0x0800, ip_hdr(6, len(seg)) + seg))
        after = back_to_baseline("vanish", w.stats, baseline)
        if after:
            print(f"      vanish: deltas {delta(before, after, ('tcp_accepted', 'tcp_resets'))}", flush=True)
        echo_works(w, "vanish")
    finally:
        stop_and_check_console(g, w)


# ---------------------------------------------------------------- tcp (hostfwd) case

def run_tcp(args):
    g = EchoGuest(args.launcher, args.timeout, append=args.append)
    udp_port, tcp_port = g.udp_port, g.tcp_port
    us = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    us.settimeout(1.0)

    def stats():
        for _ in range(5):
            us.sendto(STATS_QUERY, ("127.0.0.1", udp_port))
            try:
                data, _ = us.recvfrom(4096)
                s = parse_stats(data)
                if s:
                    return s
            except socket.timeout:
                pass
        return None

    conns = []
    try:
        if not g.wait_ready():
            check("guest printed 'echo: ready'", False)
            return
        baseline = stats()
        check("baseline stats over hostfwd", baseline is not None)
        if baseline is None:
            return
        print("      baseline: " + " ".join(f"{k}={baseline[k]}" for k in sorted(baseline)), flush=True)

        def open_one(i, timeout=3.0):
            c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            c.settimeout(timeout)
            c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            try:
                c.connect(("127.0.0.1", tcp_port))
                msg = b"conn %d\n" % i
                c.sendall(msg)
                got = b""
                while len(got) < len(msg):
                    part = c.recv(len(msg) - len(got))
                    if not part:
                        break
                    got += part
                return c, got == msg
            except OSError:
                return c, False

        # the connections are not closed: all are alive at once. A refused
        # one costs its timeout (slirp accepts, the guest never answers), and
        # all of them must be opened well within the echo's 60 s idle
        # timeout, or the first ones are closed before they are checked:
        # 1 s each, not 3.
        results = [open_one(i, timeout=1.0) for i in range(args.connections)]
        conns = [c for c, _ in results]
        ok = [i for i, (_, good) in enumerate(results) if good]
        refused = args.connections - len(ok)
        mid = stats()
        print(f"      table full: opened {args.connections}, echoing {len(ok)}, refused {refused}; "
              f"guest tcp_conns={mid and mid['tcp_conns']} refused_pool={mid and mid['tcp_refused_pool']} "
              f"refused_backlog={mid and mid['tcp_refused_backlog']}", flush=True)
        check("table full: connections beyond the table are refused", refused >= 1)
        check("table full: at least 32 connections echo", len(ok) >= 32)
        check("table full: guest counted refusals",
              mid is not None and (mid["tcp_refused_pool"] + mid["tcp_refused_backlog"]) > 0)
        # existing connections keep echoing. Not the 1 s the opening used: a
        # loaded host can hold QEMU's vCPU for over a second (CI saw the
        # guest's stall detector report 1.3 s inside an ordinary send), and
        # a late echo is not a lost one. A connection the guest closed
        # answers at once (end of stream), so the wait costs nothing there.
        still = 0
        for i in ok:
            c = conns[i]
            try:
                c.settimeout(10.0)
                c.sendall(b"again %d\n" % i)
                want = b"again %d\n" % i
                got = b""
                while len(got) < len(want):
                    part = c.recv(len(want) - len(got))
                    if not part:
                        break
                    got += part
                still += got == want
            except OSError:
                pass
        # Idle holders give way: while over three quarters of the table is
        # held, a connection quiet for 10 s is closed (apps/echo/main.cc,
        # kTcpIdle); opening the table's worth takes longer than that, so
        # the first ones go until the table is back at three quarters.
        after = stats()
        pressed = None if after is None or baseline is None else \
            after["tcp_pressed_idle_closes"] - baseline["tcp_pressed_idle_closes"]
        print(f"      table full: {still} still echo, {pressed} closed as idle under pressure", flush=True)
        check(f"table full: {still}/{len(ok)} accepted connections still echo, "
              f"the other {len(ok) - still} closed as idle under pressure ({pressed})",
              pressed is not None and still + pressed >= len(ok))
        # a new connection is served once there is room again? first vanish all
        # with SO_LINGER 0 (RST), mid-stream: each has unread data sent first
        for c in conns:
            try:
                c.sendall(b"x" * 4096)
            except OSError:
                pass
            c.close()
        conns = []
        after = back_to_baseline("vanish (RST x%d)" % args.connections, stats, baseline)
        c, good = open_one(999)
        c.close()
        check("after the table drained, a new connection echoes", good)
        if after:
            print(f"      deltas {delta(baseline, after, ('tcp_accepted', 'tcp_refused_pool', 'tcp_refused_backlog', 'tcp_resets'))}",
                  flush=True)
        back_to_baseline("final", stats, baseline)
    finally:
        for c in conns:
            c.close()
        us.close()
        stop_and_check_console(g)


# ---------------------------------------------------------------- tcp abuse (wire)

class RawConn:
    """A TCP client of our own over the raw wire: the test decides every
    segment (window, ACKs, RSTs) the guest sees."""

    def __init__(self, w, sport, port=1236, window=65535):
        self.w, self.sport, self.port, self.window = w, sport, port, window
        w.tcp_owned.add(sport)
        self.iss = 10000 + sport * 7
        self.snd_nxt = self.iss + 1
        self.rcv_nxt = None
        self.got = b""

    def _seg(self, seq, ack, flags, payload=b"", window=None):
        seg = tcp_seg(self.sport, self.port, seq, ack, flags, payload,
                      window=self.window if window is None else window)
        self.w.send(self.w.eth(0x0800, ip_hdr(6, len(seg)) + seg))

    def _mine(self, l4):
        return struct.unpack("!HH", l4[:4]) == (self.port, self.sport)

    def connect(self, timeout=3):
        self._seg(self.iss, 0, SYN)
        synack = self.w.recv_ip(6, lambda l4: self._mine(l4) and l4[13] & (SYN | ACK) == (SYN | ACK), timeout)
        if synack is None:
            return False
        self.rcv_nxt = (struct.unpack("!I", synack[4:8])[0] + 1) & 0xFFFFFFFF
        self._seg(self.snd_nxt, self.rcv_nxt, ACK)
        return True

    def send(self, data):
        self._seg(self.snd_nxt, self.rcv_nxt, ACK | PSH, data)
        self.snd_nxt += len(data)

    def pump(self, timeout, want=None, ack=True, window=None):
        """Takes the guest's in-order data for up to `timeout` s (or until
        `want` bytes are in); ACKs it unless ack=False. Returns bytes taken."""
        deadline = time.monotonic() + timeout
        taken = 0
        while time.monotonic() < deadline and (want is None or len(self.got) < want):
            l4 = self.w.recv_ip(6, self._mine, max(0.01, deadline - time.monotonic()))
            if l4 is None:
                break
            if l4[13] & RST:
                self.reset_seen = True
                continue
            seq = struct.unpack("!I", l4[4:8])[0]
            payload = l4[(l4[12] >> 4) * 4:]
            # In order, or overlapping what we have (a segment resent after
            # a 1-byte zero-window probe we took): keep the new part.
            skip = (self.rcv_nxt - seq) & 0xFFFFFFFF
            if payload and ack and skip < len(payload):
                fresh = payload[skip:]
                self.got += fresh
                taken += len(fresh)
                self.rcv_nxt = (self.rcv_nxt + len(fresh)) & 0xFFFFFFFF
            if ack:
                self._seg(self.snd_nxt, self.rcv_nxt, ACK, window=window)
        return taken

    def echo(self, data, timeout=5):
        """Sends data and waits for it to come back byte-exact."""
        start = len(self.got)
        self.send(data)
        self.pump(timeout, want=start + len(data))
        if len(self.got) < start + len(data):
            # one retransmission of ours, in case the guest dropped it
            self._seg(self.snd_nxt - len(data), self.rcv_nxt, ACK | PSH, data)
            self.pump(timeout, want=start + len(data))
        return self.got[start:start + len(data)] == data

    def reset(self):
        self._seg(self.snd_nxt, self.rcv_nxt or 0, RST | ACK)

    def reset_exact(self):
        """An RST at exactly the guest's rcv_nxt, learnt from the ACK the
        guest sends for a segment beyond its window (what we sent may not all
        have been accepted). False if the guest did not answer."""
        self.w.drain()
        self._seg(self.snd_nxt + (1 << 20), self.rcv_nxt, ACK)
        l4 = self.w.recv_ip(6, lambda l4: self._mine(l4) and l4[13] & ACK, 3)
        if l4 is None:
            return False
        self._seg(struct.unpack("!I", l4[8:12])[0], 0, RST)
        return True


def run_abuse(args):
    w = Wire()
    g = EchoGuest(args.launcher, args.timeout, env={"STARLING_ECHO_NETDEV": w.netdev()})
    rnd = random.Random(7)
    try:
        baseline = wire_baseline(w, g)
        if baseline is None:
            return
        print("      baseline: " + " ".join(f"{k}={baseline[k]}" for k in sorted(baseline)), flush=True)

        # An established echo connection that must survive everything below.
        anchor = RawConn(w, 7001)
        check("anchor: connected", anchor.connect())
        check("anchor: echoes before the abuse", anchor.echo(b"anchor before the abuse\n"))
        # The baseline while the anchor is open: one connection's worth more.
        time.sleep(0.5)
        with_anchor = w.stats() or baseline

        def anchor_ok(case):
            msg = b"anchor after %s %s\n" % (case.encode(), bytes(rnd.randrange(97, 123) for _ in range(100)))
            check(f"{case}: the anchor connection still echoes byte-exact", anchor.echo(msg))

        # 1. SYN flood beyond the PCB limit (64); the SYN-ACKs are never
        #    answered, so every one is also a half-open connection.
        before = w.stats()
        flood_ports = list(range(20000, 20000 + args.syn_flood))
        w.tcp_owned.update(flood_ports)
        during = None
        for i, port in enumerate(flood_ports):
            w.send(w.eth(0x0800, ip_hdr(6, 20) + tcp_seg(port, 1236, 5000 + i, 0, SYN)))
            time.sleep(0.001)
            if i == len(flood_ports) // 2:
                during = RawConn(w, 7010)
                check("syn flood: a new client connects and echoes during the flood",
                      during.connect() and during.echo(b"connected during the flood\n"))
        if during:
            during.reset()
        time.sleep(1.0)
        mid = w.stats()
        if mid:
            print(f"      syn flood: {args.syn_flood} SYNs; guest tcp_pcbs_used={mid['tcp_pcbs_used']} "
                  f"tcp_pcbs_max={mid['tcp_pcbs_max']} deltas "
                  f"{delta(before, mid, ('tcp_refused_pool', 'tcp_refused_backlog', 'tcp_accepted'))}", flush=True)
            # SYN cookies (net/lwip/patches) past 8 half-open connections.
            check("syn flood: at most 8 PCBs held for SYNs (SYN cookies past that)",
                  mid["tcp_pcbs_used"] <= with_anchor["tcp_pcbs_used"] + 8)
            check("syn flood: the PCB high-water mark moved by at most 8 (+1: the client during it)",
                  mid["tcp_pcbs_max"] <= with_anchor["tcp_pcbs_max"] + 8 + 1)
        anchor_ok("syn flood")
        w.drain()
        # The 8 half-open ones time out (lwIP: SYN_RCVD for 20 s at most).
        after = back_to_baseline_long("syn flood (half-open timed out)", w.stats, with_anchor, 30)
        c = RawConn(w, 7002)
        check("syn flood: a new connection is served afterwards", c.connect() and c.echo(b"after the flood\n"))
        c.reset()

        # 2. half-open connections that complete late or never: a handshake
        #    whose final ACK comes only after a while, and SYNs retransmitted.
        late = RawConn(w, 7003)
        late._seg(late.iss, 0, SYN)
        time.sleep(0.5)
        late._seg(late.iss, 0, SYN)  # a retransmitted SYN: no second PCB
        synack = w.recv_ip(6, lambda l4: late._mine(l4) and l4[13] & SYN, 3)
        check("half-open: SYN-ACK for a slow handshake", synack is not None)
        if synack:
            late.rcv_nxt = (struct.unpack("!I", synack[4:8])[0] + 1) & 0xFFFFFFFF
            time.sleep(2.0)
            late._seg(late.snd_nxt, late.rcv_nxt, ACK)
            check("half-open: a handshake completed after 2 s echoes", late.echo(b"completed late\n"))
        late.reset()
        anchor_ok("half-open")

        # 3. zero-window peer: data sent, but our window is 0 while the echo
        #    waits; then the window opens and every byte must arrive.
        zw = RawConn(w, 7004, window=0)
        check("zero window: connected", zw.connect())
        data = bytes(rnd.randrange(256) for _ in range(3000))
        zw._seg(zw.snd_nxt, zw.rcv_nxt, ACK | PSH, data[:1400], window=0)
        zw._seg(zw.snd_nxt + 1400, zw.rcv_nxt, ACK | PSH, data[1400:], window=0)
        zw.snd_nxt += len(data)
        leaked = 0
        deadline = time.monotonic() + 4
        while time.monotonic() < deadline:
            l4 = w.recv_ip(6, zw._mine, 0.2)
            if l4 is not None:
                leaked = max(leaked, len(l4) - (l4[12] >> 4) * 4)
        check(f"zero window: guest sent no more than a 1-byte probe ({leaked})", leaked <= 1)
        mid = w.stats()
        anchor_ok("zero window")
        zw.window = 65535
        zw._seg(zw.snd_nxt, zw.rcv_nxt, ACK, window=65535)
        zw.pump(8, want=len(data))
        check(f"zero window: all {len(data)} bytes echoed once the window opened ({len(zw.got)})", zw.got == data)
        zw.reset()

        # 4. RST storm at a victim connection: out-of-window and in-window
        #    (not exactly rcv_nxt) RSTs must not kill it (RFC 5961 challenge
        #    ACK); RSTs for connections that do not exist are ignored; then
        #    one exact RST ends it and is counted.
        before = w.stats()
        victim = RawConn(w, 7005)
        check("rst storm: victim echoes", victim.connect() and victim.echo(b"victim before\n"))
        for i in range(args.rst_storm):
            off = rnd.choice((rnd.randrange(1 << 20, 1 << 31), -rnd.randrange(1, 1 << 20),
                              rnd.randrange(1, 4096)))
            victim._seg((victim.snd_nxt + off) & 0xFFFFFFFF, victim.rcv_nxt, RST)
            w.send(w.eth(0x0800, ip_hdr(6, 20) + tcp_seg(30000 + i, 1236, rnd.randrange(1 << 32), 0, RST)))
        time.sleep(0.5)
        w.drain()
        check("rst storm: victim survives out-of-window/in-window RSTs", victim.echo(b"victim after the storm\n"))
        anchor_ok("rst storm")
        victim._seg(victim.snd_nxt, victim.rcv_nxt, RST)
        time.sleep(0.5)
        mid = w.stats()
        d = delta(before, mid, ("tcp_resets", "tcp_accepted"))
        if d:
            print(f"      rst storm: {args.rst_storm} RSTs at the victim + {args.rst_storm} to no connection; deltas {d}", flush=True)
            check("rst storm: exactly the one exact RST reset a connection (tcp_resets +1)", d["tcp_resets"] == 1)

        # 5. a client that never reads: it sends and sends, never ACKs the
        #    echo, its window closes; the guest's memory for it must stay
        #    bounded, other connections unaffected, and all freed on RST.
        nr = RawConn(w, 7006, window=4096)
        check("never reads: connected", nr.connect())
        chunk = bytes(rnd.randrange(256) for _ in range(1400))
        for _ in range(args.never_read_segments):
            nr._seg(nr.snd_nxt, nr.rcv_nxt, ACK | PSH, chunk, window=0)
            nr.snd_nxt += len(chunk)
            time.sleep(0.002)
        time.sleep(2.0)
        w.drain()
        mid = w.stats()
        if mid:
            print(f"      never reads: sent {args.never_read_segments} x 1400 bytes; guest tcp_segs_used={mid['tcp_segs_used']} "
                  f"pbuf_pool_used={mid['pbuf_pool_used']} rx_wrappers_used={mid['rx_wrappers_used']} "
                  f"heap_max={mid['lwip_heap_max_bytes']}", flush=True)
            check("never reads: RX buffers held for it are bounded (<= 64 over baseline)",
                  mid["rx_wrappers_used"] - baseline["rx_wrappers_used"] <= 64)
        anchor_ok("never reads")
        check("never reads: reset at the guest's rcv_nxt", nr.reset_exact())

        check("anchor: still echoes at the end", anchor.echo(b"anchor at the end\n"))
        anchor.reset()
        after = back_to_baseline_long("final", w.stats, baseline, 45)
        if after:
            print(f"      totals: {delta(baseline, after, ('tcp_accepted', 'tcp_refused_pool', 'tcp_refused_backlog', 'tcp_resets'))}",
                  flush=True)
        echo_works(w, "final")
    finally:
        stop_and_check_console(g, w)


# ---------------------------------------------------------------- out-of-order bursts (wire)

def ooseq_burst(w, sport, port, count):
    """A connection to `port` that sends `count` one-byte segments, each with
    a one-byte gap before it: every one is out of order, none is ever
    completed. Its SYN-ACK is answered, nothing after (the greeting the
    utilisation service sends is never ACKed)."""
    c = RawConn(w, sport, port=port)
    if not c.connect():
        return None
    for i in range(count):
        c._seg(c.snd_nxt + 2 * i + 1, c.rcv_nxt, ACK, b"x")
        if i % 32 == 31:
            time.sleep(0.002)
    return c


def answers_within(w, seconds):
    """Seconds until a UDP echo comes back (polled), or None within `seconds`."""
    start = time.monotonic()
    payload = b"are you there?"
    while time.monotonic() - start < seconds:
        if w.udp_request(33334, payload, timeout=0.3, tries=1) == payload:
            return time.monotonic() - start
    return None


def udp_nocsum(sport, dport, payload):
    """A UDP header with checksum 0 (none, as IPv4 allows): valid to any destination."""
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def no_reply(w, sport, timeout=0.6):
    return w.recv_ip(17, lambda l4: struct.unpack("!H", l4[2:4])[0] == sport, timeout) is None


def isn_case(w):
    """RFC 6528: five SYNs from five source ports, five unrelated ISNs."""
    isns = []
    for port in range(7301, 7306):
        c = RawConn(w, port)
        if c.connect():
            isns.append((c.rcv_nxt - 1) & 0xFFFFFFFF)
        c.reset()
    print(f"      ISNs: {' '.join('%08x' % i for i in isns)}", flush=True)
    check("isn: five connections, five distinct ISNs", len(isns) == 5 and len(set(isns)) == 5)
    steps = sorted(((b - a) & 0xFFFFFFFF) for a, b in zip(isns, isns[1:]))
    check("isn: not a counter (consecutive ISNs far apart)",
          len(steps) == 4 and steps[-1] > 1 << 20)


def amplification_cases(w):
    """UDP echo answers no broadcast or multicast, no port 0/1235/7/19; the
    stats line goes only to the local subnet and never over 2x the query."""
    before = w.stats()
    payload = b"reflect me"
    bcast_mac = b"\xff" * 6
    mcast_mac = bytes.fromhex("01005e0000fb")
    cases = [
        ("subnet broadcast", 34001, "10.0.2.255", bcast_mac),
        ("limited broadcast", 34002, "255.255.255.255", bcast_mac),
        ("multicast 224.0.0.251", 34003, "224.0.0.251", mcast_mac),
    ]
    for name, sport, dst, mac in cases:
        seg = udp_nocsum(sport, 1235, payload)
        w.send(w.eth(0x0800, ip_hdr(17, len(seg), dst=dst) + seg, dst=mac))
        check(f"amplification: no echo of a datagram to {name}", no_reply(w, sport))
    for sport in (0, 1235, 7, 19):
        w.send(w.udp_frame(sport, 1235, payload))
        check(f"amplification: no echo to source port {sport}",
              w.recv_ip(17, lambda l4, p=sport: l4[:2] == struct.pack("!H", 1235) and
                        l4[2:4] == struct.pack("!H", p), 0.6) is None)
    short = w.udp_request(34010, b"STARLING-STATS", timeout=0.6, tries=2)
    check(f"amplification: an unpadded stats query gets only 'pad_to' ({short!r})",
          short is not None and short.startswith(b"STARLING-STATS pad_to=") and len(short) <= 28)
    seg = udp_nocsum(34011, 1235, STATS_QUERY)
    w.send(w.eth(0x0800, ip_hdr(17, len(seg), src="192.0.2.7") + seg))
    check("amplification: no stats for a sender outside the local subnet", no_reply(w, 34011))
    after = w.stats()
    d = delta(before, after, ("udp_refused", "netif_rx_multicast", "stats_refused", "stats_short"))
    if d:
        print(f"      amplification deltas: {d}", flush=True)
        check("amplification: 2 broadcasts + 4 ports refused and counted", d["udp_refused"] == 6)
        # virtio-net's MAC table holds IPv6's groups only: QEMU drops the
        # frame before the guest sees it (the netif's own drop of an unjoined
        # group is //test/net:ipv6_echo_unfiltered_qemu_test's).
        check("amplification: the multicast frame dropped by the NIC's filter, not let in",
              d["netif_rx_multicast"] == 0)
        check("amplification: stats refusals counted", d["stats_refused"] == 1 and d["stats_short"] == 1)
    echo_works(w, "amplification")


def runt_cases(w):
    """Frames too short for their protocol are dropped before lwIP reads them."""
    before = w.stats()
    w.send(w.eth(0x0806, b"\x00\x01\x08\x00\x06\x04\x00\x01" + b"\x00" * 12, dst=b"\xff" * 6))
    w.send(w.eth(0x0800, b"\x45" + b"\x00" * 18))
    w.send(w.eth(0x0800, ip_hdr(17, 8, total=200) + udp_nocsum(34020, 1235, b"")))
    time.sleep(0.3)
    after = w.stats()
    d = delta(before, after, ("netif_rx_runts",))
    if d:
        check(f"runts: short ARP, IPv4 and truncated IPv4 counted ({d})", d["netif_rx_runts"] >= 3)
    echo_works(w, "runts")


def run_ooseq(args):
    """Issue 12's outage: out-of-order one-byte segments on the echo port,
    then on the utilisation port. What one connection may pin is bounded
    (lwipopts.h, TCP_OOSEQ_MAX_PBUFS; small frames are copied out of their
    DMA buffer), the guest keeps answering everyone else, and the pools are
    back at baseline once the connections are reset."""
    w = Wire()
    # With --stall-ms the guest runs under -icount (its clock counts its own
    # instructions, one per nanosecond: a host that deschedules QEMU cannot
    # make a task look long) and its stall detector at that threshold: the
    # bursts must make no task keep the hart that long (issue 27, item 3).
    stall = dict(append=f"starling.stall_ms={args.stall_ms}", qemu_args=("-icount", "shift=0")) \
        if args.stall_ms else {}
    g = EchoGuest(args.launcher, args.timeout, env={"STARLING_ECHO_NETDEV": w.netdev()}, **stall)
    try:
        baseline = wire_baseline(w, g)
        if baseline is None:
            return
        if args.stall_ms:
            check(f"stall detector armed at {args.stall_ms} ms",
                  f"a task running {args.stall_ms} ms without suspending is reported" in g.console())
        conns = []
        for n, (port, sport) in enumerate(((1236, 7101), (1237, 7102), (1236, 7103))):
            case = f"burst {n + 1} ({args.ooseq_segments} out-of-order segments to {port})"
            c = ooseq_burst(w, sport, port, args.ooseq_segments)
            check(f"{case}: connected", c is not None)
            if c is None:
                continue
            conns.append(c)
            took = answers_within(w, args.ooseq_impaired)
            check(f"{case}: UDP echo answers within {args.ooseq_impaired} s"
                  f" ({'none' if took is None else f'{took:.2f} s'})", took is not None)
            s = w.stats()
            check(f"{case}: stats answer", s is not None)
            if s:
                held = s["rx_wrappers_used"] - baseline["rx_wrappers_used"]
                print(f"      {case}: rx_wrappers_used={s['rx_wrappers_used']} (+{held}) "
                      f"rx_wrappers_max={s['rx_wrappers_max']} pbuf_pool_used={s['pbuf_pool_used']} "
                      f"tcp_segs_used={s['tcp_segs_used']}", flush=True)
                check(f"{case}: RX buffers held <= {args.ooseq_budget} per connection ({held})",
                      held <= args.ooseq_budget * len(conns))
            fresh = RawConn(w, 7200 + n)
            check(f"{case}: a new TCP client connects and echoes",
                  fresh.connect() and fresh.echo(b"a new client after %d\n" % n))
            fresh.reset()
        # Large out-of-order segments stay zero-copy: the per-connection
        # limit (TCP_OOSEQ_MAX_PBUFS) is what bounds them.
        big = RawConn(w, 7110)
        check("large out-of-order segments: connected", big.connect())
        chunk = b"y" * 1000
        for i in range(40):
            big._seg(big.snd_nxt + 1 + 2000 * i, big.rcv_nxt, ACK, chunk)
        time.sleep(0.5)
        s = w.stats()
        if s:
            held = s["rx_wrappers_used"] - baseline["rx_wrappers_used"]
            print(f"      large out-of-order: rx_wrappers_used={s['rx_wrappers_used']} (+{held})", flush=True)
            check(f"large out-of-order segments: <= {args.ooseq_budget} buffers held ({held})", held <= args.ooseq_budget)
        conns.append(big)
        for c in conns:
            c.reset()
        back_to_baseline_long("out-of-order bursts (reset)", w.stats, baseline, 20)
        echo_works(w, "out-of-order bursts")
        if args.stall_ms:
            s = w.stats()
            longest = None if s is None else s.get("stall_longest_ns")
            print(f"      the longest task run the stall detector saw: {longest} ns", flush=True)
            check(f"the longest task run below {args.stall_ms} ms ({longest} ns)",
                  longest is not None and longest < args.stall_ms * 1_000_000)
        isn_case(w)
        amplification_cases(w)
        runt_cases(w)
    finally:
        text = g.console()
        stop_and_check_console(g, w)
        if args.stall_ms:
            stalls = [line for line in text.splitlines() if line.startswith("STALL:")]
            check(f"no task kept the hart {args.stall_ms} ms (guest instructions)"
                  f"{'' if not stalls else ': ' + ' | '.join(stalls[:12])}", not stalls)


def back_to_baseline_long(case, get, baseline, timeout):
    s = settled_stats(get, baseline, timeout)
    if s is None:
        check(f"{case}: no stats reply", False)
        return None
    diff = {k: (baseline[k], s[k]) for k in POOL_KEYS if s[k] != baseline[k]}
    check(f"{case}: pool counts back at baseline {'' if not diff else diff}", not diff)
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--launcher", required=True)
    ap.add_argument("--mode", choices=("wire", "tcp", "abuse", "ooseq"), required=True)
    ap.add_argument("--timeout", type=int, default=150)
    ap.add_argument("--flood", type=int, default=5000)
    ap.add_argument("--connections", type=int, default=80)
    ap.add_argument("--append", default="", help="the guest's kernel command line (tcp mode)")
    ap.add_argument("--syn-flood", type=int, default=200)
    ap.add_argument("--rst-storm", type=int, default=200)
    ap.add_argument("--never-read-segments", type=int, default=100)
    ap.add_argument("--ooseq-segments", type=int, default=400)
    ap.add_argument("--ooseq-impaired", type=float, default=2.0,
                    help="seconds legitimate traffic may go unanswered after a burst")
    ap.add_argument("--ooseq-budget", type=int, default=8,
                    help="RX buffers one connection may hold (lwipopts.h)")
    ap.add_argument("--stall-ms", type=int, default=0,
                    help="ooseq mode: run the guest under -icount with this stall threshold "
                         "and fail on any stall report")
    args = ap.parse_args()
    random.seed(1)
    {"wire": run_wire, "tcp": run_tcp, "abuse": run_abuse, "ooseq": run_ooseq}[args.mode](args)
    if finish():
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
