#!/bin/bash
# The Star64 image built twice from scratch, in two different output bases
# (the first fetching and extracting the pinned toolchains itself, the
# second using the outer build's copies, at another path), is
# byte-identical: in the default mode with the default compiler (what users
# ship), and in -c dbg with the second pinned compiler (--config=clang22:
# bazel-out/k8-dbg-clang22; its repository reused from the outer build),
# whose debug info carries paths that -ffile-prefix-map must have stripped.
# (clang 19 in -c dbg was a third build per base: the same flags, which
# compile_flags_test checks for every compiler and mode, at a third of this
# test's time.)
set -uo pipefail
source toolchain/tests/nested_bazel.sh
target=//apps/hello:star64
files=(star64.elf star64.Image star64.itb star64.uImage)
fail=0
for base in first second-output-base; do
  start=$(date +%s)
  # clang 22 in -c dbg alone (its debug info is where paths would show),
  # with its repository reused from the outer build: fetching and extracting
  # it again in each base (the same rule as clang 19's, which is fetched from
  # scratch here) doubled this test's time.
  clang22=("--config=clang22" $(reuse_repository_flags | grep '=starling_llvm22='))
  for build in "fastbuild" "dbg clang22"; do
    read -r mode config <<<"$build"
    extra=()
    [[ $config == clang22 ]] && extra=("${clang22[@]}")
    # The first base fetches and extracts every pinned package itself; the
    # second reuses the outer build's repositories (the same pinned bytes, at
    # another path: a toolchain path leaking into an output still shows as a
    # difference), which saves extracting clang 19 a second time.
    reuse=()
    [[ $base == second-output-base ]] && reuse=(--reuse-repositories)
    if ! nested_bazel "$base" "${reuse[@]}" build -c "$mode" "${extra[@]}" "$target"; then
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
exit $fail
