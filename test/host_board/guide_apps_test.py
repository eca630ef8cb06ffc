#!/usr/bin/env python3
"""The guide's services (docs/writing-an-app.md) do what the guide says, on
the host board: udp_shout answers each datagram to port 7000 in upper case,
tcp_hello answers "hello, " and the first thing a client sends on port 7001,
then closes with a FIN. Each app runs in turn on the TAP of a network
namespace this test makes; bounded: a few datagrams and connections, 20 s
for each app to come up.

    guide_apps_test.py --udp BINARY --tcp BINARY
"""
import argparse
import os
import socket
import sys

import host_process

GUEST = "10.0.2.15"


def check_udp(failures):
    for text in (b"hello, starling", b"Mixed Case 123 \xff"):
        reply = host_process.udp_roundtrip(GUEST, text, port=7000)
        want = bytes(b - 32 if 97 <= b <= 122 else b for b in text)
        print(f"udp_shout: {text!r} -> {reply!r}")
        if reply != want:
            failures.append(f"udp_shout answered {reply!r} to {text!r}, not {want!r}")


def check_tcp(failures):
    for name in (b"ada\n", b"grace\n"):
        with socket.create_connection((GUEST, 7001), timeout=5) as s:
            s.sendall(name)
            got = b""
            while True:
                chunk = s.recv(256)
                if not chunk:  # the FIN: the answer is whole
                    break
                got += chunk
        print(f"tcp_hello: {name!r} -> {got!r}")
        if got != b"hello, " + name:
            failures.append(f"tcp_hello answered {got!r} to {name!r}")


def inside(args):
    failures = []
    for binary, app, check in ((args.udp, "udp_shout", check_udp),
                               (args.tcp, "tcp_hello", check_tcp)):
        proc = host_process.App([binary, "--tap=st0", "--ip=10.0.2.15/24,gw=10.0.2.2"])
        try:
            if not proc.wait_for(f"{app}: ready", args.timeout):
                failures.append(f"{app} never printed '{app}: ready'")
            else:
                check(failures)
        finally:
            proc.stop()
        if host_process.report(proc, []) != 0:
            failures.append(f"{app}'s console shows an alarm")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--udp", required=True)
    parser.add_argument("--tcp", required=True)
    parser.add_argument("--timeout", type=float, default=20)
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        return inside(args)
    return host_process.run_in_namespace(
        __file__, ["--udp", os.path.abspath(args.udp), "--tcp", os.path.abspath(args.tcp),
                   "--timeout", str(args.timeout)])


if __name__ == "__main__":
    sys.exit(main())
