# Starling %{APP} for %{BOARD}: the script U-Boot's distro boot runs from the
# card's boot partition (boot.scr is this file wrapped by `mkimage -T script`).
# Distro boot sets devtype, devnum, distro_bootpart and prefix; it looks for
# boot.scr in / before /boot/, so this script runs before the fallback
# /boot/extlinux/extlinux.conf.
#
# The kernel command line comes from uEnv.txt (one line `bootargs=...`, the
# file a user edits). Only that variable is imported (-r: CR LF line ends
# from a Windows editor are fine), so nothing else in U-Boot's environment
# changes. A missing or empty bootargs= line stops the boot: booting with
# the wrong address is worse than not booting.
#
# Boot files (docs/boot-files.md): when the partition holds %{BOOT_FILES}, a
# cpio archive (an HTTPS server's certificate and key, say), it is loaded at
# ${ramdisk_addr_r} and given to bootm as a raw initrd (ADDR:SIZE), and
# bootm writes /chosen/linux,initrd-start and -end into the device tree
# the kernel gets. Without the file the boot is the same, with no initrd.
#
# No apostrophes in the commands: U-Boot 2023.01's hush reads one inside
# double quotes as a quote of its own, a syntax error that can crash it.
echo "Starling: boot.scr: %{APP} for %{BOARD} from ${devtype} ${devnum}:${distro_bootpart}"
setenv bootargs
if load ${devtype} ${devnum}:${distro_bootpart} ${scriptaddr} ${prefix}uEnv.txt; then
  env import -t -r ${scriptaddr} ${filesize} bootargs
else
  echo "Starling: cannot read ${prefix}uEnv.txt on ${devtype} ${devnum}:${distro_bootpart}"
fi
if env exists bootargs; then
  echo "Starling: bootargs ${bootargs}"
  if load ${devtype} ${devnum}:${distro_bootpart} %{FIT_ADDRESS} ${prefix}%{FIT}; then
    setenv starling_initrd -
    if test -e ${devtype} ${devnum}:${distro_bootpart} ${prefix}%{BOOT_FILES}; then
      if load ${devtype} ${devnum}:${distro_bootpart} ${ramdisk_addr_r} ${prefix}%{BOOT_FILES}; then
        setenv starling_initrd ${ramdisk_addr_r}:${filesize}
        echo "Starling: boot files ${prefix}%{BOOT_FILES}: 0x${filesize} bytes at ${ramdisk_addr_r}, passed as the initrd"
      else
        setenv starling_initrd failed
        echo "Starling: FAIL ${prefix}%{BOOT_FILES} unreadable on ${devtype} ${devnum}:${distro_bootpart}; fix: copy it to the card again, or delete it"
      fi
    else
      echo "Starling: boot files: none (no ${prefix}%{BOOT_FILES} on ${devtype} ${devnum}:${distro_bootpart})"
    fi
    if test "${starling_initrd}" = -; then
      bootm %{FIT_ADDRESS} - ${fdtcontroladdr}
      echo "Starling: FAIL ${prefix}%{FIT}: bootm refused it (U-Boot says why above); fix: write the card again"
    elif test "${starling_initrd}" != failed; then
      bootm %{FIT_ADDRESS} ${starling_initrd} ${fdtcontroladdr}
      echo "Starling: FAIL ${prefix}%{FIT} with ${prefix}%{BOOT_FILES}: bootm refused them (U-Boot says why above); fix: write the card again, or delete %{BOOT_FILES} to boot without it"
    fi
  else
    echo "Starling: FAIL ${prefix}%{FIT} missing on ${devtype} ${devnum}:${distro_bootpart}; fix: write the card again"
  fi
else
  echo "Starling: FAIL ${prefix}uEnv.txt: no bootargs= line with a value; fix: a line like bootargs=ip=dhcp (see README.txt)"
fi
# Reached only when the boot failed: the extlinux.conf fallback would boot
# without these arguments, so it is switched off for this boot.
setenv boot_syslinux_conf starling-boot-failed
