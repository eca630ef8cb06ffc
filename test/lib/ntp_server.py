"""A tiny NTP server for the SNTP tests (docs/clock.md): answers client
requests on UDP port 123 of one address with `answers(request, n)` (n:
this request's number, from 1), a list of 48-byte replies built by
`reply()`, from a thread of its own. Real time
service on the link is chronyd's (@chrony); this one says what a test
needs it to say (a lie, a step back, a time over IPv6)."""
import socket
import struct
import threading
import time

NTP_UNIX_OFFSET = 2_208_988_800  # 1900-01-01 to 1970-01-01


def ntp_time(unix):
    """NTP's 64-bit timestamp of a Unix time (era 0)."""
    seconds = int(unix // 1)
    return struct.pack("!II", (seconds + NTP_UNIX_OFFSET) % 2**32, int((unix - seconds) * 2**32))


def reply(request, unix, leap=0, stratum=2, origin=None):
    """A server's answer (mode 4, version 4) to `request` saying `unix`:
    its originate timestamp the request's transmit timestamp unless
    `origin` is given."""
    head = bytes([leap << 6 | 4 << 3 | 4, stratum, 6, 0xEC]) + bytes(20)
    return head + (origin or request[40:48]) + ntp_time(unix) + ntp_time(unix)


def honest(request, n):  # noqa: ARG001  (every request alike)
    return [reply(request, time.time())]


class NtpServer:
    """Serves on (address, 123) until close(); counts the requests."""

    def __init__(self, address, answers=honest):
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_DGRAM)
        self.sock.bind((address, 123))
        self.sock.settimeout(0.2)
        self.answers = answers
        self.requests = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while not self.stop.is_set():
            try:
                request, peer = self.sock.recvfrom(512)
            except socket.timeout:
                continue
            if len(request) < 48:
                continue
            self.requests += 1
            for answer in self.answers(request, self.requests):
                self.sock.sendto(answer, peer)
                time.sleep(0.05)

    def close(self):
        self.stop.set()
        self.thread.join(timeout=5)
        self.sock.close()
