#!/bin/bash
# The satp write that turns the MMU on sits between two sfence.vma, in the
# instructions the compiler emitted (kernel/boot/paging.cc says why: the
# first orders the page-table stores before the walker's reads, the second
# drops translations cached before; Linux fences on both sides too).
#   paging_fence_test.sh LLVM_OBJDUMP IMAGE_FILES...   (the .elf is used)
set -uo pipefail
objdump=$1
shift
elf=""
for f in "$@"; do [[ "$f" == *.elf ]] && elf=$f; done
if [[ -z "$elf" ]]; then
  echo "FAIL: no .elf among the image files"
  exit 1
fi
# The function's instructions, one mnemonic and its operands a line.
body=$("$objdump" -d --no-show-raw-insn "$elf" |
  awk '/^[0-9a-f]+ <.*enable_paging.*>:$/ {p=1; next} p && /^$/ {p=0} p' |
  sed -E 's/^ *[0-9a-f]+: *//')
if [[ -z "$body" ]]; then
  echo "FAIL: no function named like enable_paging in $elf"
  exit 1
fi
# Fences and satp writes in order, as one line: must read "F S F".
order=$(echo "$body" | awk '
  $1 == "sfence.vma" { printf "F " }
  $1 == "csrw" && $2 ~ /^satp,/ { printf "S " }
  $1 == "csrrw" && $2 ~ /satp/ { printf "S " }')
echo "enable_paging: fences (F) and satp writes (S) in order: ${order}"
if [[ "$order" != "F S F " ]]; then
  echo "FAIL: expected one satp write with an sfence.vma before and after it"
  echo "$body" | grep -nE 'sfence|satp'
  exit 1
fi
