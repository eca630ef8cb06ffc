#!/bin/bash
# The smoke test's CSV checks (bench.sh --check-smoke-csv) pass a good row
# and refuse each way a row can be wrong: a check that cannot fail would let
# the benchmark rot silently.
#   smoke_check_test.sh BENCH_SH
set -uo pipefail
bench="$1"
dir="${TEST_TMPDIR:-$(mktemp -d)}"
header="Requested_Throughput,Receive_Throughput,Send_Throughput,Packet_Size,Minimum_RTT,Average_RTT,Maximum_RTT,Stdev_RTT,Median_RTT,Bad_Packets,Idle_Cycles,Total_Cycles"
good="2000000,1999919,1999919,1472,134.076,214.592,1326.225,143.006,163.435,0,972331476,975508084"
fail=0

check() {
  local want="$1" name="$2" content="$3"
  printf '%s\n' "$content" >"$dir/$name.csv"
  local got=0
  bash "$bench" --check-smoke-csv "$dir/$name.csv" 2>"$dir/$name.err" || got=1
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
check refuse no_utilisation "$header
2000000,1999919,1999919,1472,134.076,214.592,1326.225,143.006,163.435,0,,"
check refuse bad_packets "$header
2000000,1999919,1999919,1472,134.076,214.592,1326.225,143.006,163.435,3,972331476,975508084"
check refuse wrong_header "${header/Median_RTT/Median}
$good"
check refuse not_numeric "$header
2000000,1999919,nan,1472,134.076,214.592,1326.225,143.006,163.435,0,972331476,975508084"
check refuse eleven_columns "$header
2000000,1999919,1472,134.076,214.592,1326.225,143.006,163.435,0,972331476,975508084"
check refuse no_row "$header"
check refuse nothing_received "$header
2000000,0,1999919,1472,0,0,0,0,0,0,972331476,975508084"
check refuse idle_above_total "$header
2000000,1999919,1999919,1472,134.076,214.592,1326.225,143.006,163.435,0,975508085,975508084"
exit $fail
