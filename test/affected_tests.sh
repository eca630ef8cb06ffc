#!/bin/bash
# The inner loop: run only the tests a change touches.
#
#   test/affected_tests.sh [--base REV] [--print] [BAZEL_TEST_FLAGS...]
#
# The change: files that differ from REV (default: HEAD, so the uncommitted
# changes; `--base origin/main` for a branch's), plus untracked files. Each
# file becomes its label (//pkg:path, pkg being the nearest folder with a
# BUILD.bazel); a changed BUILD.bazel stands for its whole package, and a
# changed .bzl, .bazelrc, WORKSPACE or toolchain file for the whole tree. The
# tests are then `tests(rdeps(//..., those labels))` less the manual ones:
# every test whose build reads a changed file. `bazel test` runs them, with
# any flags given. --print prints the query instead of running anything.
#
# The tests that read the whole checkout through a nested Bazel or git
# (toolchain tests, lint, the cost gate's failure test) depend on every file
# only through //:workspace_digest, which no query sees: run them, or
# `bazel test //...`, before a change lands.
set -euo pipefail
cd "$(dirname "$0")/.."
base=HEAD print=0
while (($#)); do
  case $1 in
    --base) base=$2; shift ;;
    --print) print=1 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) break ;;
  esac
  shift
done

files=$( { git diff --name-only "$base" -- && git ls-files --others --exclude-standard; } | sort -u)
if [[ -z $files ]]; then
  echo "affected_tests.sh: no change against $base: nothing to test" >&2
  exit 0
fi

# The nearest folder at or above DIR holding a BUILD.bazel ("" for the root).
package_of() {
  local d=$1
  while [[ $d != . && ! -f $d/BUILD.bazel ]]; do d=$(dirname "$d"); done
  [[ $d == . ]] && d=""
  echo "$d"
}

labels=()
everything=0
while IFS= read -r f; do
  case $f in
    *.bzl | .bazelrc | WORKSPACE | toolchain/*) everything=1 ;;
  esac
  pkg=$(package_of "$(dirname "$f")")
  if [[ $(basename "$f") == BUILD.bazel || ! -e $f ]]; then
    labels+=("//$pkg:all")          # a package's rules, or a deleted file's package
  else
    labels+=("//$pkg:${f#"${pkg:+$pkg/}"}")
  fi
done <<<"$files"

if ((everything)); then
  universe="//..."
else
  universe="rdeps(//..., set(${labels[*]}))"
fi
query="let t = tests($universe) in \$t except attr(tags, 'manual', \$t)"
if ((print)); then
  echo "$query"
  exit 0
fi
mapfile -t tests < <(bazel query --keep_going --noshow_progress "$query" 2>/dev/null)
if ((${#tests[@]} == 0)); then
  echo "affected_tests.sh: no test reads the changed files" >&2
  exit 0
fi
echo "affected_tests.sh: ${#tests[@]} tests read the changed files" >&2
exec bazel test "$@" "${tests[@]}"
