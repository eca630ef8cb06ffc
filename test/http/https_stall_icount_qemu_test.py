#!/usr/bin/env python3
"""A TLS handshake gives the hart back between its steps (net/tls/tls.cc).

apps/httpd in QEMU under `-icount shift=0`: each guest instruction is one
nanosecond of the guest's clock, so the stall detector's threshold
(`starling.stall_ms=`) is a count of instructions, the same on every host
and every day, not a wall-clock time. A full handshake's server part costs
about 3.2 to 3.4 M instructions from curl (the key share's public key by
a fixed-base comb, net/tls/x25519, the agreement by Everest's HACL* code,
the ECDSA P-256 signature on Starling's 64-bit P-256 arithmetic,
net/tls/p256: //bench/tls, docs/tls.md), more than the 3 M threshold used
here; one step at a time, its longest step (the signature, TLS 1.3's
CertificateVerify, ~1.3 to 1.6 M) is under it, and under the detector's
default 10 ms with room. (Before Everest: 37 M a handshake, 20 to 27 M
its ServerHello step, and this test needed starling.stall_ms=27; before
64-bit limbs, 9.2 M and 6.5 to 7 M at an 8 ms threshold; before
net/tls/p256, 6 M and 3.8 M at 5 ms. At 2 ms, tried after the comb, one
run in about seventy saw a 2.0 M run after boot and failed: 3 ms leaves
half again over that, the handshake still over the threshold.)

1. --handshakes new HTTPS connections (curl; TLS 1.3, and 1.2 for every
   fourth), each one full handshake: every one answered "ok", counted in
   starling_tls_handshakes_total by version.
2. The busy instructions over them, per handshake, exceed the threshold:
   a handshake in one piece would be a stall.
3. starling_stalls_total did not grow (--max-stall-share, default 0): the
   handshake in steps, not in one go, every step under the threshold.

Bounded: every client has a timeout; QEMU is stopped at the end.
"""
import argparse
import os
import subprocess
import sys
import tempfile

from qemu_guest import QemuGuest, free_port
from http_checks import boot_files, metrics, throwaway_pair, verdict

INSTRUCTIONS = "starling_runtime_instructions_total"
IDLE = "starling_runtime_idle_cycles_total"  # under -icount a cycle is an instruction


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--launcher", required=True)
    p.add_argument("--handshakes", type=int, default=12)
    p.add_argument("--stall-ms", type=int, default=3)
    p.add_argument("--max-stall-share", type=float, default=0.0)
    args = p.parse_args()
    failures = []
    work = tempfile.mkdtemp(prefix="starling-stall-")
    cert, key = throwaway_pair(work)
    files = boot_files(work, f"tls/cert.pem={cert}", f"tls/key.pem={key}")
    http_port, https_port = free_port(), free_port()
    env = {"STARLING_HTTPD_PORT": str(http_port), "STARLING_HTTPS_PORT": str(https_port)}
    guest = QemuGuest(os.path.abspath(args.launcher), 240, env=env,
                      runner_args=["--boot-files", files],
                      qemu_args=["-icount", "shift=0", "-append", f"starling.stall_ms={args.stall_ms}"],
                      log_name="console-icount.log")
    try:
        if not guest.wait_for("httpd: ready", 120):
            failures.append("httpd never ready")
            return report(guest, failures)
        before = metrics(http_port)[2]
        if before.get("starling_stall_threshold_seconds") != args.stall_ms / 1000:
            failures.append(f"threshold on the page {before.get('starling_stall_threshold_seconds')}, "
                            f"asked for {args.stall_ms} ms")
        answered = 0
        for i in range(args.handshakes):
            version = ["--tls-max", "1.2"] if i % 4 == 3 else ["--tlsv1.3"]
            r = subprocess.run(["curl", "-sk", "--max-time", "30", *version,
                                f"https://127.0.0.1:{https_port}/healthz"],
                               capture_output=True, timeout=40)
            answered += r.stdout.decode().strip() == "ok"
        after = metrics(http_port)[2]
    finally:
        guest.stop()

    def grew(name):
        return after.get(name, 0) - before.get(name, 0)
    by_version = {v: grew(f'starling_tls_handshakes_total{{version="{v}"}}') for v in ("1.2", "1.3")}
    handshakes = sum(by_version.values())
    stalls = grew("starling_stalls_total")
    per_handshake = (grew(INSTRUCTIONS) - grew(IDLE)) / max(handshakes, 1)
    longest = after.get("starling_stall_longest_seconds", 0) * 1e3
    print(f"{answered} of {args.handshakes} HTTPS requests answered, {handshakes:g} handshakes, "
          f"{per_handshake / 1e6:.1f} M busy instructions each (a scrape included); "
          f"stalls +{stalls:g} at {args.stall_ms} ms = {args.stall_ms} M instructions; "
          f"the longest run since boot {longest:.1f} M")
    want_12 = args.handshakes // 4
    if answered != args.handshakes or by_version != {"1.2": want_12, "1.3": args.handshakes - want_12}:
        failures.append(f"{answered} answered, handshakes by version {by_version}, "
                        f"want {args.handshakes} answered, {want_12} of them TLS 1.2")
    if INSTRUCTIONS not in after or IDLE not in after:
        failures.append(f"no {INSTRUCTIONS} or {IDLE} on the page")
    elif per_handshake <= args.stall_ms * 1e6:
        failures.append(f"a handshake took {per_handshake:.0f} instructions, under the threshold: "
                        "this test would not see a handshake run in one piece")
    if stalls > args.max_stall_share * args.handshakes:
        failures.append(f"starling_stalls_total +{stalls:g} in {args.handshakes} handshakes at "
                        f"{args.stall_ms} M instructions: more than {args.max_stall_share:.0%} of "
                        "them kept the hart for more than a step")
    return report(guest, failures)


def report(guest, failures):
    text = guest.console()
    print("---- console (httpd and stall lines) ----")
    print("\n".join(line for line in text.splitlines()
                    if line.startswith("httpd:") or line.startswith("STALL: a task")))
    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
