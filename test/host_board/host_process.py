"""A Starling application as a Linux process (the host board) for a test, and
the network namespace with a TAP device that is its NIC's wire.

TapNamespace: made by the test, always removed.

The host board's NIC (platform/host/nic.h) uses a TAP device as its wire.
Tests create both inside a namespace of their own, so their traffic never
leaves it: the Linux side of the TAP is the peer (10.0.2.2/24 by default),
the Starling process on the other side of the wire is 10.0.2.15.

    with TapNamespace() as ns:
        ns.run([...])              # a command inside the namespace
        ns.popen([...])            # a process inside it
Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN), as `ip netns` does.
"""
import argparse
import os
import socket
import subprocess
import sys
import time

# The shared packet arithmetic (test/lib/packets.py, in this script's
# runfiles through //test/host_board:host_process). The sh_tests that use
# this file run their scripts as plain files (again inside a namespace, with
# sys.executable): nothing else puts test/lib on their path. A py_test's
# //test/host_board:host_process_lib dep does, and this line changes nothing.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from packets import internet_checksum  # noqa: E402,F401  (tests use host_process.internet_checksum)
from stats_line import parse_stats_line  # noqa: E402


class TapNamespace:
    def __init__(self, tap="st0", peer_cidr="10.0.2.2/24"):
        self.name = f"starling-{os.getpid()}"
        self.tap = tap
        self.peer_cidr = peer_cidr

    def _ip(self, *args):
        subprocess.run(["ip", *args], check=True, stdout=subprocess.DEVNULL)

    def __enter__(self):
        if os.geteuid() != 0:
            raise SystemExit("FAIL: this test needs root for `ip netns add` and a TAP device "
                             "(run bazel test as root, as .ci/run does)")
        self._ip("netns", "add", self.name)
        try:
            self._ip("-n", self.name, "link", "set", "lo", "up")
            self._ip("-n", self.name, "tuntap", "add", "dev", self.tap, "mode", "tap")
            if self.peer_cidr:  # None: the wire's far end is elsewhere (test/impaired_link.py)
                self._ip("-n", self.name, "addr", "add", self.peer_cidr, "dev", self.tap)
            self._ip("-n", self.name, "link", "set", self.tap, "up")
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        subprocess.run(["ip", "netns", "del", self.name], stderr=subprocess.DEVNULL)
        return False

    def command(self, argv):
        return ["ip", "netns", "exec", self.name, *argv]

    def run(self, argv, **kwargs):
        return subprocess.run(self.command(argv), **kwargs)

    def popen(self, argv, **kwargs):
        return subprocess.Popen(self.command(argv), **kwargs)


class App:
    """The Starling process, its console in the test's outputs."""

    def __init__(self, argv, log_name="console.log"):
        out_dir = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR") or os.environ.get("TEST_TMPDIR") or "/tmp"
        self.log_path = os.path.join(out_dir, log_name)
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self._log,
                                     stderr=subprocess.STDOUT)

    def console(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def wait_for(self, text, seconds):
        deadline = time.monotonic() + seconds
        while text not in self.console():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


# What a console must never show: a panic, a failed step, a sanitizer report.
CONSOLE_ALARMS = ("PANIC", "FAIL", "ERROR: AddressSanitizer", "runtime error:")


def udp_roundtrip(host, payload, port=1235, tries=5, timeout=1.0):
    """Sends `payload` to host:port until a datagram comes back (the first
    may wait for ARP); the reply, or None after `tries`."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)
        for _ in range(tries):
            s.sendto(payload, (host, port))
            try:
                data, _ = s.recvfrom(65536)
                return data
            except socket.timeout:
                continue
    return None


def echo_stats(host, port=1235, only=""):
    """The echo app's STARLING-STATS counters as a dict ({} without a
    reply). The request is padded to 1024 bytes: see apps/echo. `only`:
    space-separated key prefixes, for counters the full line (one datagram,
    full) may leave off."""
    query = ("STARLING-STATS " + only).rstrip().encode()
    reply = udp_roundtrip(host, query.ljust(1024), port=port)
    return (parse_stats_line(reply) or {}) if reply is not None else {}


def run_in_namespace(script, argv, timeout=240, peer_cidr="10.0.2.2/24"):
    """Runs `script` again inside a fresh TapNamespace with `argv` plus
    --inside; returns its exit code. The namespace is removed afterwards."""
    with TapNamespace(peer_cidr=peer_cidr) as ns:
        return ns.run([sys.executable, os.path.abspath(script), "--inside", *argv],
                      timeout=timeout).returncode


def app_test_main(script, doc, inside, qemu=False, app=True, files=(), timeout=20,
                  namespace_timeout=240):
    """The command line of a test of one app binary: --app, --timeout; run
    again inside a fresh TapNamespace (--inside), where `inside(args)` runs.
    With qemu=True the test may take --qemu LAUNCHER instead of --app (the
    image on the same TAP: app_for(args) starts either); with app=False
    only --qemu. `files`: more paths the test needs, (flag, help) each,
    required and passed on made absolute. `timeout`: --timeout's default.
    Returns the exit code."""
    parser = argparse.ArgumentParser(description=doc)
    which = parser.add_mutually_exclusive_group(required=True)
    if app:
        which.add_argument("--app", help="the app's host binary")
    if qemu:
        which.add_argument("--qemu", help="the app's :qemu launcher (virtio-net on the TAP)")
    for flag, help_text in files:
        parser.add_argument(flag, required=True, help=help_text)
    parser.add_argument("--timeout", type=float, default=timeout)
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        return inside(args)
    given = ["--qemu", os.path.abspath(args.qemu)] if getattr(args, "qemu", None) else \
        ["--app", os.path.abspath(args.app)]
    for flag, _ in files:
        given += [flag, os.path.abspath(getattr(args, flag.lstrip("-").replace("-", "_")))]
    return run_in_namespace(script, [*given, "--timeout", str(args.timeout)],
                            timeout=namespace_timeout)


QEMU_RUN_S = 600  # how long the launcher lets QEMU run; the test stops it sooner


def app_for(args, ip, netdev_env="STARLING_ECHO_NETDEV", initrd=None, tap_options=""):
    """The app under test on the TAP: the host binary (DWMAC driver and
    model) with `ip`, or the :qemu launcher's image (virtio-net; its own
    default address, 10.0.2.15/24 via 10.0.2.2) on the same TAP, its netdev
    given in `netdev_env` (each app's launcher reads its own: apps/echo's
    BUILD.bazel, apps/httpd/httpd.bzl); `initrd`: its boot files
    (docs/boot-files.md), as --initrd= or QEMU's -initrd; `tap_options`:
    more of QEMU's tap netdev options (",vnet_hdr=off")."""
    if getattr(args, "qemu", None):
        os.environ[netdev_env] = "tap,id=n0,ifname=st0,script=no,downscript=no" + tap_options
        extra = ["--", "-initrd", initrd] if initrd else []
        return App([args.qemu, "--timeout", str(QEMU_RUN_S), *extra])
    return App([args.app, "--tap=st0", f"--ip={ip}", *([f"--initrd={initrd}"] if initrd else [])])


def connect_from(source, destination, timeout=2.0):
    """A TCP connection to `destination` (address, port) from the local
    address `source`: one of the link's hosts (add_second_host), IPv4 or
    IPv6 (a global address: no scope)."""
    family = socket.AF_INET6 if ":" in source else socket.AF_INET
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((source, 0))
    s.connect(destination)
    return s


def still_open(s):
    """True if the guest has not reset or closed `s` (a read times out)."""
    s.settimeout(0.05)
    try:
        return s.recv(1) != b""
    except socket.timeout:
        return True
    except OSError:
        return False


def echoed_back(s, data):
    """Sends `data` on the connected TCP socket `s` and reads as many bytes
    back; True when they are `data` (False on a close, reset or timeout)."""
    try:
        s.sendall(data)
        got = b""
        while len(got) < len(data):
            chunk = s.recv(len(data) - len(got))
            if not chunk:
                break
            got += chunk
    except OSError as e:
        print(f"echo: {e}")
        return False
    return got == data


def tcp_echo_from(source, destination, size=1024):
    """One TCP echo of `size` bytes from `source` to `destination`; True
    when every byte came back."""
    data = bytes((i * 31 + size) & 0xFF for i in range(size))
    try:
        with connect_from(source, destination) as s:
            return echoed_back(s, data)
    except OSError:
        return False


def add_second_host(address, dev="st0"):
    """A second address on the TAP's Linux side: a second host on the link
    (the namespace's own is 10.0.2.2)."""
    subprocess.run(["ip", "addr", "add", address + "/24", "dev", dev], check=True)


def report(app, failures, expected=()):
    """Checks the app's console (expected lines present; no panic, FAIL or
    sanitizer report), prints its tail and the failures; the exit code."""
    text = app.console()
    for line in expected:
        if line not in text:
            failures.append(f"console lacks: {line}")
    for bad in CONSOLE_ALARMS:
        if bad in text:
            failures.append(f"console shows {bad}")
    print("---- console ----")
    print(text[-3000:])
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


def echo_report(app, failures, args):
    """report() for the echo app started by app_for(args): the line it
    prints once its NIC is up (the QEMU image's, or the host board's)."""
    first = ("echo: tcp echo on port 1236" if getattr(args, "qemu", None)
             else "host: NIC dwmac (device model) on TAP st0")
    return report(app, failures, (first,))
