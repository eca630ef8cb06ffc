#!/bin/bash
# A riscv64 compile that includes a host header fails; a clean one succeeds;
# with each pinned compiler.
set -uo pipefail
source toolchain/tests/nested_bazel.sh
pkg=//toolchain/tests/host_header
for host_header in /usr/include/linux/types.h /usr/include/linux/const.h; do
  if [[ ! -f $host_header ]]; then
    echo "FAIL: $host_header is missing, so this test cannot show a host header being rejected."
    echo "Fix: sudo ./setup.sh (installs linux-libc-dev)."
    exit 1
  fi
done
fail=0

compiler=clang19
expect_build() {  # expect_build success|failure TARGET PATTERN WHY
  local want=$1 target=$2 pattern=$3 why=$4 log="$TEST_TMPDIR/headers.log"
  if nested_bazel headers --reuse-repositories build --config=qemu \
      $([[ $compiler == clang22 ]] && echo --config=clang22) "$target"; then
    got=success
  else
    got=failure
  fi
  if [[ $got != "$want" ]]; then
    echo "FAIL: $target ($compiler): build $got, expected $want ($why)"
    sed -n '/ERROR/,$p' "$log" | head -20
    fail=1
  elif [[ -n $pattern ]] && ! grep -qE "$pattern" "$log"; then
    echo "FAIL: $target ($compiler) failed, but not with /$pattern/ ($why):"
    sed -n '/ERROR/,$p' "$log" | head -20
    fail=1
  else
    echo "ok   $target ($compiler): $want${pattern:+ (/$pattern/)}: $why"
  fi
}

for compiler in clang19 clang22; do
  expect_build success "$pkg:clean" "" "toolchain headers only"
  expect_build failure "$pkg:by_name" "'linux/types.h' file not found" \
    "-nostdinc: the riscv64 compiler searches no host directory"
  expect_build failure "$pkg:by_path" "absolute path inclusion|undeclared inclusion" \
    "the compiler opens /usr/include/linux/const.h by path, Bazel rejects the inclusion"
  expect_build failure "$pkg:by_flag" "references a path outside of the execution root" \
    "-isystem /usr/include in copts is refused"
done
exit $fail
