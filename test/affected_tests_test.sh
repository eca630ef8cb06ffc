#!/bin/bash
# test/affected_tests.sh's change-to-labels mapping (--print: the query it
# would run), in a scratch git repository made here: a changed source file
# becomes its label, a changed BUILD.bazel its package, an untracked file is
# included, a changed .bzl or toolchain file means the whole tree, and no
# change means nothing to test.
set -uo pipefail
script=$(readlink -f test/affected_tests.sh)
repo=$TEST_TMPDIR/repo
mkdir -p "$repo/test" "$repo/kernel/lib" "$repo/net/udp/tests" "$repo/toolchain"
cp "$script" "$repo/test/affected_tests.sh"
cd "$repo"
git init -q . && git config user.email t@example.invalid && git config user.name t
touch BUILD.bazel kernel/BUILD.bazel net/udp/BUILD.bazel toolchain/BUILD.bazel defs.bzl
echo a >kernel/lib/a.cc
echo b >net/udp/tests/b.cc
echo c >toolchain/flags.txt
git add -A && git commit -qm base
fail=0
expect() {  # expect WHAT PATTERN... (fixed strings in --print's output)
  local what=$1 out p
  shift
  out=$(bash test/affected_tests.sh --print 2>&1)
  for p in "$@"; do
    if ! grep -qF -- "$p" <<<"$out"; then
      echo "FAIL: $what: no '$p' in: $out"
      fail=1
      return
    fi
  done
  echo "ok   $what: $out"
}
out=$(bash test/affected_tests.sh --print 2>&1)
if grep -q "nothing to test" <<<"$out"; then echo "ok   no change: nothing to test"; else echo "FAIL: no change gave: $out"; fail=1; fi
echo changed >>kernel/lib/a.cc
expect "a source file in a package's subfolder" "rdeps(//..., set(//kernel:lib/a.cc))" "except attr(tags, 'manual'"
echo new >net/udp/tests/new.cc
expect "an untracked file too" "//kernel:lib/a.cc" "//net/udp:tests/new.cc"
git checkout -q -- . && rm -f net/udp/tests/new.cc
echo '# x' >>net/udp/BUILD.bazel
expect "a BUILD file: its package" "set(//net/udp:all)"
git checkout -q -- .
echo x >>defs.bzl
expect "a .bzl file: everything" "tests(//...)"
git checkout -q -- .
echo x >>toolchain/flags.txt
expect "a toolchain file: everything" "tests(//...)"
git checkout -q -- .
git rm -q net/udp/tests/b.cc
expect "a deleted file: its package" "set(//net/udp:all)"
exit $fail
