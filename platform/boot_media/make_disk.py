#!/usr/bin/env python3
"""Builds a disk image: an MBR partition table with one FAT boot partition.

    make_disk.py --mtools PATH --out DISK --size-mib N [--partition SLOT] [--label L] SRC=DEST...

No root and no loop devices: the partition table is written here (one MBR
entry in slot SLOT, 1 to 4, type 0x0C FAT32-LBA or 0x0E FAT16-LBA, marked
bootable, from 1 MiB to the end of the disk; the other slots stay empty),
and the FAT file system is made inside the file by Debian's pinned mtools
at that offset (`mtools -c mformat -i DISK@@1M`). U-Boot numbers MBR
partitions by slot, so slot 3 is `mmc 1:3` even with slots 1 and 2 empty;
its distro boot and bootflow scan the bootable partitions.

Byte-reproducible: the disk signature and the volume serial number are
fixed, every file gets the FAT epoch as its time stamp (SOURCE_DATE_EPOCH =
1980-01-01, TZ=UTC: FAT has no earlier date) and the files go in in the
order given. DEST may name directories (extlinux/extlinux.conf): they are
made first, in order.
"""

import argparse
import os
import struct
import subprocess
import sys

SECTOR = 512
PARTITION_START = 2048  # sectors: 1 MiB, the alignment every partitioner uses
DISK_SIGNATURE = 0x5354524C  # "STRL"
FAT_EPOCH = 315532800  # 1980-01-01 00:00:00 UTC
# Below this FAT32 would need clusters under 512 bytes: mformat makes FAT16.
FAT32_MIN_SECTORS = 66600 * 2


def die(message):
    print("make_disk: " + message, file=sys.stderr)
    sys.exit(1)


def mbr(total_sectors, fat32, slot):
    count = total_sectors - PARTITION_START
    table = bytearray(SECTOR)
    struct.pack_into("<I", table, 440, DISK_SIGNATURE)
    # CHS fields: 0xFE 0xFF 0xFF means "use the LBA fields" (every partitioner
    # writes it for partitions beyond 8 GiB; U-Boot reads only the LBAs).
    entry = struct.pack(
        "<B3sB3sII",
        0x80,  # bootable
        b"\xfe\xff\xff",
        0x0C if fat32 else 0x0E,
        b"\xfe\xff\xff",
        PARTITION_START,
        count,
    )
    offset = 446 + 16 * (slot - 1)
    table[offset : offset + 16] = entry
    table[510:512] = b"\x55\xaa"
    return bytes(table)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mtools", required=True, help="Debian's mtools binary")
    parser.add_argument("--out", required=True)
    parser.add_argument("--size-mib", type=int, required=True)
    parser.add_argument("--label", default="STARLING")
    parser.add_argument("--partition", type=int, default=1, help="the MBR slot, 1 to 4")
    parser.add_argument("files", nargs="+", metavar="SRC=DEST")
    args = parser.parse_args()

    if args.size_mib < 4:
        die("--size-mib %d: want at least 4 (1 MiB before the partition)" % args.size_mib)
    if not 1 <= args.partition <= 4:
        die("--partition %d: an MBR has slots 1 to 4" % args.partition)
    if not 1 <= len(args.label) <= 11 or not args.label.isascii():
        die("--label %r: a FAT label is 1 to 11 ASCII characters" % args.label)
    pairs = []
    for item in args.files:
        src, sep, dest = item.partition("=")
        if not sep or not src or not dest or dest.startswith("/") or ".." in dest.split("/"):
            die("%r: want SRC=DEST with DEST relative inside the partition" % item)
        if not os.path.isfile(src):
            die("%s: no such file (for %s)" % (src, dest))
        pairs.append((src, dest))

    total = args.size_mib * 1024 * 1024 // SECTOR
    part_sectors = total - PARTITION_START
    payload = sum(os.path.getsize(src) for src, _ in pairs)
    # FAT tables, root directory and cluster slack: keep a quarter free.
    if payload > part_sectors * SECTOR * 3 // 4:
        die(
            "%d bytes of files do not fit a %d MiB disk; raise size_mib"
            % (payload, args.size_mib)
        )
    fat32 = part_sectors >= FAT32_MIN_SECTORS

    with open(args.out, "wb") as disk:
        disk.write(mbr(total, fat32, args.partition))
        disk.truncate(total * SECTOR)

    env = {
        "PATH": "/usr/bin:/bin",
        "TZ": "UTC",
        "SOURCE_DATE_EPOCH": str(FAT_EPOCH),
        # No user or system mtools.conf, no drive-geometry checks on a file.
        "MTOOLSRC": "/dev/null",
        "MTOOLS_SKIP_CHECK": "1",
        "MTOOLS_NO_VFAT": "0",
    }
    image = "%s@@%d" % (args.out, PARTITION_START * SECTOR)

    def mtools(*command):
        run = [args.mtools, "-c"] + list(command)
        result = subprocess.run(run, env=env, capture_output=True, text=True)
        if result.returncode != 0:
            die("%s failed: %s" % (" ".join(run), (result.stderr or result.stdout).strip()))

    # -T/-H: the partition's size and start (its "hidden sectors"); -h/-s: the
    # geometry every partitioner assumes; -N: the fixed serial number.
    fat_type = ["-F"] if fat32 else []
    mtools(
        "mformat", "-i", image, *fat_type,
        "-T", str(part_sectors), "-H", str(PARTITION_START), "-h", "255", "-s", "63",
        "-N", "%08x" % DISK_SIGNATURE, "-v", args.label, "::",
    )  # fmt: skip
    made = set()
    for _, dest in pairs:
        parts = dest.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            directory = "/".join(parts[:depth])
            if directory not in made:
                mtools("mmd", "-i", image, "::/" + directory)
                made.add(directory)
    for src, dest in pairs:
        mtools("mcopy", "-i", image, src, "::/" + dest)


if __name__ == "__main__":
    main()
