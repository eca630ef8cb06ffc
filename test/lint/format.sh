#!/bin/bash
# Formats the whole tree in place with the pinned tools:
#   bazel run //test/lint:format
set -euo pipefail
clang_format=$(readlink -f "$1")
buildifier=$(readlink -f "$2")
cd "${BUILD_WORKSPACE_DIRECTORY:?run me with bazel run //test/lint:format}"
git ls-files -z -- '*.c' '*.cc' '*.h' | xargs -0 -r "$clang_format" --style=file -i
git ls-files -z -- 'WORKSPACE' '*BUILD.bazel' '*.bzl' 'toolchain/repositories/BUILD.*' |
  xargs -0 -r "$buildifier" -mode=fix
echo "formatted; review with git diff"
