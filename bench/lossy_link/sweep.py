#!/usr/bin/env python3
"""TCP echo through a bad link (test/impaired_link.py), Starling against
Linux in the same run: goodput and the longest time without progress at
0, 1, 2 and 8% loss, with duplication, reordering (a frame held 15 ms) and
corruption scaled with it (issue 47's two settings are the 2% and 8% rows).

    bench/lossy_link/sweep.py --qemu LAUNCHER --host BINARY [--out DIR]
        [--phases "1x2048 4x512"] [--seeds "1 2 3"]

Root (each point runs in a fresh network namespace). Each point is run
once per seed and the table gives the median goodput and the longest gap
of any run: at the lossy points one run differs from the next by a factor
of two or more (where a loss falls, whether it hits a SYN: a lost SYN costs
any stack a second). Prints a Markdown table and writes DIR/goodput.dat
and, with gnuplot, DIR/goodput.png (median goodput against loss, one line
per stack). Numbers, not verdicts: the bounded check is
//test/net:tcp_impaired_qemu_test and its host twin.
"""
import statistics
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "..", "test", "net", "tcp_impaired.py")

# loss -> (duplicate, reorder, corrupt)
SETTINGS = {0.0: (0.0, 0.0, 0.0), 0.01: (0.005, 0.025, 0.0025), 0.02: (0.01, 0.05, 0.005),
            0.08: (0.03, 0.15, 0.02)}


def point(stack_args, loss, phases, seeds):
    """{phase: (median KiB/s, longest gap of any run)}, every byte exact."""
    runs = [one_run(stack_args, loss, phases, seed) for seed in seeds]
    results = {}
    for phase in phases.split():
        got = [r[phase] for r, _ in runs if phase in r]
        if len(got) == len(runs):
            results[phase] = (statistics.median(g[0] for g in got), max(g[1] for g in got))
    return results, all(exact for _, exact in runs)


def one_run(stack_args, loss, phases, seed):
    dup, reorder, corrupt = SETTINGS[loss]
    out = subprocess.run([sys.executable, TOOL, *stack_args, "--loss", str(loss), "--duplicate",
                          str(dup), "--reorder", str(reorder), "--corrupt", str(corrupt),
                          "--phases", phases, "--seed", str(seed), "--deadline", "180",
                          "--max-gap", "60"], capture_output=True, text=True, timeout=600).stdout
    results = {}
    for m in re.finditer(r"^(\d+x\d+): ([\d.]+) KiB/s together, longest gap ([\d.]+) s$", out, re.M):
        results[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    exact = "FAIL" not in out
    return results, exact


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--qemu", required=True)
    parser.add_argument("--host", required=True)
    parser.add_argument("--out", default=os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR", "."))
    parser.add_argument("--phases", default="1x2048 4x512")
    parser.add_argument("--seeds", default="1 2 3")
    args = parser.parse_args()
    stacks = [("Starling (QEMU)", ["--qemu", os.path.abspath(args.qemu)]),
              ("Starling (host board)", ["--app", os.path.abspath(args.host)]),
              ("Linux", ["--linux"])]
    phases = args.phases.split()
    table = {}
    for name, stack_args in stacks:
        for loss in SETTINGS:
            table[(name, loss)] = point(stack_args, loss, args.phases,
                                        [int(x) for x in args.seeds.split()])
            print(f"{name} at {loss:.0%}: {table[(name, loss)]}", file=sys.stderr)
    print("| stack | loss (dup / reorder / corrupt) | " +
          " | ".join(f"{p} KiB/s (median), longest gap" for p in phases) + " | every byte |")
    print("|---|---|" + "---|" * len(phases) + "---|")
    for name, _ in stacks:
        for loss, (dup, reorder, corrupt) in SETTINGS.items():
            results, exact = table[(name, loss)]
            cells = [f"{results[p][0]:.0f}, {results[p][1]:.2f} s" if p in results else "-"
                     for p in phases]
            print(f"| {name} | {loss:.0%} ({dup:.1%} / {reorder:.1%} / {corrupt:.2%}) | " +
                  " | ".join(cells) + f" | {'yes' if exact else 'NO'} |")
    os.makedirs(args.out, exist_ok=True)
    dat = os.path.join(args.out, "goodput.dat")
    with open(dat, "w") as f:
        f.write("# loss% " + " ".join(n.replace(" ", "_") for n, _ in stacks) + "\n")
        for loss in SETTINGS:
            row = [table[(n, loss)][0].get(phases[0], (0.0, 0.0))[0] for n, _ in stacks]
            f.write(f"{loss * 100:g} " + " ".join(f"{v:.1f}" for v in row) + "\n")
    png = os.path.join(args.out, "goodput.png")
    plot = (f"set terminal png size 800,500; set output '{png}'; set logscale y; "
            f"set xlabel 'loss (%), with duplication, reordering and corruption scaled'; "
            f"set ylabel 'goodput, one {phases[0]} stream (KiB/s)'; set key top right; plot " +
            ", ".join(f"'{dat}' using 1:{i + 2} with linespoints title '{n}'"
                      for i, (n, _) in enumerate(stacks)))
    if subprocess.run(["gnuplot", "-e", plot]).returncode == 0:
        print(f"plot: {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
