#!/bin/bash
# Adds ClientHellos from `openssl s_client` (TLS 1.3, TLS 1.2) to the
# tls_records fuzzer's seeds, each behind the fuzzer's 4-byte header (a raw
# peer, FIN: tls_records_fuzzer.cc). Nothing answers the hello: socat
# records what the client sends until it gives up.
#   fuzz/tls_records/openssl_seeds.sh fuzz/tls_records/corpus
set -euo pipefail
dir=$1
port=${PORT:-24433}
for version in tls1_3 tls1_2; do
  out="$dir/openssl_${version}_client_hello"
  capture=$(mktemp)
  socat -u "TCP-LISTEN:$port,reuseaddr" "OPEN:$capture,creat,trunc" &
  listener=$!
  sleep 0.3
  timeout 2 openssl s_client -connect "127.0.0.1:$port" "-$version" -servername starling.test \
    -alpn http/1.1 </dev/null >/dev/null 2>&1 || true
  kill "$listener" 2>/dev/null || true
  wait "$listener" 2>/dev/null || true
  { printf '\0\0\0\0'; cat "$capture"; } >"$out"
  rm -f "$capture"
  echo "$out: $(stat -c %s "$out") bytes"
done
