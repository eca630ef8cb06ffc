#!/usr/bin/env python3
"""The cost gate: what a packet costs and what each image weighs, against budgets.

Figures (docs/benchmarks.md, "The cost gate"):
  <leg>.busy_instructions_per_packet  guest instructions retired while busy per
      packet, under QEMU -icount shift=0, at one fixed low rate and packet
      count (bench/echo/bench.sh --cost): udp_echo (1472-byte datagrams),
      tcp_echo (1460-byte records), their IPv6 twins udp_echo6 (1452) and
      tcp_echo6 (1440) to the guest's link-local address, udp_echo_small
      (32-byte datagrams, 74-byte frames), reflector (1472-byte frames).
  <leg>.mmio_reads_per_packet, <leg>.mmio_writes_per_packet  the guest's
      device register accesses in the same runs, as QEMU traces them
      (memory_region_ops_read/write): on the Star64 an uncached MMIO read
      costs hundreds of cycles, which an instruction count does not show.
  size.<image>.<section>  bytes of .text, .rodata, .data, .bss in each image's
      ELF (sections as the board's linker script names them).
  tls.<figure>  what TLS costs the server in guest instructions, from
      //bench/tls's image under -icount (bench/tls/tls_cost.cc): a full and a
      resumed TLS 1.3 handshake (each in all, and its longest step) and a
      keep-alive request on an established session.

Budgets and margins live in one checked-in file (bench/cost/budgets.txt). A
figure more than its margin over its budget fails the check with a table of
budget against measured and the command that rewrites the file; a figure
well under its budget is reported (lower the budget so the next regression
is caught from there), never failed.

  cost_gate.py check   --budgets F [--bench bench.sh ...] --image NAME=ELF ...
  cost_gate.py update  --budgets F ...   (rewrites F's budgets, keeps its margins)
  cost_gate.py sizes   --budgets F --image NAME=ELF ... [--symbols N]
      the size report: each image's sections, its largest symbols, and the
      difference against the budgets (pw_bloat's idea, our code).
"""

import argparse
import math
import os
import re
import struct
import subprocess
import sys
import tempfile

SECTIONS = (".text", ".rodata", ".data", ".bss")
UPDATE_COMMAND = "bazel run //bench/cost:update_budgets"


class BudgetError(Exception):
    pass


def read_budgets(path):
    """(budgets {figure: int}, margins [(prefix-or-suffix pattern, percent)], lines)."""
    budgets, margins, lines = {}, [], []
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise BudgetError(f"cannot read the budget file {path}: {e.strerror}")
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        words = text.split()
        if words[0] == "margin":
            if len(words) != 3 or not re.fullmatch(r"\d+(\.\d+)?%", words[2]):
                raise BudgetError(f"{path}:{number}: want 'margin <glob> <N>%', got '{line}'")
            margins.append((words[1], float(words[2][:-1])))
            continue
        # Whole numbers; per-packet access counts have two decimals.
        if len(words) != 2 or not re.fullmatch(r"\d+(\.\d{1,2})?", words[1]):
            raise BudgetError(f"{path}:{number}: want '<figure> <number>', got '{line}'")
        budgets[words[0]] = float(words[1]) if "." in words[1] else int(words[1])
    return budgets, margins, lines


def margin_for(figure, margins):
    """The last margin whose glob matches the figure (fnmatch-style '*')."""
    chosen = None
    for pattern, percent in margins:
        regex = "^" + re.escape(pattern).replace(r"\*", ".*") + "$"
        if re.match(regex, figure):
            chosen = percent
    if chosen is None:
        raise BudgetError(f"no margin line matches '{figure}' in the budget file")
    return chosen


def elf_sections(path):
    """{name: size} of the allocated sections of a little-endian ELF64."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise BudgetError(f"{path}: not a little-endian ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx]
    names = data[strtab[4]:strtab[4] + strtab[5]]
    out = {}
    for name_off, _type, flags, _addr, _off, size, *_ in headers:
        name = names[name_off:names.index(b"\0", name_off)].decode()
        if flags & 0x2:  # SHF_ALLOC
            out[name] = out.get(name, 0) + size
    return out


def section_figures(images):
    """size.<image>.<section> for the four sections every image has."""
    figures = {}
    for name, path in images:
        sections = elf_sections(path)
        for section in SECTIONS:
            figures[f"size.{name}.{section[1:]}"] = sections.get(section, 0)
    return figures


def largest_symbols(nm, path, count):
    """[(size, kind, name)] of the largest symbols, by llvm-nm (demangled)."""
    listing = subprocess.run([nm, "--print-size", "--size-sort", "--demangle", path],
                             check=True, capture_output=True, text=True).stdout
    symbols = []
    for line in listing.splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4:
            symbols.append((int(parts[1], 16), parts[2], parts[3]))
    symbols.sort(key=lambda s: -s[0])
    return symbols[:count]


def measure_instructions(args):
    """Runs bench.sh --cost; {<leg>.<figure>_per_packet: float}."""
    with tempfile.NamedTemporaryFile("r", suffix=".cost", dir=os.environ.get("TEST_TMPDIR")) as out:
        command = [args.bench, "--loadgen", args.loadgen, "--linux-echo", args.linux_echo,
                   "--echo-launcher", args.echo_launcher,
                   "--reflector-launcher", args.reflector_launcher, "--cost", out.name]
        print("cost: " + " ".join(command), flush=True)
        if subprocess.run(command).returncode != 0:
            raise BudgetError("the instruction runs failed (bench.sh --cost, above); "
                              "no figure was compared")
        figures = {}
        for line in out.read().splitlines():
            key, _, value = line.partition("=")
            if key.endswith("_per_packet"):  # not <leg>.packets
                figures[key] = float(value)
    for leg in ("udp_echo", "tcp_echo", "udp_echo6", "tcp_echo6", "udp_echo_small", "reflector"):
        for figure in ("busy_instructions", "mmio_reads", "mmio_writes"):
            if f"{leg}.{figure}_per_packet" not in figures:
                raise BudgetError(f"bench.sh --cost gave no {figure} figure for {leg}")
    return figures


TLS_FIGURES = ("full_handshake.server_instructions", "full_handshake.longest_step",
               "full_handshake_p256.server_instructions", "full_handshake_p256.longest_step",
               "resumed_handshake.server_instructions", "resumed_handshake.longest_step",
               "keepalive_request.server_instructions")


def measure_tls(launcher):
    """Boots //bench/tls's image; {tls.<figure>: float}."""
    command = [launcher, "--timeout", "300"]
    print("cost: " + " ".join(command), flush=True)
    run = subprocess.run(command, capture_output=True, text=True)
    figures = {}
    for line in run.stdout.splitlines():
        m = re.match(r"tls_cost: (tls\.[a-z0-9_.]+)=(\d+)$", line.strip())
        if m:
            figures[m.group(1)] = float(m.group(2))
    missing = [f for f in TLS_FIGURES if f"tls.{f}" not in figures]
    if run.returncode != 0 or missing:
        tail = "\n".join((run.stdout + run.stderr).splitlines()[-8:])
        raise BudgetError(f"the TLS cost run failed (exit {run.returncode}; no figure for "
                          f"{', '.join(missing) or 'none missing'}):\n{tail}")
    return figures


def compare(figures, budgets, margins):
    """Rows (figure, budget, margin, limit, measured, verdict) and the failures."""
    rows, failed = [], []
    for figure in sorted(figures):
        measured = figures[figure]
        budget = budgets.get(figure)
        if budget is None:
            rows.append((figure, None, None, None, measured, "NO BUDGET"))
            failed.append(figure)
            continue
        margin = margin_for(figure, margins)
        limit = budget * (1 + margin / 100)
        if measured > limit:
            verdict = "OVER"
            failed.append(figure)
        elif measured < budget * (1 - 2 * margin / 100):
            verdict = "under: lower the budget"
        else:
            verdict = "ok"
        rows.append((figure, budget, margin, limit, measured, verdict))
    for figure in sorted(set(budgets) - set(figures)):
        rows.append((figure, budgets[figure], None, None, None, "not measured"))
    return rows, failed


def number(value):
    """Counts of hundreds and more as whole numbers, small ones to 0.01."""
    return f"{value:.0f}" if value >= 100 else f"{value:.2f}"


def budget_text(figure, value):
    """A budget rounded up: to 0.01 for access counts, else whole."""
    if ".mmio_" in figure:
        return f"{math.ceil(value * 100 - 1e-9) / 100:.2f}"
    return str(math.ceil(value))


def print_table(rows):
    header = ("figure", "budget", "margin", "limit", "measured", "vs budget", "")
    table = [header]
    for figure, budget, margin, limit, measured, verdict in rows:
        delta = ""
        if budget and measured is not None:
            delta = f"{(measured - budget) / budget * 100:+.1f}%"
        table.append((figure, "-" if budget is None else str(budget),
                      "-" if margin is None else f"{margin:g}%",
                      "-" if limit is None else number(limit),
                      "-" if measured is None else number(measured), delta, verdict))
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for r in table:
        print("  ".join(c.ljust(w) if i in (0, 6) else c.rjust(w)
                        for i, (c, w) in enumerate(zip(r, widths))).rstrip())


def write_budgets(path, lines, figures):
    """Rewrites the figures' lines (rounded up), keeps comments and margins."""
    seen = set()
    out = []
    for line in lines:
        words = line.split("#", 1)[0].split()
        if len(words) == 2 and words[0] in figures:
            out.append(f"{words[0]} {budget_text(words[0], figures[words[0]])}")
            seen.add(words[0])
        else:
            out.append(line)
    for figure in sorted(set(figures) - seen):
        out.append(f"{figure} {budget_text(figure, figures[figure])}")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def size_report(args, budgets, nm):
    for name, path in args.image:
        sections = elf_sections(path)
        print(f"== {name}: {path}")
        for section in sorted(sections, key=lambda s: -sections[s]):
            figure = f"size.{name}.{section[1:]}"
            budget = budgets.get(figure)
            diff = "" if budget is None else f"  budget {budget}  {sections[section] - budget:+d}"
            print(f"  {section:<14} {sections[section]:>9}{diff}")
        if nm:
            print(f"  largest symbols (bytes, llvm-nm kind, name):")
            for size, kind, symbol in largest_symbols(nm, path, args.symbols):
                print(f"  {size:>9} {kind} {symbol[:110]}")


def pick(paths, suffix, what):
    chosen = [p for p in paths if p.endswith(suffix)]
    if len(chosen) != 1:
        raise BudgetError(f"{what}: want one *{suffix} among {paths}")
    return chosen[0]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("check", "update", "sizes"))
    parser.add_argument("--budgets", required=True)
    parser.add_argument("--files", action="append", nargs="+", default=[],
                        metavar=("NAME", "PATH"),
                        help="an image target's files: its .elf is sized, its .run.sh boots it")
    parser.add_argument("--generator", nargs="+", default=[], help="loadgen and linux_echo")
    parser.add_argument("--bench", help="bench/echo/bench.sh")
    parser.add_argument("--tls", nargs="+", default=[],
                        help="//bench/tls's image files: its .run.sh boots the TLS cost run")
    parser.add_argument("--nm", help="llvm-nm, for the size report's symbols")
    parser.add_argument("--symbols", type=int, default=12)
    args = parser.parse_args(argv)
    try:
        args.image = [(group[0], pick(group[1:], ".elf", group[0])) for group in args.files]
        launchers = {group[0]: [p for p in group[1:] if p.endswith(".run.sh")] for group in args.files}
        args.echo_launcher = (launchers.get("echo.qemu") or [None])[0]
        args.reflector_launcher = (launchers.get("reflector.qemu") or [None])[0]
        args.tls_launcher = pick(args.tls, ".run.sh", "--tls") if args.tls else None
        if args.generator:
            args.loadgen = pick(args.generator, "/loadgen", "--generator")
            args.linux_echo = pick(args.generator, "/linux_echo", "--generator")
        else:
            args.loadgen = args.linux_echo = None
    except BudgetError as e:
        print(f"cost: FAIL: {e}")
        return 2
    budget_path = args.budgets
    if args.mode == "update" and os.environ.get("BUILD_WORKSPACE_DIRECTORY"):
        # `bazel run`: the checked-in file, not the runfiles copy.
        budget_path = os.path.join(os.environ["BUILD_WORKSPACE_DIRECTORY"], "bench/cost/budgets.txt")
    try:
        budgets, margins, lines = read_budgets(budget_path)
        if args.mode == "sizes":
            size_report(args, budgets, args.nm)
            return 0
        missing = [t for t in ("bench", "loadgen", "echo_launcher", "reflector_launcher")
                   if not getattr(args, t)]
        if missing:
            raise BudgetError("the instruction runs need " + ", ".join(missing) +
                              " (--bench, --generator, --files echo.qemu/reflector.qemu)")
        figures = section_figures(args.image)
        figures.update(measure_instructions(args))
        if args.tls_launcher:
            figures.update(measure_tls(args.tls_launcher))
        if args.mode == "update":
            write_budgets(budget_path, lines, figures)
            print(f"cost: wrote {len(figures)} budgets to {budget_path}; review with git diff")
            return 0
        rows, failed = compare(figures, budgets, margins)
        print_table(rows)
        if failed:
            print(f"\nFAIL: {len(failed)} figure(s) over budget or without one: {', '.join(failed)}")
            print("If the cost is intended (say why in the commit), update the budgets with:")
            print(f"  {UPDATE_COMMAND}")
            print("and commit bench/cost/budgets.txt with the change; the size report: "
                  "bazel run //bench/cost:size_report")
            return 1
        print("\nok   every figure within its budget's margin")
        return 0
    except BudgetError as e:
        print(f"cost: FAIL: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
