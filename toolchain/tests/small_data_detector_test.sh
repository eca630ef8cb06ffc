#!/bin/bash
# no_small_data_test.sh must fail on objects that have small data.
#   small_data_detector_test.sh DETECTOR LLVM_READELF FILES...
set -uo pipefail
detector=$1
shift
out=$(bash "$detector" "$@" 2>&1)
code=$?
echo "$out"
if [[ $code -eq 0 ]]; then
  echo "FAIL: the detector accepted objects built with -msmall-data-limit=8"
  exit 1
fi
if ! grep -qE 'small-data sections: .*\.s(bss|data)' <<<"$out"; then
  echo "FAIL: the detector failed without naming a small-data section"
  exit 1
fi
echo "PASS: the detector reports clang 19's default small-data placement"
