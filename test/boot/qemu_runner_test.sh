#!/bin/bash
# The QEMU runner refuses what it cannot run, with a message naming the fix:
# a QEMU other than 7.2.x, a missing QEMU, a bad flag, a missing kernel.
#   qemu_runner_test.sh RUNNER
# None of these cases boots anything, so the kernel is an empty stand-in.
set -uo pipefail
runner=$1
tmp=${TEST_TMPDIR:-$(mktemp -d)}
kernel="$tmp/kernel.elf"
: >"$kernel"
fail=0
expect() {  # expect CODE PATTERN -- COMMAND...
  local want=$1 pattern=$2
  shift 3
  local out code
  out=$("$@" </dev/null 2>&1)
  code=$?
  if [[ $code -ne $want ]] || ! grep -qF -- "$pattern" <<<"$out"; then
    echo "FAIL: '$*' exited $code (want $want), said:"
    echo "$out" | head -5
    fail=1
  else
    echo "ok   exit $code: $(grep -F -- "$pattern" <<<"$out" | head -1)"
  fi
}

printf '#!/bin/sh\necho "QEMU emulator version 8.2.2 (Debian 1:8.2.2+ds-0ubuntu1)"\n' >"$tmp/qemu-8"
chmod +x "$tmp/qemu-8"
expect 1 "Starling expects QEMU 7.2.x" -- env STARLING_QEMU="$tmp/qemu-8" "$runner" --kernel "$kernel"
expect 127 "sudo ./setup.sh" -- env STARLING_QEMU=/nonexistent/qemu "$runner" --kernel "$kernel"
expect 2 "unknown argument '--bogus'" -- "$runner" --bogus
expect 2 "--kernel is required" -- "$runner"
expect 2 "not found" -- "$runner" --kernel "$tmp/no-such-kernel.elf"
expect 2 "whole seconds" -- "$runner" --kernel "$kernel" --timeout soon
exit $fail
