#!/bin/bash
# The HTTP benchmark's driver (bench/http/BUILD.bazel runs it; docs/benchmarks.md,
# "HTTP: httpd against nginx"): apps/httpd against Debian's nginx, 612-byte page.
#
#   bench.sh --launcher P --tool P --lua P --page P [--host-httpd P]
#            [--legs qemu,host,nginx[,qemu6,host6,nginx6]] [--connections N] [--seconds N] [--threads N]
#            [--cost-requests N] [--out DIR] [--smoke]
#   bench.sh --tool P --check-smoke-csv CSV... (only the smoke test's checks)
#
# Legs, each in network namespace(s) of its own (sbh<pid>..., root; deleted on
# exit whatever happens), wrk run inside them with the same parameters:
#   qemu   the httpd image (--launcher) in QEMU, its NIC on a TAP; then a second
#          boot under -icount shift=0 for busy guest instructions per request
#          (DIR/cost.txt, httpbench.py cost)
#   host   the host board's httpd (--host-httpd): a Linux process, DWMAC driver
#          and model on a TAP
#   nginx  Debian's nginx, one worker, this script's config, over a veth pair
#   and over HTTPS (the same throwaway certificate and suites for all
#   three, both families): LEG_https (keep-alive) and LEG_handshakes (Connection: close, a
#   full handshake per request); qemu's -icount boot also writes cost_tls.txt
#   (instructions per keep-alive HTTPS request and per new TLS connection)
#   qemu6, host6, nginx6   the same three over IPv6 (static addresses on the
#          link, 2001:db8:1::15 for httpd, fd00:5::2 for nginx); qemu6's
#          -icount boot writes cost6.txt; summary.txt adds the ratios of each
#          to its IPv4 leg
# Outputs in DIR (default /tmp/starling-bench-http): <leg>.csv, <leg>.png,
# <leg>.wrk.txt (wrk --latency), <leg>.metrics.txt (httpd's /metrics after
# the run), console logs, nginx's config and logs, cost.txt, summary.txt
# (ratios httpd/nginx for requests/s and p99).
# --smoke: qemu and nginx only, 2 s and 40 connections each, one boot (under
# -icount, for the cost figure too; wrk also over IPv6 to that boot,
# qemu6.csv); checks the CSVs (numeric, zero errors,
# requests > 0) and exits non-zero otherwise. Speed is never checked.
set -euo pipefail

note() { echo "bench: $*" >&2; }
usage() {
  sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

launcher="" tool="" lua="" page="" host_httpd=""
legs="qemu,host,nginx,qemu6,host6,nginx6"
connections=32 seconds=10 threads=1
cost_requests=9000
handshakes=200  # new TLS connections for the instructions per handshake
smoke=0
out="${BENCH_OUT:-/tmp/starling-bench-http}"
check_csvs=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --launcher) launcher=${2:?--launcher needs a path}; shift 2 ;;
    --tool) tool=${2:?--tool needs a path}; shift 2 ;;
    --lua) lua=${2:?--lua needs a path}; shift 2 ;;
    --page) page=${2:?--page needs a path}; shift 2 ;;
    --host-httpd) host_httpd=${2:?--host-httpd needs a path}; shift 2 ;;
    --legs) legs=${2:?--legs needs a list}; shift 2 ;;
    --connections) connections=${2:?--connections needs a number}; shift 2 ;;
    --seconds) seconds=${2:?--seconds needs a number}; shift 2 ;;
    --threads) threads=${2:?--threads needs a number}; shift 2 ;;
    --cost-requests) cost_requests=${2:?--cost-requests needs a number}; shift 2 ;;
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    --smoke) smoke=1; shift ;;
    --check-smoke-csv) shift; check_csvs=("$@"); break ;;
    -h|--help) usage ;;
    *) echo "bench.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ -n "$tool" ]] || { echo "bench.sh: --tool is required" >&2; usage; }
if [[ ${#check_csvs[@]} -gt 0 ]]; then
  exec python3 "$tool" check-smoke "${check_csvs[@]}"
fi
for need in launcher lua page; do
  [[ -n "${!need}" ]] || { echo "bench.sh: --$need is required" >&2; usage; }
done
for n in connections seconds threads cost_requests; do
  [[ "${!n}" =~ ^[0-9]+$ && "${!n}" -gt 0 ]] || { echo "bench.sh: --${n//_/-} takes a positive number, got '${!n}'" >&2; exit 2; }
done
[[ $threads -le $connections ]] || { echo "bench.sh: --threads ($threads) above --connections ($connections): wrk refuses that" >&2; exit 2; }
if [[ $(id -u) -ne 0 ]]; then
  echo "bench.sh: needs root (ip netns, TAP devices, veth pairs). Fix: run as root (bazel run as root)" >&2
  exit 1
fi
if [[ $smoke -eq 1 ]]; then
  out="${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-/tmp}}/bench-http-smoke"
  legs="qemu,nginx"
  # 40 connections: more than one peer's 31 slots, so a benchmark whose one
  # client were held to a peer's share (503s) fails the smoke test.
  connections=40 seconds=2 threads=1
  cost_requests=300
  handshakes=20
fi
IFS=, read -r -a leg_list <<<"$legs"
for leg in "${leg_list[@]}"; do
  case "$leg" in
    qemu|nginx|qemu6|nginx6) ;;
    host|host6) [[ -n "$host_httpd" ]] || { echo "bench.sh: --legs $leg needs --host-httpd (//bench/http:host)" >&2; exit 2; } ;;
    *) echo "bench.sh: --legs: unknown leg '$leg' (qemu, host, nginx, qemu6, host6, nginx6)" >&2; exit 2 ;;
  esac
done
# Every tool the legs need, before any namespace exists: the cause and the fix.
need_tool() {
  command -v "$1" >/dev/null || { echo "bench.sh: $1 not found ($2). Fix: sudo ./setup.sh (installs $3)" >&2; exit 1; }
}
need_tool ip "network namespaces, TAP, veth" iproute2
need_tool wrk "the load generator" wrk
need_tool python3 "the CSV, the keep-alive client" python3
need_tool gnuplot "one plot per leg" gnuplot-nox
[[ ",$legs," != *,qemu,* && ",$legs," != *,qemu6,* ]] || need_tool qemu-system-riscv64 "the qemu leg" qemu-system-misc
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
if [[ ",$legs," == *,nginx* && ! -x "$nginx_bin" ]]; then
  echo "bench.sh: nginx not found (the nginx leg). Fix: sudo ./setup.sh (installs nginx-light)" >&2
  exit 1
fi
# Under `bazel run` we start in our runfiles tree; the image launcher finds
# its files through RUNFILES_DIR (a test has TEST_SRCDIR).
if [[ -z "${TEST_SRCDIR:-}" && -z "${RUNFILES_DIR:-}" && -d ../starling ]]; then
  RUNFILES_DIR="$(cd .. && pwd)"
  export RUNFILES_DIR
fi
abspath() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
launcher=$(abspath "$launcher")
tool=$(abspath "$tool")
lua=$(abspath "$lua")
page=$(abspath "$page")
[[ -z "$host_httpd" ]] || host_httpd=$(abspath "$host_httpd")
page_bytes=$(stat -L -c %s "$page")
mkdir -p "$out"
# httpd's /metrics is its owner's (docs/tls.md): a token for this run, in
# the boot files of every httpd leg; httpbench.py sends it.
command -v openssl >/dev/null || { echo "bench.sh: openssl not found (the management token). Fix: sudo ./setup.sh" >&2; exit 1; }
token_file="$out/management-token"
(umask 077 && openssl rand -hex 32 >"$token_file")
STARLING_MANAGEMENT_TOKEN=$(cat "$token_file")
export STARLING_MANAGEMENT_TOKEN
rm -f "$out"/*.csv "$out"/*.png "$out"/cost.txt "$out"/cost6.txt "$out"/cost_tls.txt \
  "$out"/summary.txt

guest_ip=10.0.2.15
# wrk is one host, so one peer: its 32 connections would pass httpd's share
# of the slots (31, httpd.peer_slots) and the rest get 503 + Retry-After, as
# an attacker's would (docs/hostile-peers.md). The benchmark measures the
# server, so it lifts one peer's shares, as the load tests do (and its
# limit of four TLS handshakes in progress: nginx has none).
one_client_bootargs="httpd.peer_slots=64 httpd.peer_handshakes=0 starling.tcp_peer_share=off starling.tcp_peer_rx_pbufs=off starling.tcp_peer_segments=off"
tap_ip=10.0.2.2
# IPv6 legs: static addresses on the link (no router needed), the guest's
# given on its command line as ip6= (docs/ipv6.md).
guest_ip6=2001:db8:1::15
tap_ip6=2001:db8:1::2
guest_mac=52:54:00:12:34:56  # QEMU's default for the first NIC; the host board takes --mac
prefix="sbh$$"
namespaces=() pids=() tmpdirs=()
cleanup() {
  local pid ns dir
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  for dir in "${tmpdirs[@]}"; do rm -rf "$dir"; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# HTTPS (the *_https and *_handshakes legs): one throwaway ECDSA P-256
# certificate for httpd and nginx alike, for every address the legs use; the
# key in a directory removed at exit, never in the outputs.
tls_dir=$(mktemp -d /tmp/starling-bench-http-tls.XXXXXX)
tmpdirs+=("$tls_dir")
tls_cert="$tls_dir/cert.pem" tls_key="$tls_dir/key.pem"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$tls_key" \
  -out "$tls_cert" -days 30 -subj /CN=starling.bench \
  -addext "subjectAltName=IP:10.0.2.15,IP:10.0.5.2,IP:2001:db8:1::15,IP:fd00:5::2" 2>/dev/null ||
  { echo "bench.sh: openssl could not make the benchmark's certificate" >&2; exit 1; }

stop_pid() {
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# A namespace with a TAP device for the guest's NIC (QEMU's or the host
# board's); we are 10.0.2.2 on it. The neighbour entry spares an ARP round.
# (bench/echo/bench.sh's make_tap_ns: that script runs when sourced, so the
# eight lines are repeated, not shared.)
make_tap_ns() {
  local ns="$1"
  ip netns add "$ns"
  namespaces+=("$ns")
  ip -n "$ns" link set lo up
  ip -n "$ns" tuntap add dev tap0 mode tap
  ip -n "$ns" addr add "$tap_ip/24" dev tap0
  ip -n "$ns" link set tap0 up
  ip -n "$ns" neigh replace "$guest_ip" lladdr "$guest_mac" dev tap0 nud permanent
  ip -n "$ns" -6 addr add "$tap_ip6/64" dev tap0 nodad
  ip -n "$ns" -6 neigh replace "$guest_ip6" lladdr "$guest_mac" dev tap0 nud permanent
}

# An address as a URL's host: IPv6 literals in brackets.
url_host() { [[ "$1" == *:* ]] && echo "[$1]" || echo "$1"; }

# For what runs to its end; a process that is stopped later is started with
# `ip netns exec` itself, so that $! is the process (ip execs it), not a
# subshell whose kill would leave it running.
in_ns() {
  local ns="$1"
  shift
  ip netns exec "$ns" "$@"
}

# Waits for PATTERN in LOG (SECONDS at most) while PID lives.
wait_console() {
  local log="$1" pattern="$2" pid="$3" tries=$(($4 * 10))
  until grep -aq "$pattern" "$log" 2>/dev/null; do
    tries=$((tries - 1))
    if [[ $tries -le 0 ]] || ! kill -0 "$pid" 2>/dev/null; then return 1; fi
    sleep 0.1
  done
}

# wrk against http://TARGET/ from NS: LEG.wrk.txt, LEG.csv, LEG.latency.dat.
# SCHEME https: over TLS; then MODE close: every request on a new
# connection (Connection: close; wrk keeps no TLS session), so a full
# handshake each.
# wrk_connections and wrk_seconds, when set, override --connections and
# --seconds for one call.
run_wrk() {
  local leg="$1" ns="$2" target="$3" scheme="${4:-http}" mode="${5:-keep-alive}"
  local url extra=() connections="${wrk_connections:-$connections}" seconds="${wrk_seconds:-$seconds}"
  url="$scheme://$(url_host "$target")/"
  [[ $mode != close ]] || extra=(-H "Connection: close")
  note "$leg: wrk -t $threads -c $connections -d ${seconds}s --latency ${extra[*]} $url"
  if ! in_ns "$ns" timeout $((seconds + 60)) wrk -t "$threads" -c "$connections" -d "${seconds}s" \
      --latency "${extra[@]}" -s "$lua" "$url" >"$out/$leg.wrk.txt" 2>&1; then
    note "$leg: wrk failed:"
    cat "$out/$leg.wrk.txt" >&2
    return 1
  fi
  python3 "$tool" wrk-csv --leg "$leg" --connections "$connections" --seconds "$seconds" \
    --threads "$threads" --wrk-output "$out/$leg.wrk.txt" --csv "$out/$leg.csv" \
    --dat "$out/$leg.latency.dat"
}

# httpd's /metrics after the run, for what the figures do not say (drops,
# refusals, retransmissions): LEG.metrics.txt. LEG NS HOST.
save_metrics() {
  in_ns "$2" timeout 20 python3 "$tool" metrics --host "$3" >"$out/$1.metrics.txt" ||
    note "$1: no /metrics after the run"
}

# The guest is up when it serves the page, whole: 200 and page_bytes bytes.
probe_page() {
  in_ns "$1" python3 "$tool" probe --host "$2" --expect-bytes "$page_bytes" --seconds "$3"
}

# Boots the httpd image in QEMU on NS's tap0 (extra QEMU arguments after the
# fourth), waits until it serves the page at HOST; sets guest_pid.
boot_httpd() {
  local ns="$1" log="$2" seconds="$3" host="$4"
  shift 4
  ip netns exec "$ns" env STARLING_HTTPD_NETDEV="tap,id=n0,ifname=tap0,script=no,downscript=no" \
    "$launcher" --timeout "$seconds" --management-token "$token_file" \
    --tls-cert "$tls_cert" --tls-key "$tls_key" -- -append "ip=$guest_ip/24,gw=$tap_ip ip6=$guest_ip6/64 $one_client_bootargs" "$@" \
    </dev/null >"$log" 2>&1 &
  guest_pid=$!
  pids+=("$guest_pid")
  if ! wait_console "$log" "httpd: ready" "$guest_pid" 60 || ! probe_page "$ns" "$host" 30; then
    note "httpd in QEMU never served the page; console:"
    tail -20 "$log" >&2
    return 1
  fi
}

# Busy guest instructions per request (httpbench.py cost says how): a boot
# under -icount shift=0, cost_requests keep-alive GETs closed loop (one at a
# time, 900 per connection), then wrk's connections for 3 s; /metrics
# around each. NS HOST FILE (in DIR).
readonly icount_args=(-icount shift=0)
measure_cost() {
  local ns="$1" host="$2" file="$3"
  local wrk_args=(--wrk "$(command -v wrk)" --wrk-seconds 3 --wrk-connections "$connections")
  [[ $smoke -eq 0 ]] || wrk_args=()
  note "qemu: $cost_requests keep-alive GETs under -icount (busy guest instructions per request)"
  in_ns "$ns" timeout 300 python3 "$tool" cost --host "$host" --requests "$cost_requests" \
    --expect-bytes "$page_bytes" "${wrk_args[@]}" >"$out/$file"
  cat "$out/$file" >&2
  [[ $file == cost.txt ]] || return 0
  note "qemu: the same over HTTPS, then $handshakes new TLS connections (instructions per handshake)"
  in_ns "$ns" timeout 600 python3 "$tool" cost --host "$host" --requests "$cost_requests" \
    --expect-bytes "$page_bytes" --tls-port 443 --handshakes "$handshakes" "${wrk_args[@]}" \
    >"$out/cost_tls.txt"
  cat "$out/cost_tls.txt" >&2
}

# httpd in QEMU measured at HOST: LEG HOST COST_FILE.
httpd_qemu_leg() {
  local leg="$1" host="$2" cost_file="$3"
  local ns="${prefix}q${leg//[^6]/}" status=0
  make_tap_ns "$ns"
  if [[ $smoke -eq 1 ]]; then
    # One boot, under -icount: wrk's run and the cost figure both.
    boot_httpd "$ns" "$out/$leg.console.log" 240 "$host" "${icount_args[@]}" || return 1
    run_wrk "$leg" "$ns" "$host" || status=1
    # Under -icount a handshake takes ~0.1 s of host time: 4 connections
    # for 5 s, so the run is mostly requests, not handshakes still going.
    [[ $leg != qemu ]] || wrk_connections=4 wrk_seconds=5 run_wrk qemu_https "$ns" "$host" https ||
      status=1
    # The same boot over IPv6 too: httpd in QEMU serves both families.
    [[ $leg != qemu ]] || run_wrk qemu6 "$ns" "$guest_ip6" || status=1
    measure_cost "$ns" "$host" "$cost_file" || status=1
    stop_pid "$guest_pid"
    return $status
  fi
  boot_httpd "$ns" "$out/$leg.console.log" $((seconds * 3 + 120)) "$host" || return 1
  run_wrk "$leg" "$ns" "$host" || status=1
  run_wrk "${leg}_https" "$ns" "$host" https || status=1
  run_wrk "${leg}_handshakes" "$ns" "$host" https close || status=1
  save_metrics "$leg" "$ns" "$host"
  stop_pid "$guest_pid"
  boot_httpd "$ns" "$out/$leg.icount.console.log" 400 "$host" "${icount_args[@]}" || return 1
  measure_cost "$ns" "$host" "$cost_file" || status=1
  stop_pid "$guest_pid"
  return $status
}
leg_qemu() { httpd_qemu_leg qemu "$guest_ip" cost.txt; }
leg_qemu6() { httpd_qemu_leg qemu6 "$guest_ip6" cost6.txt; }

# The host board: the same httpd as a Linux process, the DWMAC driver over
# its device model, the model's wire a TAP in the namespace (as bench/echo's
# host leg and test/host_board do).
# LEG HOST.
httpd_host_leg() {
  local leg="$1" host="$2"
  local ns="${prefix}h${leg//[^6]/}" status=0 server
  make_tap_ns "$ns"
  # The boot files (the token) as the host board's initrd.
  local make_initrd="${TEST_SRCDIR:-${RUNFILES_DIR:-..}}/starling/platform/boot_media/make_initrd.py"
  python3 "$make_initrd" "$tls_dir/boot.cpio" "management/token=$token_file" \
    "tls/cert.pem=$tls_cert" "tls/key.pem=$tls_key" || return 1
  ip netns exec "$ns" timeout $((seconds * 3 + 120)) "$host_httpd" --tap=tap0 --mac="$guest_mac" \
    --ip="$guest_ip/24,gw=$tap_ip" --initrd="$tls_dir/boot.cpio" --bootargs="ip6=$guest_ip6/64 $one_client_bootargs" </dev/null \
    >"$out/$leg.console.log" 2>&1 &
  server=$!
  pids+=("$server")
  if ! wait_console "$out/$leg.console.log" "httpd: ready" "$server" 30 ||
      ! probe_page "$ns" "$host" 30; then
    note "$leg: the host board's httpd never served the page; console:"
    tail -20 "$out/$leg.console.log" >&2
    return 1
  fi
  run_wrk "$leg" "$ns" "$host" || status=1
  run_wrk "${leg}_https" "$ns" "$host" https || status=1
  run_wrk "${leg}_handshakes" "$ns" "$host" https close || status=1
  save_metrics "$leg" "$ns" "$host"
  stop_pid "$server"
  return $status
}
leg_host() { httpd_host_leg host "$guest_ip"; }
leg_host6() { httpd_host_leg host6 "$guest_ip6"; }

# Debian's nginx: one worker, started by hand with a config of our own (no
# system service), in a namespace of its own; wrk in another, over a veth
# pair. As httpd holds them: keep-alive for 15 s quiet and 1000 requests
# (net/http's idle_timeout_ns, max_requests); no access log (httpd has none).
# The document root is a fresh directory under /tmp: nginx's worker runs as
# nobody, who cannot read a test's output directory under /root.
# LEG FAMILY (4 or 6): nginx listens on 10.0.5.2 and fd00:5::2, wrk uses
# the family's.
nginx_leg() {
  local leg="$1" family="$2"
  local c="${prefix}c$family" s="${prefix}n$family" status=0 server root target
  ip netns add "$c"; namespaces+=("$c")
  ip netns add "$s"; namespaces+=("$s")
  ip link add "${prefix}a$family" netns "$c" type veth peer name "${prefix}b$family" netns "$s"
  ip -n "$c" addr add 10.0.5.1/24 dev "${prefix}a$family"
  ip -n "$s" addr add 10.0.5.2/24 dev "${prefix}b$family"
  ip -n "$c" -6 addr add fd00:5::1/64 dev "${prefix}a$family" nodad
  ip -n "$s" -6 addr add fd00:5::2/64 dev "${prefix}b$family" nodad
  for ns in "$c" "$s"; do ip -n "$ns" link set lo up; done
  ip -n "$c" link set "${prefix}a$family" up
  ip -n "$s" link set "${prefix}b$family" up
  [[ $family == 6 ]] && target=fd00:5::2 || target=10.0.5.2
  root=$(mktemp -d /tmp/starling-bench-http-nginx.XXXXXX)
  tmpdirs+=("$root")
  mkdir -p "$root/html" "$root/temp"
  cp "$page" "$root/html/index.html"
  chmod -R a+rX "$root"
  cat >"$out/nginx.conf" <<NGINX
# Written by bench/http/bench.sh for the nginx leg.
worker_processes 1;
daemon off;
pid $out/nginx.pid;
error_log $out/nginx.error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    types { text/html html; }
    default_type application/octet-stream;
    # nginx at its best for one small file: sendfile, and the open-file cache
    # (no open/fstat/close per request; httpd answers from .rodata). Keep-alive
    # as httpd's: idle 15 s, 1000 requests a connection (its max_requests).
    sendfile on;
    tcp_nopush on;
    open_file_cache max=16 inactive=60s;
    open_file_cache_valid 60s;
    keepalive_timeout 15s;
    keepalive_requests 1000;
    client_body_temp_path $root/temp/body;
    proxy_temp_path $root/temp/proxy;
    fastcgi_temp_path $root/temp/fastcgi;
    uwsgi_temp_path $root/temp/uwsgi;
    scgi_temp_path $root/temp/scgi;
    # HTTPS as httpd offers it: TLS 1.2 and 1.3, the same suites in the
    # same order, X25519 then P-256, session tickets and no session cache.
    ssl_certificate $tls_cert;
    ssl_certificate_key $tls_key;
    ssl_protocols TLSv1.2 TLSv1.3;
    # (ChaCha20-Poly1305 first, as httpd: the same cipher's work per request.)
    ssl_ciphers ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256;
    ssl_prefer_server_ciphers on;
    ssl_conf_command Ciphersuites TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256;
    ssl_conf_command Options ServerPreference;
    ssl_ecdh_curve X25519:prime256v1:secp384r1;
    ssl_session_tickets on;
    ssl_session_cache off;
    server {
        listen 10.0.5.2:80;
        listen [fd00:5::2]:80;
        listen 10.0.5.2:443 ssl;
        listen [fd00:5::2]:443 ssl;
        root $root/html;
        index index.html;
    }
}
NGINX
  ip netns exec "$s" timeout $((seconds + 120)) "$nginx_bin" -p "$root" -c "$out/nginx.conf" \
    </dev/null >"$out/nginx.console.log" 2>&1 &
  server=$!
  pids+=("$server")
  if ! probe_page "$c" "$target" 15; then
    note "$leg: nginx never served the page; its log:"
    cat "$out/nginx.console.log" "$out/nginx.error.log" >&2 2>/dev/null || true
    return 1
  fi
  run_wrk "$leg" "$c" "$target" || status=1
  if [[ $family == 4 || $smoke -eq 0 ]]; then
    run_wrk "${leg}_https" "$c" "$target" https || status=1
    [[ $smoke -eq 1 ]] || run_wrk "${leg}_handshakes" "$c" "$target" https close || status=1
  fi
  stop_pid "$server"
  return $status
}
leg_nginx() { nginx_leg nginx 4; }
leg_nginx6() { nginx_leg nginx6 6; }

# Latency percentiles as bars, requests/s in the title: one PNG per leg.
plot() {
  local leg="$1" rps errors what
  rps=$(awk -F, 'NR == 2 { printf "%.0f", $5 }' "$out/$leg.csv")
  errors=$(awk -F, 'NR == 2 { print $9 }' "$out/$leg.csv")
  case "$leg" in
    qemu) what="apps/httpd in QEMU (TCG), virtio-net on a TAP" ;;
    host) what="apps/httpd on the host board, DWMAC model on a TAP" ;;
    nginx) what="nginx 1 worker, over a veth" ;;
    qemu6) what="apps/httpd in QEMU (TCG), virtio-net on a TAP, IPv6" ;;
    host6) what="apps/httpd on the host board, DWMAC model on a TAP, IPv6" ;;
    nginx6) what="nginx 1 worker, over a veth, IPv6" ;;
  esac
  gnuplot <<GNUPLOT
set terminal png size 800,500
set output "$out/$leg.png"
set title "$leg: $what\\n$rps requests/s, $errors errors; wrk -c $connections -t $threads -d ${seconds}s, GET / ($page_bytes bytes)"
set ylabel "latency (us)"
set xlabel "percentile"
set style fill solid 0.6
set boxwidth 0.6
set yrange [0:*]
set grid ytics
unset key
plot "$out/$leg.latency.dat" using 0:2:xtic(1) with boxes, \
     "" using 0:2:(sprintf("%d", \$2)) with labels offset 0,1
GNUPLOT
}

note "out: $out; legs: $legs; wrk -t $threads -c $connections -d ${seconds}s"
status=0
for leg in "${leg_list[@]}"; do
  note "$leg: starting"
  if ! "leg_$leg"; then
    note "$leg: FAILED"
    status=1
    continue
  fi
  plot "$leg"
done

if [[ $smoke -eq 1 ]]; then
  cat "$out"/qemu.csv "$out"/qemu6.csv "$out"/nginx.csv "$out"/qemu_https.csv \
    "$out"/nginx_https.csv 2>/dev/null || true
  [[ $status -eq 0 ]] || exit 1
  python3 "$tool" check-smoke "$out/qemu.csv" "$out/qemu6.csv" "$out/nginx.csv" \
    --cost "$out/cost.txt" || exit 1
  python3 "$tool" check-smoke "$out/qemu_https.csv" "$out/nginx_https.csv" \
    --cost "$out/cost_tls.txt" || exit 1
  note "smoke: PASS"
  exit 0
fi
python3 "$tool" summary --out "$out" --legs "$legs" \
  --params "wrk -t $threads -c $connections -d ${seconds}s --latency, GET / ($page_bytes bytes)"
note "CSV, plots and summary in $out"
exit $status
