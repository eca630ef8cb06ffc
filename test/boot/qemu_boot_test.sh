#!/bin/bash
# Boots an image with its QEMU launcher and checks the console and exit code.
#   qemu_boot_test.sh LAUNCHER EXPECTED_EXIT_CODE EXPECTED_LINE...
# Every EXPECTED_LINE must appear (as a fixed string) in the console output.
set -uo pipefail
launcher=$1
want_code=$2
shift 2

log="${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-/tmp}}/console.log"
start=$(date +%s%N)
"$launcher" --timeout 60 </dev/null >"$log" 2>&1
code=$?
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "boot: exit code $code after ${elapsed_ms} ms (QEMU start to shutdown)"

fail=0
if [[ $code -eq 124 ]]; then
  echo "FAIL: QEMU did not shut down within 60 s"
  fail=1
elif [[ $code -ne $want_code ]]; then
  echo "FAIL: exit code $code, expected $want_code"
  fail=1
fi
for line in "$@"; do
  if ! grep -qF -- "$line" "$log"; then
    echo "FAIL: console output lacks: $line"
    fail=1
  fi
done
if [[ $fail -ne 0 ]]; then
  echo "--- console ---"
  cat "$log"
fi
exit $fail
