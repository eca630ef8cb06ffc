#!/usr/bin/python3
"""Real attack tools against the echo appliance (issue 12, item 8).

  hostile_tools_test.py --qemu LAUNCHER     the QEMU image, virtio-net on a TAP
  hostile_tools_test.py --host APP          the host board, DWMAC driver + model on a TAP

Debian's nmap, hping3 and scapy (setup.sh installs them; Debian's python3,
hence the interpreter above) run in a network namespace this test makes, on
the Linux side of the TAP (10.0.2.2); the appliance is 10.0.2.15. Nothing
leaves the namespace. Every tool run is bounded in packets and seconds.

Before the attacks a TCP connection to the echo is opened (the anchor). After
each attack: a UDP echo and a new TCP echo answer, the anchor echoes
byte-exact (it lost no byte), and the pool counts of the stats line are back
at their baseline within SETTLE seconds. Printed per attack: the peak the
guest held (RX buffers, PCBs, lwIP heap high-water), how many of the UDP
probes sent during it (one per 0.2 s, each with up to 3 tries of 0.5 s) were
answered, how soon a UDP echo answered after it, and the time back to
baseline. During the SYN flood, the
share of new connections that succeed is printed and must be at least 90%.
"""
import argparse
import os
import random
import shutil
import socket
import subprocess
import sys
import threading
import time

from checks import check, finish
from host_process import CONSOLE_ALARMS, App, TapNamespace, udp_roundtrip
from stats_line import STATS_QUERY, parse_stats_line

GUEST = "10.0.2.15"
PEER = "10.0.2.2"
TAP = "st0"
GUEST_MAC = "52:54:00:12:34:56"
# TIME_WAIT PCBs are left out: a connection the appliance closed first stays
# in TIME_WAIT for 2 x TCP_MSL (lwIP: 120 s), as TCP requires, and lwIP takes
# the oldest of them back whenever the table is full, so they deny no one.
# "tcp_live_pcbs" (PCBs minus TIME_WAIT) is compared instead.
POOL_KEYS = ("pbuf_pool_used", "pbuf_ref_used", "rx_wrappers_used", "tcp_live_pcbs",
             "tcp_segs_used", "tcp_active", "tcp_conns")
SETTLE = 25.0  # seconds to get back to baseline (lwIP's TIME_WAIT, reassembly 15 s)

# Test environments often leave /usr/sbin (hping3's home) off PATH.
TOOL_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
TOOLS = {name: shutil.which(name, path=TOOL_PATH) for name in ("nmap", "hping3")}


def udp_request(payload, port=1235, timeout=0.5, tries=3):
    return udp_roundtrip(GUEST, payload, port=port, tries=tries, timeout=timeout)


def stats():
    data = udp_request(STATS_QUERY)
    s = parse_stats_line(data) if data else None
    if s is None:
        return None
    s["tcp_live_pcbs"] = s["tcp_pcbs_used"] - s["tcp_time_wait"]
    return s


def udp_echo_ok():
    payload = os.urandom(64)
    return udp_request(payload) == payload


def tcp_echo_ok(timeout=3.0):
    try:
        with socket.create_connection((GUEST, 1236), timeout=timeout) as s:
            payload = os.urandom(300)
            s.sendall(payload)
            got = b""
            while len(got) < len(payload):
                chunk = s.recv(4096)
                if not chunk:
                    break
                got += chunk
            return got == payload
    except OSError:
        return False


class Anchor:
    """A connection opened before the attacks that must never lose a byte."""

    def __init__(self):
        self.sock = socket.create_connection((GUEST, 1236), timeout=5)
        self.n = 0

    def ok(self):
        self.n += 1
        line = b"anchor %d %s\n" % (self.n, os.urandom(8).hex().encode())
        try:
            self.sock.sendall(line)
            got = b""
            while len(got) < len(line):
                chunk = self.sock.recv(4096)
                if not chunk:
                    return False
                got += chunk
            return got == line
        except OSError:
            return False


class Sampler:
    """Polls the stats line while an attack runs: the guest's peak holdings."""

    def __init__(self):
        self.peak = {"rx_wrappers_used": 0, "tcp_pcbs_used": 0, "pbuf_pool_used": 0}
        self.heap_max = 0
        self.asked = self.answered = 0  # stats probes during the attack: legitimate traffic
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop:
            s = stats()
            self.asked += 1
            if s:
                self.answered += 1
                for k in self.peak:
                    self.peak[k] = max(self.peak[k], s[k])
                self.heap_max = max(self.heap_max, s["lwip_heap_max_bytes"])
            time.sleep(0.2)

    def stop(self):
        self._stop = True
        self._thread.join(timeout=5)
        return self.peak, self.heap_max, (self.answered, self.asked)


def tool(argv, seconds):
    """Runs a tool (already inside the namespace), bounded in time."""
    try:
        r = subprocess.run(["timeout", "-s", "INT", str(seconds), *argv], capture_output=True,
                           text=True, timeout=seconds + 10)
        return r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired:
        return -1, ""


def after_attack(name, baseline, anchor, attack_end, sampler):
    peak, heap, (answered, asked) = sampler.stop()
    impaired = None
    while time.monotonic() - attack_end < SETTLE:
        if udp_echo_ok():
            impaired = time.monotonic() - attack_end
            break
    check(f"{name}: UDP echo answers afterwards", impaired is not None)
    check(f"{name}: a new TCP connection echoes", tcp_echo_ok())
    check(f"{name}: the connection opened before the attacks lost no byte", anchor.ok())
    back = None
    last = None
    while time.monotonic() - attack_end < SETTLE + 5:
        last = stats()
        if last and all(last[k] == baseline[k] for k in POOL_KEYS):
            back = time.monotonic() - attack_end
            break
        time.sleep(0.25)
    diff = {} if last is None else {k: (baseline[k], last[k]) for k in POOL_KEYS if last[k] != baseline[k]}
    check(f"{name}: pool counts back at baseline within {SETTLE + 5:.0f} s {diff or ''}", back is not None)
    print(f"      {name}: peak rx_wrappers={peak['rx_wrappers_used']} pcbs={peak['tcp_pcbs_used']} "
          f"pbuf_pool={peak['pbuf_pool_used']} heap_max={heap} B; during it {answered}/{asked} "
          f"UDP probes answered; first UDP echo "
          f"{'-' if impaired is None else f'{impaired:.2f} s'} after it; baseline after "
          f"{'-' if back is None else f'{back:.2f} s'}", flush=True)


def attack(name, baseline, anchor, run):
    sampler = Sampler()
    run()
    after_attack(name, baseline, anchor, time.monotonic(), sampler)


# ---------------------------------------------------------------- the attacks

def nmap(*args, seconds=90):
    def run():
        rc, out = tool([TOOLS["nmap"], "-n", "-Pn", "--max-retries", "1", "--host-timeout", f"{seconds - 5}s",
                        *args, GUEST], seconds)
        print("      nmap " + " ".join(args) + ": " +
              " | ".join(l for l in out.splitlines() if "/tcp" in l or "/udp" in l or "OS" in l)[:400],
              flush=True)
    return run


def syn_flood_with_clients(baseline, anchor):
    """hping3 SYN flood from random sources; new clients connect meanwhile."""
    sampler = Sampler()
    flood = subprocess.Popen(["timeout", "-s", "INT", "8", TOOLS["hping3"], "-q", "-S", "-p", "1236",
                              "--rand-source", "-i", "u50", "-c", "100000", GUEST],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    tries = good = 0
    while flood.poll() is None and tries < 30:
        tries += 1
        good += tcp_echo_ok(timeout=2.0)
    flood.wait(timeout=20)
    rate = good / tries if tries else 0.0
    print(f"      syn flood: {good}/{tries} new connections echoed during the flood ({rate:.0%})", flush=True)
    check("syn flood: >= 90% of new connections succeed during the flood", tries >= 5 and rate >= 0.9)
    after_attack("hping3 SYN flood (random sources)", baseline, anchor, time.monotonic(), sampler)


def hping(*args, seconds=8):
    def run():
        tool([TOOLS["hping3"], "-q", *args, GUEST], seconds)
    return run


def scapy_attacks():
    from scapy.all import ARP, IP, TCP, UDP, Ether, Raw, fragment, sendp  # noqa: WPS433
    import logging
    logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
    mac = open(f"/sys/class/net/{TAP}/address").read().strip()
    eth = Ether(src=mac, dst=GUEST_MAC)
    rnd = random.Random(12)

    def send(pkts):
        sendp(pkts, iface=TAP, verbose=False)

    def overlapping_fragments():
        payload = bytes(rnd.randrange(256) for _ in range(1400))
        for i in range(200):
            frags = fragment(IP(src=PEER, dst=GUEST, id=1000 + i) / UDP(sport=5000, dport=1235) / Raw(payload),
                             fragsize=504)
            # the second fragment again, overlapping the first by 8 bytes
            extra = frags[1].copy()
            extra.frag -= 1
            send([eth / f for f in frags] + [eth / extra])

    def unique_id_flood():
        send([eth / IP(src=PEER, dst=GUEST, id=i, flags="MF", frag=0) / Raw(b"x" * 600)
              for i in range(3000)])

    def past_64k():
        # fragments whose offsets reach past 65,535 bytes
        for i in range(20):
            pkts = [eth / IP(src=PEER, dst=GUEST, id=40000 + i, proto=17, flags="MF", frag=off) / Raw(b"y" * 1480)
                    for off in range(0, 8190, 185)]
            pkts.append(eth / IP(src=PEER, dst=GUEST, id=40000 + i, proto=17, frag=8189) / Raw(b"z" * 1000))
            send(pkts)

    def malformed_headers():
        pkts = []
        for _ in range(300):
            kind = rnd.randrange(6)
            if kind == 0:    # IPv4 options garbage / bad IHL
                pkts.append(eth / IP(src=PEER, dst=GUEST, ihl=rnd.randrange(16), options=b"\x44\x02") / UDP(dport=1235) / Raw(b"a"))
            elif kind == 1:  # UDP length lies
                pkts.append(eth / IP(src=PEER, dst=GUEST) / UDP(dport=1235, len=rnd.randrange(65536)) / Raw(b"b" * 20))
            elif kind == 2:  # TCP option lengths 0, 1, past the header
                opt = bytes([rnd.choice((2, 3, 8, 30)), rnd.choice((0, 1, 40, 255))]) + b"\x00\x00"
                t = TCP(dport=1236, flags="S", dataofs=6)
                pkts.append(eth / IP(src=PEER, dst=GUEST) / (bytes(t)[:20] + opt))
            elif kind == 3:  # TCP data offset beyond the segment
                t = bytearray(bytes(TCP(dport=1236, flags="A")))
                t[12] = 0xF0
                pkts.append(eth / IP(src=PEER, dst=GUEST, proto=6) / bytes(t))
            elif kind == 4:  # illegal flag combinations
                pkts.append(eth / IP(src=PEER, dst=GUEST) / TCP(dport=rnd.choice((1236, 1237, 80)),
                                                               flags=rnd.choice(("SF", "SR", "FPU", "SRAFUP", "", "SFRPAUEC"))))
            else:            # truncated at every layer
                whole = bytes(eth / IP(src=PEER, dst=GUEST) / TCP(dport=1236, flags="S"))
                pkts.append(Raw(whole[:rnd.randrange(14, len(whole))]))
        send(pkts)

    def arp_spoof():
        # Someone claims the appliance's own address, and the gateway's.
        send([Ether(src="02:00:00:00:00:66", dst="ff:ff:ff:ff:ff:ff") /
              ARP(op=2, hwsrc="02:00:00:00:00:66", psrc=GUEST, hwdst="ff:ff:ff:ff:ff:ff", pdst=GUEST)] * 50 +
             [Ether(src="02:00:00:00:00:66", dst=GUEST_MAC) /
              ARP(op=1, hwsrc="02:00:00:00:00:66", psrc=GUEST, pdst=GUEST)] * 50)

    def broadcast_multicast_echo():
        send([Ether(src=mac, dst="ff:ff:ff:ff:ff:ff") / IP(src=PEER, dst="10.0.2.255") / UDP(sport=40001, dport=1235) / Raw(b"q"),
              Ether(src=mac, dst="ff:ff:ff:ff:ff:ff") / IP(src=PEER, dst="255.255.255.255") / UDP(sport=40002, dport=1235) / Raw(b"q"),
              Ether(src=mac, dst="01:00:5e:00:00:fb") / IP(src=PEER, dst="224.0.0.251") / UDP(sport=40003, dport=1235) / Raw(b"q")] * 20)

    def tiny_segments():
        # in-order one-byte segments on a connection of our own making
        with socket.create_connection((GUEST, 1236), timeout=5) as s:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            data = os.urandom(2000)
            for b in data:
                s.send(bytes([b]))
            got = b""
            s.settimeout(5)
            while len(got) < len(data):
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
            check("tiny segments: 2000 one-byte segments echoed byte-exact", got == data)

    return [("scapy overlapping fragments", overlapping_fragments),
            ("scapy unique-ID fragment flood", unique_id_flood),
            ("scapy reassembly past 64 KiB", past_64k),
            ("scapy malformed IPv4/UDP/TCP headers and options", malformed_headers),
            ("scapy ARP spoofing of the appliance's address", arp_spoof),
            ("scapy broadcast and multicast echo", broadcast_multicast_echo),
            ("tiny in-order segments", tiny_segments)]


def slow_clients(baseline, anchor):
    """A client on every service that connects and says nothing, one that
    sends half a line, one that never reads: others are served meanwhile."""
    idle = [socket.create_connection((GUEST, p), timeout=5) for p in (1236, 1236, 1237)]
    half = socket.create_connection((GUEST, 1237), timeout=5)
    half.sendall(b"HELLO\nLOAD cpu")
    never = socket.create_connection((GUEST, 1236), timeout=5)
    never.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        never.sendall(os.urandom(200_000))
    except OSError:
        pass
    check("slow clients: others are served while they sit", udp_echo_ok() and tcp_echo_ok())
    for s in idle + [half, never]:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.close()
    after_attack("slow clients on every service", baseline, anchor, time.monotonic(), Sampler())


def inside(args):
    if args.qemu:
        # The launcher reads its netdev from the environment (apps/echo/BUILD.bazel).
        os.environ["STARLING_ECHO_NETDEV"] = f"tap,id=n0,ifname={TAP},script=no,downscript=no"
        app = App([args.qemu, "--timeout", str(args.timeout)])
    else:
        app = App([args.host, f"--tap={TAP}", f"--ip={GUEST}/24,gw={PEER}", f"--mac={GUEST_MAC}"])
    try:
        if not app.wait_for("echo: ready", 60):
            check("the appliance printed 'echo: ready'", False)
            return
        subprocess.run(["ip", "neigh", "replace", GUEST, "lladdr", GUEST_MAC, "dev", TAP, "nud", "permanent"],
                       check=False)
        time.sleep(0.5)
        baseline = None
        for _ in range(20):
            baseline = stats()
            if baseline:
                break
            time.sleep(0.25)
        check("baseline stats", baseline is not None)
        if baseline is None:
            return
        anchor = Anchor()
        check("anchor connection echoes", anchor.ok())
        time.sleep(0.5)
        baseline = stats() or baseline

        attack("nmap SYN scan (ports 1-2000)", baseline, anchor, nmap("-sS", "-T4", "-p", "1-2000"))
        attack("nmap UDP scan (1230-1240)", baseline, anchor, nmap("-sU", "-T4", "-p", "1230-1240"))
        for flag, name in (("-sX", "XMAS"), ("-sN", "NULL"), ("-sF", "FIN")):
            attack(f"nmap {name} scan", baseline, anchor, nmap(flag, "-T4", "-p", "1-1300"))
        attack("nmap OS detection", baseline, anchor, nmap("-O", "-T4", "-p", "1236", "--osscan-guess"))
        attack("nmap version detection", baseline, anchor,
               nmap("-sV", "--version-intensity", "2", "-p", "1235-1237", seconds=60))
        syn_flood_with_clients(baseline, anchor)
        attack("hping3 UDP flood", baseline, anchor, hping("--udp", "-p", "1235", "-i", "u50", "-c", "60000"))
        attack("hping3 ICMP flood", baseline, anchor, hping("--icmp", "-i", "u50", "-c", "60000"))
        attack("hping3 SYN+FIN+URG+PUSH", baseline, anchor, hping("-SFUP", "-p", "1236", "-i", "u200", "-c", "5000"))
        for name, run in scapy_attacks():
            attack(name, baseline, anchor, run)
        slow_clients(baseline, anchor)
        s = stats()
        if s:
            print("      final: " + " ".join(f"{k}={s[k]}" for k in sorted(s)), flush=True)
    finally:
        text = app.console()
        app.stop()
        for bad in CONSOLE_ALARMS:
            check(f"console shows no {bad}", bad not in text)
        print("---- console (tail) ----")
        print(text[-2000:])


def both(args):
    """The suite against both targets at once, each in its own namespace.

    The two suites spend most of their time waiting (lwIP's timers settling,
    scans pacing themselves); side by side on two cores they take the time of
    one. Each line is prefixed with its target; fails if either suite does."""
    me = os.path.abspath(__file__)
    children = {}
    for kind, path in (("qemu", args.qemu), ("host", args.host)):
        children[kind] = subprocess.Popen(
            [sys.executable, "-u", me, f"--{kind}", path, "--timeout", str(args.timeout)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def relay(kind, proc):
        for line in proc.stdout:
            sys.stdout.write(f"[{kind}] {line}")
            sys.stdout.flush()

    threads = [threading.Thread(target=relay, args=(k, p)) for k, p in children.items()]
    for t in threads:
        t.start()
    codes = {}
    for kind, proc in children.items():
        try:
            codes[kind] = proc.wait(timeout=args.timeout + 120)
        except subprocess.TimeoutExpired:
            proc.kill()
            codes[kind] = proc.wait()
            print(f"FAIL: the {kind} suite ran past {args.timeout + 120} s and was killed")
    for t in threads:
        t.join(timeout=10)
    for kind, code in codes.items():
        print(f"{kind} suite: {'PASS' if code == 0 else f'FAIL (exit {code})'}")
    return 0 if all(code == 0 for code in codes.values()) else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qemu", help="an image's :qemu launcher")
    ap.add_argument("--host", help="an app's :host binary")
    ap.add_argument("--timeout", type=int, default=600, help="the guest's lifetime, seconds")
    ap.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if not args.qemu and not args.host:
        ap.error("name a target: --qemu LAUNCHER, --host BINARY, or both")
    if args.qemu and args.host and not args.inside:
        return both(args)
    for tool_name, path in TOOLS.items():
        if path is None:
            print(f"FAIL: {tool_name} is not installed. Fix: sudo ./setup.sh (installs nmap, hping3, python3-scapy)")
            return 1
    try:
        import scapy.all  # noqa: F401
    except ImportError:
        print(f"FAIL: {sys.executable} has no scapy. Fix: sudo ./setup.sh (installs python3-scapy)")
        return 1
    if not args.inside:
        with TapNamespace(tap=TAP) as ns:
            argv = [sys.executable, os.path.abspath(__file__), "--inside",
                    *(["--qemu", os.path.abspath(args.qemu)] if args.qemu else ["--host", os.path.abspath(args.host)]),
                    "--timeout", str(args.timeout)]
            return ns.run(argv, timeout=args.timeout + 60).returncode
    random.seed(3)
    inside(args)
    if finish():
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
