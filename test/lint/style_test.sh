#!/bin/bash
# Style as code: every C/C++ file the project tracks is formatted as
# .clang-format says (pinned clang-format 19), and every Starlark file
# (BUILD, .bzl, WORKSPACE) passes buildifier's format check and lint (pinned
# buildifier 8.2.1). New compiler warnings cannot land either: both
# toolchains build project code with -Wall -Wextra -Werror.
#   style_test.sh CLANG_FORMAT BUILDIFIER
# Fix what it reports with:
#   bazel run //test/lint:format      (rewrites the files in place)
set -uo pipefail
clang_format=$(readlink -f "$1")
buildifier=$(readlink -f "$2")
workspace=$(dirname "$(readlink -f "$TEST_SRCDIR/starling/WORKSPACE")")
cd "$workspace" || exit 1
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "FAIL: $workspace is not a git checkout: the style test lists files with git ls-files"
  exit 1
fi
fail=0

mapfile -t listed < <(git ls-files -- '*.c' '*.cc' '*.h')
cxx=()
for f in "${listed[@]}"; do
  [[ -f $f ]] && cxx+=("$f")
done
# One clang-format for every file (one per file spent 50 s loading libLLVM
# 380 times): each unformatted file is named in its "FILE:LINE:COL: error:"
# reports.
bad=()
status=0
report=$("$clang_format" --style=file --dry-run -Werror "${cxx[@]}" 2>&1 >/dev/null) || status=$?
mapfile -t bad < <(grep -oE '^[^:]+:[0-9]+:[0-9]+: error' <<<"$report" | cut -d: -f1 | sort -u)
if [[ $status -ne 0 && ${#bad[@]} -eq 0 ]]; then
  echo "FAIL: clang-format failed (exit $status) without naming a file:"
  head -20 <<<"$report"
  fail=1
fi
echo "clang-format: ${#cxx[@]} files checked, ${#bad[@]} not formatted"
if [[ ${#bad[@]} -gt 0 ]]; then
  printf '  %s\n' "${bad[@]}"
  "$clang_format" --style=file --dry-run "${bad[0]}" 2>&1 | head -20
  fail=1
fi

mapfile -t starlark < <(git ls-files -- 'WORKSPACE' '*BUILD.bazel' '*.bzl' 'toolchain/repositories/BUILD.*')
# Off: warnings that ask for rules_shell/rules_cc loads of native rules,
# which Bazel 4.2.3 (Debian's) predates.
warnings=-native-cc-binary,-native-cc-common,-native-cc-library,-native-cc-test,-native-sh-binary,-native-sh-test
if ! "$buildifier" -mode=check -lint=warn -warnings="$warnings" "${starlark[@]}"; then
  echo "buildifier: the files above need formatting or fixing"
  fail=1
else
  echo "buildifier: ${#starlark[@]} Starlark files checked, all clean"
fi
exit $fail
