#!/bin/bash
# Every ```cpp block in docs/ equals the built file (or region) its marker
# names (doc_snippets.py). Then, on a scratch copy, a block edited by one
# character and a block without a marker must each fail, named.
set -uo pipefail
checker=$(readlink -f "$1")
workspace=$(dirname "$(readlink -f "$TEST_SRCDIR/starling/WORKSPACE")")
fail=0
python3 "$checker" --root "$workspace" || fail=1

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/docs" "$scratch/src"
printf 'int f() {\n  return 1;\n}\n' >"$scratch/src/f.cc"
printf '<!-- snippet: src/f.cc -->\n```cpp\nint f() {\n  return 2;\n}\n```\n' >"$scratch/docs/a.md"
printf 'text\n\n```cpp\nint g();\n```\n' >"$scratch/docs/b.md"
out=$(python3 "$checker" --root "$scratch")
if [[ $? -eq 0 ]] || ! grep -q "docs/a.md:2: the block differs from src/f.cc" <<<"$out" ||
  ! grep -q "docs/b.md:3: a \`\`\`cpp block without" <<<"$out"; then
  echo "FAIL: the checker let a drifted or an unmarked snippet through:"
  echo "$out"
  fail=1
fi
python3 "$checker" --root "$scratch" --write >/dev/null
if ! grep -q "return 1;" "$scratch/docs/a.md"; then
  echo "FAIL: --write did not copy the source into the doc"
  fail=1
fi
[[ $fail -eq 0 ]] && echo "PASS"
exit $fail
