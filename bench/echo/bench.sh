#!/bin/bash
# The echo benchmark's driver (bench/echo/BUILD.bazel runs it; docs/benchmarks.md).
#
#   bench.sh --loadgen P --linux-echo P --echo-launcher P --reflector-launcher P
#            [--legs echo,tcp,reflector,linux[,echo6][,tcp6][,host][,stream]
#                    [,echo_small][,host_small][,linux_small]]
#            [--rates LIST]
#            [--samples N] [--out DIR] [--host-echo P] [--iperf-launcher P]
#            [--smoke | --cost FILE | --profile DIR]
#   bench.sh --check-smoke-csv FILE   (only the smoke test's CSV checks)
#   (--legs host needs --host-echo: //apps/echo:host, the host board;
#    --legs stream needs --iperf-launcher: //apps/iperf:qemu)
#
# Each leg is one function (leg_echo, leg_tcp, leg_reflector, leg_linux,
# leg_host, leg_stream): tcp is apps/echo's TCP echo (1460-byte records on
# port 1236); echo6 and tcp6 are the same two over IPv6 (to the guest's
# link-local address; 1452-byte datagrams and 1440-byte records, so frames
# stay 1514 bytes), with echo6/echo and tcp6/tcp in the summary; stream is
# iperf2 into apps/iperf against Linux's own iperf server over a veth, in
# the same run. echo_small, host_small and linux_small are echo, host and
# linux with 32-byte datagrams (74-byte frames, 78 on the wire with the FCS:
# the smallest loadgen sends, next to Ethernet's 64-byte minimum), where a
# packet's fixed cost decides the rate; the summary gives every leg's
# saturation in packets a second too, and echo_small/linux_small and
# host_small/linux_small.
# it makes its own network namespace(s), starts its peer, measures
# boot-to-first-echo where there is a boot, sweeps the rates with loadgen
# from inside the namespace and leaves DIR/<leg>.csv, <leg>.stats,
# <leg>.console.log and <leg>.png. The summary (DIR/summary.txt) has the
# ratios echo/reflector (and host/linux when both ran).
# --smoke: the echo leg only, one low rate for about a second; checks the CSV
# (header exact, 12 numeric columns, utilisation included, zero bad packets)
# and exits non-zero otherwise. Speed is never checked.
# --cost FILE: the cost gate's figures (bench/cost): echo (UDP and TCP, and
# 32-byte UDP datagrams) and the reflector booted under -icount, each run
# at one fixed low rate for a fixed packet count; busy guest instructions
# per packet written to FILE as key=value lines. Any bad packet fails the
# run.
# The cost runs also count the guest's MMIO reads and writes per packet
# (QEMU's memory_region_ops_read/write trace events, switched on through the
# QEMU monitor for each run only): <leg>.mmio_reads_per_packet and
# <leg>.mmio_writes_per_packet in FILE, the trace in the output directory.
# --profile DIR: the same runs with fewer packets under -singlestep, QEMU
# logging every instruction's PC and symbol (-d exec,nochain) beside the
# MMIO trace, into DIR/<leg>.trace.log for bench/cost/cost_profile.py.
# STARLING_BENCH_COST_RATE (default 20M,200M): the rates of each QEMU leg's
# -icount cost runs, e.g. 1G,2G for instructions per packet at saturation.
# Needs root (ip netns, TAP). Namespaces are named sbe<pid>..., deleted on
# exit whatever happens; every QEMU has a --timeout, every loadgen a bound.
set -euo pipefail

note() { echo "bench: $*" >&2; }

# The smoke test's checks: header exact, one row, 12 numeric columns, no bad packets.
check_smoke_csv() {
  local csv="$1" header
  header="Requested_Throughput,Receive_Throughput,Send_Throughput,Packet_Size,Minimum_RTT,Average_RTT,Maximum_RTT,Stdev_RTT,Median_RTT,Bad_Packets,Idle_Cycles,Total_Cycles"
  [[ "$(head -1 "$csv")" == "$header" ]] || { note "FAIL: CSV header differs: $(head -1 "$csv")"; return 1; }
  [[ $(wc -l <"$csv") -eq 2 ]] || { note "FAIL: expected one row, got $(($(wc -l <"$csv") - 1))"; return 1; }
  awk -F, 'NR == 2 {
      if (NF != 12) { print "bench: FAIL: " NF " columns, not 12"; exit 1 }
      for (i = 1; i <= 12; i++) if ($i !~ /^[0-9]+(\.[0-9]+)?$/) { print "bench: FAIL: column " i " is not a number: \"" $i "\""; exit 1 }
      if ($10 != 0) { print "bench: FAIL: " $10 " bad packets"; exit 1 }
      if ($2 <= 0 || $12 <= 0 || $11 > $12) { print "bench: FAIL: no throughput or bad utilisation: " $0; exit 1 }
    }' "$csv" >&2
}

usage() {
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

loadgen="" linux_echo="" echo_launcher="" reflector_launcher="" host_echo="" iperf_launcher=""
legs="echo,tcp,reflector,linux,echo6,tcp6"
rates="10M,100M,200M,400M,600M,800M,1G,1.5G,2G,3G,4G"
samples=5000
warmup=500
cooldown=500
smoke=0
cost_file=""
profile_dir=""
out="${BENCH_OUT:-/tmp/starling-bench-echo}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --loadgen) loadgen=${2:?--loadgen needs a path}; shift 2 ;;
    --linux-echo) linux_echo=${2:?--linux-echo needs a path}; shift 2 ;;
    --echo-launcher) echo_launcher=${2:?--echo-launcher needs a path}; shift 2 ;;
    --reflector-launcher) reflector_launcher=${2:?--reflector-launcher needs a path}; shift 2 ;;
    --host-echo) host_echo=${2:?--host-echo needs a path}; shift 2 ;;
    --iperf-launcher) iperf_launcher=${2:?--iperf-launcher needs a path}; shift 2 ;;
    --legs) legs=${2:?--legs needs a list}; shift 2 ;;
    --rates) rates=${2:?--rates needs a list such as 10M,100M}; shift 2 ;;
    --samples) samples=${2:?--samples needs a number}; shift 2 ;;
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    --smoke) smoke=1; shift ;;
    --cost) cost_file=${2:?--cost needs a file}; shift 2 ;;
    --profile) profile_dir=${2:?--profile needs a directory}; shift 2 ;;
    --check-smoke-csv) check_smoke_csv "${2:?--check-smoke-csv needs a file}"; exit ;;
    -h|--help) usage ;;
    *) echo "bench.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
for need in loadgen linux_echo echo_launcher reflector_launcher; do
  [[ -n "${!need}" ]] || { echo "bench.sh: --${need//_/-} is required" >&2; usage; }
done
[[ "$samples" =~ ^[0-9]+$ && "$samples" -gt 0 ]] || { echo "bench.sh: --samples takes a positive number, got '$samples'" >&2; exit 2; }
if [[ $(id -u) -ne 0 ]]; then
  echo "bench.sh: needs root (ip netns, TAP devices)" >&2
  exit 1
fi
# Under `bazel run` we start in our runfiles tree; the image launchers find
# theirs through RUNFILES_DIR (a test has TEST_SRCDIR).
if [[ -z "${TEST_SRCDIR:-}" && -z "${RUNFILES_DIR:-}" && -d ../starling ]]; then
  RUNFILES_DIR="$(cd .. && pwd)"
  export RUNFILES_DIR
fi
abspath() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
loadgen=$(abspath "$loadgen")
linux_echo=$(abspath "$linux_echo")
echo_launcher=$(abspath "$echo_launcher")
reflector_launcher=$(abspath "$reflector_launcher")
[[ -z "$cost_file" ]] || cost_file=$(abspath "$cost_file")
[[ -z "$iperf_launcher" ]] || iperf_launcher=$(abspath "$iperf_launcher")

if [[ $smoke -eq 1 ]]; then
  out="${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-/tmp}}/bench-smoke"
  legs="echo"
  rates="2M"      # 170 packets/s: 170 recorded samples take a second
  samples=170
  warmup=20
  cooldown=20
fi
if [[ -n "$profile_dir" ]]; then
  [[ $smoke -eq 0 && -z "$cost_file" ]] || { echo "bench.sh: --profile goes with neither --smoke nor --cost" >&2; exit 2; }
  mkdir -p "$profile_dir"
  out=$(cd "$profile_dir" && pwd)
  cost_file="$out/figures.txt"
fi
if [[ -n "$cost_file" ]]; then
  [[ $smoke -eq 0 ]] || { echo "bench.sh: --smoke and --cost do not go together" >&2; exit 2; }
  [[ -n "$profile_dir" ]] || out="${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-/tmp}}/bench-cost"
  legs="cost"
fi
mkdir -p "$out"

guest_ip=10.0.2.15
tap_ip=10.0.2.2
guest_mac=52:54:00:12:34:56  # QEMU's default for the first NIC
# IPv6: the guest's link-local address is its MAC's EUI-64 (docs/ipv6.md).
guest_ip6=fe80::5054:ff:fe12:3456
tap_ip6=fe80::2
prefix="sbe$$"
namespaces=()
pids=()
cleanup() {
  local pid ns
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  for ns in "${namespaces[@]}"; do
    ip netns del "$ns" 2>/dev/null || true
  done
  [[ -z "${monitor_dir:-}" ]] || rm -rf "$monitor_dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A namespace with a TAP device for QEMU's NIC; we are 10.0.2.2 on it.
make_tap_ns() {
  local ns="$1"
  ip netns add "$ns"
  namespaces+=("$ns")
  ip -n "$ns" link set lo up
  ip -n "$ns" tuntap add dev tap0 mode tap
  ip -n "$ns" addr add "$tap_ip/24" dev tap0
  ip -n "$ns" link set tap0 up
  # No ARP round (and no 1 s ARP retry) in boot-to-first-echo; the
  # reflector answers no ARP at all.
  ip -n "$ns" neigh replace "$guest_ip" lladdr "$guest_mac" dev tap0 nud permanent
  # IPv6 (the cost gate's udp_echo6/tcp_echo6): a link-local address at
  # once (no DAD wait), and the guest's known, as its IPv4 one is.
  ip -n "$ns" -6 addr add "$tap_ip6/64" dev tap0 nodad
  ip -n "$ns" -6 neigh replace "$guest_ip6" lladdr "$guest_mac" dev tap0 nud permanent
}

# Boots LAUNCHER (an image's :qemu) with its NIC on NS's tap0, extra QEMU
# arguments after the fifth; sets booted_at (CLOCK_REALTIME ns just before
# QEMU starts) and guest_pid.
boot_qemu() {
  local ns="$1" launcher="$2" netdev_var="$3" log="$4" seconds="$5"
  shift 5
  booted_at=$(date +%s%N)
  ip netns exec "$ns" env "$netdev_var=tap,id=n0,ifname=tap0,script=no,downscript=no" \
    "$launcher" --timeout "$seconds" -- "$@" </dev/null >"$log" 2>&1 &
  guest_pid=$!
  pids+=("$guest_pid")
}

stop_pid() {
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

loadgen_in() {
  local ns="$1"
  shift
  ip netns exec "$ns" "$loadgen" "$@"
}

sweep_args() {
  echo --rates "$rates" --samples "$samples" --warmup "$warmup" --cooldown "$cooldown" \
    --max-seconds 60 --drain-ms 300
}

image_bytes() {
  local image
  image="$(dirname "$1")/$(basename "$1" .run.sh).Image"
  [[ -f "$image" ]] && stat -L -c %s "$image" || echo ""
}

# QEMU 7.2 answers the cycle and instret CSRs with the host's TSC unless
# -icount is on; with -icount shift=0 instret counts guest instructions
# exactly (1 ns of virtual time per instruction). So the cost of a packet
# comes from a second boot under -icount at one moderate rate; the sweep's
# own stats deltas are host ticks and are renamed to say so.
readonly icount_args=(-icount shift=0)
cost_rate=${STARLING_BENCH_COST_RATE:-20M,200M}
cost_samples=3000
host_cost_rate=10M  # callgrind runs the host board ~50 times slower

# Boots, waits for the first echo (sets first_echo), records it.
boot_and_probe() {
  local leg="$1" ns="$2" launcher="$3" netdev_var="$4" log="$5"
  shift 5
  local qemu_extra=() seconds=$((smoke ? 90 : 600))
  while [[ $# -gt 0 && "$1" != "--" ]]; do qemu_extra+=("$1"); shift; done
  shift  # the "--" before loadgen's arguments
  boot_qemu "$ns" "$launcher" "$netdev_var" "$log" "$seconds" "${qemu_extra[@]}"
  if ! first_echo=$(loadgen_in "$ns" --target "$leg_target" "$@" --probe-first-echo \
      --since-realtime-ns "$booted_at" --probe-timeout 60); then
    note "$leg: no echo from the guest; console:"
    tail -20 "$log" >&2
    return 1
  fi
}

# One leg against a QEMU image: boot, first echo, sweep; boot under -icount,
# the cost of a packet. Loadgen arguments for the leg follow the variable.
# The boot probe is UDP (or raw): a leg measured over TCP names its own.
# leg_target: the address the leg measures (an IPv6 leg sets its own).
leg_probe=()
leg_target=$guest_ip
qemu_leg() {
  local leg="$1" launcher="$2" netdev_var="$3"
  shift 3
  local ns="${prefix}${leg:0:1}${leg//[^6]/}" status=0 probe=("$@")
  [[ ${#leg_probe[@]} -eq 0 ]] || probe=("${leg_probe[@]}")
  make_tap_ns "$ns"
  rm -f "$out/$leg.stats" "$out/$leg.cost.stats"
  if [[ $smoke -eq 1 ]]; then
    # One boot, under -icount, so the figure the smoke checks is instructions.
    boot_and_probe "$leg" "$ns" "$launcher" "$netdev_var" "$out/$leg.console.log" \
      "${icount_args[@]}" -- "${probe[@]}" || return 1
    # shellcheck disable=SC2046
    loadgen_in "$ns" --target "$leg_target" "$@" $(sweep_args) --stats \
      --stats-file "$out/$leg.stats" >"$out/$leg.csv" || status=$?
    stop_pid "$guest_pid"
    return $status
  fi
  boot_and_probe "$leg" "$ns" "$launcher" "$netdev_var" "$out/$leg.console.log" -- "${probe[@]}" || return 1
  note "$leg: ${first_echo} (QEMU start to the first UDP echo, wall)"
  echo "$leg ${first_echo}" >>"$out/figures.txt"
  echo "$leg image_bytes=$(image_bytes "$launcher")" >>"$out/figures.txt"
  # shellcheck disable=SC2046
  loadgen_in "$ns" --target "$leg_target" "$@" $(sweep_args) --stats --stats-file "$out/$leg.stats" \
    >"$out/$leg.csv" || status=$?
  stop_pid "$guest_pid"
  [[ ! -f "$out/$leg.stats" ]] ||
    sed -i 's/ instret_delta=[0-9]*//; s/ instret_per_packet=[0-9.]*//; s/ cycles_per_packet=/ host_ticks_per_packet=/; s/ busy_instructions_per_packet=/ busy_host_ticks_per_packet=/' \
      "$out/$leg.stats"

  boot_and_probe "$leg" "$ns" "$launcher" "$netdev_var" "$out/$leg.icount.console.log" \
    "${icount_args[@]}" -- "${probe[@]}" || return 1
  echo "$leg icount_${first_echo}" >>"$out/figures.txt"
  loadgen_in "$ns" --target "$leg_target" "$@" --rates "$cost_rate" --samples "$cost_samples" \
    --warmup 200 --cooldown 200 --max-seconds 60 --drain-ms 300 --stats \
    --stats-file "$out/$leg.cost.stats" >"$out/$leg.icount.csv" || status=$?
  stop_pid "$guest_pid"
  ip netns del "$ns"
  return $status
}

leg_echo() {
  qemu_leg echo "$echo_launcher" STARLING_ECHO_NETDEV --require-util
}

# Small packets: 32-byte datagrams. The boot probe stays 1472 bytes.
leg_echo_small() {
  qemu_leg echo_small "$echo_launcher" STARLING_ECHO_NETDEV --size 32 --require-util
}

# The TCP echo: one connection, 1460-byte records (one segment each), port 1236.
leg_tcp() {
  local leg_probe=(--util-port 0)  # the echo's UDP port answers the boot probe
  qemu_leg tcp "$echo_launcher" STARLING_ECHO_NETDEV --transport tcp --port 1236 --require-util
}

# Over IPv6: the same app and ports, to the guest's link-local address.
leg_echo6() {
  local leg_target="$guest_ip6%tap0"
  qemu_leg echo6 "$echo_launcher" STARLING_ECHO_NETDEV --size 1452 --require-util
}

leg_tcp6() {
  local leg_target="$guest_ip6%tap0" leg_probe=(--size 1452 --util-port 0)
  qemu_leg tcp6 "$echo_launcher" STARLING_ECHO_NETDEV --transport tcp --port 1236 --size 1440 \
    --require-util
}

leg_reflector() {
  qemu_leg reflector "$reflector_launcher" STARLING_REFLECTOR_NETDEV \
    --transport raw --iface tap0 --dst-mac "$guest_mac" --src-ip "$tap_ip" --util-port 0
}

# Linux's own UDP echo: server and generator in two namespaces over a veth
# pair. LEG names the files and, by its last letter, the namespaces and
# veths (linux and linux_small each have their own); loadgen arguments for
# the sweep follow.
linux_leg() {
  local leg="$1"
  shift
  local tag="${leg: -1}"
  local g="${prefix}lg$tag" s="${prefix}ls$tag"
  ip netns add "$g"
  namespaces+=("$g")
  ip netns add "$s"
  namespaces+=("$s")
  ip link add "${prefix}a$tag" netns "$g" type veth peer name "${prefix}b$tag" netns "$s"
  ip -n "$g" addr add 10.0.3.1/24 dev "${prefix}a$tag"
  ip -n "$s" addr add 10.0.3.2/24 dev "${prefix}b$tag"
  ip -n "$g" link set "${prefix}a$tag" up
  ip -n "$s" link set "${prefix}b$tag" up
  ip -n "$g" link set lo up
  ip -n "$s" link set lo up
  ip netns exec "$s" "$linux_echo" --port 1235 --max-seconds 900 2>"$out/$leg.console.log" &
  local server=$!
  pids+=("$server")
  loadgen_in "$g" --target 10.0.3.2 --probe-first-echo --since-realtime-ns "$(date +%s%N)" \
    --probe-timeout 10 >/dev/null
  local status=0
  # shellcheck disable=SC2046
  loadgen_in "$g" --target 10.0.3.2 --util-port 0 "$@" $(sweep_args) >"$out/$leg.csv" || status=$?
  stop_pid "$server"
  return $status
}
leg_linux() { linux_leg linux; }
leg_linux_small() { linux_leg linux_small --size 32; }

# The host board: apps/echo as a Linux process over the DWMAC driver and its
# model on a TAP (//apps/echo:host, --host-echo). Same generator, same
# namespace layout as the QEMU legs. Then the cost of a packet: the same
# binary under callgrind, dumped (callgrind_control -d) right before and
# after a run at one moderate rate; the second dump's total over the echoed
# packets (the guest's udp_echoed delta) is instructions per packet, idle
# loop included (the host board idles in ppoll, in the kernel).
host_leg() {
  local leg="$1"
  shift
  if [[ -z "$host_echo" ]]; then
    note "$leg: no --host-echo binary (//apps/echo:host); leg skipped"
    return 0
  fi
  local ns="${prefix}h${leg: -1}" status=0 start
  make_tap_ns "$ns"
  local board_args=(--tap=tap0 --mac="$guest_mac" --ip="$guest_ip/24,gw=$tap_ip")
  start=$(date +%s%N)
  ip netns exec "$ns" timeout 900 "$host_echo" "${board_args[@]}" \
    </dev/null >"$out/$leg.console.log" 2>&1 &
  local server=$!
  pids+=("$server")
  local first
  if ! first=$(loadgen_in "$ns" --target "$guest_ip" --probe-first-echo \
      --since-realtime-ns "$start" --probe-timeout 30); then
    note "$leg: no echo from the host board; console:"
    tail -20 "$out/$leg.console.log" >&2
    return 1
  fi
  echo "$leg ${first}" >>"$out/figures.txt"
  echo "$leg binary_bytes=$(stat -L -c %s "$host_echo")" >>"$out/figures.txt"
  # shellcheck disable=SC2046
  loadgen_in "$ns" --target "$guest_ip" --require-util "$@" $(sweep_args) \
    --stats --stats-file "$out/$leg.stats" >"$out/$leg.csv" || status=$?
  stop_pid "$server"

  if ! command -v valgrind >/dev/null || ! command -v callgrind_control >/dev/null; then
    note "$leg: valgrind not installed: no instructions per packet"
    return $status
  fi
  rm -f "$out/$leg".callgrind.*
  # Not under `timeout`: callgrind_control needs valgrind's own pid ($!, as
  # ip netns exec execs); cleanup() kills it whatever happens.
  ip netns exec "$ns" valgrind --tool=callgrind --callgrind-out-file="$out/$leg.callgrind" \
    "$host_echo" "${board_args[@]}" </dev/null >"$out/$leg.callgrind.log" 2>&1 &
  server=$!
  pids+=("$server")
  if ! loadgen_in "$ns" --target "$guest_ip" --probe-first-echo --since-realtime-ns "$(date +%s%N)" \
      --probe-timeout 60 >/dev/null; then
    note "$leg: no echo under callgrind (a sanitizer build? use --config=bench)"
    stop_pid "$server"
    return 1
  fi
  callgrind_control -d "$server" >/dev/null 2>&1
  loadgen_in "$ns" --target "$guest_ip" "$@" --rates "$host_cost_rate" --samples "$cost_samples" \
    --warmup 200 --cooldown 200 --max-seconds 60 --drain-ms 500 --stats \
    --stats-file "$out/$leg.cost.stats" >"$out/$leg.callgrind.csv" || status=$?
  callgrind_control -d "$server" >/dev/null 2>&1
  stop_pid "$server"
  local packets instructions
  # Each dump is $leg.callgrind.N; the last holds the run.
  local n=1 last=""
  while [[ -f "$out/$leg.callgrind.$n" ]]; do
    last="$out/$leg.callgrind.$n"
    n=$((n + 1))
  done
  instructions=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p; s/^totals: *\([0-9]*\).*/\1/p' "$last" | head -1)
  packets=$(sed -n 's/.*packets=\([0-9]*\) (udp_echoed).*/\1/p' "$out/$leg.cost.stats" | tail -1)
  if [[ -n "$instructions" && -n "$packets" && "$packets" -gt 0 ]]; then
    awk -v l="$leg" -v i="$instructions" -v p="$packets" \
      'BEGIN { printf "%s callgrind_instructions_per_packet=%.1f (%d instructions, %d packets)\n", l, i / p, i, p }' \
      >>"$out/figures.txt"
  else
    note "$leg: no callgrind figure (dump '$last', packets '${packets:-}')"
  fi
  ip netns del "$ns"
  return $status
}
leg_host() { host_leg host; }
leg_host_small() { host_leg host_small --size 32; }

# A TCP stream: Debian's iperf2 client for stream_seconds into apps/iperf
# (lwiperf) over the TAP, then into Linux's own `iperf -s` over a veth pair
# in two namespaces, same client, same run: stream.txt has both Mb/s and
# the ratio. Then apps/iperf again under -icount: two sessions (a warm-up,
# then the measured one); the counters on their console lines give busy
# guest instructions per received segment.
stream_seconds=5
iperf_mbps() { sed -n 's/.* \([0-9.]*\) Mbits\/sec.*/\1/p' "$1" | tail -1; }
wait_console() {
  local log="$1" pattern="$2" tries=600
  until grep -q "$pattern" "$log" 2>/dev/null; do
    tries=$((tries - 1))
    [[ $tries -gt 0 ]] || return 1
    sleep 0.1
  done
}
leg_stream() {
  if [[ -z "$iperf_launcher" ]]; then
    note "stream: no --iperf-launcher (//apps/iperf:qemu); leg skipped"
    return 0
  fi
  command -v iperf >/dev/null || { note "stream: iperf (iperf2) not installed: run setup.sh"; return 1; }
  local ns="${prefix}i" status=0 guest linux
  make_tap_ns "$ns"
  boot_qemu "$ns" "$iperf_launcher" STARLING_IPERF_NETDEV "$out/stream.console.log" 600
  wait_console "$out/stream.console.log" "iperf: ready" || { note "stream: apps/iperf never ready"; tail -20 "$out/stream.console.log" >&2; return 1; }
  ip netns exec "$ns" timeout 60 iperf -c "$guest_ip" -t "$stream_seconds" -f m >"$out/stream.starling.txt" 2>&1 || status=1
  stop_pid "$guest_pid"

  local g="${prefix}sg" s="${prefix}ss"
  ip netns add "$g"; namespaces+=("$g")
  ip netns add "$s"; namespaces+=("$s")
  ip link add "${prefix}c" netns "$g" type veth peer name "${prefix}d" netns "$s"
  ip -n "$g" addr add 10.0.4.1/24 dev "${prefix}c"
  ip -n "$s" addr add 10.0.4.2/24 dev "${prefix}d"
  ip -n "$g" link set "${prefix}c" up
  ip -n "$s" link set "${prefix}d" up
  ip netns exec "$s" timeout 120 iperf -s >/dev/null 2>&1 &
  local server=$!
  pids+=("$server")
  sleep 0.5
  ip netns exec "$g" timeout 60 iperf -c 10.0.4.2 -t "$stream_seconds" -f m >"$out/stream.linux.txt" 2>&1 || status=1
  stop_pid "$server"
  guest=$(iperf_mbps "$out/stream.starling.txt")
  linux=$(iperf_mbps "$out/stream.linux.txt")
  awk -v g="${guest:-0}" -v l="${linux:-0}" 'BEGIN {
      printf "stream starling_mbps=%s linux_mbps=%s ratio_starling/linux=%.3f\n", g, l, (l > 0 ? g / l : 0) }' \
    >>"$out/figures.txt"

  boot_qemu "$ns" "$iperf_launcher" STARLING_IPERF_NETDEV "$out/stream.icount.console.log" 600 "${icount_args[@]}"
  wait_console "$out/stream.icount.console.log" "iperf: ready" || { note "stream: apps/iperf never ready under -icount"; return 1; }
  ip netns exec "$ns" timeout 60 iperf -c "$guest_ip" -t 1 -f m >/dev/null 2>&1 || status=1
  ip netns exec "$ns" timeout 60 iperf -c "$guest_ip" -t "$stream_seconds" -f m >"$out/stream.icount.txt" 2>&1 || status=1
  wait_console "$out/stream.icount.console.log" "iperf: session.*iperf: session" || sleep 1
  stop_pid "$guest_pid"
  # The last two session lines: instret, idle_cycles, rx_frames since boot.
  grep -a "iperf: session" "$out/stream.icount.console.log" | tail -2 | awk '
    { for (i = 1; i < NF; i++) v[NR, $i] = $(i + 1) }
    END {
      if (NR < 2) { print "stream: fewer than two sessions under -icount" > "/dev/stderr"; exit 1 }
      busy = (v[2, "instret"] - v[1, "instret"]) - (v[2, "idle_cycles"] - v[1, "idle_cycles"])
      frames = v[2, "rx_frames"] - v[1, "rx_frames"]
      printf "stream busy_instructions_per_received_segment=%.1f (%d frames, icount Mb/s in the guest %.1f)\n",
        (frames > 0 ? busy / frames : 0), frames, v[2, "kbit/s"] / 1000
    }' >>"$out/figures.txt" || status=1
  ip netns del "$ns"
  return $status
}

# The cost gate's runs (--cost): a fixed rate and packet count each, so the
# figure is the per-packet path's cost, not a batch's: at 10 Mb/s (849
# packets/s), closed loop (each packet sent once the one before came back),
# every packet is its own wake-up however the host schedules the generator.
# Paced alone, a loaded host's late wake-ups sent packets in pairs: the
# figures moved by -20% (the reflector) to +14% (TCP echo). Instructions,
# never time.
gate_rate=10M
gate_samples=1000
gate_warmup=100
gate_cooldown=100
if [[ -n "$profile_dir" ]]; then
  # Every instruction logged: a run of 240 packets is ~1.5 M lines. QEMU
  # logging each instruction runs ~50 times slower: at 10 Mb/s the next
  # frame arrived before the guest went idle (the reflector then took no
  # interrupt at all), so the profile paces packets 12 ms apart.
  gate_rate=1M
  gate_samples=200
  gate_warmup=20
  gate_cooldown=20
fi

# The QEMU monitor of the guest booted for the cost runs (a UNIX socket in
# $out): the MMIO trace, and under --profile the instruction log, are on
# only while a run's packets flow, each run into its own $out/<run>.trace.log.
# A UNIX socket's path must fit 108 bytes, which a test's output directory
# does not: the sockets live in a short private directory of their own.
# (made by leg_cost: monitor_args runs in a command substitution's subshell).
monitor_dir=""
monitor_args() {
  echo -D "$out/$1.qemu.log" -monitor "unix:$monitor_dir/$1,server,nowait"
  [[ -z "$profile_dir" ]] || echo -singlestep -d nochain
}
monitor_socket=""
monitor() {
  printf '%s\n' "$@" | socat -t 1 - "UNIX-CONNECT:$monitor_socket" >/dev/null
}
trace_window() {
  local name="$1" state="$2" exec_log=""
  [[ -z "$profile_dir" ]] || exec_log=",exec"
  if [[ "$state" == on ]]; then
    monitor "logfile $out/$name.trace.log" "log nochain$exec_log" \
      "trace-event memory_region_ops_read on" "trace-event memory_region_ops_write on"
  else
    monitor "trace-event memory_region_ops_read off" "trace-event memory_region_ops_write off" \
      "log nochain" "logfile $out/between.log"
  fi
}

# Under --profile the guest is slow enough that the boot probe's extra
# packets are still queued when it answers the first: they must be echoed
# before the first run's window opens, or they are counted in it.
settle() {
  [[ -z "$profile_dir" ]] || sleep 3
}

gate_run() {
  local name="$1" ns="$2"
  shift 2
  local stats="$out/$name.stats" csv="$out/$name.csv" figure="" bad packets reads writes
  # The profile asks the guest for no stats: formatting the stats line
  # costs more than a hundred packets do, and it would sit in the window.
  local stats_args=(--stats --stats-file "$stats")
  [[ -z "$profile_dir" ]] || stats_args=()
  rm -f "$stats" "$out/$name.trace.log"
  trace_window "$name" on
  if ! loadgen_in "$ns" --target "$guest_ip" "$@" --rates "$gate_rate" --samples "$gate_samples" \
      --closed-loop --warmup "$gate_warmup" --cooldown "$gate_cooldown" --max-seconds 120 \
      --drain-ms 300 "${stats_args[@]}" >"$csv"; then
    note "cost: $name: loadgen failed"
    return 1
  fi
  trace_window "$name" off
  bad=$(awk -F, 'NR == 2 { print $10 }' "$csv")
  # The guest's own figure, from its stats (the profile asks for none).
  [[ -n "$profile_dir" ]] ||
    figure=$(sed -n 's/.* busy_instructions_per_packet=\([0-9.]*\).*/\1/p' "$stats" | tail -1)
  if [[ "$bad" != 0 || (-z "$profile_dir" && -z "$figure") ]]; then
    note "cost: $name: ${bad:-?} bad packets, busy_instructions_per_packet '${figure}'; row and stats:"
    cat "$csv" >&2
    [[ ! -f "$stats" ]] || cat "$stats" >&2
    return 1
  fi
  # Closed loop, no bad packet: every packet of the warm-up, the samples and
  # the cool-down went out and came back inside the window (the two stats
  # queries too, a fixed handful of accesses in the figure).
  packets=$((gate_warmup + gate_samples + gate_cooldown))
  echo "$name.packets=$packets" >>"$cost_file"
  reads=$(grep -c '^memory_region_ops_read ' "$out/$name.trace.log" || true)
  writes=$(grep -c '^memory_region_ops_write ' "$out/$name.trace.log" || true)
  if [[ -z "$reads" || "$reads" -eq 0 ]]; then
    note "cost: $name: no MMIO access in $out/$name.trace.log (is QEMU's monitor answering?)"
    return 1
  fi
  [[ -n "$profile_dir" ]] || echo "$name.busy_instructions_per_packet=$figure" >>"$cost_file"
  awk -v n="$name" -v r="$reads" -v w="$writes" -v p="$packets" 'BEGIN {
      printf "%s.mmio_reads_per_packet=%.2f\n%s.mmio_writes_per_packet=%.2f\n", n, r / p, n, w / p }' >>"$cost_file"
  note "cost: $name: $figure busy guest instructions per packet, $reads MMIO reads and $writes writes in $packets packets ($(grep -o 'netif_wakeups_per_packet=[0-9.]*\|nic_interrupts_per_packet=[0-9.]*\|frames_per_batch=[0-9.]*' "$stats" | tr '\n' ' '))"
}

leg_cost() {
  local ns="${prefix}c"
  make_tap_ns "$ns"
  : >"$cost_file"
  monitor_dir=$(mktemp -d /tmp/sbe-monitor.XXXXXX)
  # shellcheck disable=SC2046
  boot_and_probe echo "$ns" "$echo_launcher" STARLING_ECHO_NETDEV "$out/echo.console.log" \
    "${icount_args[@]}" $(monitor_args echo) -- --util-port 0 || return 1
  monitor_socket="$monitor_dir/echo"
  settle
  gate_run udp_echo "$ns" --util-port 0 || return 1
  gate_run tcp_echo "$ns" --transport tcp --port 1236 --util-port 0 || return 1
  # The same over IPv6, to the guest's link-local address: a 1452-byte
  # datagram and a 1440-byte record fill one frame as IPv4's 1472 and 1460
  # do (the IPv6 header is 20 bytes longer).
  gate_run udp_echo6 "$ns" --target "$guest_ip6%tap0" --size 1452 --util-port 0 || return 1
  gate_run tcp_echo6 "$ns" --target "$guest_ip6%tap0" --transport tcp --port 1236 --size 1440 \
    --util-port 0 || return 1
  # Small packets: 32-byte datagrams, the generator's smallest (its
  # sequence and timestamp header), 74-byte frames (78 with the FCS; a
  # minimum frame is 64). What a packet costs apart from its bytes.
  gate_run udp_echo_small "$ns" --size 32 --util-port 0 || return 1
  stop_pid "$guest_pid"
  local raw=(--transport raw --iface tap0 --dst-mac "$guest_mac" --src-ip "$tap_ip" --util-port 0)
  # shellcheck disable=SC2046
  boot_and_probe reflector "$ns" "$reflector_launcher" STARLING_REFLECTOR_NETDEV \
    "$out/reflector.console.log" "${icount_args[@]}" $(monitor_args reflector) -- "${raw[@]}" || return 1
  monitor_socket="$monitor_dir/reflector"
  settle
  gate_run reflector "$ns" "${raw[@]}" || return 1
  stop_pid "$guest_pid"
}

# Throughput (Mb/s) and RTT (µs) against the requested rate.
plot() {
  local leg="$1"
  command -v gnuplot >/dev/null || { note "gnuplot not installed (setup.sh): no $leg.png"; return 0; }
  gnuplot <<GNUPLOT
set datafile separator ","
set terminal png size 800,500
set output "$out/$leg.png"
set title "$leg: $(case $leg in tcp) echo 1460-byte TCP echo records ;; tcp6) echo 1440-byte TCP echo records over IPv6 ;; echo6) echo 1452-byte UDP echo over IPv6 ;; *_small) echo 32-byte UDP echo ;; *) echo 1472-byte UDP echo ;; esac)"
set xlabel "requested (Mb/s)"
set ylabel "throughput (Mb/s)"
set y2label "RTT (us)"
set y2tics
set ytics nomirror
set key top left
set logscale y2
plot "$out/$leg.csv" every ::1 using (\$1/1e6):(\$2/1e6) with linespoints title "received", \
     "" every ::1 using (\$1/1e6):(\$3/1e6) with linespoints title "sent", \
     "" every ::1 using (\$1/1e6):(\$6) axes x1y2 with linespoints title "average RTT", \
     "" every ::1 using (\$1/1e6):(\$9) axes x1y2 with linespoints title "median RTT"
GNUPLOT
}

# The highest Receive_Throughput of a CSV, bits/s; clean_peak: among the
# rows with no bad packet (below saturation).
peak() { awk -F, 'NR > 1 && $2 > m { m = $2 } END { printf "%.0f", m }' "$1"; }
clean_peak() { awk -F, 'NR > 1 && $10 == 0 && $2 > m { m = $2 } END { printf "%.0f", m }' "$1"; }
# Packets a second at saturation: the receive rate counts payload bits.
peak_pps() { awk -F, 'NR > 1 && $4 > 0 && $2 / ($4 * 8) > m { m = $2 / ($4 * 8) } END { printf "%.0f", m }' "$1"; }

# "A/B peak = x, clean peak = y" for two legs' CSVs.
ratio() {
  awk -v name="$1" -v a="$(peak "$2")" -v b="$(peak "$3")" -v ca="$(clean_peak "$2")" \
    -v cb="$(clean_peak "$3")" 'BEGIN {
      printf "ratio %s at saturation = %.3f", name, (b > 0 ? a / b : 0)
      printf ", zero-bad peak_receive = %.3f\n", (cb > 0 ? ca / cb : 0)
    }'
}


: >"$out/figures.txt"
status=0
IFS=, read -r -a leg_list <<<"$legs"
for leg in "${leg_list[@]}"; do
  case "$leg" in
    echo|tcp|reflector|linux|echo6|tcp6|host|stream|echo_small|host_small|linux_small) ;;
    cost) [[ -n "$cost_file" ]] || { echo "bench.sh: --legs cost: use --cost FILE" >&2; exit 2; } ;;
    *) echo "bench.sh: --legs: unknown leg '$leg' (echo, tcp, reflector, linux, echo6, tcp6, host, stream, echo_small, host_small, linux_small)" >&2; exit 2 ;;
  esac
  note "$leg: starting"
  if ! "leg_$leg"; then
    note "$leg: FAILED"
    status=1
    continue
  fi
  [[ $smoke -eq 1 || -n "$cost_file" || "$leg" == stream ]] || plot "$leg"
done

if [[ -n "$cost_file" ]]; then
  [[ $status -eq 0 ]] || exit 1
  cat "$cost_file"
  exit 0
fi

if [[ $smoke -eq 1 ]]; then
  cat "$out/echo.csv"
  cat "$out/echo.stats" 2>/dev/null || true
  [[ $status -eq 0 ]] || exit 1
  check_smoke_csv "$out/echo.csv" || exit 1
  grep -q 'busy_instructions_per_packet=' "$out/echo.stats" || { note "FAIL: no instret figure in echo.stats"; exit 1; }
  note "smoke: PASS"
  exit 0
fi

{
  echo "# bench/echo summary $(date -u +%Y-%m-%dT%H:%MZ), rates $rates, $samples samples"
  for leg in "${leg_list[@]}"; do
    [[ -f "$out/$leg.csv" ]] || continue
    # Saturation: the most the leg answered at any offered rate (the sweep
    # offers more than that at its top); zero-bad: the most with no bad packet.
    echo "$leg saturation_receive_bps=$(peak "$out/$leg.csv") zero_bad_peak_receive_bps=$(clean_peak "$out/$leg.csv") saturation_receive_pps=$(peak_pps "$out/$leg.csv")"
  done
  cat "$out/figures.txt"
  for leg in "${leg_list[@]}"; do
    [[ ! -f "$out/$leg.stats" ]] || sed "s/^/$leg sweep /" "$out/$leg.stats"
    [[ ! -f "$out/$leg.cost.stats" ]] || sed "s/^/$leg cost /" "$out/$leg.cost.stats"
  done
  if [[ -f "$out/echo.csv" && -f "$out/reflector.csv" ]]; then
    ratio echo/reflector "$out/echo.csv" "$out/reflector.csv"
  fi
  if [[ -f "$out/echo.csv" && -f "$out/linux.csv" ]]; then
    ratio echo/linux "$out/echo.csv" "$out/linux.csv"
  fi
  if [[ -f "$out/host.csv" && -f "$out/linux.csv" ]]; then
    ratio host/linux "$out/host.csv" "$out/linux.csv"
  fi
  if [[ -f "$out/echo6.csv" && -f "$out/echo.csv" ]]; then
    ratio echo6/echo "$out/echo6.csv" "$out/echo.csv"
  fi
  if [[ -f "$out/tcp6.csv" && -f "$out/tcp.csv" ]]; then
    ratio tcp6/tcp "$out/tcp6.csv" "$out/tcp.csv"
  fi
  if [[ -f "$out/echo_small.csv" && -f "$out/linux_small.csv" ]]; then
    ratio echo_small/linux_small "$out/echo_small.csv" "$out/linux_small.csv"
  fi
  if [[ -f "$out/host_small.csv" && -f "$out/linux_small.csv" ]]; then
    ratio host_small/linux_small "$out/host_small.csv" "$out/linux_small.csv"
  fi
} >"$out/summary.txt"
cat "$out/summary.txt"
note "CSV, plots and summary in $out"
exit $status
