#!/bin/bash
# compile_commands.py on recorded aquery dumps.
set -euo pipefail
out="$TEST_TMPDIR/compile_commands.json"
python3 toolchain/editor/compile_commands.py /exec/root "$out" \
  toolchain/editor/testdata/aquery_riscv64.json toolchain/editor/testdata/aquery_host.json
python3 - "$out" <<'PY'
import json, sys
entries = {e["file"]: e for e in json.load(open(sys.argv[1]))}
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    return ok
ok = True
ok &= check(sorted(entries) == ["drivers/uart/ns16550.cc", "drivers/uart/ns16550_test.cc", "kernel/boot/entry.S"],
            "three sources, the link action skipped")
uart = entries["drivers/uart/ns16550.cc"]
ok &= check("--target=riscv64-unknown-elf" in uart["arguments"], "a source in both dumps keeps the riscv64 command")
ok &= check(uart["arguments"][0] == "/exec/root/external/starling_llvm/usr/lib/llvm-19/bin/clang",
            "the wrapper becomes the pinned clang")
ok &= check("-ffile-prefix-map=/exec/root=." in uart["arguments"], "__EXEC_ROOT__ expanded")
ok &= check(all(e["directory"] == "/exec/root" for e in entries.values()), "commands run from the execution root")
ok &= check("--target=x86_64-pc-linux-gnu" in entries["drivers/uart/ns16550_test.cc"]["arguments"],
            "host-only sources come from the host dump")
sys.exit(0 if ok else 1)
PY
