#!/bin/sh
# Refuses any clang but the pinned one.
#   check_clang_version.sh CLANG EXPECTED_VERSION
# CLANG is run with --version; its first line must name EXPECTED_VERSION
# exactly ("clang version 19.1.7 ..."). Used when @starling_llvm is fetched and
# by //toolchain/tests:clang_version_check_test.
set -u
clang=$1
expected=$2
if ! out=$("$clang" --version 2>&1); then
  echo "starling: cannot run $clang --version:" >&2
  echo "$out" >&2
  echo "Fix: if a shared library is missing, run sudo ./setup.sh (it installs the libraries the" >&2
  echo "pinned clang loads); otherwise bazel clean --expunge and let Bazel fetch the pins again." >&2
  exit 1
fi
first=$(printf '%s\n' "$out" | head -n 1)
found=$(printf '%s\n' "$first" | sed -n 's/.*clang version \([0-9][0-9.]*\).*/\1/p')
if [ "$found" != "$expected" ]; then
  echo "starling: wrong clang: expected clang $expected, found ${found:-an unknown version}" >&2
  echo "  $clang --version said: $first" >&2
  echo "Starling pins clang $expected (toolchain/pins.bzl): another clang changes code generation" >&2
  echo "(clang 19 and 20+ differ in -msmall-data-limit, for one). To move on deliberately," >&2
  echo "update CLANG_VERSION and every package version and sha256 in toolchain/pins.bzl." >&2
  exit 1
fi
exit 0
