#!/usr/bin/env python3
"""`bazel run //apps/httpd:qemu` on a first run (issue 31): the runner makes
a throwaway certificate (run_qemu.sh --tls-throwaway, which the launcher
passes), prints its fingerprint and serves HTTPS through user networking's
forward, and deletes the key when QEMU ends; and a throwaway management
token (--token-throwaway) that opens /metrics.

Under `bazel test` the runner skips the throwaway pair (tests bring their
own), so this test runs the launcher as `bazel run` does: TEST_SRCDIR
unset, RUNFILES_DIR set.

1. The runner's fingerprint line and httpd's console line name the same
   certificate.
2. curl -k https://127.0.0.1:PORT/healthz answers "ok".
3. The printed token opens /metrics over HTTPS (200); without it 401.
4. After QEMU ends, the throwaway directory (and the key in it) is gone.
5. --no-tls: no throwaway certificate, and httpd says HTTPS is off; the
   throwaway token still opens /metrics on port 80.
6. --no-rng (no virtio-rng: a board without entropy), with the throwaway
   pair given: httpd refuses TLS and says so on the console and on the
   metrics page, port 443 answers nothing, port 80 still serves.
Each boot's starling_tls_state names its state: serving, no_credentials,
no_entropy.
"""
import argparse
import os
import re
import subprocess
import sys

from qemu_guest import QemuGuest, free_port
from http_checks import tls_state, verdict


def token_header(console):
    """The Authorization header for the token the runner printed (or None)."""
    m = re.search(r"throwaway management token for this run only: ([0-9a-f]{64})", console)
    return m and "Authorization: Bearer " + m.group(1)


def status(url, header=None, *extra):
    """curl's status code for GET url (a string; curl's exit on failure)."""
    r = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "20",
                        *extra, *(["--header", header] if header else []), url],
                       capture_output=True, timeout=30)
    return r.stdout.decode() if r.returncode == 0 else f"curl exit {r.returncode}"


def expect_tls_state(failures, when, url, header, want):
    """starling_tls_state on the page at url must be `want` (http_checks)."""
    r = subprocess.run(["curl", "-sk", "--max-time", "20", "--header", header, url],
                       capture_output=True, timeout=30)
    state = tls_state(r.stdout.decode())
    print(f"starling_tls_state {when}: {state}")
    if state != want:
        failures.append(f"starling_tls_state {when}: {state} (curl exit {r.returncode}), want {want}")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--launcher", required=True)
    args = p.parse_args()
    failures = []
    os.environ["RUNFILES_DIR"] = os.environ.pop("TEST_SRCDIR", os.environ.get("RUNFILES_DIR", ""))
    http_port, https_port = free_port(), free_port()
    env = {"STARLING_HTTPD_PORT": str(http_port), "STARLING_HTTPS_PORT": str(https_port)}
    guest = QemuGuest(os.path.abspath(args.launcher), 60, env=env)
    directory = None
    try:
        if not guest.wait_for("httpd: ready"):
            failures.append("httpd never ready")
        text = guest.console()
        runner = re.search(r"starling: its sha256 Fingerprint=([0-9A-F:]+)", text)
        httpd = re.search(r"httpd: certificate sha256 ([0-9A-F:]+)", text)
        where = re.search(r"deleted at exit\): (\S+)/cert\.pem", text)
        directory = where and where.group(1)
        if not runner or not httpd or runner.group(1) != httpd.group(1):
            failures.append(f"fingerprints differ or missing: runner {runner and runner.group(1)}, "
                            f"httpd {httpd and httpd.group(1)}")
        if not directory or not os.path.exists(os.path.join(directory, "key.pem")):
            failures.append(f"no throwaway key while QEMU runs ({directory})")
        r = subprocess.run(["curl", "-sk", "--max-time", "20", f"https://127.0.0.1:{https_port}/healthz"],
                           capture_output=True, timeout=30)
        if r.stdout.decode().strip() != "ok":
            failures.append(f"https through the forward: {r.stdout!r} {r.stderr[-200:]!r}")
        for want, header in ((200, token_header(text)), (401, None)):
            got = status(f"https://127.0.0.1:{https_port}/metrics", header, "-k")
            print(f"GET /metrics over https {'with' if header else 'without'} the token: {got}")
            if got != str(want):
                failures.append(f"GET /metrics {'with' if header else 'without'} the printed "
                                f"token: {got}, want {want}")
        expect_tls_state(failures, "with a certificate", f"https://127.0.0.1:{https_port}/metrics",
                         token_header(text), "serving")
    finally:
        guest.stop()
    if directory and os.path.exists(directory):
        failures.append(f"the throwaway key outlived QEMU: {directory}")

    plain = QemuGuest(os.path.abspath(args.launcher), 60, env=env, runner_args=["--no-tls"],
                      log_name="console-no-tls.log")
    try:
        if not plain.wait_for("httpd: ready"):
            failures.append("httpd with --no-tls never ready")
        text = plain.console()
        if "throwaway TLS certificate" in text or "httpd: https off" not in text:
            failures.append("--no-tls still made a throwaway certificate, or httpd did not say "
                            "HTTPS is off")
        got = status(f"http://127.0.0.1:{http_port}/metrics", token_header(text))
        if got != "200":
            failures.append(f"--no-tls: GET /metrics with the printed token: {got}")
        expect_tls_state(failures, "with --no-tls", f"http://127.0.0.1:{http_port}/metrics",
                         token_header(text), "no_credentials")
    finally:
        plain.stop()

    # A board without entropy: the certificate is there, the randomness is
    # not. TLS must be refused (no guessable DRBG seed), and said so.
    blind = QemuGuest(os.path.abspath(args.launcher), 60, env=env, runner_args=["--no-rng"],
                      log_name="console-no-rng.log")
    try:
        if not blind.wait_for("httpd: ready"):
            failures.append("httpd with --no-rng never ready")
        text = blind.console()
        refusal = "httpd: https off: no entropy on this board: TLS refused"
        print(f"--no-rng console: {'says' if refusal in text else 'does not say'} {refusal!r}")
        if refusal not in text or "httpd: certificate sha256" in text:
            failures.append(f"--no-rng: the console does not say {refusal!r}, or TLS came up")
        expect_tls_state(failures, "with --no-rng", f"http://127.0.0.1:{http_port}/metrics",
                         token_header(text), "no_entropy")
        r = subprocess.run(["curl", "-sk", "--max-time", "10", f"https://127.0.0.1:{https_port}/healthz"],
                           capture_output=True, timeout=30)
        print(f"--no-rng: curl https exit {r.returncode}")
        if r.returncode == 0:
            failures.append(f"--no-rng: HTTPS answered: {r.stdout[:100]!r}")
        got = status(f"http://127.0.0.1:{http_port}/healthz")
        if got != "200":
            failures.append(f"--no-rng: GET /healthz on port 80: {got}")
    finally:
        blind.stop()
    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
