# Starling %{APP} for %{BOARD}, booted over the network: U-Boot's distro boot
# (target dhcp) fetches this script as boot.scr.uimg from the TFTP server
# the DHCP answer names, then runs it. It fetches uEnv.txt and %{FIT} from
# the same server and directory.
#
# uEnv.txt: one line `bootargs=...`, the file a user edits; only that
# variable is imported (-r: CR LF line ends are fine). A missing or empty
# bootargs= line stops the boot.
#
# Boot files (docs/boot-files.md): when the server has %{BOOT_FILES} too, it
# is fetched to ${ramdisk_addr_r} and given to bootm as a raw initrd; bootm
# writes /chosen/linux,initrd-start and -end into the kernel's device tree.
# A server without it answers "File not found" and the boot goes on without.
# TFTP has no encryption: a private key in the archive crosses the network
# in the clear.
#
# No apostrophes in the commands: U-Boot 2023.01's hush reads one inside
# double quotes as a quote of its own, a syntax error that can crash it.
echo "Starling: boot.scr.uimg: %{APP} for %{BOARD} from TFTP server ${serverip}"
setenv bootargs
if tftpboot ${scriptaddr} uEnv.txt; then
  env import -t -r ${scriptaddr} ${filesize} bootargs
else
  echo "Starling: cannot fetch uEnv.txt from ${serverip}"
fi
if env exists bootargs; then
  echo "Starling: bootargs ${bootargs}"
  if tftpboot %{FIT_ADDRESS} %{FIT}; then
    if tftpboot ${ramdisk_addr_r} %{BOOT_FILES}; then
      echo "Starling: boot files %{BOOT_FILES}: 0x${filesize} bytes at ${ramdisk_addr_r}, passed as the initrd"
      bootm %{FIT_ADDRESS} ${ramdisk_addr_r}:${filesize} ${fdtcontroladdr}
      echo "Starling: FAIL %{FIT} with %{BOOT_FILES}: bootm refused them (U-Boot says why above); fix: copy the files to the TFTP directory again, or delete %{BOOT_FILES} there to boot without it"
    else
      echo "Starling: boot files: none (no %{BOOT_FILES} on TFTP server ${serverip})"
      bootm %{FIT_ADDRESS} - ${fdtcontroladdr}
      echo "Starling: FAIL %{FIT}: bootm refused it (U-Boot says why above); fix: copy the files of the build to the TFTP directory again"
    fi
  else
    echo "Starling: FAIL %{FIT} missing on TFTP server ${serverip}; fix: copy the files of the build to the TFTP directory again"
  fi
else
  echo "Starling: FAIL uEnv.txt: no bootargs= line with a value; fix: a line like bootargs=ip=dhcp (see README.txt)"
fi
