#!/usr/bin/env python3
"""Where the cost gate's instructions and MMIO accesses go, part by part.

  bazel run //bench/cost:profile [-- --out DIR] [--markdown]

Boots the gate's images (the same opt builds, bench/echo/bench.sh --profile)
under QEMU -icount -singlestep, runs each gate leg's closed loop (240
packets), and has QEMU log every executed instruction's PC and symbol
(-d exec,nochain: one translation block per instruction) and every device
register access (trace events memory_region_ops_read/write) while that leg's
packets flow. Then, per leg and per packet:

  - instructions by part of the data path (the wake, the driver, the netif
    loop, lwIP, the socket and the application, clock and timers, copies,
    ...), chosen by symbol (PARTS below), and the largest symbols;
  - MMIO reads and writes by device register (virtio-mmio registers by the
    virtio 1.2 specification's names, the PLIC's by its layout).

Every executed instruction counts, the idle loop's `wfi` too (shown apart),
so the total is a little above the gate's busy figure; QEMU counts the
instruction that traps into the handler once, as the hardware retires it.
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

LEGS = ("udp_echo", "tcp_echo", "udp_echo6", "tcp_echo6", "udp_echo_small", "reflector")

# Parts of the data path, by demangled symbol: the first pattern that
# matches names the part. Order matters (a driver's coroutine resumes
# before the generic "async" rule).
PARTS = (
    ("idle (wfi)", r"^starling::hal::idle$"),
    ("trap and interrupt", r"^starling_trap_|^starling::riscv::|::irq::|[Pp]lic|"
                           r"external_interrupt|^starling::hal::(mask|restore)_interrupts"),
    ("copies (memcpy, memset)", r"^(memcpy|memmove|memset|memcmp)$|copy_forward"),
    ("checksums", r"chksum|checksum"),
    ("clock and timers", r"::now_ns|::cycles$|::clock::|TimerQueue|set_wakeup|::sbi::|"
                         r"^sys_now$|^sys_check_timeouts$|^sys_timeout|_cyclic_timer$|_tmr$|"
                         r"::Deadline|timer_deadline|run_due_timers"),
    ("netif loop", r"^starling::net::(Netif|netif::|classify_frame|nd6_occupancy)"),
    ("driver (virtio-net, RingDriver)", r"^starling::(virtio|nic|dwmac)::"),
    ("socket and application", r"^starling::net::(udp|tcp|ip|Udp|Tcp|socket|fairness|port)|"
                               r"^starling::(apps|echo|reflector|{anon})::|^starling_app_main$"),
    ("executor and coroutine frames", r"^starling::async::|operator new|operator delete|"
                                      r"frame_allocator"),
    ("metrics and text", r"^starling::(metrics|text)::"),
    ("lwIP", r"^(lwip_|ip4|ip6|ip_|udp_|tcp_|pbuf_|etharp|ethernet_|ethip6|netif_|mem_|memp_|"
             r"inet_|icmp|nd6|mld6|raw_|sys_|acd_|autoip|dhcp|igmp|ipaddr|lwip)"),
)
OTHER = "other"

# virtio-mmio registers (virtio 1.2, 4.2.2), by offset.
VIRTIO_MMIO = {
    0x000: "MagicValue", 0x004: "Version", 0x008: "DeviceID", 0x00c: "VendorID",
    0x010: "DeviceFeatures", 0x014: "DeviceFeaturesSel", 0x020: "DriverFeatures",
    0x024: "DriverFeaturesSel", 0x030: "QueueSel", 0x034: "QueueNumMax", 0x038: "QueueNum",
    0x044: "QueueReady", 0x050: "QueueNotify", 0x060: "InterruptStatus",
    0x064: "InterruptACK", 0x070: "Status", 0x080: "QueueDescLow", 0x084: "QueueDescHigh",
    0x090: "QueueDriverLow", 0x094: "QueueDriverHigh", 0x0a0: "QueueDeviceLow",
    0x0a4: "QueueDeviceHigh", 0x0fc: "ConfigGeneration",
}

TRACE = re.compile(r"^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/[0-9a-f]+/[0-9a-f]+\] ?(\S*)")
MMIO = re.compile(r"^memory_region_ops_(read|write) cpu \d+ mr \S+ addr (0x[0-9a-f]+) "
                  r"value \S+ size (\d+) name '([^']*)'")


def register_name(device, address):
    """A readable name for one device register."""
    if device == "virtio-mmio":
        offset = address & 0xfff
        name = VIRTIO_MMIO.get(offset, f"config+0x{offset - 0x100:x}" if offset >= 0x100
                               else f"0x{offset:03x}")
        return f"virtio-mmio@{address & ~0xfff:#x} {name}"
    if device == "riscv.sifive.plic":
        offset = address - 0x0c000000
        if offset < 0x1000:
            return f"PLIC priority[{offset // 4}]"
        if offset < 0x2000:
            return f"PLIC pending[{(offset - 0x1000) // 4}]"
        if offset < 0x200000:
            return f"PLIC enable ctx{(offset - 0x2000) // 0x80} word {(offset - 0x2000) % 0x80 // 4}"
        context, field = divmod(offset - 0x200000, 0x1000)
        return f"PLIC ctx{context} " + {0: "threshold", 4: "claim/complete"}.get(field, f"+{field:#x}")
    return f"{device} {address:#x}"


def read_window(path):
    """({mangled symbol: instructions}, {(op, register): count}) of one leg's log."""
    symbols = collections.Counter()
    accesses = collections.Counter()
    with open(path, errors="replace") as log:
        for line in log:
            if line.startswith("Trace"):
                match = TRACE.match(line)
                if match:
                    symbols[match.group(2) or f"pc {match.group(1)}"] += 1
            elif line.startswith("memory_region_ops_"):
                match = MMIO.match(line)
                if match:
                    op, address, _size, device = match.groups()
                    accesses[(op, register_name(device, int(address, 16)))] += 1
    return symbols, accesses


def demangle(cxxfilt, names):
    if not cxxfilt or not names:
        return {n: n for n in names}
    out = subprocess.run([cxxfilt], input="\n".join(names), capture_output=True, text=True,
                         check=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def bare(name):
    """The qualified name alone: no template arguments, parameters or return type."""
    name = name.replace("(anonymous namespace)", "{anon}")
    depth, out = 0, []
    for c in name:  # template arguments and parameter lists, nested
        if c in "<(":
            depth += 1
        elif c in ">)" and depth:
            depth -= 1
        elif depth == 0:
            out.append(c)
    text = "".join(out).replace(" const", "").strip()
    return text.split(" ")[-1]  # a function template's return type comes first


def part_of(name, parts=PARTS):
    """The first of `parts` ((part, pattern), ...) whose pattern `name`'s
    bare name matches, else OTHER (tls_profile.py has parts of its own)."""
    plain = bare(name)
    for part, pattern in parts:
        if re.search(pattern, plain):
            return part
    return OTHER


def short(name, width=88):
    name = bare(name)
    return name if len(name) <= width else name[:width - 3] + "..."


def report(leg, packets, symbols, accesses, names, top, markdown, out):
    total = sum(symbols.values())
    parts = collections.Counter()
    for symbol, count in symbols.items():
        parts[part_of(names.get(symbol, symbol))] += count
    busy = total - parts.get("idle (wfi)", 0)
    reads = sum(c for (op, _), c in accesses.items() if op == "read")
    writes = sum(c for (op, _), c in accesses.items() if op == "write")
    w = out.write
    if markdown:
        w(f"\n#### {leg}: {busy / packets:,.0f} busy instructions, "
          f"{reads / packets:.2f} MMIO reads and {writes / packets:.2f} writes per packet\n\n")
        w("| part | instructions per packet | share |\n|---|---:|---:|\n")
    else:
        w(f"\n== {leg}: {packets} packets; per packet {busy / packets:,.1f} busy instructions "
          f"({total / packets:,.1f} with the idle loop), {reads / packets:.2f} MMIO reads, "
          f"{writes / packets:.2f} MMIO writes\n")
        w(f"  {'part':<36} {'per packet':>11} {'share':>7}\n")
    for part, count in parts.most_common():
        share = "" if part.startswith("idle") else f"{100 * count / busy:.1f}%"
        if markdown:
            w(f"| {part} | {count / packets:,.0f} | {share} |\n")
        else:
            w(f"  {part:<36} {count / packets:>11,.1f} {share:>7}\n")
    if markdown:
        w("\n| MMIO access | per packet |\n|---|---:|\n")
        for (op, register), count in sorted(accesses.items(), key=lambda kv: -kv[1]):
            w(f"| {op} {register} | {count / packets:.2f} |\n")
        return
    w(f"  largest symbols (instructions per packet, part):\n")
    for symbol, count in symbols.most_common(top):
        name = names.get(symbol, symbol)
        w(f"  {count / packets:>9,.1f}  {short(name)}  [{part_of(name)}]\n")
    w("  MMIO accesses per packet, by register:\n")
    for (op, register), count in sorted(accesses.items(), key=lambda kv: -kv[1]):
        w(f"  {count / packets:>9.2f}  {op:<5} {register}\n")


def packets_of(directory):
    figures = {}
    with open(os.path.join(directory, "figures.txt")) as f:
        for line in f:
            key, _, value = line.strip().partition("=")
            figures[key] = value
    return figures


def pick(paths, suffix):
    chosen = [p for p in paths if p.endswith(suffix)]
    return chosen[0] if chosen else None


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", help="bench/echo/bench.sh (omit with --analyse-only)")
    parser.add_argument("--generator", nargs="+", default=[], help="loadgen and linux_echo")
    parser.add_argument("--files", action="append", nargs="+", default=[], metavar=("NAME", "PATH"),
                        help="an image target's files (echo.qemu, reflector.qemu)")
    parser.add_argument("--cxxfilt", help="llvm-cxxfilt, to demangle C++ symbols")
    parser.add_argument("--out", help="where the logs go (default: a fresh temporary directory)")
    parser.add_argument("--analyse-only", action="store_true",
                        help="read the logs already in --out instead of running")
    parser.add_argument("--markdown", action="store_true", help="tables for docs/benchmarks.md")
    parser.add_argument("--top", type=int, default=15, help="largest symbols shown per leg")
    args = parser.parse_args(argv)

    out = args.out or tempfile.mkdtemp(prefix="starling-profile-")
    out = os.path.abspath(out)
    if not args.analyse_only:
        launchers = {g[0]: pick(g[1:], ".run.sh") for g in args.files}
        command = [args.bench, "--loadgen", pick(args.generator, "/loadgen"),
                   "--linux-echo", pick(args.generator, "/linux_echo"),
                   "--echo-launcher", launchers.get("echo.qemu"),
                   "--reflector-launcher", launchers.get("reflector.qemu"), "--profile", out]
        if None in command:
            print("profile: needs --bench, --generator and --files echo.qemu/reflector.qemu",
                  file=sys.stderr)
            return 2
        print("profile: " + " ".join(command), file=sys.stderr, flush=True)
        if subprocess.run(command, stdout=sys.stderr).returncode != 0:
            print(f"profile: FAIL: the runs failed (bench.sh --profile, above; logs in {out})",
                  file=sys.stderr)
            return 1
    figures = packets_of(out)
    windows = {}
    for leg in LEGS:
        path = os.path.join(out, f"{leg}.trace.log")
        if not os.path.exists(path) or f"{leg}.packets" not in figures:
            print(f"profile: FAIL: no {path} or packet count for {leg}", file=sys.stderr)
            return 1
        windows[leg] = read_window(path)
    mangled = sorted({s for symbols, _ in windows.values() for s in symbols})
    names = demangle(args.cxxfilt, mangled)
    for leg in LEGS:
        symbols, accesses = windows[leg]
        if not symbols:
            print(f"profile: FAIL: {leg}: no instruction logged (QEMU's -d exec)", file=sys.stderr)
            return 1
        report(leg, int(figures[f"{leg}.packets"]), symbols, accesses, names, args.top,
               args.markdown, sys.stdout)
        gate = figures.get(f"{leg}.busy_instructions_per_packet")
        if gate and not args.markdown:
            print(f"  (the guest's own busy count in this run: {float(gate):,.1f} per packet)")
    print(f"\nprofile: logs in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
