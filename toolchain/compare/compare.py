#!/usr/bin/env python3
"""What a compiler change moves: the seed's experiment as a report.

  compare.py --nm NM --readelf READELF [--bench BENCH.SH --generator FILES...]
             --variant NAME KIND FILES... (repeated)
             [--no-run] [--diff A B] [--threshold BYTES] [--json OUT]

Each --variant names a configuration (compare.bzl's VARIANTS) and one of
its targets: KIND echo_qemu, echo_star64 or reflector_qemu (the files of an
image target: .elf, .Image, .run.sh) or flags (toolchain_flags' file). For
every image, one table across the configurations: every small-data section
and its size, the symbols in them, .text/.rodata/.data/.bss, the Image's
sha256 and, for the qemu_virt echo image, busy guest instructions per echoed
1472-byte UDP packet under -icount (bench.sh --cost; root, a TAP in a
namespace; --no-run leaves it out). Then the diff between two
configurations (--diff A B, default the first and the last): toolchain flags
that differ per action, sections and symbols whose size changed by more
than --threshold bytes (default 64), instructions per packet.
"""

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

SMALL_DATA = re.compile(r"^\.(sdata|sbss|srodata)")
MAIN_SECTIONS = [".text", ".rodata", ".data", ".bss"]
IMAGE_KINDS = ["echo_qemu", "echo_star64", "reflector_qemu"]
# lwIP's memory pools (memp.c): what the seed's build put in small data.
MEMP = re.compile(r"memp")


def fail(message):
    print("compare: " + message, file=sys.stderr)
    sys.exit(1)


def run(argv):
    result = subprocess.run(argv, capture_output=True, text=True)
    if result.returncode != 0:
        fail("%s failed: %s" % (" ".join(argv), result.stderr.strip()))
    return result.stdout


def pick(files, suffix):
    found = [f for f in files if f.endswith(suffix)]
    return found[0] if found else None


def sections(readelf, elf):
    """[(index, name, size)] from readelf -S."""
    out = []
    for line in run([readelf, "-S", "-W", elf]).splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if m and m.group(2) != "NULL":
            out.append((int(m.group(1)), m.group(2), int(m.group(3), 16)))
    return out


def symbols_in(readelf, elf, indices):
    """Names of the symbols defined in the sections of those indices."""
    names = []
    for line in run([readelf, "-s", "-W", elf]).splitlines():
        parts = line.split()
        if len(parts) >= 8 and parts[6].isdigit() and int(parts[6]) in indices and parts[3] != "SECTION":
            names.append(parts[7])
    return sorted(set(names))


def symbol_sizes(nm, elf):
    """Demangled name -> size, for every sized symbol."""
    sizes = {}
    for line in run([nm, "-S", "-C", "--size-sort", elf]).splitlines():
        m = re.match(r"[0-9a-f]+ ([0-9a-f]+) \S (.+)$", line)
        if m:
            sizes[m.group(2)] = sizes.get(m.group(2), 0) + int(m.group(1), 16)
    return sizes


def measure_image(args, files):
    elf = pick(files, ".elf")
    if elf is None:
        fail("no .elf among %s" % files)
    table = sections(args.readelf, elf)
    small = [(i, n, s) for i, n, s in table if SMALL_DATA.match(n)]
    image = pick(files, ".Image")
    digest = hashlib.sha256(open(image, "rb").read()).hexdigest() if image else ""
    return {
        "elf": elf,
        "launcher": pick(files, ".run.sh"),
        "sections": {n: s for _, n, s in table if n in MAIN_SECTIONS},
        "small_data": {n: s for _, n, s in small},
        "small_data_symbols": symbols_in(args.readelf, elf, {i for i, _, _ in small}),
        "symbols": symbol_sizes(args.nm, elf),
        "sha256": digest,
    }


def read_flags(path):
    """action -> (tool, [args])."""
    actions = {}
    for line in open(path):
        kind, _, rest = line.strip().partition(" ")
        words = rest.split()
        if words:
            actions[kind] = (words[0], words[1:])
    return actions


def compiler_of(flags):
    tool = flags.get("compile", ("", []))[0]
    m = re.search(r"wrappers/(clang\d+)/", tool)
    return m.group(1) if m else "?"


def launcher_for(image, tmp, name):
    """A launcher that boots this configuration's own ELF.

    Every configuration's qemu.run.sh is the same script, naming the ELF by
    its runfiles path, which the configurations share; the runner takes the
    last --kernel, so this one passes the configuration's copy after it.
    """
    path = os.path.join(tmp, name + ".run.sh")
    with open(path, "w") as f:
        f.write('#!/bin/bash\nexec "%s" --kernel "%s" "$@"\n' % (
            os.path.abspath(image["launcher"]), os.path.abspath(image["elf"])))
    os.chmod(path, 0o755)
    return path


def instructions_per_packet(args, variant):
    """bench.sh --cost for this configuration's qemu echo and reflector images."""
    echo = variant["images"].get("echo_qemu")
    reflector = variant["images"].get("reflector_qemu")
    if not echo or not reflector or not echo["launcher"] or not reflector["launcher"]:
        return {}
    gen = {os.path.basename(f): f for f in args.generator}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cost")
        echo = launcher_for(echo, tmp, "echo")
        reflector = launcher_for(reflector, tmp, "reflector")
        cmd = [
            "bash", args.bench, "--loadgen", gen["loadgen"], "--linux-echo", gen["linux_echo"],
            "--echo-launcher", echo, "--reflector-launcher", reflector, "--cost", out,
        ]
        env = dict(os.environ, TEST_TMPDIR=tmp)
        result = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if result.returncode != 0:
            fail("bench.sh --cost failed:\n" + result.stderr[-2000:])
        figures = {}
        for line in open(out):
            key, _, value = line.strip().partition("=")
            figures[key.split(".")[0]] = float(value)
        return figures


def row(label, cells):
    return "| %s | %s |" % (label, " | ".join(str(c) for c in cells))


def report(variants, names):
    print("# What the compiler moves: %s" % ", ".join(
        "%s (%s)" % (n, variants[n]["compiler"]) for n in names))
    for kind in IMAGE_KINDS:
        present = [n for n in names if kind in variants[n]["images"]]
        if not present:
            continue
        images = {n: variants[n]["images"][kind] for n in present}
        print("\n## %s\n" % kind)
        print(row("", present))
        print("|---|" + "---|" * len(present))
        small = sorted({s for n in present for s in images[n]["small_data"]})
        for s in small:
            print(row(s + " (small data)", [images[n]["small_data"].get(s, 0) for n in present]))
        if not small:
            print(row("small-data sections", ["none"] * len(present)))
        print(row("symbols in small data", [len(images[n]["small_data_symbols"]) for n in present]))
        for s in MAIN_SECTIONS:
            print(row(s, [images[n]["sections"].get(s, 0) for n in present]))
        print(row("Image sha256", [images[n]["sha256"][:16] or "-" for n in present]))
        if kind == "echo_qemu":
            print(row("busy instructions per echoed 1472-byte UDP packet",
                      [variants[n]["cost"].get("udp_echo", "not run") for n in present]))
        for n in present:
            syms = images[n]["small_data_symbols"]
            if syms:
                memp = [s for s in syms if MEMP.search(s)]
                print("\n%s: %d symbols in small data, lwIP's memp among them: %s" % (
                    n, len(syms), ", ".join(memp) if memp else "none"))
                others = [s for s in syms if not MEMP.search(s)]
                if others:
                    print("  others: %s%s" % (", ".join(others[:40]), " ..." if len(others) > 40 else ""))


def diff(variants, a, b, threshold):
    va, vb = variants[a], variants[b]
    print("\n# Diff %s -> %s (threshold %d bytes)\n" % (a, b, threshold))
    moved = {"flags": {}, "sections": {}, "symbols": {}, "instructions": {}}
    for action in sorted(set(va["flags"]) | set(vb["flags"])):
        ta, fa = va["flags"].get(action, ("", []))
        tb, fb = vb["flags"].get(action, ("", []))
        gone = [f for f in fa if f not in fb]
        new = [f for f in fb if f not in fa]
        if ta != tb:
            gone, new = [ta] + gone, [tb] + new
        if gone or new:
            moved["flags"][action] = {"removed": gone, "added": new}
            print("flags, %s: removed %s; added %s" % (action, " ".join(gone) or "nothing",
                                                       " ".join(new) or "nothing"))
    if not moved["flags"]:
        print("flags: the same on every action")
    for kind in IMAGE_KINDS:
        ia, ib = va["images"].get(kind), vb["images"].get(kind)
        if not ia or not ib:
            continue
        sa = dict(ia["sections"], **ia["small_data"])
        sb = dict(ib["sections"], **ib["small_data"])
        for s in sorted(set(sa) | set(sb)):
            d = sb.get(s, 0) - sa.get(s, 0)
            if abs(d) > threshold:
                moved["sections"]["%s %s" % (kind, s)] = d
                print("%s: section %s %d -> %d (%+d)" % (kind, s, sa.get(s, 0), sb.get(s, 0), d))
        changes = []
        for sym in set(ia["symbols"]) | set(ib["symbols"]):
            d = ib["symbols"].get(sym, 0) - ia["symbols"].get(sym, 0)
            if abs(d) > threshold:
                changes.append((abs(d), sym, ia["symbols"].get(sym, 0), ib["symbols"].get(sym, 0)))
        for _, sym, x, y in sorted(changes, reverse=True)[:25]:
            moved["symbols"]["%s %s" % (kind, sym)] = y - x
            print("%s: symbol %s %d -> %d (%+d)" % (kind, sym, x, y, y - x))
        if len(changes) > 25:
            print("%s: ... and %d more symbols moved more than %d bytes" % (kind, len(changes) - 25, threshold))
        if ia["small_data_symbols"] != ib["small_data_symbols"]:
            print("%s: symbols in small data %d -> %d" % (kind, len(ia["small_data_symbols"]),
                                                        len(ib["small_data_symbols"])))
    ca, cb = va["cost"].get("udp_echo"), vb["cost"].get("udp_echo")
    if ca and cb:
        moved["instructions"]["udp_echo"] = cb - ca
        print("busy instructions per echoed packet: %.0f -> %.0f (%+.1f%%)" % (ca, cb, 100.0 * (cb - ca) / ca))
    return moved


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nm", required=True)
    parser.add_argument("--readelf", required=True)
    parser.add_argument("--bench")
    parser.add_argument("--generator", nargs="+", default=[])
    parser.add_argument("--variant", nargs="+", action="append", default=[], metavar="NAME KIND FILES")
    parser.add_argument("--no-run", action="store_true", help="sizes and flags only: no QEMU")
    parser.add_argument("--diff", nargs=2, metavar=("A", "B"))
    parser.add_argument("--threshold", type=int, default=64)
    parser.add_argument("--json")
    args = parser.parse_args(argv)

    variants = {}
    names = []
    for entry in args.variant:
        if len(entry) < 3:
            parser.error("--variant NAME KIND FILES...: got %s" % entry)
        name, kind, files = entry[0], entry[1], entry[2:]
        if name not in variants:
            variants[name] = {"images": {}, "flags": {}, "cost": {}}
            names.append(name)
        if kind == "flags":
            variants[name]["flags"] = read_flags(files[0])
        elif kind in IMAGE_KINDS:
            variants[name]["images"][kind] = measure_image(args, files)
        else:
            parser.error("--variant %s: unknown kind %s (%s, flags)" % (name, kind, ", ".join(IMAGE_KINDS)))
    if not names:
        parser.error("no --variant given")
    for n in names:
        variants[n]["compiler"] = compiler_of(variants[n]["flags"])
    if args.diff:
        for n in args.diff:
            if n not in variants:
                parser.error("--diff %s: no such configuration (%s)" % (n, ", ".join(names)))
    if not args.no_run:
        if not args.bench or not args.generator:
            parser.error("instructions per packet need --bench and --generator (or --no-run)")
        if os.geteuid() != 0:
            fail("instructions per packet need root (a TAP in a network namespace): "
                 "run as root, or pass --no-run for sizes and flags only")
        for n in names:
            print("compare: %s: measuring under -icount ..." % n, file=sys.stderr)
            variants[n]["cost"] = instructions_per_packet(args, variants[n])

    report(variants, names)
    a, b = args.diff or (names[0], names[-1])
    moved = diff(variants, a, b, args.threshold)
    if args.json:
        slim = {n: {"compiler": v["compiler"], "cost": v["cost"], "flags": v["flags"],
                    "images": {k: {x: i[x] for x in ("sections", "small_data", "small_data_symbols", "sha256")}
                               for k, i in v["images"].items()}}
                for n, v in variants.items()}
        with open(args.json, "w") as f:
            json.dump({"variants": slim, "diff": {"from": a, "to": b, "moved": moved}}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
