#!/bin/bash
# The seed's regression, caught at build time: lwIP built for QEMU by clang
# 19 without the small-data pin (the seed's toolchain: the small_data_limit
# feature, toolchain/flags.bzl's SMALL_DATA, off, so clang 19 uses its default
# -msmall-data-limit=8) must be refused by the no-small-data check, and the
# refusal must name lwIP's memp pool symbols (what moved into .sdata/.sbss on
# the seed's Star64).
#   small_data_regression_test.sh DETECTOR LLVM_READELF FILES...
# FILES: //toolchain/tests:lwip_seed_objects (the objects, their manifest,
# the link command lines).
#
# (It used to build the same objects in a nested Bazel, in a scratch copy of
# the workspace whose flags.bzl had lost the pin; the seed's toolchain is
# that configuration, built once by the outer build.)
set -uo pipefail
detector=$1
readelf=$2
shift 2
objects=()
for f in "$@"; do
  [[ $f == *.o ]] && objects+=("$f")
done
[[ ${#objects[@]} -ge 10 ]] || { echo "FAIL: found ${#objects[@]} of lwIP's objects among the arguments"; exit 1; }
if ! grep -q 'memp\.o$' <<<"$(printf '%s\n' "${objects[@]}")"; then
  echo "FAIL: lwIP's memp.o is not among the objects checked"
  exit 1
fi
out=$(bash "$detector" "$readelf" "${objects[@]}" 2>&1)
status=$?
echo "$out" | grep -E 'FAIL|checked' | head -20
if [[ $status -eq 0 ]]; then
  echo "FAIL: the no-small-data check passed lwIP built without the pin"
  exit 1
fi
if ! grep -E 'memp\.o.*symbols in them:.*memp' <<<"$out" >/dev/null; then
  echo "FAIL: the check failed, but its report does not name memp's symbols"
  exit 1
fi
echo "PASS: without -msmall-data-limit=0 the check refuses lwIP and names memp's symbols"
