# Starling %{APP} for %{BOARD}, booted over the network: U-Boot's distro boot
# (target dhcp) fetches this script as boot.scr.uimg from the TFTP server
# the DHCP answer names, then runs it. It fetches uEnv.txt and %{FIT} from
# the same server and directory.
#
# uEnv.txt: one line `bootargs=...`, the file a user edits; only that
# variable is imported (-r: CR LF line ends are fine). A missing or empty
# bootargs= line stops the boot.
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
    bootm %{FIT_ADDRESS} - ${fdtcontroladdr}
    echo "Starling: FAIL %{FIT}: bootm refused it (U-Boot says why above); fix: copy the build's files to the TFTP directory again"
  else
    echo "Starling: FAIL %{FIT} missing on TFTP server ${serverip}; fix: copy the build's files to the TFTP directory again"
  fi
else
  echo "Starling: FAIL uEnv.txt: no bootargs= line with a value; fix: a line like bootargs=ip=dhcp (see README.txt)"
fi
