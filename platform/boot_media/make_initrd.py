#!/usr/bin/env python3
"""Writes the boot files archive (docs/boot-files.md): a cpio "newc" archive,
the format `cpio -o -H newc` writes and Linux's initramfs uses, which the
kernel reads as its initrd (kernel/boot/boot_files.h).

    make_initrd.py OUT NAME=FILE [NAME=FILE ...]
    make_initrd.py boot.cpio tls/cert.pem=cert.pem tls/key.pem=key.pem

NAME is the path inside the archive; its directories are added before it.
Files are stored as regular files, mode 0600 (a private key among them),
owner 0, time 0: the same inputs give the same bytes.
"""
import sys


def entry(name, data, mode, ino):
    fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name) + 1, 0]
    head = b"070701" + b"".join(b"%08X" % f for f in fields)
    out = head + name.encode() + b"\0"
    out += b"\0" * (-len(out) % 4)
    out += data
    out += b"\0" * (-len(out) % 4)
    return out


def archive(files):
    """files: [(name, bytes)] -> the archive's bytes."""
    out = b""
    ino = 1
    seen = set()
    for name, data in files:
        parts = name.split("/")
        for i in range(1, len(parts)):
            directory = "/".join(parts[:i])
            if directory not in seen:
                seen.add(directory)
                out += entry(directory, b"", 0o040700, ino)
                ino += 1
        out += entry(name, data, 0o100600, ino)
        ino += 1
    return out + entry("TRAILER!!!", b"", 0, 0)


def main(argv):
    if len(argv) < 3 or any("=" not in a for a in argv[2:]):
        sys.stderr.write(__doc__)
        return 2
    files = []
    for arg in argv[2:]:
        name, path = arg.split("=", 1)
        name = name.strip("/")
        if not name or ".." in name.split("/"):
            sys.stderr.write(f"make_initrd.py: bad name {name!r}: a relative path such as tls/cert.pem\n")
            return 2
        try:
            with open(path, "rb") as f:
                files.append((name, f.read()))
        except OSError as e:
            sys.stderr.write(f"make_initrd.py: {path}: {e.strerror}\n")
            return 1
    with open(argv[1], "wb") as f:
        f.write(archive(files))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
