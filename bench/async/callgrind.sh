#!/bin/bash
# Instructions per coroutine operation on the host board, counted by
# callgrind: each workload runs with n operations and with none, and the
# difference is divided by n (start-up and tear-down cancel out).
#   bazel run -c opt --config=nosan //bench/async:callgrind [-- <n>]
set -euo pipefail

bench="$1"
n="${2:-1000000}"

if ! command -v valgrind >/dev/null; then
  echo "valgrind is not installed (apt-get install valgrind)" >&2
  exit 1
fi
if [[ "$("$bench" --check)" != "sanitizers: off" ]]; then
  echo "the benchmark was built with sanitizers; run it with --config=nosan:" >&2
  echo "  bazel run -c opt --config=nosan //bench/async:callgrind" >&2
  exit 1
fi

instructions() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bench" "$1" "$2" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

per_op() {
  local mode="$1" with without
  with="$(instructions "$mode" "$n")"
  without="$(instructions "$mode" 0)"
  awk -v a="$with" -v b="$without" -v n="$n" 'BEGIN { printf "%.1f", (a - b) / n }'
}

echo "n = $n"
echo "instructions per round trip: $(per_op yield)   (co_await yield(): suspend, ready queue, resume)"
echo "instructions per task call: $(per_op call)   (co_await child(): frame alloc, 2 transfers, free)"
echo "instructions per task spawn: $(per_op spawn)   (spawn + run + owner bookkeeping + free)"
