#!/usr/bin/env python3
"""iperf2 client against the iperf app (lwIP's lwiperf) through hostfwd:

  iperf_client_test.py --launcher LAUNCHER [--timeout S] [--seconds T]
                       [--append BOOTARGS] [--expect LINE]...

Boots the image with STARLING_IPERF_TCP_PORT set to a free host port, waits
for "iperf: ready", runs `iperf -c 127.0.0.1 -p PORT -t T -f m` (bounded by
`timeout`), then checks: the client reports a transfer and a non-zero
bandwidth; the guest's console shows lwiperf's "iperf: session done-server"
report with kbit/s > 0 and a byte count matching the client's (within 5% +
1 MiB: the client's figure is rounded to MBytes), and the console has every
--expect line (e.g. the address that --append's ip= asked for). Prints the
Mb/s figures.
Exit 0 on success.
"""
import argparse
import re
import shutil
import subprocess
import sys

from qemu_guest import QemuGuest, free_port

READY = "iperf: ready"
SESSION_RE = re.compile(
    r"iperf: session (\S+) from (\S+):(\d+) bytes (\d+) ms (\d+) kbit/s (\d+)")
# "[  1] 0.0000-3.0260 sec   383 MBytes  1060 Mbits/sec"
CLIENT_RE = re.compile(
    r"\]\s+([\d.]+)-\s*([\d.]+) sec\s+([\d.]+) (K|M|G)?Bytes\s+([\d.]+) Mbits/sec")
UNIT = {None: 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--launcher", required=True)
    ap.add_argument("--timeout", type=int, default=90)
    ap.add_argument("--seconds", type=int, default=3)
    ap.add_argument("--append", default="", help="kernel command line (QEMU -append)")
    ap.add_argument("--expect", action="append", default=[], help="a console line that must appear")
    args = ap.parse_args()

    iperf = shutil.which("iperf")
    if iperf is None:
        print("FAIL: no iperf on PATH (setup.sh installs Debian's iperf2)")
        return 1

    failures = []
    port = free_port()
    guest = QemuGuest(args.launcher, args.timeout, env={"STARLING_IPERF_TCP_PORT": str(port)},
                      qemu_args=("-append", args.append) if args.append else ())
    try:
        if not guest.wait_for(READY, args.timeout):
            failures.append(f"guest never printed {READY!r}")
        else:
            expected_host = f"starling: host 127.0.0.1:{port}/tcp -> guest port 5001/tcp"
            if expected_host not in guest.console():
                failures.append(f"launcher did not print {expected_host!r}")
            if "starling: IPv6: QEMU 7.2" not in guest.console():
                failures.append("launcher did not say how IPv6 reaches the guest")
            cmd = ["timeout", str(args.seconds + 30), iperf, "-c", "127.0.0.1",
                   "-p", str(port), "-t", str(args.seconds), "-f", "m"]
            print("running:", " ".join(cmd))
            run = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
            print("---- iperf client ----")
            print(run.stdout + run.stderr)
            m = CLIENT_RE.search(run.stdout)
            if run.returncode != 0:
                failures.append(f"iperf exited {run.returncode}")
            if not m:
                failures.append("no bandwidth line in iperf's output")
            else:
                client_bytes = float(m.group(3)) * UNIT[m.group(4)]
                client_mbps = float(m.group(5))
                print(f"client: {client_bytes / (1 << 20):.1f} MiB in "
                      f"{float(m.group(2)) - float(m.group(1)):.2f} s = {client_mbps:.0f} Mbits/sec")
                if client_mbps <= 0:
                    failures.append("client bandwidth is zero")
                s = guest.wait_for_re(SESSION_RE, 15)
                if not s:
                    failures.append("guest console lacks lwiperf's session report")
                else:
                    kind, guest_bytes, ms, kbps = s.group(1), int(s.group(4)), int(s.group(5)), int(s.group(6))
                    print(f"guest (lwiperf): {kind} {guest_bytes} bytes in {ms} ms = "
                          f"{kbps / 1000:.0f} Mbits/sec")
                    if kind != "done-server":
                        failures.append(f"lwiperf session ended {kind}, not done-server")
                    if kbps <= 0:
                        failures.append("lwiperf reports 0 kbit/s")
                    if abs(guest_bytes - client_bytes) > 0.05 * client_bytes + (1 << 20):
                        failures.append(f"byte counts differ: client ~{client_bytes:.0f}, "
                                        f"guest {guest_bytes}")
                    print(f"IPERF_MBPS client={client_mbps:.0f} guest={kbps / 1000:.0f}")
    finally:
        guest.stop()
    text = guest.console()
    for bad in ("PANIC", "FAIL"):
        if bad in text:
            failures.append(f"console shows {bad}")
    for line in args.expect:
        if line not in text:
            failures.append(f"console lacks: {line}")
    print("---- console ----")
    print(text[-3000:])
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
