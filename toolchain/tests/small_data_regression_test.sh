#!/bin/bash
# The seed's regression, caught at build time: in a scratch copy of the
# workspace whose toolchain/flags.bzl has lost the small-data pin (clang 19
# then uses its default, -msmall-data-limit=8), lwIP built for QEMU must be
# refused by the no-small-data check, and the refusal must name lwIP's memp
# pool symbols (what moved into .sdata/.sbss on the seed's Star64).
set -uo pipefail
source toolchain/tests/nested_bazel.sh
scratch="$TEST_TMPDIR/workspace"
scratch_copy "$scratch"
flags="$scratch/toolchain/flags.bzl"
if ! grep -q '^SMALL_DATA = \["-msmall-data-limit=0"\]$' "$flags"; then
  echo "FAIL: toolchain/flags.bzl no longer pins SMALL_DATA the way this test expects; update the test"
  exit 1
fi
sed -i 's/^SMALL_DATA = \["-msmall-data-limit=0"\]$/SMALL_DATA = []/' "$flags"
NESTED_WORKSPACE=$scratch
target=//toolchain/tests:lwip_qemu_virt_objects
if ! nested_bazel seed --reuse-repositories build "$target"; then
  echo "FAIL: building $target in the scratch workspace failed:"
  tail -30 "$TEST_TMPDIR/seed.log"
  exit 1
fi
out_root="$TEST_TMPDIR/seed/execroot/starling/bazel-out"
manifest=$(ls "$out_root"/k8-fastbuild/bin/toolchain/tests/lwip_qemu_virt_objects.objects 2>/dev/null)
[[ -s $manifest ]] || { echo "FAIL: no object manifest under $out_root"; exit 1; }
# Short paths: ../<repo>/... for lwIP's own (external) objects; they live in
# the board's configuration directory (bazel-out/<config>/bin/external/...).
objects=()
while IFS= read -r short; do
  rel=$short
  [[ $short == ../* ]] && rel="external/${short#../}"
  for f in "$out_root"/*/bin/"$rel"; do
    [[ -f $f ]] && objects+=("$f")
  done
done <"$manifest"
[[ ${#objects[@]} -ge 10 ]] || { echo "FAIL: found ${#objects[@]} of lwIP's objects in $out_root"; exit 1; }
readelf="$TEST_SRCDIR/starling_llvm/usr/lib/llvm-19/bin/llvm-readelf"
out=$(bash toolchain/tests/no_small_data_test.sh "$readelf" "${objects[@]}" 2>&1)
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
