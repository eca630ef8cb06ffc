#!/bin/bash
# The smoke test's checks (bench.sh --check-smoke-csv, httpbench.py
# check-smoke) pass a good leg and refuse each way a leg can be wrong: a check
# that cannot fail would let the benchmark rot silently. And the page every
# leg serves is the 612 bytes it is meant to be.
#   smoke_check_test.sh BENCH_SH HTTPBENCH_PY PAGE
set -uo pipefail
bench="$1" tool="$2" page="$3"
dir="${TEST_TMPDIR:-$(mktemp -d)}"
header="leg,connections,seconds,requests,requests_per_s,latency_p50_us,latency_p90_us,latency_p99_us,errors,threads,latency_mean_us,latency_p75_us,latency_p999_us,latency_max_us,non_2xx,socket_errors,bytes"
good="qemu,4,2,5321,2660.3,1420,2210,4710,0,1,1502.3,1800,9010,12020,0,0,4692000"
cost_good="closed_loop busy_instructions_per_request=14321.5"
fail=0

# check pass|refuse NAME CSV_CONTENT [COST_CONTENT]
check() {
  local want="$1" name="$2" content="$3" cost="${4-$cost_good}"
  printf '%s\n' "$content" >"$dir/$name.csv"
  printf '%s\n' "$cost" >"$dir/$name.cost"
  local got=0
  bash "$bench" --tool "$tool" --check-smoke-csv "$dir/$name.csv" --cost "$dir/$name.cost" \
    2>"$dir/$name.err" >/dev/null || got=1
  if [[ "$want" == pass && $got -ne 0 ]]; then
    echo "FAIL: $name refused: $(cat "$dir/$name.err")"
    fail=1
  elif [[ "$want" == refuse && $got -eq 0 ]]; then
    echo "FAIL: $name accepted"
    fail=1
  else
    echo "ok: $name"
  fi
}

check pass good "$header
$good"
check refuse errors "$header
qemu,4,2,5321,2660.3,1420,2210,4710,3,1,1502.3,1800,9010,12020,3,0,4692000"
check refuse no_requests "$header
qemu,4,2,0,0.0,0,0,0,0,1,0.0,0,0,0,0,0,0"
check refuse not_numeric "$header
qemu,4,2,5321,nan,1420,2210,4710,0,1,1502.3,1800,9010,12020,0,0,4692000"
check refuse empty_field "$header
qemu,4,2,5321,2660.3,,2210,4710,0,1,1502.3,1800,9010,12020,0,0,4692000"
check refuse short_row "$header
qemu,4,2,5321,2660.3,1420,2210,4710,0,1,1502.3,1800,9010,12020,0,0"
check refuse wrong_header "${header/latency_p99_us/p99}
$good"
check refuse no_row "$header"
check refuse two_rows "$header
$good
$good"
check refuse percentiles_out_of_order "$header
qemu,4,2,5321,2660.3,4710,2210,1420,0,1,1502.3,1800,9010,12020,0,0,4692000"
check refuse no_cost_figure "$header
$good" "closed_loop instret_per_request=1234.0"

bytes=$(stat -L -c %s "$page")
if [[ "$bytes" -ne 612 ]]; then
  echo "FAIL: $page is $bytes bytes, not 612 (the size of nginx's default index.html)"
  fail=1
else
  echo "ok: the page is 612 bytes"
fi
exit $fail
