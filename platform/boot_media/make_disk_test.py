#!/usr/bin/env python3
"""make_disk.py: the partition table, the FAT partition, reproducibility, refusals.

    make_disk_test.py MAKE_DISK MTOOLS
"""
import os
import struct
import subprocess
import sys
import tempfile
from checks import check_equal, finish

make_disk, mtools = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))



def run(*args):
    return subprocess.run([make_disk, "--mtools", mtools, *args], capture_output=True, text=True)


def mtools_out(*args):
    env = {"MTOOLSRC": "/dev/null", "MTOOLS_SKIP_CHECK": "1", "PATH": "/usr/bin:/bin", "TZ": "UTC"}
    return subprocess.run([mtools, "-c", *args], capture_output=True, text=True, env=env, check=True).stdout


src = os.path.join(tmp, "kernel.bin")
with open(src, "wb") as f:
    f.write(bytes(range(256)) * 300)
conf = os.path.join(tmp, "x.conf")
with open(conf, "w") as f:
    f.write("label starling\n")

disk = os.path.join(tmp, "a.img")
result = run("--out", disk, "--size-mib", "16", "--partition", "3", src + "=Image",
             conf + "=boot/extlinux/extlinux.conf")
check_equal("exit status", result.returncode, 0)
with open(disk, "rb") as f:
    data = f.read()
check_equal("disk size", len(data), 16 << 20)
check_equal("MBR boot signature", data[510:512], b"\x55\xaa")
check_equal("disk signature", struct.unpack_from("<I", data, 440)[0], 0x5354524C)
status, ptype, start, count = struct.unpack_from("<B3xB3xII", data, 446 + 32)
check_equal("partition 3 bootable", status, 0x80)
check_equal("partition 3 type (FAT16 LBA below 65 MiB)", ptype, 0x0E)
check_equal("partition 3 start (1 MiB)", start, 2048)
check_equal("partition 3 to the disk's end", start + count, (16 << 20) // 512)
check_equal("slots 1, 2 and 4 empty", data[446:478] + data[494:510], bytes(48))
check_equal("FAT boot sector signature", data[(1 << 20) + 510 : (1 << 20) + 512], b"\x55\xaa")
check_equal("FAT hidden sectors = partition start", struct.unpack_from("<I", data, (1 << 20) + 28)[0], 2048)
listing = mtools_out("mdir", "-/", "-b", "-i", disk + "@@1M", "::")
check_equal("files on the partition", sorted(listing.split()), sorted(["::/Image", "::/boot/", "::/boot/extlinux/",
                                                                 "::/boot/extlinux/extlinux.conf"]))
out = os.path.join(tmp, "back.bin")
mtools_out("mcopy", "-i", disk + "@@1M", "::/Image", out)
check_equal("a file reads back whole", open(out, "rb").read() == open(src, "rb").read(), True)
check_equal("time stamps are the FAT epoch", "1980-01-01" in mtools_out("mdir", "-i", disk + "@@1M", "::/Image"), True)

again = os.path.join(tmp, "b.img")
os.utime(src, (1e9, 1e9))  # another source time stamp must not matter
run("--out", again, "--size-mib", "16", "--partition", "3", src + "=Image", conf + "=boot/extlinux/extlinux.conf")
check_equal("byte-reproducible", open(again, "rb").read() == data, True)

big = os.path.join(tmp, "c.img")
run("--out", big, "--size-mib", "80", src + "=Image")
with open(big, "rb") as f:
    table = f.read(512)
    check_equal("FAT32 LBA from 65 MiB up", table[446 + 4], 0x0C)
    check_equal("slot 1 by default", table[446], 0x80)

for args, message in [
    (["--size-mib", "16", src + "=/Image"], "DEST relative"),
    (["--size-mib", "16", src + "=a/../../x"], "DEST relative"),
    (["--size-mib", "16", src + "-no-equals"], "want SRC=DEST"),
    (["--size-mib", "16", os.path.join(tmp, "missing") + "=x"], "no such file"),
    (["--size-mib", "4", src + "=x", src + "=y", src + "=z", src + "=w"] + [src + "=f%d" % i for i in range(40)],
     "do not fit"),
    (["--size-mib", "2", src + "=x"], "at least 4"),
    (["--size-mib", "16", "--partition", "5", src + "=x"], "slots 1 to 4"),
    (["--label", "MUCH-TOO-LONG-LABEL", "--size-mib", "16", src + "=x"], "1 to 11 ASCII"),
]:
    result = run("--out", os.path.join(tmp, "bad.img"), *args)
    check_equal("refused (%s)" % message, (result.returncode, message in result.stderr), (1, True))
    if message not in result.stderr:
        print("     stderr: " + result.stderr.strip())

status = finish()
if status == 0:
    print("PASS")
sys.exit(status)
