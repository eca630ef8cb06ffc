#!/usr/bin/env python3
"""What a Star64 user writes to a card or a TFTP server, file by file.

    boot_media_test.py MKIMAGE MTOOLS SDCARD.img FILES... \
        --with-boot-files ARCHIVE SDCARD2.img TFTP2_FILES...
FILES: echo's :star64 images (star64.itb, star64.Image, ...) and :star64_tftp's files.

Checks the card (apps/echo:star64_sdcard) holds exactly the files U-Boot's
distro boot looks for, that boot.scr is a U-Boot script image whose
commands load the FIT at the Star64's address, that the FIT and the Image
on the card are the build's, and that the TFTP variant has the same FIT
and a boot.scr.uimg; prints the card's files and sizes.

Boot files (docs/boot-files.md): the scripts load boot-files.cpio when it
is there and pass it to bootm as the initrd, extlinux.conf has its initrd
line switched off and README.txt says how to make the archive. The cards
the project builds carry no archive; a card and a TFTP directory built with
one (boot_media's boot_files, ARCHIVE) carry it byte for byte, with
extlinux.conf's initrd line on.
"""
import os
import subprocess
import sys
import tempfile
from checks import check, finish

split = sys.argv.index("--with-boot-files")
mkimage, mtools, sdcard = sys.argv[1:4]
rest = sys.argv[4:split]
built = {os.path.basename(p): p for p in rest if os.path.basename(p).startswith("star64.")}
tftp = {os.path.basename(p): p for p in rest
        if os.path.basename(os.path.dirname(p)) == "star64_tftp"}
archive, sdcard2 = sys.argv[split + 1 : split + 3]
tftp2 = {os.path.basename(p): p for p in sys.argv[split + 3 :]}
itb, image = built["star64.itb"], built["star64.Image"]
tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))



def mt(*args):
    env = {"MTOOLSRC": "/dev/null", "MTOOLS_SKIP_CHECK": "1", "PATH": "/usr/bin:/bin", "TZ": "UTC"}
    return subprocess.run([mtools, "-c", *args], capture_output=True, text=True, env=env, check=True).stdout


def card_names(card):
    listing = mt("mdir", "-/", "-b", "-i", card + "@@1M", "::").split()
    return sorted(n for n in listing if not n.endswith("/"))


fs = sdcard + "@@1M"
names = card_names(sdcard)
want = ["::/Image", "::/README.txt", "::/boot.cmd", "::/boot.scr", "::/boot/extlinux/extlinux.conf",
        "::/starling.itb", "::/uEnv.txt", "::/vf2_uEnv.txt"]
check("the card's files", names == want, " ".join(names))


def card_file(name, card=sdcard):
    out = os.path.join(tmp, name.replace("/", "_"))
    mt("mcopy", "-o", "-i", card + "@@1M", "::/" + name, out)
    with open(out, "rb") as f:
        return f.read()


print("card files (bytes):")
for name in names:
    print("  %-32s %8d" % (name[3:], len(card_file(name[3:]))))

check("starling.itb on the card is the build's FIT", card_file("starling.itb") == open(itb, "rb").read())
check("Image on the card is the build's Image", card_file("Image") == open(image, "rb").read())

scr = os.path.join(tmp, "boot.scr")
with open(scr, "wb") as f:
    f.write(card_file("boot.scr"))
listing = subprocess.run([mkimage, "-l", scr], capture_output=True, text=True).stdout
check("boot.scr is a U-Boot script image", "Script" in listing and "RISC-V" in listing, listing.splitlines()[1] if listing else "")
cmd = card_file("boot.cmd").decode()
check("boot.scr wraps boot.cmd", cmd.encode() in card_file("boot.scr"))
check("the script loads the FIT at 0x60000000", "load ${devtype} ${devnum}:${distro_bootpart} 0x60000000 ${prefix}starling.itb" in cmd)
check("the script boots it with U-Boot's device tree", "bootm 0x60000000 - ${fdtcontroladdr}" in cmd)
check("the script imports only bootargs from uEnv.txt", "env import -t -r ${scriptaddr} ${filesize} bootargs" in cmd)
uenv = card_file("uEnv.txt").decode()
lines = [l for l in uenv.splitlines() if l and not l.startswith("#")]
check("uEnv.txt has one setting, bootargs=ip=dhcp", lines == ["bootargs=ip=dhcp"], repr(lines))
ext = card_file("boot/extlinux/extlinux.conf").decode()
check("extlinux.conf boots /Image with uEnv.txt's arguments", "kernel /Image" in ext and "append ip=dhcp" in ext)
vf2 = [l for l in card_file("vf2_uEnv.txt").decode().splitlines() if l and not l.startswith("#")]
check("vf2_uEnv.txt's boot2 sources boot.scr from partition 3",
      len(vf2) == 1 and vf2[0].startswith("boot2=") and "load mmc ${devnum}:3 ${scriptaddr} /boot.scr" in vf2[0]
      and "setenv distro_bootpart 3" in vf2[0], repr(vf2))
with open(sdcard, "rb") as f:
    mbr = f.read(512)
check("the boot partition is MBR slot 3, bootable", mbr[446 + 32] == 0x80 and mbr[446 + 32 + 4] in (0x0B, 0x0C, 0x0E)
      and mbr[446:478] == bytes(32))
check("README.txt names the board", "Starling apps/echo for star64" in card_file("README.txt").decode())

check("TFTP files", sorted(tftp) == ["README.txt", "boot.cmd", "boot.scr.uimg", "starling.itb", "uEnv.txt"],
      " ".join(sorted(tftp)))
check("TFTP starling.itb is the build's FIT", open(tftp["starling.itb"], "rb").read() == open(itb, "rb").read())
tcmd = open(tftp["boot.cmd"]).read()
check("TFTP script fetches the FIT at 0x60000000", "tftpboot 0x60000000 starling.itb" in tcmd)
check("TFTP boot.scr.uimg wraps its boot.cmd", tcmd.encode() in open(tftp["boot.scr.uimg"], "rb").read())


# Boot files: the scripts, extlinux.conf and README.txt as the project builds them.
def commands(script):
    return [l for l in script.splitlines() if l.strip() and not l.lstrip().startswith("#")]


check("the script loads boot-files.cpio at ${ramdisk_addr_r} when it is there",
      "if test -e ${devtype} ${devnum}:${distro_bootpart} ${prefix}boot-files.cpio; then" in cmd
      and "load ${devtype} ${devnum}:${distro_bootpart} ${ramdisk_addr_r} ${prefix}boot-files.cpio"
      in cmd)
check("the script passes it to bootm as a raw initrd",
      "setenv starling_initrd ${ramdisk_addr_r}:${filesize}" in cmd
      and "bootm 0x60000000 ${starling_initrd} ${fdtcontroladdr}" in cmd)
check("the script says whether it loaded boot files",
      'echo "Starling: boot files ${prefix}boot-files.cpio: 0x${filesize} bytes' in cmd
      and 'echo "Starling: boot files: none' in cmd)
check("TFTP script fetches boot-files.cpio and passes it as the initrd",
      "tftpboot ${ramdisk_addr_r} boot-files.cpio" in tcmd
      and "bootm 0x60000000 ${ramdisk_addr_r}:${filesize} ${fdtcontroladdr}" in tcmd)
# U-Boot 2023.01's hush takes an apostrophe inside double quotes for a quote
# of its own: a syntax error (and a crash) when the script runs.
for what, text in [("boot.cmd", cmd), ("TFTP boot.cmd", tcmd)]:
    bad = [l.strip() for l in commands(text) if "'" in l]
    check("%s: no apostrophe in a command" % what, not bad, repr(bad[:2]))
check("extlinux.conf's initrd line is there, switched off", "\n  #initrd /boot-files.cpio\n" in ext)
readme = card_file("README.txt").decode()
check("README.txt says how to make boot-files.cpio",
      "make_initrd.py boot-files.cpio tls/cert.pem=cert.pem" in readme
      and "cpio -o -H newc > boot-files.cpio" in readme)
check("README.txt says no build puts a private key on the card",
      "never a\nprivate key, into what they make: you add yours to your own card." in readme)
check("TFTP README.txt warns that TFTP does not encrypt",
      "TFTP does not encrypt" in open(tftp["README.txt"]).read())

# A card and a TFTP directory built with boot files.
with open(archive, "rb") as f:
    archive_bytes = f.read()
names2 = card_names(sdcard2)
check("the card built with boot files has the same files and boot-files.cpio",
      names2 == sorted(want + ["::/boot-files.cpio"]), " ".join(names2))
if "::/boot-files.cpio" in names2:
    check("boot-files.cpio on the card is the archive it was given",
          card_file("boot-files.cpio", sdcard2) == archive_bytes)
ext2 = card_file("boot/extlinux/extlinux.conf", sdcard2).decode()
check("its extlinux.conf loads boot-files.cpio", "\n  initrd /boot-files.cpio\n" in ext2)
readme2 = card_file("README.txt", sdcard2).decode()
check("its README.txt lists boot-files.cpio", "  boot-files.cpio       the boot files" in readme2)
check("TFTP files built with boot files",
      sorted(tftp2) == sorted(list(tftp) + ["boot-files.cpio"]), " ".join(sorted(tftp2)))
if "boot-files.cpio" in tftp2:
    check("TFTP boot-files.cpio is the archive it was given",
          open(tftp2["boot-files.cpio"], "rb").read() == archive_bytes)

sys.exit(finish())
print("PASS")
