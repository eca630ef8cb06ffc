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
    bootm %{FIT_ADDRESS} - ${fdtcontroladdr}
    echo "Starling: FAIL ${prefix}%{FIT}: bootm refused it (U-Boot says why above); fix: write the card again"
  else
    echo "Starling: FAIL ${prefix}%{FIT} missing on ${devtype} ${devnum}:${distro_bootpart}; fix: write the card again"
  fi
else
  echo "Starling: FAIL ${prefix}uEnv.txt: no bootargs= line with a value; fix: a line like bootargs=ip=dhcp (see README.txt)"
fi
# Reached only when the boot failed: the extlinux.conf fallback would boot
# without these arguments, so it is switched off for this boot.
setenv boot_syslinux_conf starling-boot-failed
