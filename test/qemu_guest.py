"""A Starling image booted in QEMU for a real-client test, and torn down.

Shared by the Python QEMU tests (test/net, test/iperf, test/robustness):
the console goes to console.log in the test's outputs, waits are bounded by
the boot's timeout, and stop() always ends QEMU.

A py_test under //test depends on //test:qemu_guest and imports it with
    from qemu_guest import QemuGuest, free_port
(an sh_test's script lists "//test:qemu_guest.py" in its data and puts
$TEST_SRCDIR/starling/test on sys.path itself).
"""
import os
import socket
import subprocess
import time


def free_port(kind=socket.SOCK_STREAM):
    """A loopback port nothing listens on right now."""
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class QemuGuest:
    def __init__(self, launcher, timeout, env=None, runner_args=(), qemu_args=(), command=None,
                 log_name="console.log"):
        """Boots `launcher` (an image's run.sh), or runs `command` as given
        (QEMU with firmware of its own, e.g. U-Boot); the console goes to
        log_name in the test's outputs."""
        out_dir = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR") or os.environ.get("TEST_TMPDIR") or "/tmp"
        self.log_path = os.path.join(out_dir, log_name)
        self.timeout = timeout
        if command is not None:
            cmd = list(command)
        else:
            cmd = [launcher, "--timeout", str(timeout), *runner_args]
            if qemu_args:
                cmd += ["--", *qemu_args]
        self._log = open(self.log_path, "wb")
        self.qemu = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self._log,
                                     stderr=subprocess.STDOUT, env=dict(os.environ, **(env or {})))

    def console(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def wait_for(self, text, seconds=None):
        """True once `text` is on the console (False if QEMU exits or time runs out)."""
        deadline = time.monotonic() + (self.timeout if seconds is None else seconds)
        while text not in self.console():
            if self.qemu.poll() is not None or time.monotonic() > deadline:
                return False
            time.sleep(0.1)
        return True

    def wait_for_re(self, pattern, seconds=None):
        """The first match of a compiled regex on the console, or None."""
        deadline = time.monotonic() + (self.timeout if seconds is None else seconds)
        while True:
            m = pattern.search(self.console())
            if m or self.qemu.poll() is not None or time.monotonic() > deadline:
                return m
            time.sleep(0.1)

    def stop(self):
        if self.qemu.poll() is None:
            self.qemu.terminate()
            try:
                self.qemu.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.qemu.kill()
                self.qemu.wait()
        self._log.close()
