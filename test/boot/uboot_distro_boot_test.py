#!/usr/bin/env python3
"""The Star64's power-on path rehearsed in QEMU: U-Boot's distro boot, no keys.

    uboot_distro_boot_test.py --disk DISK.img      (virtio block device)
    uboot_distro_boot_test.py --tftp FILE...       (QEMU user networking's TFTP)
    uboot_distro_boot_test.py --bad-files DISK.img --mtools MTOOLS
    uboot_distro_boot_test.py --boot-files-disk DISK.img --mtools MTOOLS --make-initrd PY
    uboot_distro_boot_test.py --boot-files-tftp FILE... --make-initrd PY

Debian's S-mode U-Boot for QEMU virt (u-boot-qemu) boots with the boot
media an application's :qemu_disk / :qemu_tftp target built and nothing on
its console's input: its distro boot (boot_targets "qemu virtio0 scsi0
dhcp") must find boot.scr (disk) or boot.scr.uimg (dhcp), load the FIT,
check its hash and boot apps/echo, whose UDP echo a real client then gets
back byte for byte through a host forward.

--bad-files breaks one file at a time in copies of the disk and requires
the boot to fail with U-Boot's own message and the boot script's FAIL line
naming that file; and, with boot.scr removed, that the fallback
boot/extlinux/extlinux.conf boots the raw Image.

--boot-files-disk and --boot-files-tftp boot apps/httpd's media with boot
files (docs/boot-files.md) added the way a user adds them: a throwaway
certificate and key (openssl, made here) and a management token in
boot-files.cpio (make_initrd.py), copied onto a copy of the card (mtools)
or into the TFTP directory. U-Boot must say it loaded the archive, the
kernel must map it as the initrd, httpd must print the certificate's
fingerprint as openssl computes it, and HTTPS through a host forward must
answer /healthz and open /metrics to the token only. The disk variant
boots the card a second time through extlinux.conf (boot.scr removed, the
initrd line's # taken off): mainline U-Boot's route on the Star64.

The console of each boot is kept in the test's outputs (uboot-*.log); the
time from QEMU's start to the first echo is printed.
"""
import argparse
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from qemu_guest import QemuGuest, free_port

UBOOT = "/usr/lib/u-boot/qemu-riscv64_smode/u-boot.bin"
BOOT_TIMEOUT = 60  # U-Boot's 2 s countdown, the scan, the kernel: ~5 s here
FAILURES = []


def fail(message):
    print("FAIL: " + message)
    FAILURES.append(message)


def qemu_command(forwards, drive=None, tftp=None, rng=False):
    """QEMU virt with U-Boot; `forwards`: QEMU hostfwd rules; `rng`: the
    virtio-rng device TLS needs (run_qemu.sh adds it to every image)."""
    netdev = "user,id=n0" + "".join(",hostfwd=" + rule for rule in forwards)
    if tftp:
        netdev += ",tftp=%s,bootfile=boot.scr.uimg" % tftp
    command = [
        "qemu-system-riscv64", "-machine", "virt", "-cpu", "rv64", "-smp", "1", "-m", "256M",
        "-nographic", "-bios", "default", "-no-reboot", "-kernel", UBOOT,
        "-netdev", netdev, "-device", "virtio-net-device,netdev=n0",
    ]  # fmt: skip
    if rng:
        command += ["-device", "virtio-rng-device"]
    if drive:
        command += ["-drive", "file=%s,if=none,format=raw,readonly=on,id=d0", "-device", "virtio-blk-device,drive=d0"]
        command[-3] = command[-3] % drive
    return command


def echo_forward(port):
    return "udp:127.0.0.1:%d-:1235" % port


def echo_once(port, deadline):
    """Sends datagrams until one comes back whole; the seconds it took, or None."""
    payload = os.urandom(512)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(0.2)
        while time.monotonic() < deadline:
            s.sendto(payload, ("127.0.0.1", port))
            try:
                data, _ = s.recvfrom(2048)
            except socket.timeout:
                continue
            if data == payload:
                return True
            fail("echo came back changed (%d bytes, sent %d)" % (len(data), len(payload)))
            return False
    return False


def boot_and_echo(name, drive=None, tftp=None, expect=()):
    """Boots, waits for echo's ready line, then an echo; checks console texts."""
    port = free_port(socket.SOCK_DGRAM)
    start = time.monotonic()
    command = qemu_command([echo_forward(port)], drive, tftp)
    guest = QemuGuest(None, BOOT_TIMEOUT, command=command, log_name="uboot-%s.log" % name)
    try:
        if not guest.wait_for("echo: udp echo on port 1235"):
            fail("%s: echo never came up through U-Boot (console: %s)" % (name, guest.log_path))
            print(guest.console()[-3000:])
            return
        if not echo_once(port, time.monotonic() + 20):
            fail("%s: no UDP echo through the host forward" % name)
            return
        took = time.monotonic() - start
        # Lines that may come after the first echo: IPv6's addresses are
        # valid once duplicate address detection has waited (1 s).
        for text in expect:
            guest.wait_for_re(re.compile(text), 10)
        console = guest.console()
        for text in expect:
            if not re.search(text, console):
                fail("%s: the console lacks %r" % (name, text))
        if "Hit any key to stop autoboot" not in console:
            fail("%s: no U-Boot countdown on the console: was U-Boot booted?" % name)
        print("%s: QEMU start to first echo through U-Boot: %.1f s" % (name, took))
        print("--- %s console, U-Boot's banner to echo's ready ---" % name)
        banner = console.find("U-Boot ")
        print(console[banner if banner >= 0 else 0:])
    finally:
        guest.stop()


def boot_expecting_failure(name, drive, expect, until="Starling: FAIL"):
    """Boots a broken disk: every regex in `expect` must appear once `until`
    has, and no kernel may start."""
    port = free_port(socket.SOCK_DGRAM)
    command = qemu_command([echo_forward(port)], drive)
    guest = QemuGuest(None, BOOT_TIMEOUT, command=command, log_name="uboot-%s.log" % name)
    try:
        # The script's FAIL line is the last it prints; U-Boot's distro boot
        # then tries its other targets, which nothing here answers.
        if not guest.wait_for(until):
            fail("%s: no %r line (console: %s)" % (name, until, guest.log_path))
            print(guest.console()[-3000:])
            return
        # Long enough for distro boot's next steps (/boot/'s extlinux.conf,
        # which a failed script switches off) to show on the console.
        time.sleep(1.5)
        console = guest.console()
        for text in expect:
            if not re.search(text, console):
                fail("%s: the console lacks %r" % (name, text))
        if "Starting kernel" in console:
            fail("%s: U-Boot started a kernel from a broken card" % name)
        if until != "EXTLINUX FAILED" and "Found /boot/extlinux/extlinux.conf" in console:
            fail("%s: the extlinux.conf fallback ran after the script refused the card" % name)
        lines = [l for l in console.splitlines() if until in l or re.search("|".join(expect), l)]
        print("%s: %s" % (name, " | ".join(l.strip() for l in lines)))
    finally:
        guest.stop()


class Card:
    """A scratch copy of the disk whose FAT partition mtools edits."""

    def __init__(self, disk, mtools, scratch, name):
        self.path = os.path.join(scratch, name + ".img")
        shutil.copyfile(disk, self.path)
        os.chmod(self.path, 0o644)
        self.mtools = mtools
        self.scratch = scratch
        self.fs = self.path + "@@1M"  # platform/boot_media/make_disk.py: the partition starts at 1 MiB

    def run(self, *args):
        env = {"MTOOLSRC": "/dev/null", "MTOOLS_SKIP_CHECK": "1", "PATH": "/usr/bin:/bin"}
        subprocess.run([self.mtools, "-c", *args], check=True, env=env, capture_output=True,
                       timeout=30)

    def delete(self, name):
        self.run("mdel", "-i", self.fs, "::/" + name)

    def read(self, name):
        out = os.path.join(self.scratch, "read.bin")
        self.run("mcopy", "-o", "-i", self.fs, "::/" + name, out)
        with open(out, "rb") as f:
            return f.read()

    def write(self, name, data):
        src = os.path.join(self.scratch, "write.bin")
        with open(src, "wb") as f:
            f.write(data)
        self.run("mcopy", "-o", "-i", self.fs, src, "::/" + name)


def bad_files(disk, mtools):
    scratch = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))

    # 1. A flipped byte in the kernel inside the FIT: U-Boot's hash check.
    card = Card(disk, mtools, scratch, "bad-hash")
    fit = bytearray(card.read("starling.itb"))
    fit[len(fit) // 2] ^= 0xFF  # the middle of the kernel's data
    card.write("starling.itb", bytes(fit))
    boot_expecting_failure("bad-fit-hash", card.path, [
        r"sha256\S* error|Bad hash value|Bad Data Hash",
        r"Starling: FAIL /starling\.itb: bootm refused it",
    ])  # fmt: skip

    # 2. The FIT missing.
    card = Card(disk, mtools, scratch, "no-fit")
    card.delete("starling.itb")
    boot_expecting_failure("missing-fit", card.path, [
        r"Failed to load '/starling\.itb'|Unable to read file /starling\.itb",
        r"Starling: FAIL /starling\.itb missing on virtio 0:3",
    ])  # fmt: skip

    # 3. uEnv.txt with the arguments but not as bootargs= (a likely edit).
    card = Card(disk, mtools, scratch, "bad-uenv")
    card.write("uEnv.txt", b"# edited\r\nip=10.0.2.15/24,gw=10.0.2.2\r\n")
    boot_expecting_failure("malformed-uenv", card.path, [
        r"Starling: FAIL /uEnv\.txt: no bootargs= line with a value",
    ])  # fmt: skip

    # 4. uEnv.txt missing: U-Boot's load error, then the same FAIL.
    card = Card(disk, mtools, scratch, "no-uenv")
    card.delete("uEnv.txt")
    boot_expecting_failure("missing-uenv", card.path, [
        r"Failed to load '/uEnv\.txt'|Unable to read file /uEnv\.txt",
        r"Starling: FAIL /uEnv\.txt: no bootargs= line",
    ])  # fmt: skip

    # 5. No boot.scr: distro boot goes on to /boot/extlinux/extlinux.conf,
    #    which boots the raw Image (booti) with its append line (the same
    #    command line as uEnv.txt's, as built).
    card = Card(disk, mtools, scratch, "extlinux")
    card.delete("boot.scr")
    boot_and_echo("extlinux-fallback", drive=card.path, expect=[
        r"Found /boot/extlinux/extlinux.conf",
        r"Retrieving file: /Image",
        r"append: ip=10\.0\.2\.15/24,gw=10\.0\.2\.2",
    ])  # fmt: skip

    # 6. No boot.scr and no Image: extlinux's own refusal, no kernel.
    card = Card(disk, mtools, scratch, "extlinux-no-image")
    card.delete("boot.scr")
    card.delete("Image")
    boot_expecting_failure("extlinux-no-image", card.path, [
        r"Retrieving file: /Image",
        r"Unable to read file /Image|Skipping starling for failure retrieving kernel",
    ], until="EXTLINUX FAILED")  # fmt: skip

    # 7. No boot.scr, extlinux.conf's initrd line switched on, no archive:
    #    U-Boot skips the entry rather than boot without the boot files.
    card = Card(disk, mtools, scratch, "extlinux-no-archive")
    card.delete("boot.scr")
    switch_initrd_line_on(card)
    boot_expecting_failure("extlinux-initrd-missing", card.path, [
        r"Retrieving file: /boot-files\.cpio",
        r"Skipping starling for failure retrieving initrd",
    ], until="EXTLINUX FAILED")  # fmt: skip


def switch_initrd_line_on(card):
    """Takes the # off extlinux.conf's initrd line, as README.txt says."""
    name = "boot/extlinux/extlinux.conf"
    conf = card.read(name)
    on = conf.replace(b"  #initrd /boot-files.cpio", b"  initrd /boot-files.cpio")
    if on == conf:
        fail("extlinux.conf has no '  #initrd /boot-files.cpio' line to switch on")
    card.write(name, on)


# --- Boot files (docs/boot-files.md) through U-Boot, to apps/httpd ---------


def run_tool(argv):
    return subprocess.run(argv, check=True, capture_output=True, timeout=30)


def throwaway_boot_files(scratch, make_initrd):
    """A self-signed ECDSA P-256 pair for 127.0.0.1 (openssl, for this run),
    a management token, and the archive make_initrd.py makes of them, as a
    user would: (archive path, cert path, token)."""
    cert = os.path.join(scratch, "cert.pem")
    key = os.path.join(scratch, "key.pem")
    token_file = os.path.join(scratch, "token")
    archive = os.path.join(scratch, "boot-files.cpio")
    run_tool(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
              "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=starling.test",
              "-addext", "subjectAltName=IP:127.0.0.1,IP:10.0.2.15"])
    token = secrets.token_hex(32)
    with open(token_file, "w") as f:
        f.write(token + "\n")
    run_tool([sys.executable, make_initrd, archive, "tls/cert.pem=" + cert, "tls/key.pem=" + key,
              "management/token=" + token_file])
    return archive, cert, token


def fingerprint(cert):
    out = run_tool(["openssl", "x509", "-in", cert, "-noout", "-fingerprint", "-sha256"])
    return out.stdout.decode().strip().split("=", 1)[1]


def https_get(port, path, cert, token=None):
    """(HTTP status, body) of GET https://127.0.0.1:PORT/PATH, the server's
    certificate checked against `cert`; status 0 if curl got no answer."""
    argv = ["curl", "-sS", "--max-time", "10", "--cacert", cert, "-o", "-",
            "-w", "\n%{http_code}", "https://127.0.0.1:%d%s" % (port, path)]
    if token:
        argv += ["--header", "Authorization: Bearer " + token]
    try:
        r = subprocess.run(argv, capture_output=True, timeout=20)
    except subprocess.TimeoutExpired:
        return 0, "curl timed out"
    body, _, code = r.stdout.decode(errors="replace").rpartition("\n")
    if r.returncode != 0:
        return 0, "curl exit %d: %s" % (r.returncode, r.stderr.decode(errors="replace").strip())
    return int(code), body


def boot_httpd_with_boot_files(name, archive, cert, token, drive=None, tftp=None, expect=()):
    """Boots httpd through U-Boot with `archive` beside its FIT; checks the
    console from U-Boot's line to httpd's fingerprint, then HTTPS."""
    https_port = free_port()
    forwards = ["tcp:127.0.0.1:%d-:443" % https_port]
    start = time.monotonic()
    command = qemu_command(forwards, drive, tftp, rng=True)
    guest = QemuGuest(None, BOOT_TIMEOUT, command=command, log_name="uboot-%s.log" % name)
    try:
        if not guest.wait_for("httpd: serving http on port 80"):
            fail("%s: httpd never came up through U-Boot (console: %s)" % (name, guest.log_path))
            print(guest.console()[-3000:])
            return
        console = guest.console()
        for text in expect:
            if not re.search(text, console):
                fail("%s: the console lacks %r" % (name, text))
        size = os.path.getsize(archive)
        loaded = re.search(r"Starling: boot files \S+: 0x([0-9a-f]+) bytes at (0x[0-9a-f]+)",
                           console)
        if loaded and int(loaded.group(1), 16) != size:
            fail("%s: U-Boot loaded 0x%s bytes, the archive has %d" % (name, loaded.group(1), size))
        mapped = re.search(r"Starling: map (0x[0-9a-f]+)-(0x[0-9a-f]+) r-- +\S+ "
                           r"the initrd \(boot files\)", console)
        if not mapped:
            fail("%s: the kernel did not map the initrd (no 'the initrd (boot files)' line)" % name)
        elif loaded and int(mapped.group(1), 16) != int(loaded.group(2), 16) & ~0xFFF:
            fail("%s: initrd mapped at %s, U-Boot loaded it at %s"
                 % (name, mapped.group(1), loaded.group(2)))
        elif int(mapped.group(2), 16) - int(mapped.group(1), 16) < size:
            fail("%s: the initrd's mapping (%s-%s) is smaller than the archive (%d bytes)"
                 % (name, mapped.group(1), mapped.group(2), size))
        shown = re.search(r"httpd: certificate sha256 ([0-9A-F:]+)", console)
        want = fingerprint(cert)
        if not shown or shown.group(1) != want:
            fail("%s: httpd's certificate sha256 %s is not openssl's %s"
                 % (name, shown and shown.group(1), want))
        for text in ("httpd: serving https on port 443",
                     "httpd: /metrics for its owner: bearer token"):
            if text not in console:
                fail("%s: the console lacks %r" % (name, text))
        # HTTPS through the forward: the first answer may wait on the stack.
        deadline = time.monotonic() + 20
        code, body = https_get(https_port, "/healthz", cert)
        while code == 0 and time.monotonic() < deadline:
            time.sleep(0.5)
            code, body = https_get(https_port, "/healthz", cert)
        if code != 200 or body.strip() != "ok":
            fail("%s: https /healthz: %d %r" % (name, code, body[-300:]))
        took = time.monotonic() - start
        code, _ = https_get(https_port, "/metrics", cert)
        if code != 401:
            fail("%s: https /metrics without the token: %d, want 401" % (name, code))
        code, body = https_get(https_port, "/metrics", cert, token)
        if code != 200 or "# TYPE" not in body:
            fail("%s: https /metrics with the token: %d, want 200 and the metrics" % (name, code))
        print("%s: QEMU start to the first HTTPS answer through U-Boot: %.1f s" % (name, took))
        keep = [l.strip() for l in console.splitlines()
                if re.search(r"Starling: boot files|Retrieving file: /boot-files|the initrd|"
                             r"certificate sha256|serving https|Ramdisk", l)]
        print("%s: %s" % (name, "\n  ".join([""] + keep)))
    finally:
        guest.stop()


def boot_files_disk(disk, mtools, make_initrd):
    scratch = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    archive, cert, token = throwaway_boot_files(scratch, make_initrd)
    with open(archive, "rb") as f:
        data = f.read()

    # boot.scr's route: the archive copied onto the card beside the FIT.
    card = Card(disk, mtools, scratch, "with-boot-files")
    card.write("boot-files.cpio", data)
    boot_httpd_with_boot_files("boot-files-disk", archive, cert, token, drive=card.path, expect=[
        r"Found U-Boot script /boot\.scr",
        r"Starling: boot files /boot-files\.cpio: 0x[0-9a-f]+ bytes at 0x8c300000, "
        r"passed as the initrd",
        r"Verifying Hash Integrity \.\.\. sha256\+ OK",
    ])  # fmt: skip

    # extlinux.conf's route (mainline U-Boot's bootflow on the Star64): no
    # boot.scr, the initrd line's # taken off as README.txt says.
    card = Card(disk, mtools, scratch, "extlinux-with-boot-files")
    card.write("boot-files.cpio", data)
    card.delete("boot.scr")
    switch_initrd_line_on(card)
    boot_httpd_with_boot_files("boot-files-extlinux", archive, cert, token, drive=card.path,
                               expect=[r"Found /boot/extlinux/extlinux\.conf",
                                       r"Retrieving file: /boot-files\.cpio"])


def boot_files_tftp(files, make_initrd):
    root = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    for path in files:
        shutil.copyfile(path, os.path.join(root, os.path.basename(path)))
    archive, cert, token = throwaway_boot_files(tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR")),
                                                make_initrd)
    shutil.copyfile(archive, os.path.join(root, "boot-files.cpio"))
    boot_httpd_with_boot_files("boot-files-tftp", archive, cert, token, tftp=root, expect=[
        r"Starling: boot\.scr\.uimg: apps/httpd for qemu-virt from TFTP server 10\.0\.2\.2",
        r"Starling: boot files boot-files\.cpio: 0x[0-9a-f]+ bytes at 0x8c300000, "
        r"passed as the initrd",
    ])  # fmt: skip


def main():
    parser = argparse.ArgumentParser()
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--disk")
    group.add_argument("--tftp", nargs="+")
    group.add_argument("--bad-files")
    group.add_argument("--boot-files-disk")
    group.add_argument("--boot-files-tftp", nargs="+")
    parser.add_argument("--mtools")
    parser.add_argument("--make-initrd", help="platform/boot_media/make_initrd.py")
    args = parser.parse_args()
    if not os.path.isfile(UBOOT):
        print("FAIL: %s missing. Fix: sudo ./setup.sh (installs u-boot-qemu)." % UBOOT)
        return 1
    if args.disk:
        boot_and_echo("disk", drive=os.path.abspath(args.disk), expect=[
            r"Scanning virtio 0:3\.\.\.",
            r"Found U-Boot script /boot\.scr",
            r"Starling: bootargs ip=10\.0\.2\.15/24,gw=10\.0\.2\.2",
            r"Starling: boot files: none \(no /boot-files\.cpio on virtio 0:3\)",
            r"Verifying Hash Integrity \.\.\. sha256\+ OK",
            r"echo: address 10\.0\.2\.15/24 gw 10\.0\.2\.2 \(static\)",
            # Dual stack through U-Boot (issue 30): the link-local address,
            # and SLAAC from QEMU user networking's router (fec0::/64).
            r"net: ipv6 address fe80::5054:ff:fe12:3456 valid \(link-local\)",
            r"net: ipv6 address fec0::5054:ff:fe12:3456 valid \(SLAAC\)",
        ])  # fmt: skip
    elif args.tftp:
        # QEMU's TFTP server reads the directory as given: the build's files
        # (symlinks into Bazel's output tree) copied into one real directory.
        root = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        for path in args.tftp:
            shutil.copyfile(path, os.path.join(root, os.path.basename(path)))
        boot_and_echo("tftp", tftp=root, expect=[
            r"Starling: boot\.scr\.uimg: apps/echo for qemu-virt from TFTP server 10\.0\.2\.2",
            r"Starling: bootargs ip=10\.0\.2\.15/24,gw=10\.0\.2\.2",
            r"Starling: boot files: none \(no boot-files\.cpio on TFTP server 10\.0\.2\.2\)",
            r"Verifying Hash Integrity \.\.\. sha256\+ OK",
        ])  # fmt: skip
    elif args.boot_files_disk:
        boot_files_disk(os.path.abspath(args.boot_files_disk), args.mtools, args.make_initrd)
    elif args.boot_files_tftp:
        boot_files_tftp(args.boot_files_tftp, args.make_initrd)
    else:
        bad_files(os.path.abspath(args.bad_files), args.mtools)
    if FAILURES:
        print("FAIL: %d check(s) failed" % len(FAILURES))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
