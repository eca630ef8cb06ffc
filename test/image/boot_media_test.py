#!/usr/bin/env python3
"""What a Star64 user writes to a card or a TFTP server, file by file.

    boot_media_test.py MKIMAGE MTOOLS SDCARD.img FILES...
FILES: echo's :star64 images (star64.itb, star64.Image, ...) and :star64_tftp's files.

Checks the card (apps/echo:star64_sdcard) holds exactly the files U-Boot's
distro boot looks for, that boot.scr is a U-Boot script image whose
commands load the FIT at the Star64's address, that the FIT and the Image
on the card are the build's, and that the TFTP variant has the same FIT
and a boot.scr.uimg; prints the card's files and sizes.
"""
import os
import subprocess
import sys
import tempfile

mkimage, mtools, sdcard = sys.argv[1:4]
built = {os.path.basename(p): p for p in sys.argv[4:] if os.path.basename(p).startswith("star64.")}
tftp = {os.path.basename(p): p for p in sys.argv[4:] if os.path.basename(os.path.dirname(p)) == "star64_tftp"}
itb, image = built["star64.itb"], built["star64.Image"]
tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
failures = []


def check(what, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + what + (": " + detail if detail else ""))
    if not ok:
        failures.append(what)


def mt(*args):
    env = {"MTOOLSRC": "/dev/null", "MTOOLS_SKIP_CHECK": "1", "PATH": "/usr/bin:/bin", "TZ": "UTC"}
    return subprocess.run([mtools, "-c", *args], capture_output=True, text=True, env=env, check=True).stdout


fs = sdcard + "@@1M"
names = sorted(n for n in mt("mdir", "-/", "-b", "-i", fs, "::").split() if not n.endswith("/"))
want = ["::/Image", "::/README.txt", "::/boot.cmd", "::/boot.scr", "::/boot/extlinux/extlinux.conf",
        "::/starling.itb", "::/uEnv.txt", "::/vf2_uEnv.txt"]
check("the card's files", names == want, " ".join(names))


def card_file(name):
    out = os.path.join(tmp, name.replace("/", "_"))
    mt("mcopy", "-o", "-i", fs, "::/" + name, out)
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

if failures:
    print("FAIL: %d check(s)" % len(failures))
    sys.exit(1)
print("PASS")
