#!/bin/bash
# QEMU waits for a debugger (run_qemu.sh --gdb); gdb-multiarch attaches in
# batch mode with the image's symbols, breaks at the kernel's entry (the
# Image header, where OpenSBI jumps), checks it is hit with a0 = hart 0 and
# a1 = the device tree, steps into _start, then lets the kernel run to main.
#   gdb_attach_test.sh LAUNCHER ELF
set -uo pipefail
launcher=$1 elf=$2
out_dir=${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-$(mktemp -d)}}
tmp=${TEST_TMPDIR:-$(mktemp -d)}
command -v gdb-multiarch >/dev/null || { echo "FAIL: gdb-multiarch missing. Fix: sudo ./setup.sh"; exit 1; }

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=""
for try in $(shuf -i 20000-60000 -n 20); do
  if port_free "$try"; then port=$try; break; fi
done
[[ -n $port ]] || { echo "FAIL: no free loopback port found"; exit 1; }

"$launcher" --timeout 60 --gdb="$port" </dev/null >"$out_dir/console.log" 2>&1 &
qemu=$!
for _ in $(seq 100); do
  port_free "$port" || break
  sleep 0.1
done

transcript="$out_dir/gdb_transcript.txt"
timeout 60 gdb-multiarch -nx -batch \
  -ex "set pagination off" \
  -ex "set confirm off" \
  -ex "file $elf" \
  -ex "target remote 127.0.0.1:$port" \
  -ex "break __image_header" \
  -ex "continue" \
  -ex "printf \"entry pc=%#lx a0=%#lx a1=%#lx\\n\", \$pc, \$a0, \$a1" \
  -ex "stepi" \
  -ex "printf \"after the header's jump: pc=%#lx\\n\", \$pc" \
  -ex "info symbol \$pc" \
  -ex "break starling_app_main" \
  -ex "continue" \
  -ex "bt" \
  -ex "kill" >"$transcript" 2>&1
gdb_code=$?
wait "$qemu" 2>/dev/null
echo "--- gdb transcript ---"
cat "$transcript"
echo "---"

fail=0
expect() {
  if grep -qE -- "$1" "$transcript"; then echo "ok   $2"; else echo "FAIL: $2 (no match for /$1/)"; fail=1; fi
}
[[ $gdb_code -eq 0 ]] || { echo "FAIL: gdb-multiarch exited $gdb_code"; fail=1; }
expect "Breakpoint 1 at 0x80200000" "breakpoint set at the kernel's entry (0x80200000) from the ELF's symbols"
expect "Breakpoint 1, 0x0*80200000 in __image_header" "breakpoint at the entry hit"
expect "entry pc=0x80200000 a0=0 a1=0x8" "entered with a0 = hart 0 and a1 = a device tree in RAM"
expect "^_start in section \\.text" "the header's first instruction jumps to _start"
expect "Breakpoint 2, .*starling_app_main" "the kernel ran on to the application"
expect "#1 .* in starling_kernel_start" "backtrace through the kernel's C++ entry"
exit $fail
