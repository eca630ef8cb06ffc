#!/bin/bash
# Runs the pinned LLVM tool named like this file (clang, ld.lld, llvm-ar, ...)
# from the compiler named by its directory: wrappers/clang19/ runs
# @starling_llvm's clang 19, wrappers/clang22/ @starling_llvm22's clang 22
# (toolchain/pins.bzl, COMPILERS). Bazel runs toolchain tools from the
# execroot, where the pinned packages are at external/<repository>. Every
# wrappers/<compiler>/<tool> is a copy of this file (//toolchain/tests:
# wrappers_test keeps them so).
#
# The one thing it adds: __EXEC_ROOT__ in an argument becomes the working
# directory, so -ffile-prefix-map (toolchain/flags.bzl, reproducible) can
# strip it from debug info and __FILE__; Bazel offers no variable for it.
set -euo pipefail
tool=$(basename "$0")
compiler=$(basename "$(dirname "$0")")
case "$compiler" in
  clang19) repo=starling_llvm major=19 ;;
  clang22) repo=starling_llvm22 major=22 ;;
  *)
    echo "starling: $0: no pinned compiler named '$compiler' (toolchain/wrappers/<compiler>/<tool>)." >&2
    exit 1
    ;;
esac
llvm=external/$repo/usr/lib/llvm-$major/bin
if [[ ! -x "$llvm/$tool" ]]; then
  echo "starling: $llvm/$tool not found in $PWD: the pinned toolchain repository is missing or incomplete." >&2
  echo "Fix: bazel sync --only=$repo (after sudo ./setup.sh)." >&2
  exit 1
fi
exec "$llvm/$tool" "${@//__EXEC_ROOT__/$PWD}"
