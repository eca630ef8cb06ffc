"""The echo image in QEMU for a real-client test (see //test:qemu_guest.py).

The host ports that reach the guest's 1235/udp, 1236/tcp and 1237/tcp are
picked free and passed to the launcher as STARLING_ECHO_*_PORT /
STARLING_UTIL_TCP_PORT (apps/echo's qemu_args use them for hostfwd).
"""
import socket
import time

from qemu_guest import QemuGuest, free_port  # noqa: F401 (free_port: re-exported)


class EchoGuest(QemuGuest):
    def __init__(self, launcher, timeout, append="", runner_args=(), env=None, qemu_args=()):
        self.udp_port = free_port(socket.SOCK_DGRAM)
        self.tcp_port = free_port(socket.SOCK_STREAM)
        self.util_port = free_port(socket.SOCK_STREAM)
        ports = {
            "STARLING_ECHO_UDP_PORT": str(self.udp_port),
            "STARLING_ECHO_TCP_PORT": str(self.tcp_port),
            "STARLING_UTIL_TCP_PORT": str(self.util_port),
        }
        super().__init__(launcher, timeout, env=dict(ports, **(env or {})), runner_args=runner_args,
                         qemu_args=tuple(qemu_args) + (("-append", append) if append else ()))

    def wait_ready(self):
        """True once the guest printed "echo: ready" (bounded by the timeout)."""
        if not self.wait_for("echo: ready"):
            return False
        time.sleep(0.3)  # the service tasks print after "ready"
        return True


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
