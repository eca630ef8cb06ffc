#!/bin/bash
# A riscv64 compile that includes a host header fails; a clean one succeeds;
# with each pinned compiler.
#
# One nested build per compiler, --keep_going, of all four fixtures
# (//toolchain/tests/host_header): each fixture's outcome is read from its own
# error report (Bazel names the fixture's line in host_header/BUILD.bazel) and,
# for the clean one, from its object file. One build instead of one per
# fixture: the same outcomes, checked the same way, at a quarter of the
# nested Bazel start-ups.
set -uo pipefail
source toolchain/tests/nested_bazel.sh
pkg=toolchain/tests/host_header
for host_header in /usr/include/linux/types.h /usr/include/linux/const.h; do
  if [[ ! -f $host_header ]]; then
    echo "FAIL: $host_header is missing, so this test cannot show a host header being rejected."
    echo "Fix: sudo ./setup.sh (installs linux-libc-dev)."
    exit 1
  fi
done
fail=0

# The line of the cc_library( that declares NAME in host_header/BUILD.bazel:
# Bazel's error reports start "ERROR: .../BUILD.bazel:LINE:COL:".
rule_line() {
  awk -v want="name = \"$1\"," '/^cc_library\(/ { start = NR } index($0, want) { print start; exit }' "$NESTED_WORKSPACE/$pkg/BUILD.bazel"
}

# The error reports of the fixture at LINE in LOG: each "ERROR:" line naming
# it and the compiler's lines after it, up to the next Bazel message.
reports_of() {
  awk -v at="/$pkg/BUILD.bazel:$1:" '
    /^(ERROR|INFO|WARNING|FAILED):|^\[[0-9,]+ \/ / { on = (index($0, "ERROR:") == 1 && index($0, at) > 0) }
    on { print }' "$2"
}

# check NAME success|failure PATTERN WHY
check() {
  local name=$1 want=$2 pattern=$3 why=$4 line reports got
  line=$(rule_line "$name")
  if [[ -z $line ]]; then
    echo "FAIL: no cc_library named $name in $pkg/BUILD.bazel: update this test"
    fail=1
    return
  fi
  reports=$(reports_of "$line" "$log")
  if [[ -n $reports ]]; then
    got=failure
  elif compgen -G "$out_root/*/bin/$pkg/_objs/$name/*.o" >/dev/null; then
    got=success
  else
    got="no outcome (no error report and no object)"
  fi
  if [[ $got != "$want" ]]; then
    echo "FAIL: //$pkg:$name ($compiler): build $got, expected $want ($why)"
    [[ -n $reports ]] && head -20 <<<"$reports"
    [[ -z $reports ]] && sed -n '/ERROR/,$p' "$log" | head -20
    fail=1
  elif [[ -n $pattern ]] && ! grep -qE "$pattern" <<<"$reports"; then
    echo "FAIL: //$pkg:$name ($compiler) failed, but not with /$pattern/ ($why):"
    head -20 <<<"$reports"
    fail=1
  else
    echo "ok   //$pkg:$name ($compiler): $want${pattern:+ (/$pattern/)}: $why"
  fi
}

for compiler in clang19 clang22; do
  base=headers-$compiler
  log="$TEST_TMPDIR/$base.log"
  out_root="$TEST_TMPDIR/$base/execroot/starling/bazel-out"
  # Exits non-zero: three of the four must fail.
  nested_bazel "$base" --reuse-repositories build --keep_going --config=qemu \
    $([[ $compiler == clang22 ]] && echo --config=clang22) \
    "//$pkg:clean" "//$pkg:by_name" "//$pkg:by_path" "//$pkg:by_flag"
  if ! grep -q '^INFO: Found 4 targets' "$log"; then
    echo "FAIL: the nested build ($compiler) did not get to building the fixtures:"
    tail -20 "$log"
    fail=1
    continue
  fi
  check clean success "" "toolchain headers only"
  check by_name failure "'linux/types.h' file not found" \
    "-nostdinc: the riscv64 compiler searches no host directory"
  check by_path failure "absolute path inclusion|undeclared inclusion" \
    "the compiler opens /usr/include/linux/const.h by path, Bazel rejects the inclusion"
  check by_flag failure "references a path outside of the execution root" \
    "-isystem /usr/include in copts is refused"
done
exit $fail
