"""Checks the riscv64 actions of a `bazel aquery --output=jsonproto` dump.

usage: check_action_flags.py MODE AQUERY_JSON [COMPILER]

COMPILER (clang19, the default, or clang22): every riscv64 compile and link
must run that compiler's wrapper (toolchain/wrappers/COMPILER/clang).

The expected flags are the issue's specification, written out here on
purpose rather than read from toolchain/flags.bzl: this test is what catches a
flag that falls out of (or is overridden in) the toolchain.
"""

import json
import sys

ARCH = [
    "--target=riscv64-unknown-elf",
    "-march=rv64imac_zicsr_zifencei_zba_zbb",
    "-mabi=lp64",
    "-mcmodel=medany",
]
COMPILE_ALL = ARCH + [
    "-msmall-data-limit=0",
    "-ffreestanding",
    "-fno-common",
    "-nostdinc",
    "-ffile-prefix-map=__EXEC_ROOT__=.",
]
# Project code only: third-party code (external/, e.g. lwIP) is exempt from
# -Werror, never from the flags above.
WARNINGS = ["-Wall", "-Wextra", "-Werror"]
COMPILE_CODE = [
    "-fno-exceptions",
    "-ffunction-sections",
    "-fdata-sections",
    "-fno-omit-frame-pointer",
    "-momit-leaf-frame-pointer",
    "-fstack-protector-strong",
    "-ftrivial-auto-var-init=zero",
]
COMPILE_CXX = ["-std=c++20", "-fno-rtti", "-fno-threadsafe-statics", "-nostdinc++"]
LINK = ARCH + ["-fuse-ld=lld", "-nostdlib", "-static", "-Wl,--gc-sections"]
MODE = {"fastbuild": [], "opt": ["-O2"], "dbg": ["-g"]}
# Options whose last occurrence wins: a later copt must not undo the pin.
LAST_WINS = [
    "-msmall-data-limit=",
    "-march=",
    "-mabi=",
    "-mcmodel=",
    "--target=",
    "-std=",
    "-ftrivial-auto-var-init=",
]


def source_of(args):
    for i, a in enumerate(args):
        if a == "-c" and i + 1 < len(args):
            return args[i + 1]
    return ""


def problems(action, mode, compiler):
    args = action["arguments"]
    if action["mnemonic"] == "CppLink":
        if not args[0].endswith("/clang"):
            return None  # an archive (llvm-ar), not a link
        want = LINK
    else:
        src = source_of(args)
        want = list(COMPILE_ALL) + MODE[mode]
        if not src.startswith("external/"):
            want += WARNINGS
        if not src.endswith((".S", ".s")):
            want += COMPILE_CODE
        if src.endswith((".cc", ".cpp", ".cxx")):
            want += COMPILE_CXX
    found = []
    if not args[0].endswith("wrappers/%s/clang" % compiler):
        found.append("runs %s, not %s's wrapper" % (args[0], compiler))
    for flag in want:
        if flag not in args:
            found.append("missing " + flag)
    for prefix in LAST_WINS:
        pinned = [f for f in want if f.startswith(prefix)]
        given = [a for a in args if a.startswith(prefix)]
        if pinned and given and given[-1] != pinned[0]:
            found.append("%s overridden by %s" % (pinned[0], given[-1]))
    for a in args:
        if a.startswith(("-I/usr", "-isystem/usr", "/usr/include", "--sysroot")):
            found.append("host path " + a)
    for i, a in enumerate(args[:-1]):
        if a in ("-isystem", "-I", "-iquote") and args[i + 1].startswith("/"):
            found.append("absolute include path %s %s" % (a, args[i + 1]))
    return found


def main():
    mode, path = sys.argv[1], sys.argv[2]
    compiler = sys.argv[3] if len(sys.argv) > 3 else "clang19"
    with open(path) as f:
        graph = json.load(f)
    configs = {c["id"]: c.get("mnemonic", "") for c in graph.get("configuration", [])}
    counts = {"CppCompile": 0, "CppLink": 0}
    bad = 0
    for action in graph.get("actions", []):
        config = configs.get(action.get("configurationId"), "")
        # Board images build their ELF in a configuration of their own (the
        # platform transition, "-ST-<hash>"); the rest are tools for the
        # build machine (host/exec configurations), not riscv64 code.
        if "-ST-" not in config:
            continue
        found = problems(action, mode, compiler)
        if found is None:
            continue
        counts[action["mnemonic"]] = counts.get(action["mnemonic"], 0) + 1
        for p in found:
            print("FAIL [%s %s] %s: %s" % (compiler, mode, action["mnemonic"], p))
            print("     " + " ".join(action["arguments"]))
            bad += 1
    print("[%s %s] checked %d compile and %d link actions" % (compiler, mode, counts["CppCompile"], counts["CppLink"]))
    if counts["CppCompile"] < 5 or counts["CppLink"] < 2:
        print("FAIL [%s] too few actions: the query found nothing to check" % mode)
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
