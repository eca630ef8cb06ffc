#!/usr/bin/env python3
"""iperf on the host board: the iperf app (lwIP's lwiperf) as a Linux process
over the DWMAC driver and device model, Debian's iperf2 client on the Linux
side of the TAP, in a namespace this test creates. Checks the client's
bandwidth line and the app's lwiperf session report (bytes agree within 1%);
prints the Mb/s figures. Bounded: -t seconds, deadlines everywhere.
"""
import argparse
import os
import re
import subprocess
import sys

from host_process import App, report, run_in_namespace

SESSION_RE = re.compile(r"iperf: session (\S+) from (\S+):(\d+) bytes (\d+) ms (\d+) kbit/s (\d+)")
CLIENT_RE = re.compile(r"(\d+(?:\.\d+)?) (?:MBytes|KBytes|GBytes)\s+(\d+(?:\.\d+)?) Mbits/sec")


def inside(args):
    failures = []
    app = App([args.app, "--tap=st0"])
    try:
        if not app.wait_for("iperf: ready", 20):
            failures.append("the iperf app never printed 'iperf: ready'")
        else:
            run = subprocess.run(["iperf", "-c", "10.0.2.15", "-t", str(args.seconds), "-f", "m"],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 timeout=args.seconds + 30)
            out = run.stdout.decode("utf-8", "replace")
            print("---- iperf client ----")
            print(out)
            m = CLIENT_RE.search(out)
            if run.returncode != 0 or not m:
                failures.append(f"iperf exited {run.returncode} without a bandwidth line")
            elif float(m.group(2)) <= 0:
                failures.append("iperf reports 0 Mbits/sec")
            session = None
            if app.wait_for("iperf: session", 10):
                session = SESSION_RE.search(app.console())
            if not session:
                failures.append("no lwiperf session report on the console")
            else:
                kind, _, _, nbytes, ms, kbits = session.groups()
                print(f"host board (lwiperf): {kind} {nbytes} bytes in {ms} ms = "
                      f"{int(kbits) / 1000:.1f} Mbit/s")
                if kind != "done-server":
                    failures.append(f"lwiperf session ended {kind}")
    finally:
        app.stop()
    return report(app, failures, ("host: NIC dwmac (device model) on TAP st0",))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--app", required=True)
    parser.add_argument("--seconds", type=int, default=2)
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        return inside(args)
    return run_in_namespace(__file__, ["--app", os.path.abspath(args.app),
                                       "--seconds", str(args.seconds)])


if __name__ == "__main__":
    sys.exit(main())
