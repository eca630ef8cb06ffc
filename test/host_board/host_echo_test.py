#!/usr/bin/env python3
"""End to end on the host board: the echo app as a Linux process, its NIC the
DWMAC driver over the device model, the model's wire a TAP device inside a
network namespace this test creates. Linux's own stack and tools (socat, a
Python client) talk to it through the TAP, so every frame crosses the
driver's descriptor rings, the model's DMA and interrupts.

Checks: UDP echo byte for byte (1, 64, 1472 bytes; a 2000-datagram burst),
socat over UDP and TCP, a 1 MiB TCP stream and 20 concurrent connections,
the utilisation service, and the STATS counters (frames through the NIC, no
driver errors). Bounded: every wait has a deadline, the app is killed at the
end, the namespace removed.
"""
import random
import re
import socket
import subprocess
import sys
import threading
import time

import host_process
from host_process import App, report

GUEST = "10.0.2.15"


def udp_roundtrip(payload, port=1235, tries=5, timeout=1.0):
    return host_process.udp_roundtrip(GUEST, payload, port=port, tries=tries, timeout=timeout)


def udp_burst(count, size, window, failures):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.settimeout(1.0)
    sent, received, corrupt, dup = 0, set(), 0, 0
    rng = random.Random(7)
    payloads = {}
    while sent < count or len(received) < sent:
        while sent < count and sent - len(received) < window:
            body = sent.to_bytes(4, "big") + rng.randbytes(size - 4)
            payloads[sent] = body
            s.sendto(body, (GUEST, 1235))
            sent += 1
        try:
            data, _ = s.recvfrom(65536)
        except socket.timeout:
            break
        seq = int.from_bytes(data[:4], "big")
        if seq in received:
            dup += 1
        elif payloads.get(seq) != data:
            corrupt += 1
        else:
            received.add(seq)
    s.close()
    lost = count - len(received)
    print(f"udp burst: {count} x {size} B, window {window}: {len(received)} echoed, "
          f"{lost} lost, {dup} duplicated, {corrupt} corrupted")
    if corrupt or dup:
        failures.append(f"udp burst: {corrupt} corrupted, {dup} duplicated")
    if lost > count // 100:
        failures.append(f"udp burst lost {lost} of {count} (more than 1%)")


def tcp_echo(data, port=1236, timeout=20):
    s = socket.create_connection((GUEST, port), timeout=timeout)
    got = bytearray()

    def reader():
        try:
            while len(got) < len(data):
                chunk = s.recv(65536)
                if not chunk:
                    break
                got.extend(chunk)
        except OSError:
            pass

    t = threading.Thread(target=reader)
    t.start()
    s.sendall(data)
    t.join(timeout)
    s.close()
    return bytes(got)


def socat(argv, data, timeout=20):
    r = subprocess.run(["socat", *argv], input=data, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    return r.stdout


def utilisation(failures):
    s = socket.create_connection((GUEST, 1237), timeout=10)
    f = s.makefile("rwb")
    lines = [f.readline()]
    for command in (b"HELLO\n", b"LOAD cpu_target_lukem\n", b'SETUP args::""\n', b"START\n"):
        f.write(command)
        f.flush()
        if command != b"START\n":
            lines.append(f.readline())
    time.sleep(0.3)
    f.write(b"STOP\n")
    f.flush()
    rest = f.read()
    s.close()
    text = b"".join(lines) + rest
    m = re.search(rb",(\d+),(\d+)\s*$", text)
    if not text.startswith(b"100 IPBENCH V1.0") or b"220 VALID DATA" not in text or not m:
        failures.append(f"utilisation protocol: {text!r}")
        return
    idle, total = int(m.group(1)), int(m.group(2))
    print(f"utilisation: idle {idle} of {total} cycles ({100.0 * idle / max(total, 1):.1f}% idle)")
    if not 0 < idle <= total:
        failures.append(f"utilisation: idle {idle} total {total}")


def stats():
    return host_process.echo_stats(GUEST)


def inside(args):
    failures = []
    app = App([args.app, "--tap=st0", "--ip=10.0.2.15/24,gw=10.0.2.2"])
    try:
        if not app.wait_for("echo: ready", args.timeout):
            failures.append("the echo app never printed 'echo: ready'")
            return finish(app, failures)
        time.sleep(0.2)
        for size in (1, 64, 1472):
            payload = bytes(random.Random(size).randbytes(size))
            if udp_roundtrip(payload) != payload:
                failures.append(f"udp echo of {size} bytes did not come back byte for byte")
        print("udp echo: 1, 64, 1472 bytes checked")
        udp_burst(2000, 1472, 32, failures)

        if socat(["-t", "2", "-", f"UDP:{GUEST}:1235"], b"hello from socat\n") != b"hello from socat\n":
            failures.append("socat UDP echo differs")
        blob = random.Random(3).randbytes(256 * 1024)
        if socat(["-t", "5", "-", f"TCP:{GUEST}:1236"], blob) != blob:
            failures.append("socat TCP echo of 256 KiB differs")
        print("socat: UDP line and 256 KiB over TCP checked")

        big = random.Random(1).randbytes(1 << 20)
        t0 = time.monotonic()
        if tcp_echo(big) != big:
            failures.append("1 MiB TCP echo differs")
        print(f"tcp: 1 MiB echoed and verified in {1000 * (time.monotonic() - t0):.0f} ms")

        results = [None] * 20
        def client(i):
            data = random.Random(100 + i).randbytes(20 * 1024)
            results[i] = tcp_echo(data) == data
        threads = [threading.Thread(target=client, args=(i,)) for i in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        if not all(results):
            failures.append(f"concurrent TCP: {results.count(False) + results.count(None)} of 20 failed")
        print("tcp: 20 concurrent connections x 20 KiB verified")

        utilisation(failures)

        counters = stats()
        print("stats:", " ".join(f"{k}={v}" for k, v in sorted(counters.items())))
        if counters.get("nic_rx_frames", 0) < 2000:
            failures.append(f"nic_rx_frames {counters.get('nic_rx_frames')} < 2000: frames bypassed the NIC?")
        if counters.get("nic_rx_errors", 1) != 0:
            failures.append(f"nic_rx_errors {counters.get('nic_rx_errors')}")
        if counters.get("nic_resets", 1) != 0:
            failures.append(f"nic_resets {counters.get('nic_resets')}")
    finally:
        app.stop()
    return finish(app, failures)


def finish(app, failures):
    return report(app, failures, ("host: NIC dwmac (device model) on TAP st0",
                                  "echo: address 10.0.2.15/24"))


def main():
    return host_process.app_test_main(__file__, __doc__, inside)


if __name__ == "__main__":
    sys.exit(main())
