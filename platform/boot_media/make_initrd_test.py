#!/usr/bin/env python3
"""make_initrd.py: the archive it writes, and --list reading archives as the kernel does.

    make_initrd_test.py MAKE_INITRD

--list is what boot_media runs on an archive it is given (platform/image.bzl):
it must read make_initrd.py's and cpio -o -H newc's archives (setup.sh installs
cpio) and refuse what the kernel would not read to the end.
"""
import gzip
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from checks import check, finish

make_initrd = sys.argv[1]
spec = importlib.util.spec_from_file_location("make_initrd", make_initrd)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))



def path(name):
    return os.path.join(tmp, name)


def run(*args):
    return subprocess.run([sys.executable, make_initrd, *args], capture_output=True, text=True)


def write(name, data):
    with open(path(name), "wb") as f:
        f.write(data)
    return path(name)


write("cert.pem", b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
write("key.pem", b"-----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY-----\n")
write("token", b"0123456789abcdef0123456789abcdef\n")
entries = ["tls/cert.pem=" + path("cert.pem"), "tls/key.pem=" + path("key.pem"),
           "management/token=" + path("token")]
made = run(path("a.cpio"), *entries)
check("make_initrd.py writes an archive", made.returncode == 0, made.stderr.strip())
run(path("b.cpio"), *entries)
with open(path("a.cpio"), "rb") as f:
    archive = f.read()
with open(path("b.cpio"), "rb") as f:
    check("the same inputs give the same bytes", f.read() == archive)
listed = run("--list", path("a.cpio"))
want = []
for entry in entries:
    name, source = entry.split("=")
    want += [str(os.path.getsize(source)), name]
check("--list names its files and sizes", listed.returncode == 0 and listed.stdout.split() == want,
      repr(listed.stdout))

# What the kernel would not read to the end, each refused with a reason.
refusals = {
    "gzip": gzip.compress(archive, mtime=0),
    "crc": archive.replace(b"070701", b"070702"),
    "truncated": archive[:200],
    "no-trailer": archive[: archive.rindex(b"070701")],
    "empty": b"",
    "absolute": module.entry("/tls/cert.pem", b"x", 0o100600, 1)
    + module.entry("TRAILER!!!", b"", 0, 0),
}
for name, data in refusals.items():
    result = run("--list", write(name + ".cpio", data))
    check("--list refuses %s" % name, result.returncode == 1 and "make_initrd.py:" in result.stderr,
          result.stderr.strip())
dotted = module.entry("./tls/cert.pem", b"x", 0o100600, 1) + module.entry("TRAILER!!!", b"", 0, 0)
check("a leading ./ is read as the kernel reads it",
      module.listing(dotted) == [("tls/cert.pem", 1)], repr(module.listing(dotted)))

# README.txt's other recipe: GNU cpio (setup.sh installs it).
check("cpio installed", shutil.which("cpio") is not None, "no cpio. Fix: sudo ./setup.sh")
if shutil.which("cpio"):
    tree = path("tree")
    os.makedirs(os.path.join(tree, "tls"))
    os.makedirs(os.path.join(tree, "management"))
    shutil.copy(path("cert.pem"), os.path.join(tree, "tls", "cert.pem"))
    shutil.copy(path("token"), os.path.join(tree, "management", "token"))
    with open(path("c.cpio"), "wb") as out:
        subprocess.run("find tls management | cpio -o -H newc", shell=True, cwd=tree, stdout=out,
                       stderr=subprocess.DEVNULL, check=True, timeout=30)
    listed = run("--list", path("c.cpio"))
    check("--list reads cpio -o -H newc's archive",
          listed.returncode == 0 and sorted(listed.stdout.split()[1::2])
          == ["management/token", "tls/cert.pem"], repr(listed.stdout + listed.stderr))

sys.exit(finish())
print("PASS")
