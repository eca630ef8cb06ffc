"""Boots the echo image in QEMU for a real-client test and tears it down.

The host ports that reach the guest's 1235/udp, 1236/tcp and 1237/tcp are
picked free and passed to the launcher as STARLING_ECHO_*_PORT /
STARLING_UTIL_TCP_PORT (apps/echo's qemu_args use them for hostfwd).
"""
import os
import socket
import subprocess
import time


def free_port(kind):
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class EchoGuest:
    def __init__(self, launcher, timeout, append="", runner_args=()):
        out_dir = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR") or os.environ.get("TEST_TMPDIR") or "/tmp"
        self.log_path = os.path.join(out_dir, "console.log")
        self.udp_port = free_port(socket.SOCK_DGRAM)
        self.tcp_port = free_port(socket.SOCK_STREAM)
        self.util_port = free_port(socket.SOCK_STREAM)
        env = dict(os.environ,
                   STARLING_ECHO_UDP_PORT=str(self.udp_port),
                   STARLING_ECHO_TCP_PORT=str(self.tcp_port),
                   STARLING_UTIL_TCP_PORT=str(self.util_port))
        cmd = [launcher, "--timeout", str(timeout), *runner_args]
        if append:
            cmd += ["--", "-append", append]
        self.timeout = timeout
        self._log = open(self.log_path, "wb")
        self.qemu = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self._log,
                                     stderr=subprocess.STDOUT, env=env)

    def console(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def wait_ready(self):
        """True once the guest printed "echo: ready" (bounded by the timeout)."""
        deadline = time.monotonic() + self.timeout
        while "echo: ready" not in self.console():
            if self.qemu.poll() is not None or time.monotonic() > deadline:
                return False
            time.sleep(0.1)
        time.sleep(0.2)  # the service tasks print after "ready"
        return True

    def stop(self):
        if self.qemu.poll() is None:
            self.qemu.terminate()
            try:
                self.qemu.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.qemu.kill()
                self.qemu.wait()
        self._log.close()


def report(failures, text, expected):
    """Prints the console tail and the failures; returns the exit code."""
    for bad in ("PANIC", "FAIL"):
        if bad in text:
            failures.append(f"console shows {bad}")
    for line in expected:
        if line not in text:
            failures.append(f"console lacks: {line}")
    print("---- console ----")
    print(text[-3000:])
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0
