#!/usr/bin/env python3
"""suite_time.py on a small run made up here, in the formats Bazel 4.2.3
writes: a JSON trace profile (gzipped, and one cut short) and a build event
file. Every figure in its tables is checked against what the made-up run
holds."""

import gzip
import json
import os
import subprocess
import sys
import tempfile

import suite_time
from checks import check, failures

S = 1000000  # microseconds in a second


def event(cat, name, ts, dur=None, ph="X", tid=1, **args):
    e = {"cat": cat, "name": name, "ph": ph, "ts": ts, "pid": 1, "tid": tid}
    if dur is not None:
        e["dur"] = dur
    if args:
        e["args"] = args
    return e


def action(name, ts, dur, output, tid=1):
    return event("action processing", name, ts, dur, tid=tid, primaryOutput=output)


PROFILE = [
    event("build phase marker", "Launch Blaze", -2 * S, 2 * S),
    event("build phase marker", "Initialize command", 0, ph="i"),
    event("build phase marker", "Load and analyze dependencies", 1 * S, ph="i"),
    # Two repositories fetched side by side: 30 s of wall clock, 50 s summed.
    event("Starlark repository function call", "//external:starling_llvm", 2 * S, 30 * S),
    event("Starlark repository function call", "//external:googletest", 12 * S, 20 * S),
    # A repository rule's own command: not a repository.
    event("Starlark repository function call", "local: apt-get download", 3 * S, 5 * S),
    event("build phase marker", "Prepare for build", 41 * S, ph="i"),
    event("build phase marker", "Build artifacts", 42 * S, ph="i"),
    # riscv64 for QEMU (fastbuild, through the board transition).
    action("Compiling kernel/a.cc", 50 * S, 4 * S, "bazel-out/k8-fastbuild-ST-aaaa/bin/kernel/_objs/a/a.o"),
    action("Compiling platform/qemu_virt/board.cc", 50 * S, 2 * S,
           "bazel-out/k8-fastbuild-ST-aaaa/bin/platform/qemu_virt/_objs/board/board.o"),
    action("Linking apps/echo/echo", 60 * S, 3 * S, "bazel-out/k8-fastbuild-ST-aaaa/bin/apps/echo/echo"),
    # The Star64, -c opt, clang 22.
    action("Compiling kernel/a.cc", 70 * S, 6 * S, "bazel-out/k8-opt-c_clang22-ST-bbbb/bin/kernel/_objs/a/a.o"),
    action("Compiling platform/star64/board.cc", 70 * S, 1 * S,
           "bazel-out/k8-opt-c_clang22-ST-bbbb/bin/platform/star64/_objs/board/board.o"),
    # The kernel every board shares, in the board-neutral configuration.
    action("Compiling kernel/boot/start.cc", 75 * S, 2 * S,
           "bazel-out/k8-fastbuild-ST-dddd/bin/kernel/boot/_objs/start/start.o"),
    # The host: a test compiled, linked and run; an image packaged.
    action("Compiling kernel/a_test.cc", 80 * S, 5 * S, "bazel-out/k8-fastbuild/bin/kernel/_objs/a_test/a_test.o"),
    action("Testing //kernel:a_test", 90 * S, 7 * S, "bazel-out/k8-fastbuild/testlogs/kernel/a_test/test.log"),
    action("Writing file apps/echo/qemu.run.sh", 91 * S, S // 5, "bazel-out/k8-fastbuild/bin/apps/echo/qemu.run.sh"),
    # Fuzzers: a host configuration of their own.
    action("Compiling fuzz/x/x.cc", 95 * S, 3 * S, "bazel-out/k8-fastbuild-ST-cccc/bin/fuzz/x/_objs/x/x.o"),
    # An action that waited 27 s for a core on its thread, then ran for 3 s:
    # 3 s count, not 30.
    action("Compiling fuzz/y/y.cc", 100 * S, 30 * S, "bazel-out/k8-fastbuild-ST-cccc/bin/fuzz/y/_objs/y/y.o",
           tid=2),
    event("action resource lock", "Compiling fuzz/y/y.cc", 100 * S, 27 * S, tid=2),
    event("build phase marker", "Complete build", 140 * S, ph="i"),
    event("general information", "finish", 141 * S, 1 * S),
]


def bep_events():
    def configured(label, tags):
        return {"id": {"targetConfigured": {"label": label}}, "configured": {"targetKind": "sh_test rule", "tag": tags}}

    def result(label, ms, cached=False, attempt=1):
        r = {"status": "PASSED", "testAttemptDurationMillis": str(ms)}
        if cached:
            r["cachedLocally"] = True
        return {"id": {"testResult": {"label": label, "run": 1, "shard": 1, "attempt": attempt}}, "testResult": r}

    return [
        configured("//kernel:a_test", []),
        configured("//toolchain/tests:reproducible_test", ["exclusive", "local", "nested_bazel"]),
        configured("//test/net:slow_qemu_test", ["exclusive"]),
        configured("//lint:style_test", ["local"]),
        result("//kernel:a_test", 7000),
        result("//toolchain/tests:reproducible_test", 20000),
        # A flaky test's two attempts add up.
        result("//test/net:slow_qemu_test", 9000, attempt=1),
        result("//test/net:slow_qemu_test", 4000, attempt=2),
        result("//lint:style_test", 50, cached=True),
        {"id": {"buildFinished": {}}, "finished": {"overallSuccess": True}},
    ]


def write_inputs(tmp, cut_short=False):
    profile = os.path.join(tmp, "profile.json.gz")
    text = "{\"otherData\":{},\"traceEvents\":[\n" + ",\n".join(json.dumps(e) for e in PROFILE) + "\n]}"
    data = text.encode()
    if cut_short:
        data = gzip.compress(data)[:-40]  # no gzip trailer, the last events lost
        with open(profile, "wb") as f:
            f.write(data)
    else:
        with gzip.open(profile, "wt") as f:
            f.write(text)
    bep = os.path.join(tmp, "bep.json")
    with open(bep, "w") as f:
        for e in bep_events():
            f.write(json.dumps(e) + "\n")
    return profile, bep


def row(text, first):
    """The cells of the table row whose first cell is FIRST."""
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == first:
            return cells
    return None


def main():
    with tempfile.TemporaryDirectory() as tmp:
        profile, bep = write_inputs(tmp)
        out = subprocess.run([sys.executable, suite_time.__file__, "--profile", profile,
                              "--bep", bep, "--setup-seconds", "60"], capture_output=True, text=True)
        print(out.stdout)
        check("exits 0", out.returncode == 0)
        text = out.stdout
        check("setup.sh: 60", row(text, "setup.sh") == ["setup.sh", "60"])
        check("loading and analysis: 1 s to 41 s = 40", row(text, "loading and analysis")[1] == "40")
        check("repository rules: 30 s of wall clock (two overlapping fetches)",
              row(text, "... of which repository rules (wall, overlapping)")[1] == "30")
        check("each repository's own time, commands left out",
              row(text, "starling_llvm")[1] == "30.0" and row(text, "googletest")[1] == "20.0"
              and row(text, "local: apt-get download") is None)
        check("execution: 41 s to 140 s = 99", row(text, "execution: the build and the tests")[1] == "99")
        check("exclusive tests: 20 + 9 + 4 = 33",
              row(text, "... of which exclusive tests, one at a time (sum)")[1] == "33")
        check("nested Bazel tests: 20", row(text, "... of which tests running a nested Bazel (sum)")[1] == "20")
        check("Bazel in all: launch 2 + 142 = 144", row(text, "Bazel in all")[1] == "144")
        check("setup and Bazel: 204 s", row(text, "**setup.sh and Bazel**")[1].startswith("**204**"))
        qemu = row(text, "riscv64 qemu_virt, fastbuild [k8-fastbuild-ST-aaaa]")
        check("qemu_virt fastbuild: 2 compiles 6 s, 1 link 3 s, 3 actions 9 s",
              qemu == ["riscv64 qemu_virt, fastbuild [k8-fastbuild-ST-aaaa]", "2; 6", "1; 3", "", "", "3; 9"])
        star = row(text, "riscv64 star64, opt, c_clang22 [k8-opt-c_clang22-ST-bbbb]")
        check("star64 opt clang 22: 2 compiles 7 s", star is not None and star[1] == "2; 7" and star[5] == "2; 7")
        host = row(text, "host tests and tools, image packaging, fastbuild [k8-fastbuild]")
        check("host: a compile, a test, another action",
              host is not None and host[1] == "1; 5" and host[3] == "1; 7" and host[4] == "1; 0" and host[5] == "3; 12")
        neutral = row(text, "riscv64, no board package, fastbuild [k8-fastbuild-ST-dddd]")
        check("the board-neutral kernel: 1 compile 2 s", neutral is not None and neutral[5] == "1; 2")
        fuzz = row(text, "host fuzzers, fastbuild [k8-fastbuild-ST-cccc]")
        check("fuzzers: their own configuration; a compile counts its process, not its wait",
              fuzz is not None and fuzz[5] == "2; 6")
        check("all actions: 11 of them, 36 s", row(text, "**all**")[5] == "**11; 36**")
        lines = [l for l in text.splitlines() if l.startswith("| //")]
        check("tests slowest first, attempts added",
              [l.split("|")[1].strip() for l in lines] == [
                  "//toolchain/tests:reproducible_test", "//test/net:slow_qemu_test", "//kernel:a_test",
                  "//lint:style_test"] and row(text, "//test/net:slow_qemu_test")[1] == "13.0")
        check("notes: exclusive, nested Bazel, cached",
              row(text, "//toolchain/tests:reproducible_test")[3] == "exclusive, nested_bazel"
              and row(text, "//lint:style_test")[3] == "cached")
        check("the count of tests and of cached ones", "(seconds; 4 tests, 1 cached)" in text)

        top = subprocess.run([sys.executable, suite_time.__file__, "--profile", profile,
                              "--bep", bep, "--top", "2"], capture_output=True, text=True).stdout
        check("--top 2 shows two tests", len([l for l in top.splitlines() if l.startswith("| //")]) == 2)
        check("no setup row without --setup-seconds", row(top, "setup.sh") is None)

        # A run cut short (Bazel killed): the events written so far are read.
        short, _ = write_inputs(os.path.join(tmp), cut_short=True)
        events = suite_time.load_profile(short)
        check("a profile cut short still gives its first events (%d)" % len(events), len(events) >= 10)

        missing = subprocess.run([sys.executable, suite_time.__file__, "--profile",
                                  os.path.join(tmp, "none.json.gz")], capture_output=True, text=True)
        check("a missing profile: exit non-zero, the command that makes one",
              missing.returncode != 0 and "--config=timing" in missing.stderr)
    print("%d failed" % len(failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
