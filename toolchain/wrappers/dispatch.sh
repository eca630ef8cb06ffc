#!/bin/bash
# Runs the pinned LLVM tool named like this link (clang, ld.lld, llvm-ar, ...)
# from @starling_llvm. Bazel runs toolchain tools from the execroot, where the
# pinned packages are at external/starling_llvm.
#
# The one thing it adds: __EXEC_ROOT__ in an argument becomes the working
# directory, so -ffile-prefix-map (toolchain/flags.bzl, REPRODUCIBLE) can strip
# it from debug info and __FILE__; Bazel offers no variable for it.
set -euo pipefail
tool=$(basename "$0")
llvm=external/starling_llvm/usr/lib/llvm-19/bin
if [[ ! -x "$llvm/$tool" ]]; then
  echo "starling: $llvm/$tool not found in $PWD: the pinned toolchain repository is missing or incomplete." >&2
  echo "Fix: bazel sync --only=starling_llvm (after sudo ./setup.sh)." >&2
  exit 1
fi
exec "$llvm/$tool" "${@//__EXEC_ROOT__/$PWD}"
