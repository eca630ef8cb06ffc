#!/bin/bash
# Bazel's HTTP remote cache works for this project: a real cache server
# (Debian's nginx with WebDAV PUT) on loopback, a build from scratch that
# fills it, and a second build from another empty output base that must take
# every compile and link action from the cache.
#   remote_cache_test.sh
set -uo pipefail
source toolchain/tests/nested_bazel.sh
target=//apps/hello:star64
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x $nginx ]] || { echo "FAIL: nginx missing. Fix: sudo ./setup.sh (installs nginx-light)"; exit 1; }

root="$TEST_TMPDIR/cache"
mkdir -p "$root/store" "$root/tmp" "$root/logs"
port=""
for try in $(shuf -i 20000-60000 -n 20); do
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$try") 2>/dev/null; then port=$try; break; fi
done
# Workers run as whoever runs the test: the cache lives under $TEST_TMPDIR,
# which nginx's default www-data user may not even be able to reach.
cat >"$root/nginx.conf" <<CONF
daemon off;
user $(id -un) $(id -gn);
worker_processes 1;
pid $root/nginx.pid;
error_log $root/logs/error.log;
events { worker_connections 64; }
http {
  access_log $root/logs/access.log;
  client_body_temp_path $root/tmp;
  proxy_temp_path $root/tmp;
  fastcgi_temp_path $root/tmp;
  uwsgi_temp_path $root/tmp;
  scgi_temp_path $root/tmp;
  server {
    listen 127.0.0.1:$port;
    location / {
      root $root/store;
      dav_methods PUT;
      create_full_put_path on;
      client_max_body_size 0;
    }
  }
}
CONF
"$nginx" -c "$root/nginx.conf" -p "$root" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; _nested_cleanup' EXIT
for _ in $(seq 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done

cache_flags=(--remote_cache="http://127.0.0.1:$port" --remote_upload_local_results)
fail=0
for base in fill reuse; do
  start=$(date +%s)
  if ! nested_bazel "$base" build "${cache_flags[@]}" "$target"; then
    echo "FAIL: build in output base '$base' failed:"
    tail -20 "$TEST_TMPDIR/$base.log"
    exit 1
  fi
  summary=$(grep -E "^INFO: [0-9]+ processes" "$TEST_TMPDIR/$base.log" | tail -1)
  echo "$base: $summary ($(( $(date +%s) - start )) s)"
done
stored=$(find "$root/store" -type f | wc -l)
echo "cache: $stored entries stored"

# "N processes: H remote cache hit, I internal, L linux-sandbox." in the second build.
summary=$(grep -E "^INFO: [0-9]+ processes" "$TEST_TMPDIR/reuse.log" | tail -1)
hits=$(sed -n 's/.* \([0-9][0-9]*\) remote cache hit.*/\1/p' <<<"$summary")
executed=$(grep -oE '[0-9]+ (linux-sandbox|local|processwrapper-sandbox)' <<<"$summary" | awk '{s += $1} END {print s + 0}')
echo "second build: ${hits:-0} actions from the cache, $executed executed locally"
if [[ -z $hits || $hits -lt 10 ]]; then
  echo "FAIL: the second build took ${hits:-no} actions from the cache"
  fail=1
fi
if [[ $executed -ne 0 ]]; then
  echo "FAIL: the second build still ran $executed actions itself"
  fail=1
fi
[[ $stored -gt 0 ]] || { echo "FAIL: nothing was stored in the cache"; fail=1; }
exit $fail
