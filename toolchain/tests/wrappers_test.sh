#!/bin/bash
# Every tool wrapper of every pinned compiler is toolchain/wrappers/dispatch.sh
# itself (the directory name picks the compiler), and each compiler has the
# same tools.
#   wrappers_test.sh DISPATCH WRAPPER...
set -uo pipefail
dispatch=$1
shift
fail=0
declare -A tools
for w in "$@"; do
  if ! cmp -s "$dispatch" "$w"; then
    echo "FAIL: $w differs from $dispatch: copy it again (cp $dispatch $w)"
    fail=1
  fi
  [[ -x "$w" ]] || { echo "FAIL: $w is not executable"; fail=1; }
  compiler=$(basename "$(dirname "$w")")
  tools[$compiler]+="$(basename "$w") "
done
first=""
for c in "${!tools[@]}"; do
  sorted=$(tr ' ' '\n' <<<"${tools[$c]}" | sort | tr '\n' ' ')
  if [[ -z $first ]]; then
    first=$sorted
  elif [[ $sorted != "$first" ]]; then
    echo "FAIL: $c's wrappers ($sorted) are not the same tools as the others' ($first)"
    fail=1
  fi
done
[[ $# -ge 18 ]] || { echo "FAIL: expected the wrappers of two compilers, got $# files"; fail=1; }
[[ $fail -eq 0 ]] && echo "PASS: $# wrappers, all dispatch.sh, the same tools for ${!tools[*]}"
exit $fail
