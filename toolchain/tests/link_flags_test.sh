#!/bin/bash
# Every riscv64 link action carries the pinned target and link flags.
#   link_flags_test.sh FILE...   (the *.link_argv files of board_objects are read)
set -euo pipefail
required=(
  --target=riscv64-unknown-elf
  -march=rv64imac_zicsr_zifencei_zba_zbb
  -mabi=lp64
  -mcmodel=medany
  -fuse-ld=lld
  -nostdlib
  -static
  -Wl,--gc-sections
)
links=0
bad=0
for f in "$@"; do
  [[ "$f" == *.link_argv ]] || continue
  while IFS= read -r line; do
    [[ -n "$line" ]] || continue
    links=$((links + 1))
    read -r -a argv <<<"$line"
    for flag in "${required[@]}"; do
      found=0
      for a in "${argv[@]}"; do [[ "$a" == "$flag" ]] && found=1 && break; done
      if [[ $found -eq 0 ]]; then
        echo "FAIL: link action without $flag: $line"
        bad=1
      fi
    done
    if ! grep -qE -- '(^| )-T ?[^ ]*linker\.ld' <<<"$line"; then
      echo "FAIL: link action without a board linker script: $line"
      bad=1
    fi
  done <"$f"
done
echo "checked $links riscv64 link actions"
[[ $links -ge 2 ]] || { echo "FAIL: expected link actions, found $links"; exit 1; }
exit $bad
