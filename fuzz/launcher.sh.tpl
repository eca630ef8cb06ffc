#!/bin/bash
# A Starling fuzzer (fuzz/fuzzer.bzl). Under `bazel test` (TEST_TMPDIR set): a
# bounded, deterministic run on a copy of the seeds. Under `bazel run`: fuzzing
# until stopped (or -max_total_time=N, -runs=N) into a work corpus outside the
# source tree, $STARLING_FUZZ_DIR (default /tmp/starling-fuzz/NAME), seeded
# from the checked-in corpus; crash files go to its artifacts/ folder. Given a
# file name, libFuzzer runs just that input (reproducing a crash).
set -euo pipefail
binary=%BINARY%
seeds=%SEEDS%
options=(%OPTIONS%)

if [[ -n "${TEST_TMPDIR:-}" ]]; then
  work="$TEST_TMPDIR/corpus"
  mkdir -p "$work"
  cp -L "$seeds"/* "$work"/
  artifacts="${TEST_UNDECLARED_OUTPUTS_DIR:-$TEST_TMPDIR}/"
  exec "$binary" -runs=%RUNS% -seed=1 -print_final_stats=1 \
    -artifact_prefix="$artifacts" "${options[@]}" "$@" "$work"
fi

base="${STARLING_FUZZ_DIR:-${TMPDIR:-/tmp}/starling-fuzz/%NAME%}"
mkdir -p "$base/corpus" "$base/artifacts"
inputs=("$base/corpus" "$seeds")
for arg in "$@"; do
  # A file or directory named by the user replaces the corpora.
  if [[ "$arg" != -* ]]; then inputs=(); fi
done
echo "fuzzer: work corpus $base/corpus, seeds $seeds, crashes in $base/artifacts" >&2
exec "$binary" -artifact_prefix="$base/artifacts/" -print_final_stats=1 \
  "${options[@]}" "$@" "${inputs[@]}"
