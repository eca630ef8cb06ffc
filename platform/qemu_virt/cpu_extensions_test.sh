#!/bin/bash
# The ISA pinned for QEMU in toolchain/flags.bzl (BOARD_ISA) is what QEMU's
# CPU model really has: read from the device tree QEMU generates for the
# machine and CPU run_qemu.sh starts, not assumed. Every extension the
# kernel is compiled for (KERNEL_EXTENSIONS) must be there, or an image
# would stop at its first such instruction with an illegal-instruction trap.
#   cpu_extensions_test.sh RUN_QEMU DTC PINNED_ISA EXTENSION...
set -euo pipefail
run_qemu=$1 dtc=$2 pinned=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$run_qemu" --dump-dtb "$tmp/virt.dtb" 2>"$tmp/qemu.err" || {
  cat "$tmp/qemu.err"
  echo "FAIL: run_qemu.sh --dump-dtb did not produce QEMU's device tree"
  exit 1
}
"$dtc" -q -I dtb -O dts "$tmp/virt.dtb" >"$tmp/virt.dts"
mapfile -t isas < <(sed -n 's/.*riscv,isa = "\([^"]*\)";.*/\1/p' "$tmp/virt.dts")
if [[ ${#isas[@]} -eq 0 ]]; then
  echo "FAIL: no riscv,isa in QEMU's device tree"
  exit 1
fi
bad=0
for isa in "${isas[@]}"; do
  echo "QEMU's CPU: $isa"
  if [[ "$isa" != "$pinned" ]]; then
    echo "FAIL: toolchain/flags.bzl pins BOARD_ISA[\"qemu_virt\"] = $pinned, QEMU's CPU has $isa."
    echo "  Fix: set the pin to what QEMU has, and check the kernel's extensions still fit."
    bad=1
  fi
  IFS=_ read -r -a have <<<"${isa#rv64}"
  for ext in "$@"; do
    found=0
    for h in "${have[@]:1}"; do [[ "$h" == "$ext" ]] && found=1; done
    if [[ $found -eq 0 ]]; then
      echo "FAIL: the kernel is compiled for $ext, which QEMU's CPU ($isa) does not have"
      bad=1
    fi
  done
done
[[ $bad -eq 0 ]] && echo "PASS: QEMU's CPU has the pinned ISA and the kernel's extensions ($*)"
exit $bad
