#!/bin/bash
# A pin that does not match what the archive serves fails the fetch with a
# message showing expected vs found and how to update toolchain/pins.bzl.
# Uses the real repository rule (debian_packages) in a scratch workspace, on
# googletest (the smallest pinned package).
set -uo pipefail
source toolchain/tests/nested_bazel.sh

ws="$TEST_TMPDIR/pin_ws"
mkdir -p "$ws"
good_sha=927be72067517da503b6538026d451455c9e860f5dbfe237f792543db7d5a928
bad_sha=0000000000000000000000000000000000000000000000000000000000000000
cat >"$ws/WORKSPACE" <<WS
workspace(name = "pin_test")
local_repository(name = "starling", path = "$NESTED_WORKSPACE")
load("@starling//toolchain/repositories:debian_packages.bzl", "debian_packages")
debian_packages(
    name = "wrong_sha",
    packages = {"googletest": "1.12.1-0.2 $bad_sha"},
    arch_all = ["googletest"],
    build_file = "@starling//toolchain/repositories:BUILD.uboot_tools",
)
debian_packages(
    name = "wrong_version",
    packages = {"googletest": "1.12.1-0.1 $good_sha"},
    arch_all = ["googletest"],
    build_file = "@starling//toolchain/repositories:BUILD.uboot_tools",
)
WS
touch "$ws/BUILD.bazel"

fail=0
expect_refusal() {  # expect_refusal REPO PATTERN...
  local repo=$1
  shift
  if (cd "$ws" && env -u TEST_TMPDIR bazel --batch --output_base="$TEST_TMPDIR/pin_ob" \
        --bazelrc=/dev/null sync --only="$repo" --color=no --curses=no \
        --repo_env=STARLING_DEB_CACHE="$(_deb_cache)") >"$TEST_TMPDIR/$repo.log" 2>&1; then
    echo "FAIL: @$repo was fetched despite its wrong pin"
    fail=1
    return
  fi
  for pattern in "$@"; do
    if ! grep -qF -- "$pattern" "$TEST_TMPDIR/$repo.log"; then
      echo "FAIL: @$repo's error lacks '$pattern':"
      grep -A12 'ERROR' "$TEST_TMPDIR/$repo.log" | head -30
      fail=1
      return
    fi
  done
  echo "ok   @$repo refused; the message:"
  awk '/Error in fail:/ { on = 1 } on && /^ERROR/ { exit } on { print "       " $0 }' "$TEST_TMPDIR/$repo.log"
}

expect_refusal wrong_sha "sha256 mismatch for googletest 1.12.1-0.2" \
  "expected: $bad_sha" "found:    $good_sha" "toolchain/pins.bzl"
expect_refusal wrong_version "apt-get download googletest=1.12.1-0.1" \
  "toolchain/pins.bzl" "apt-cache policy googletest"
exit $fail
