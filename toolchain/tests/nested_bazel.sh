# Sourced by the toolchain tests that run a Bazel of their own on this
# workspace, in a fresh output base under $TEST_TMPDIR.
#
#   nested_bazel NAME [--reuse-repositories] [--no-disk-cache] COMMAND ARGS...
#
# NAME picks the output base ($TEST_TMPDIR/NAME). With --reuse-repositories the
# pinned repositories the outer build already fetched are reused (fast: for
# tests of flags and headers); without it everything is fetched from scratch
# (for the reproducibility test). Output goes to $TEST_TMPDIR/NAME.log.

: "${TEST_SRCDIR:?run me with bazel test}"
: "${TEST_TMPDIR:?run me with bazel test}"

# The workspace: where the WORKSPACE file in our runfiles really lives.
NESTED_WORKSPACE=$(dirname "$(readlink -f "$TEST_SRCDIR/starling/WORKSPACE")")

# The outer output base's external/ directory, from a file of @starling_llvm.
_outer_external() {
  local clang
  clang=$(readlink -f "$TEST_SRCDIR/starling_llvm/usr/lib/llvm-19/bin/clang")
  echo "${clang%%/external/starling_llvm/*}/external"
}

# Bazel sets HOME to $TEST_TMPDIR for tests: the user's real home.
_real_home() {
  getent passwd "$(id -u)" | cut -d: -f6
}

# The user's deb cache, so fresh output bases do not download the toolchain
# again.
_deb_cache() {
  if [[ -n "${STARLING_DEB_CACHE:-}" ]]; then
    echo "$STARLING_DEB_CACHE"
  else
    echo "$(_real_home)/.cache/starling/debs"
  fi
}

# The disk cache the outer build fills (.bazelrc: ~/.cache/starling/bazel-disk):
# a nested build of the same sources takes the outer build's outputs from it
# and runs only the actions its changes touch.
outer_disk_cache() {
  echo "$(_real_home)/.cache/starling/bazel-disk"
}

# The --override_repository flags that let a nested Bazel reuse the pinned
# repositories the outer build already fetched (one per line; only those
# fetched: the nested one fetches the rest).
reuse_repository_flags() {
  local ext repo
  ext=$(_outer_external)
  for repo in starling_llvm starling_llvm22 picolibc googletest uboot_tools dtc mtools promtool lwip mbedtls http_parser libfdt buildifier; do
    [[ -d "$ext/$repo" ]] && echo "--override_repository=$repo=$ext/$repo"
  done
  return 0
}

# A scratch copy of the workspace's files (git's tracked and untracked but
# not ignored ones; everything outside bazel-* without git) in DIR, for a
# test that breaks something on purpose and shows a check catch it.
#   scratch_copy DIR
scratch_copy() {
  mkdir -p "$1"
  (cd "$NESTED_WORKSPACE" && git ls-files -z --cached --others --exclude-standard 2>/dev/null ||
    find . -path ./bazel-\* -prune -o -type f -print0) |
    (cd "$NESTED_WORKSPACE" && xargs -0 cp --parents -t "$1")
}

#   nested_bazel NAME [--reuse-repositories] [--no-disk-cache] COMMAND ARGS...
# --no-disk-cache: every action runs here (a build that must really compile,
# such as the reproducibility test's); otherwise the outer build's disk cache
# serves what it already built.
nested_bazel() {
  local name=$1
  shift
  local repo_flags=() cache_flags=("--disk_cache=$(outer_disk_cache)")
  while [[ "${1:-}" == --* ]]; do
    case $1 in
      --reuse-repositories) mapfile -t repo_flags < <(reuse_repository_flags) ;;
      --no-disk-cache) cache_flags=("--disk_cache=") ;;
      *) break ;;
    esac
    shift
  done
  local command=$1
  shift
  # query and aquery run no actions: no cache flags (query does not take them).
  [[ $command == build || $command == run || $command == test ]] || cache_flags=()
  # NESTED_BAZEL_SERVER=1: one Bazel server per output base for several
  # commands (packages loaded once, no JVM start per command), shut down by
  # _nested_cleanup; otherwise --batch, a server per command.
  local startup=(--batch)
  [[ ${NESTED_BAZEL_SERVER:-} == 1 ]] && startup=(--max_idle_secs=300)
  (
    cd "$NESTED_WORKSPACE" &&
      env -u TEST_TMPDIR bazel "${startup[@]}" --output_base="$TEST_TMPDIR/$name" \
        "$command" --symlink_prefix=/ --color=no --curses=no --noshow_progress \
        --repo_env=STARLING_DEB_CACHE="$(_deb_cache)" \
        "${cache_flags[@]}" "${repo_flags[@]}" "$@"
  ) >"$TEST_TMPDIR/$name.out" 2>"$TEST_TMPDIR/$name.log"
}

# Repository-rule tests: `bazel sync` of one repository of a scratch
# workspace ($1, whose WORKSPACE declares it) in its own output base
# ($1.output_base), with extra flags such as --repo_env=...; messages go to
# $TEST_TMPDIR/REPO.log. One Bazel server per scratch workspace serves all of
# a test's syncs (a JVM start and the WORKSPACE's loading once, not per
# sync: 5 core-seconds each); _nested_cleanup shuts it down.
#   scratch_sync WORKSPACE_DIR REPO [FLAG]...
_SCRATCH_WORKSPACES=()
scratch_sync() {
  local ws=$1 repo=$2
  shift 2
  [[ " ${_SCRATCH_WORKSPACES[*]} " == *" $ws "* ]] || _SCRATCH_WORKSPACES+=("$ws")
  (cd "$ws" && env -u TEST_TMPDIR bazel --max_idle_secs=120 --output_base="$ws.output_base" \
    --bazelrc=/dev/null sync --only="$repo" --color=no --curses=no "$@") \
    >"$TEST_TMPDIR/$repo.log" 2>&1
}

# The fetch of REPO must fail, and its message contain every PATTERN (fixed
# strings); prints the message. Sets fail=1 otherwise.
#   expect_refusal WORKSPACE_DIR REPO [FLAG]... -- PATTERN...
expect_refusal() {
  local ws=$1 repo=$2
  shift 2
  local flags=()
  while [[ $1 != -- ]]; do flags+=("$1"); shift; done
  shift
  if scratch_sync "$ws" "$repo" "${flags[@]}"; then
    echo "FAIL: @$repo was fetched despite its wrong pin or missing source"
    fail=1
    return
  fi
  local pattern
  for pattern in "$@"; do
    if ! grep -qF -- "$pattern" "$TEST_TMPDIR/$repo.log"; then
      echo "FAIL: @$repo's error lacks '$pattern':"
      grep -A16 'ERROR' "$TEST_TMPDIR/$repo.log" | head -30
      fail=1
      return
    fi
  done
  echo "ok   @$repo refused; the message:"
  awk '/Error in fail:/ { on = 1 } on && /^ERROR/ { exit } on { print "       " $0 }' "$TEST_TMPDIR/$repo.log"
}

# Nested output bases hold read-only trees (extracted packages) and run to
# hundreds of megabytes: remove them when the test ends, pass or fail.
_nested_cleanup() {
  local dir ws
  # scratch_sync's servers: shut down from their own workspace.
  for ws in "${_SCRATCH_WORKSPACES[@]}"; do
    (cd "$ws" && env -u TEST_TMPDIR bazel --output_base="$ws.output_base" --bazelrc=/dev/null shutdown) \
      >/dev/null 2>&1
  done
  for dir in "$TEST_TMPDIR"/*/; do
    [[ -f "$dir/DO_NOT_BUILD_HERE" || -d "$dir/execroot" ]] || continue
    # A server left by NESTED_BAZEL_SERVER=1 holds its output base.
    if [[ -e "$dir/server/server.pid.txt" ]]; then
      (cd "$NESTED_WORKSPACE" && env -u TEST_TMPDIR bazel --output_base="$dir" shutdown) >/dev/null 2>&1
    fi
    chmod -R u+w "$dir" 2>/dev/null
    rm -rf "$dir"
  done
}
trap _nested_cleanup EXIT
