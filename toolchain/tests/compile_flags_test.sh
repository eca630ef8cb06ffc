#!/bin/bash
# Every riscv64 compile and link action carries the pinned flags, in every
# compilation mode an image is built in, with each pinned compiler (and runs
# that compiler's wrapper). Reads the real action graph with `bazel aquery` (Bazel 4.2.3
# hides compile command lines from Starlark) in a nested Bazel.
set -uo pipefail
# One nested Bazel server for all its commands (packages loaded once).
export NESTED_BAZEL_SERVER=1
source toolchain/tests/nested_bazel.sh

# Everything built for a board: the dependencies of every image target.
query='mnemonic("CppCompile|CppLink", deps(kind("qemu_image|board_image", //apps/... + //test/...)))'
fail=0
# opt and dbg: an image built -c fastbuild is built -c opt
# (platform/transition.bzl), so a fastbuild aquery checked opt's actions a
# second time (two of six whole-graph analyses, 24 core-seconds).
for compiler in clang19 clang22; do
  for mode in opt dbg; do
    out="$TEST_TMPDIR/aquery-$compiler-$mode.json"
    if ! nested_bazel aquery --reuse-repositories aquery -c "$mode" \
        $([[ $compiler == clang22 ]] && echo --config=clang22) --output=jsonproto "$query"; then
      echo "FAIL: bazel aquery -c $mode ($compiler) failed:"
      cat "$TEST_TMPDIR/aquery.log"
      exit 1
    fi
    mv "$TEST_TMPDIR/aquery.out" "$out"
    python3 toolchain/tests/check_action_flags.py "$mode" "$out" "$compiler" || fail=1
  done
done
exit $fail
