#!/bin/bash
# The clang version check accepts each pinned clang as its own version and
# refuses any other.
#   clang_version_check_test.sh CHECK_SCRIPT PINNED_CLANG19 PINNED_CLANG22
set -uo pipefail
check=$1
pinned=$2
pinned22=$3
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail=0

# 1. Each pinned clang passes as itself, and is refused as the other.
if ! out=$(sh "$check" "$pinned" 19.1.7 2>&1); then
  echo "FAIL: the pinned clang 19 was refused: $out"
  fail=1
fi
if ! out=$(sh "$check" "$pinned22" 22.1.8 2>&1); then
  echo "FAIL: the pinned clang 22 was refused: $out"
  fail=1
fi
if out=$(sh "$check" "$pinned22" 19.1.7 2>&1) || ! grep -qF "expected clang 19.1.7, found 22.1.8" <<<"$out"; then
  echo "FAIL: the real clang 22 passed for 19.1.7 (or the message is wrong): $out"
  fail=1
fi
if out=$(sh "$check" "$pinned" 22.1.8 2>&1) || ! grep -qF "expected clang 22.1.8, found 19.1.7" <<<"$out"; then
  echo "FAIL: the real clang 19 passed for 22.1.8 (or the message is wrong): $out"
  fail=1
fi

# 2. clang 22 (what Debian 12's security suite serves as clang-22) is refused,
#    with a message that names both versions and the way to update the pin.
cat >"$tmp/clang-22" <<'FAKE'
#!/bin/sh
echo "Debian clang version 22.1.8 (1~deb12u1)"
echo "Target: x86_64-pc-linux-gnu"
echo "Thread model: posix"
echo "InstalledDir: /usr/lib/llvm-22/bin"
FAKE
chmod +x "$tmp/clang-22"
if out=$(sh "$check" "$tmp/clang-22" 19.1.7 2>&1); then
  echo "FAIL: clang 22 was accepted"
  fail=1
fi
for want in "expected clang 19.1.7, found 22.1.8" "toolchain/pins.bzl" "Debian clang version 22.1.8"; do
  if ! grep -qF "$want" <<<"$out"; then
    echo "FAIL: refusal message lacks '$want'; it was:"
    echo "$out"
    fail=1
  fi
done

# 3. A patch-level difference is another compiler too.
printf '#!/bin/sh\necho "clang version 19.1.6"\n' >"$tmp/clang-19.1.6"
chmod +x "$tmp/clang-19.1.6"
if sh "$check" "$tmp/clang-19.1.6" 19.1.7 >/dev/null 2>&1; then
  echo "FAIL: clang 19.1.6 was accepted"
  fail=1
fi

# 4. Something that is not a clang at all.
if out=$(sh "$check" "$tmp/does-not-exist" 19.1.7 2>&1); then
  echo "FAIL: a missing clang was accepted"
  fail=1
fi

[[ $fail -eq 0 ]] && echo "PASS: both pinned clangs accepted as themselves and refused as each other; a fake 22.1.8, 19.1.6 and a missing binary refused"
exit $fail
