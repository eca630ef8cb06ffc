#!/bin/bash
# Two properties of building the Star64 image, checked on the same builds:
#
# 1. Reproducible: built from scratch by a nested Bazel in an output base of
#    its own (every action run there; the pinned packages are the outer
#    build's, whose fetch the pin tests check byte for byte), the image is
#    byte-identical to the outer build's (another output base, at another
#    path), in the default mode with the default compiler (what users
#    ship). The outer build's copy comes through an image_variant target
#    (image_variant.bzl), in that mode whatever the outer build was asked
#    for; its output directory differs from the nested build's too (a
#    transition's), which must not show.
# 2. Debug info without the build's paths: the outer build's -c dbg image
#    with the second pinned compiler (--config=clang22) names every
#    directory and file relative to the workspace (-ffile-prefix-map), and
#    holds no output base, sandbox, bazel-out, workspace or home path: the
#    only way a -c dbg build differs from one at another path, so it is
#    checked on the outer build alone. (It was a second from-scratch build
#    in the nested Bazel, 40 core-seconds of a cold run, which compared
#    the same thing less directly.) A control object compiled with
#    absolute paths must fail the same check.
# 3. Cacheable through Bazel's HTTP remote cache: a real cache server
#    (Debian's nginx with WebDAV PUT) on loopback; the nested build fills it,
#    and a build from a second empty output base must take every compile and
#    link action from it and run none itself.
#
# Usage (BUILD.bazel): reproducible_test.sh --fastbuild FILES... --dbg-clang22 FILES...
#
# (Formerly this built the image in two nested output bases and compared
# them, and //test/cache:remote_cache_test built it in two more: the outer
# build is the second build now, and the from-scratch build fills the cache
# the last one reads. The nested builds do not use the outer build's disk
# cache: they must really compile.)
set -uo pipefail
# One nested Bazel server per output base.
export NESTED_BAZEL_SERVER=1
source toolchain/tests/nested_bazel.sh
target=//apps/hello:star64
files=(star64.elf star64.Image star64.itb star64.uImage)
fail=0

# The outer build's images, by output directory name in the nested build.
declare -A outer
key=""
for arg in "$@"; do
  case "$arg" in
    --fastbuild) key=fastbuild ;;
    --dbg-clang22) key=dbg-clang22 ;;
    *)
      [[ -n $key ]] || { echo "FAIL: reproducible_test.sh: $arg before --fastbuild/--dbg-clang22"; exit 2; }
      outer[$key/$(basename "$arg")]=$arg
      ;;
  esac
done

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

# --- a build from scratch ----------------------------------------------------
# Every compile and link runs here and fills the remote cache (nothing is in
# it yet). The pinned packages are the outer build's (--reuse-repositories):
# fetching and extracting them again (clang 19 and 22, picolibc, ...) cost
# this test 70 of its 266 core-seconds and checked nothing the pins' sha256
# and pin_mismatch_test do not; the execroot, the output base and so every
# absolute path still differ from the outer build's.
start=$(date +%s)
if ! nested_bazel first --no-disk-cache --reuse-repositories build "$remote" --remote_upload_local_results \
  "$target"; then
  echo "FAIL: building $target from scratch failed:"
  tail -30 "$TEST_TMPDIR/first.log"
  exit 1
fi
echo "built $target from scratch in $(( $(date +%s) - start )) s"
for f in "${files[@]}"; do
  a="$TEST_TMPDIR/first/execroot/starling/bazel-out/k8-fastbuild/bin/apps/hello/$f"
  b="${outer[fastbuild/$f]:-}"
  if [[ -z $b ]]; then
    echo "FAIL: $f: the outer build's copy was not passed (BUILD.bazel's args)"
    fail=1
  elif [[ ! -s $a || ! -s $b ]]; then
    echo "FAIL: $f missing from one of the builds"
    fail=1
  elif cmp -s "$a" "$b"; then
    echo "ok   $f identical: $(sha256sum <"$a" | cut -c1-64) ($(stat -L -c %s "$a") bytes)"
  else
    echo "FAIL: $f differs between the nested build from scratch and the outer build"
    cmp -l "$a" "$b" | head -5
    fail=1
  fi
done

# --- debug info without the build's paths -----------------------------------
llvm="$TEST_SRCDIR/starling_llvm/usr/lib/llvm-19/bin"
# absolute_debug_paths ELF: the absolute directories and files ELF's debug
# info names (DWARF 5 keeps the compile units' directories and the line
# tables' directories and files in .debug_line_str); nothing when clean.
absolute_debug_paths() {
  local elf=$1 sections
  sections=$("$llvm/llvm-readelf" -S -W "$elf") || { echo "llvm-readelf cannot read $elf"; return; }
  if ! grep -q '\.debug_line_str' <<<"$sections"; then
    echo "no .debug_line_str: no debug info to check"
    return
  fi
  "$llvm/llvm-readelf" --string-dump=.debug_line_str "$elf" | grep -E '^ *\[ *[0-9a-f]+\] /' | head -5
}
# build_paths ELF: the above, and any bytes of ELF naming bazel-out, an
# execroot, a sandbox, an output base, the workspace or the home directory.
build_paths() {
  absolute_debug_paths "$1"
  grep -a -o -E "[^[:cntrl:]]{0,40}(bazel-out/|/execroot/|bazel-sandbox|_bazel_|$NESTED_WORKSPACE|$(_real_home)/)[^[:cntrl:]]{0,40}" \
    "$1" | sort -u | head -5
}
dbg_elf=${outer[dbg-clang22/star64.elf]:-}
if [[ -z $dbg_elf ]]; then
  echo "FAIL: the outer build's dbg clang 22 star64.elf was not passed (BUILD.bazel's args)"
  fail=1
else
  found=$(build_paths "$dbg_elf")
  if [[ -n $found ]]; then
    echo "FAIL: the -c dbg clang 22 image's debug info names the build's paths:"
    echo "$found"
    fail=1
  else
    echo "ok   star64.elf (dbg, clang 22): every path in its debug info relative to the workspace"
  fi
fi
# The control: the same check on an object compiled with its absolute path
# and no prefix map must find it, or the check above proves nothing.
mkdir -p "$TEST_TMPDIR/control"
printf 'int control(int x) { return x + 1; }\n' >"$TEST_TMPDIR/control/control.c"
if ! "$llvm/clang" --target=riscv64-unknown-elf -g -c "$TEST_TMPDIR/control/control.c" \
  -o "$TEST_TMPDIR/control/control.o" 2>"$TEST_TMPDIR/control/clang.log"; then
  echo "FAIL: the control object did not compile: $(head -3 "$TEST_TMPDIR/control/clang.log")"
  fail=1
elif ! absolute_debug_paths "$TEST_TMPDIR/control/control.o" | grep -qF "$TEST_TMPDIR/control"; then
  echo "FAIL: the path check did not find $TEST_TMPDIR/control in an object compiled there"
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
echo "build from the cache: ${hits:-0} actions from the cache, $executed executed locally"
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
