"""Turns `bazel aquery --output=jsonproto` dumps into compile_commands.json.

usage: compile_commands.py EXECUTION_ROOT OUT.json AQUERY.json [AQUERY.json ...]

Earlier dumps win for a source compiled in several configurations: pass the
riscv64 (board) dump first, so kernel code is indexed as the kernel sees it,
then the host dump for the host-only sources (tests, the host board).
Commands keep Bazel's relative paths and run from the execution root, where
external/ and bazel-out/ resolve; the toolchain wrapper is replaced by the
pinned clang it runs, and __EXEC_ROOT__ by the execution root (as the wrapper
does at build time).
"""

import json
import os
import re
import sys

# toolchain/wrappers/<compiler>/clang -> the pinned clang it runs
# (toolchain/wrappers/dispatch.sh's table).
WRAPPER = re.compile(r"^toolchain/wrappers/(clang\d+)/clang$")
CLANG = {
    "clang19": "external/starling_llvm/usr/lib/llvm-19/bin/clang",
    "clang22": "external/starling_llvm22/usr/lib/llvm-22/bin/clang",
}
SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".S", ".s")


def source_of(arguments):
    for i, arg in enumerate(arguments[:-1]):
        if arg == "-c":
            return arguments[i + 1]
    return None


def entries(dump, execution_root):
    for action in dump.get("actions", []):
        if action.get("mnemonic") != "CppCompile":
            continue
        arguments = list(action["arguments"])
        source = source_of(arguments)
        if source is None or not source.endswith(SOURCE_SUFFIXES):
            continue
        wrapper = WRAPPER.match(arguments[0])
        if wrapper and wrapper.group(1) in CLANG:
            arguments[0] = os.path.join(execution_root, CLANG[wrapper.group(1)])
        arguments = [a.replace("__EXEC_ROOT__", execution_root) for a in arguments]
        yield {"directory": execution_root, "file": source, "arguments": arguments}


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    execution_root, out_path, dumps = argv[1], argv[2], argv[3:]
    seen = set()
    result = []
    for path in dumps:
        with open(path) as f:
            dump = json.load(f)
        for entry in entries(dump, execution_root):
            if entry["file"] in seen:
                continue
            seen.add(entry["file"])
            result.append(entry)
    result.sort(key=lambda e: e["file"])
    with open(out_path, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print("compile_commands.json: %d sources" % len(result))
    return 0 if result else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
