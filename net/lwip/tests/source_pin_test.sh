#!/bin/bash
# The lwIP source fetch (toolchain/repositories/debian_source.bzl) refuses a
# wrong pin and explains a missing deb-src entry, each with how to fix it; and
# a verified tarball in the shared cache is used without asking apt at all.
# Uses the real repository rule in a scratch workspace, like
# toolchain/tests/pin_mismatch_test.sh does for the .deb packages.
set -uo pipefail
source toolchain/tests/nested_bazel.sh

ws="$TEST_TMPDIR/src_ws"
mkdir -p "$ws"
good_sha=83729c274c499d3348e9fbbe043a3113f3fa8953e7efddc7c21c7fcbb1f2b7b1
bad_sha=0000000000000000000000000000000000000000000000000000000000000000
cat >"$ws/WORKSPACE" <<WS
workspace(name = "src_pin_test")
local_repository(name = "starling", path = "$NESTED_WORKSPACE")
load("@starling//toolchain/repositories:debian_source.bzl", "debian_source")
debian_source(
    name = "wrong_sha",
    package = "lwip",
    version = "2.2.1+dfsg1-1+deb13u1",
    sha256 = "$bad_sha",
    build_file = "@starling//toolchain/repositories:BUILD.lwip",
)
debian_source(
    name = "wrong_version",
    package = "lwip",
    version = "2.2.1+dfsg1-1",
    sha256 = "$good_sha",
    build_file = "@starling//toolchain/repositories:BUILD.lwip",
)
debian_source(
    name = "no_deb_src",
    package = "lwip",
    version = "2.2.1+dfsg1-1+deb13u1",
    sha256 = "$good_sha",
    build_file = "@starling//toolchain/repositories:BUILD.lwip",
)
debian_source(
    name = "no_trixie_src",
    package = "lwip",
    version = "2.2.1+dfsg1-1+deb13u1",
    sha256 = "$good_sha",
    build_file = "@starling//toolchain/repositories:BUILD.lwip",
)
debian_source(
    name = "cached",
    package = "lwip",
    version = "2.2.1+dfsg1-1+deb13u1",
    sha256 = "$good_sha",
    build_file = "@starling//toolchain/repositories:BUILD.lwip",
)
WS
touch "$ws/BUILD.bazel"

# An apt configuration with no sources at all (so no deb-src entry), and no
# cache files written anywhere: what a machine looks like before setup.sh.
touch "$TEST_TMPDIR/empty.list"
cat >"$TEST_TMPDIR/no_sources.conf" <<CONF
Dir::Etc::sourcelist "$TEST_TMPDIR/empty.list";
Dir::Etc::sourceparts "$TEST_TMPDIR/no_sources.d";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CONF
mkdir -p "$TEST_TMPDIR/empty_cache"

fail=0
real_cache="--repo_env=STARLING_DEB_CACHE=$(_deb_cache)"
empty_cache="--repo_env=STARLING_DEB_CACHE=$TEST_TMPDIR/empty_cache"
no_sources="--repo_env=APT_CONFIG=$TEST_TMPDIR/no_sources.conf"

# The archive's bytes do not match the pin (the cached tarball does not match
# either, so apt is asked): expected vs found, and where the pin lives.
expect_refusal "$ws" wrong_sha "$real_cache" -- \
  "sha256 mismatch for lwip_2.2.1+dfsg1.orig.tar.xz" \
  "expected: $bad_sha" "found:    $good_sha" "toolchain/pins.bzl"

# A version Debian does not serve.
expect_refusal "$ws" wrong_version "$empty_cache" -- \
  "apt-get source --download-only lwip=2.2.1+dfsg1-1" \
  "toolchain/pins.bzl" "apt-cache showsrc lwip"

# No deb-src entry (and nothing cached): says so and points at setup.sh.
expect_refusal "$ws" no_deb_src "$empty_cache" "$no_sources" -- \
  "apt has no deb-src entry" "You must put some 'deb-src' URIs" "sudo ./setup.sh"

# The machine's apt sources without setup.sh's Debian 13 source index
# (Debian 12's deb-src entries only): lwIP 2.2.1 is not offered, and the fix
# names that index.
mkdir -p "$TEST_TMPDIR/bookworm_only.d"
for part in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [[ -f $part && ${part##*/} != starling-trixie-src.sources ]] && cp "$part" "$TEST_TMPDIR/bookworm_only.d/"
done
main_list=/etc/apt/sources.list
[[ -f $main_list ]] || main_list="$TEST_TMPDIR/empty.list"
cat >"$TEST_TMPDIR/bookworm_only.conf" <<CONF
Dir::Etc::sourcelist "$main_list";
Dir::Etc::sourceparts "$TEST_TMPDIR/bookworm_only.d";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CONF
expect_refusal "$ws" no_trixie_src "$empty_cache" \
  "--repo_env=APT_CONFIG=$TEST_TMPDIR/bookworm_only.conf" -- \
  "apt's source lists do not offer lwip=2.2.1+dfsg1-1+deb13u1" \
  "Debian 13" "starling-trixie-src.sources" "sudo ./setup.sh"

# A fresh output base with the tarball in the shared cache fetches nothing:
# it succeeds even though apt has no sources at all.
if scratch_sync "$ws" cached "$real_cache" "$no_sources" &&
    [[ -f "$ws.output_base/external/cached/src/core/memp.c" ]]; then
  echo "ok   @cached extracted from the shared cache without apt"
else
  echo "FAIL: @cached was not served from the cache ($(_deb_cache)):"
  grep -A16 'ERROR' "$TEST_TMPDIR/cached.log" | head -30
  fail=1
fi
exit $fail
