#!/bin/bash
# Two properties of building the Star64 image, checked on the same builds:
#
# 1. Reproducible: built twice from scratch in two output bases (the first
#    fetching and extracting the pinned toolchains itself, the second using
#    the outer build's copies, at another path), the image is byte-identical:
#    in the default mode with the default compiler (what users ship), and in
#    -c dbg with the second pinned compiler (--config=clang22:
#    bazel-out/k8-dbg-clang22; its repository reused from the outer build),
#    whose debug info carries paths that -ffile-prefix-map must have stripped.
# 2. Cacheable through Bazel's HTTP remote cache: a real cache server
#    (Debian's nginx with WebDAV PUT) on loopback; the first build fills it,
#    and a build from a third empty output base must take every compile and
#    link action from it and run none itself.
#
# (Formerly two tests, this one and //test/cache:remote_cache_test, which
# built the same image in two more output bases: the first build now fills
# the cache the third one reads. Neither build uses the outer build's disk
# cache: they must really compile.)
set -uo pipefail
source toolchain/tests/nested_bazel.sh
target=//apps/hello:star64
files=(star64.elf star64.Image star64.itb star64.uImage)
fail=0

# --- the cache server --------------------------------------------------------
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x $nginx ]] || { echo "FAIL: nginx missing. Fix: sudo ./setup.sh (installs nginx-light)"; exit 1; }
root="$TEST_TMPDIR/cache"
mkdir -p "$root/store" "$root/tmp" "$root/logs"
port=""
for try in $(shuf -i 20000-60000 -n 20); do
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$try") 2>/dev/null; then port=$try; break; fi
done
[[ -n $port ]] || { echo "FAIL: no free loopback port for the cache server"; exit 1; }
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
remote="--remote_cache=http://127.0.0.1:$port"

# --- two builds from scratch -------------------------------------------------
# clang 22 in -c dbg alone (its debug info is where paths would show), with its
# repository reused from the outer build: fetching and extracting it again in
# each base (the same rule as clang 19's, which is fetched from scratch here)
# doubled this test's time. (clang 19 in -c dbg would be a third build per
# base: the same flags, which compile_flags_test checks for every compiler
# and mode.)
clang22=("--config=clang22" $(reuse_repository_flags | grep '=starling_llvm22='))
for base in first second-output-base; do
  start=$(date +%s)
  for build in "fastbuild" "dbg clang22"; do
    read -r mode config <<<"$build"
    extra=()
    [[ $config == clang22 ]] && extra=("${clang22[@]}")
    # The first base fetches and extracts every pinned package itself and
    # fills the remote cache (nothing is in it yet: every action runs here);
    # the second reuses the outer build's repositories (the same pinned
    # bytes, at another path: a toolchain path leaking into an output still
    # shows as a difference) and uses no cache.
    flags=(--no-disk-cache)
    [[ $base == second-output-base ]] && flags+=(--reuse-repositories)
    cache=()
    [[ $base == first ]] && cache=("$remote" --remote_upload_local_results)
    if ! nested_bazel "$base" "${flags[@]}" build -c "$mode" "${cache[@]}" "${extra[@]}" "$target"; then
      echo "FAIL: building $target -c $mode ${extra[*]} in output base '$base' failed:"
      tail -30 "$TEST_TMPDIR/$base.log"
      exit 1
    fi
  done
  echo "built $target (fastbuild; clang 22 dbg) from scratch in output base '$base' in $(( $(date +%s) - start )) s"
done
for dir in fastbuild dbg-clang22; do
  for f in "${files[@]}"; do
    mode=$dir
    bin="execroot/starling/bazel-out/k8-$dir/bin/apps/hello"
    a="$TEST_TMPDIR/first/$bin/$f"
    b="$TEST_TMPDIR/second-output-base/$bin/$f"
    f="$f ($mode)"
    if [[ ! -s $a || ! -s $b ]]; then
      echo "FAIL: $f missing from one of the builds"
      fail=1
    elif cmp -s "$a" "$b"; then
      echo "ok   $f identical: $(sha256sum <"$a" | cut -c1-64) ($(stat -L -c %s "$a") bytes)"
    else
      echo "FAIL: $f differs between the two builds"
      cmp -l "$a" "$b" | head -5
      fail=1
    fi
  done
done
readelf="$TEST_SRCDIR/starling_llvm/usr/lib/llvm-19/bin/llvm-readelf"
dbg_elf="$TEST_TMPDIR/first/execroot/starling/bazel-out/k8-dbg-clang22/bin/apps/hello/star64.elf"
if ! sections=$("$readelf" -S -W "$dbg_elf" 2>&1); then
  echo "FAIL: cannot read the dbg ELF's sections: $sections"
  fail=1
elif ! grep -q '\.debug_info' <<<"$sections"; then
  echo "FAIL: the dbg ELF has no debug info, so its paths were not compared"
  echo "$sections"
  fail=1
fi

# --- the remote cache --------------------------------------------------------
stored=$(find "$root/store" -type f | wc -l)
echo "cache: $stored entries stored by the first build"
[[ $stored -gt 0 ]] || { echo "FAIL: nothing was stored in the cache"; fail=1; }
start=$(date +%s)
if ! nested_bazel from-cache --no-disk-cache --reuse-repositories build "$remote" "$target"; then
  echo "FAIL: the build from the remote cache failed:"
  tail -20 "$TEST_TMPDIR/from-cache.log"
  exit 1
fi
# "N processes: H remote cache hit, I internal, L linux-sandbox."
summary=$(grep -E "^INFO: [0-9]+ processes" "$TEST_TMPDIR/from-cache.log" | tail -1)
echo "from-cache: $summary ($(( $(date +%s) - start )) s)"
hits=$(sed -n 's/.* \([0-9][0-9]*\) remote cache hit.*/\1/p' <<<"$summary")
executed=$(grep -oE '[0-9]+ (linux-sandbox|local|processwrapper-sandbox)' <<<"$summary" | awk '{s += $1} END {print s + 0}')
echo "third build: ${hits:-0} actions from the cache, $executed executed locally"
if [[ -z $hits || $hits -lt 10 ]]; then
  echo "FAIL: the build from an empty output base took ${hits:-no} actions from the cache"
  fail=1
fi
if [[ $executed -ne 0 ]]; then
  echo "FAIL: the build from an empty output base still ran $executed actions itself"
  fail=1
fi
for f in "${files[@]}"; do
  c="$TEST_TMPDIR/from-cache/execroot/starling/bazel-out/k8-fastbuild/bin/apps/hello/$f"
  a="$TEST_TMPDIR/first/execroot/starling/bazel-out/k8-fastbuild/bin/apps/hello/$f"
  if ! cmp -s "$a" "$c"; then
    echo "FAIL: $f from the cache differs from the build that stored it"
    fail=1
  fi
done
exit $fail
