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
cache="--repo_env=STARLING_DEB_CACHE=$(_deb_cache)"
expect_refusal "$ws" wrong_sha "$cache" -- "sha256 mismatch for googletest 1.12.1-0.2" \
  "expected: $bad_sha" "found:    $good_sha" "toolchain/pins.bzl"
expect_refusal "$ws" wrong_version "$cache" -- "apt-get download googletest=1.12.1-0.1" \
  "toolchain/pins.bzl" "apt-cache policy googletest"
exit $fail
