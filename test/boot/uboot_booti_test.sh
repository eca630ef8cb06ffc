#!/bin/bash
# Runs uboot_booti_test.exp on hello's QEMU Image with Debian's S-mode U-Boot.
set -euo pipefail
uboot=/usr/lib/u-boot/qemu-riscv64_smode/u-boot.bin
if [[ ! -f $uboot ]]; then
  echo "FAIL: $uboot missing. Fix: sudo ./setup.sh (installs u-boot-qemu)."
  exit 1
fi
command -v expect >/dev/null || { echo "FAIL: expect missing. Fix: sudo ./setup.sh"; exit 1; }
image=apps/hello/qemu.Image
exec expect -f test/boot/uboot_booti_test.exp "$uboot" "$image"
