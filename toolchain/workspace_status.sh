#!/bin/bash
# Bazel's --workspace_status_command (.bazelrc): prints one stable key, a
# digest of every file of the checkout (git's tracked and untracked but not
# ignored files, their names and contents; every file outside bazel-* and
# .git without git). //:workspace_digest writes it to a file.
#
# Why: the tests that run a nested Bazel or read the whole checkout (the
# toolchain tests, the lint tests, the cost gate's failure test) read far more
# than Bazel can be told of file by file. Depending on //:workspace_digest,
# they run again whenever any file of the checkout changes, and are cached
# when nothing did (a no-change `bazel test //...` reruns nothing).
# Costs about a tenth of a second per Bazel command on this checkout.
set -uo pipefail
list() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard
  else
    find . \( -path './bazel-*' -o -path ./.git \) -prune -o -type f -print0
  fi
}
# Tracked files deleted in the work tree are left out (sha256sum's error
# silenced): their absence changes the digest all the same.
digest=$(list | LC_ALL=C sort -z | xargs -0 -r sha256sum 2>/dev/null | sha256sum | cut -c1-64)
echo "STABLE_STARLING_WORKSPACE_DIGEST $digest"
