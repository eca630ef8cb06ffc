#!/usr/bin/env python3
"""Writes the boot files archive (docs/boot-files.md): a cpio "newc" archive,
the format `cpio -o -H newc` writes and Linux's initramfs uses, which the
kernel reads as its initrd (kernel/boot/boot_files.h).

    make_initrd.py OUT NAME=FILE [NAME=FILE ...]
    make_initrd.py boot-files.cpio tls/cert.pem=cert.pem tls/key.pem=key.pem
    make_initrd.py --list ARCHIVE

NAME is the path inside the archive; its directories are added before it.
Files are stored as regular files, mode 0600 (a private key among them),
owner 0, time 0: the same inputs give the same bytes.

--list reads an archive as the kernel does (kernel/lib/cpio.cc) and prints
its regular files and their sizes; it fails on anything the kernel would
not read to the end (another cpio format, a compressed archive, damage, no
trailer) and on names the kernel would not find (absolute paths).
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


def listing(data):
    """[(name, size)] of the regular files in a newc archive; ValueError if
    the kernel would not read it to its trailer."""
    files = []
    at = 0
    while True:
        if len(data) - at >= 6 and data[at : at + 6] != b"070701":
            raise ValueError(
                "byte %d: %r is not a newc header (070701): make it with make_initrd.py "
                "or cpio -o -H newc, uncompressed" % (at, data[at : at + 6])
            )
        if len(data) - at < 110:
            raise ValueError("ends at byte %d without the TRAILER!!! entry" % at)
        try:
            fields = [int(data[at + 6 + 8 * i : at + 14 + 8 * i], 16) for i in range(13)]
        except ValueError:
            raise ValueError("byte %d: a header field is not hexadecimal" % at) from None
        mode, size, name_size = fields[1], fields[6], fields[11]
        name_at = at + 110
        if name_size == 0 or len(data) - name_at < name_size:
            raise ValueError("byte %d: the name runs past the archive's end" % at)
        name = data[name_at : name_at + name_size - 1].decode("utf-8", "replace")
        if name == "TRAILER!!!":
            return files
        data_at = at + (110 + name_size + 3) // 4 * 4
        if data_at + size > len(data):
            raise ValueError("%s: its %d bytes run past the archive's end" % (name, size))
        if mode & 0o170000 == 0o100000:
            if name.startswith("/"):
                raise ValueError("%s: an absolute name; the kernel looks for %s" % (name, name[1:]))
            files.append((name[2:] if name.startswith("./") else name, size))
        at = data_at + (size + 3) // 4 * 4


def list_archive(path):
    try:
        with open(path, "rb") as f:
            files = listing(f.read())
    except OSError as e:
        sys.stderr.write(f"make_initrd.py: {path}: {e.strerror}\n")
        return 1
    except ValueError as e:
        sys.stderr.write(f"make_initrd.py: {path}: {e}\n")
        return 1
    for name, size in files:
        print("%8d  %s" % (size, name))
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--list":
        return list_archive(argv[2])
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
