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
# Each file once (the apps share the kernel's objects), and one llvm-readelf
# for all of them (two per file spent a minute and a half starting it 900
# times): its report per file starts "File: PATH".
declare -A seen=()
files=()
for f in "$@"; do
  # Manifests, raw images and launchers next to the ELFs: not ELF files.
  case "$f" in *.objects|*.link_argv|*.Image|*.uImage|*.itb|*.its|*.dtb|*.run.sh) continue ;; esac
  real=$(readlink -f "$f")
  [[ -n ${seen[$real]:-} ]] && continue
  seen[$real]=1
  files+=("$f")
done
report=$(mktemp)
errors=$(mktemp)
trap 'rm -f "$report" "$errors"' EXIT
"$readelf" -h -S -s -W "${files[@]}" >"$report" 2>"$errors" || true
# One line per file read: PATH<TAB>MACHINE<TAB>SMALL SECTIONS<TAB>THEIR SYMBOLS.
summary=$(awk '
  function flush() {
    if (file == "") return
    printf "%s\t%s\t%s\t%s\n", file, machine, small, symbols
  }
  /^File: / { flush(); file = substr($0, 7); machine = ""; small = ""; symbols = ""; delete idx; next }
  /^  Machine:/ { sub(/^  Machine: */, ""); machine = $0; next }
  /^ *\[ *[0-9]+\] / {
    line = $0; sub(/^ *\[ */, "", line); split(line, w, /[] ]+/)
    if (w[2] ~ /^\.(sdata|sbss|srodata)/) { idx[w[1]] = 1; small = small (small == "" ? "" : " ") w[2] }
    next
  }
  /^ *[0-9]+: / && ($7 in idx) && $4 != "SECTION" && $8 != "" { symbols = symbols $8 " " }
  END { flush() }' "$report")
declare -A read_ok=()
while IFS=$'\t' read -r f machine small symbols; do
  [[ -n $f ]] || continue
  read_ok[$f]=1
  if [[ $machine != *RISC-V* ]]; then
    echo "FAIL: $f is not a RISC-V ELF (Machine: $machine)"
    bad=1
  fi
  if [[ -n "$small" ]]; then
    # Which symbols they hold: what moved into gp-relative small data.
    echo "FAIL: $f has small-data sections: $small; symbols in them: ${symbols:-none named}"
    bad=1
  fi
  checked=$((checked + 1))
done <<<"$summary"
for f in "${files[@]}"; do
  if [[ -z ${read_ok[$f]:-} ]]; then
    echo "FAIL: $f is not an ELF file: $(grep -F "$f" "$errors" | head -1)"
    bad=1
  fi
done
echo "checked $checked riscv64 objects and images for small-data sections"
if [[ $checked -lt 4 ]]; then
  echo "FAIL: expected objects and images to check, found $checked"
  exit 1
fi
exit $bad
