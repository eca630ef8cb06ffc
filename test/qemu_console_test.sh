#!/bin/bash
# Boots a test image in QEMU and checks its console log and exit code.
#
#   qemu_console_test.sh --launcher LAUNCHER --exit-code N [OPTION]...
#     --expect LINE             LINE must appear in the console (fixed string)
#     --expect-re REGEX         a line must match REGEX (grep -E)
#     --reject LINE             LINE must not appear
#     --send-after READY TEXT   once READY appears, type TEXT (printf %b escapes)
#                               into the guest's serial input (--serial-stdio)
#     --qemu-arg ARG            passed to QEMU (repeatable)
#     --nm NM                   llvm-nm, for --frame
#     --frame I:SYMBOL          the panic backtrace's frame #I (or "any" frame,
#                               or "ra": its ra line, a leaf function's caller)
#                               lies inside function SYMBOL of the image's ELF
#     --frame-prefix PREFIX     whose backtrace lines --frame reads (default
#                               'PANIC: '; the stall detector's: 'STALL: ')
#     --timeout SECONDS         bound on the whole boot (default 30)
set -uo pipefail

launcher="" want_code="" nm="" timeout_s=30 ready="" send="" frame_prefix="PANIC: "
expects=() expect_res=() rejects=() qemu_args=() frames=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --launcher) launcher=$2; shift 2 ;;
    --exit-code) want_code=$2; shift 2 ;;
    --expect) expects+=("$2"); shift 2 ;;
    --expect-re) expect_res+=("$2"); shift 2 ;;
    --reject) rejects+=("$2"); shift 2 ;;
    --send-after) ready=$2; send=$3; shift 3 ;;
    --qemu-arg) qemu_args+=("$2"); shift 2 ;;
    --nm) nm=$2; shift 2 ;;
    --frame) frames+=("$2"); shift 2 ;;
    --frame-prefix) frame_prefix=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    *) echo "qemu_console_test.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -n "$launcher" && -n "$want_code" ]] || { echo "--launcher and --exit-code are required" >&2; exit 2; }

out_dir=${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-$(mktemp -d)}}
tmp=${TEST_TMPDIR:-$(mktemp -d)}
log="$out_dir/console.log"
start=$(date +%s%N)
if [[ -n "$ready" ]]; then
  fifo="$tmp/serial_in"
  rm -f "$fifo" && mkfifo "$fifo"
  "$launcher" --timeout "$timeout_s" --serial-stdio -- "${qemu_args[@]}" <"$fifo" >"$log" 2>&1 &
  pid=$!
  exec 3>"$fifo"  # held open until QEMU exits: EOF on the serial would be harmless, but keep it quiet
  for (( i = 0; i < timeout_s * 10; ++i )); do
    grep -qF -- "$ready" "$log" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if grep -qF -- "$ready" "$log"; then
    printf '%b' "$send" >&3
    echo "sent $(printf '%q' "$send") after '$ready'"
  else
    echo "FAIL: never saw '$ready'"
  fi
  wait "$pid"
  code=$?
  exec 3>&-
else
  "$launcher" --timeout "$timeout_s" -- "${qemu_args[@]}" </dev/null >"$log" 2>&1
  code=$?
fi
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "qemu: exit code $code after ${elapsed_ms} ms"

fail=0
if [[ $code -eq 124 ]]; then
  echo "FAIL: QEMU did not shut down within ${timeout_s} s"
  fail=1
elif [[ $code -ne $want_code ]]; then
  echo "FAIL: exit code $code, expected $want_code"
  fail=1
fi
for line in "${expects[@]}"; do
  if ! grep -qF -- "$line" "$log"; then
    echo "FAIL: console output lacks: $line"
    fail=1
  fi
done
for re in "${expect_res[@]}"; do
  if ! grep -qE -- "$re" "$log"; then
    echo "FAIL: no console line matches: $re"
    fail=1
  fi
done
for line in "${rejects[@]}"; do
  if grep -qF -- "$line" "$log"; then
    echo "FAIL: console output has: $line"
    fail=1
  fi
done

# Backtrace frames: "PANIC: #I 0xADDR" lines (or the --frame-prefix's),
# checked against the ELF's symbols.
if [[ ${#frames[@]} -gt 0 ]]; then
  elf="${launcher%.run.sh}.elf"  # image.bzl: <name>.run.sh next to <name>.elf
  symbols=$("$nm" -C --print-size --defined-only "$elf" 2>&1) || { echo "FAIL: llvm-nm: $symbols"; fail=1; }
  for spec in "${frames[@]}"; do
    index=${spec%%:*} symbol=${spec#*:}
    range=$(awk -v s="$symbol" 'NF >= 4 {
        name = $4; for (i = 5; i <= NF; ++i) name = name " " $i
        if (name == s || index(name, "::" s "(") > 0 || index(name, s "(") == 1) { print $1, $2; exit }
      }' <<<"$symbols")
    if [[ -z "$range" ]]; then
      echo "FAIL: no symbol $symbol in $elf"
      fail=1
      continue
    fi
    read -r sym_start sym_size <<<"$range"
    lo=$((16#$sym_start)) hi=$((16#$sym_start + 16#$sym_size))
    found=""
    while read -r frame pc; do
      [[ "$index" == any || "$frame" == "#$index" || "$frame" == "$index" ]] || continue
      value=$((16#${pc#0x}))
      # A return address may sit just past the function's last instruction.
      if (( value >= lo && value <= hi )); then found="$frame $pc"; break; fi
    done < <(tr -d '\r' <"$log" | while IFS= read -r line; do
      [[ "$line" == "$frame_prefix#"* || "$line" == "${frame_prefix}ra "* ]] && echo "${line#"$frame_prefix"}"
    done | sed -n 's/^\(#[0-9]*\|ra\) \(0x[0-9a-f]*\).*/\1 \2/p')
    if [[ -n "$found" ]]; then
      echo "ok   backtrace $found is in $symbol [0x$sym_start, +0x$sym_size]"
    else
      echo "FAIL: no backtrace frame ${index} inside $symbol [0x$sym_start, +0x$sym_size]"
      fail=1
    fi
  done
fi

if [[ $fail -ne 0 ]]; then
  echo "--- console ---"
  cat "$log"
fi
exit $fail
