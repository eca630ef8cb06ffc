#!/bin/bash
# Writes compile_commands.json at the workspace root for clangd, from Bazel's
# action graph (aquery): riscv64 flags for the kernel, host flags for tests.
#   bazel run //toolchain/editor:compile_commands
set -euo pipefail
converter=$(readlink -f toolchain/editor/compile_commands.py)
cd "${BUILD_WORKSPACE_DIRECTORY:?run me with bazel run //toolchain/editor:compile_commands}"
start=$(date +%s%N)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Generated headers and the external repositories must exist for clangd to
# open them: build first (cheap when up to date).
targets='//apps/... + //kernel/... + //drivers/... + //platform/... + //test/... + //bench/...'
echo "compile_commands: building, then reading the action graph..." >&2
bazel build --config=qemu --keep_going //apps/... //kernel/... //drivers/... //platform/... >&2 || true
bazel aquery --config=qemu --output=jsonproto "mnemonic('CppCompile', deps($targets))" \
  >"$tmp/riscv64.json" 2>"$tmp/riscv64.log" || { cat "$tmp/riscv64.log" >&2; exit 1; }
bazel aquery --output=jsonproto "mnemonic('CppCompile', deps($targets))" \
  >"$tmp/host.json" 2>"$tmp/host.log" || { cat "$tmp/host.log" >&2; exit 1; }
python3 "$converter" "$(bazel info execution_root 2>/dev/null)" compile_commands.json \
  "$tmp/riscv64.json" "$tmp/host.json"
echo "compile_commands: wrote $PWD/compile_commands.json in $(( ($(date +%s%N) - start) / 1000000 )) ms" >&2
