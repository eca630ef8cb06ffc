#!/bin/bash
# No riscv64 object or image may contain a small-data section.
#   no_small_data_test.sh LLVM_READELF FILE...
# FILEs are objects, linked ELFs, and what comes with them (board_objects'
# manifests, an image's raw Image, FIT and launcher), which are skipped. Small-data sections are .sdata/.sbss/.srodata and their
# suffixed variants (.sdata.foo, .srodata.cst8, .sbss.bar, .sdata2, .sbss2...),
# which clang emits below -msmall-data-limit and which gp-relative code needs.
set -euo pipefail
readelf=$1
shift
checked=0
bad=0
for f in "$@"; do
  # Manifests, raw images and launchers next to the ELFs: not ELF files.
  case "$f" in *.objects|*.link_argv|*.Image|*.uImage|*.itb|*.its|*.dtb|*.run.sh) continue ;; esac
  if ! header=$("$readelf" -h "$f" 2>&1); then
    echo "FAIL: $f is not an ELF file: $header"
    bad=1
    continue
  fi
  if ! grep -q 'Machine:.*RISC-V' <<<"$header"; then
    echo "FAIL: $f is not a RISC-V ELF"
    bad=1
  fi
  table=$("$readelf" -S -W "$f" | sed -n 's/^ *\[ *\([0-9]*\)\] \([^ ]*\).*/\1 \2/p')
  small=$(awk '$2 ~ /^\.(sdata|sbss|srodata)/ { print $2 }' <<<"$table")
  if [[ -n "$small" ]]; then
    # Which symbols they hold: what moved into gp-relative small data.
    indices=$(awk '$2 ~ /^\.(sdata|sbss|srodata)/ { printf "%s ", $1 }' <<<"$table")
    symbols=$("$readelf" -s -W "$f" | awk -v idx="$indices" '
      BEGIN { n = split(idx, list, " "); for (i = 1; i <= n; i++) want[list[i]] = 1 }
      $7 in want && $4 != "SECTION" && $8 != "" { printf "%s ", $8 }')
    echo "FAIL: $f has small-data sections: $(echo $small); symbols in them: ${symbols:-none named}"
    bad=1
  fi
  checked=$((checked + 1))
done
echo "checked $checked riscv64 objects and images for small-data sections"
if [[ $checked -lt 4 ]]; then
  echo "FAIL: expected objects and images to check, found $checked"
  exit 1
fi
exit $bad
