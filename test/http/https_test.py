#!/usr/bin/env python3
"""HTTPS from apps/httpd (issue 31) on the host board (--app) or in QEMU
(--qemu: the riscv64 image, its boot files as QEMU's -initrd), with
clients nobody here wrote: curl and openssl s_client from Debian. The
certificate and key are a throwaway pair made here with openssl (ECDSA
P-256, for 10.0.2.15), handed to the app as boot files
(platform/boot_media/make_initrd.py; --initrd= on the host board, -initrd
for QEMU, as a bootloader's initrd).

1. The console prints the certificate's SHA-256 fingerprint, the same as
   `openssl x509 -fingerprint -sha256` says.
2. curl over TLS 1.3 (verifying the certificate): /healthz answers "ok"
   with Strict-Transport-Security; curl --tls-max 1.2 gets TLS 1.2 with
   ECDHE-ECDSA and ChaCha20-Poly1305 (the server's first choice).
3. openssl s_client: TLS 1.1 refused; a TLS 1.3 session resumed from its
   ticket ("Reused").
4. Port 80 (httpd.http=redirect): 308 to https://10.0.2.15/healthz.
5. /metrics over HTTPS counts the handshakes by version.
6. /metrics is its owner's (net/http/management.h): curl with a client
   certificate the boot files' management/client-ca.pem signed gets 200
   (TLS 1.3 and 1.2), with a stranger's self-signed one 403, with none 401
   (WWW-Authenticate: Bearer), with the boot token 200; /healthz needs
   nothing; the refusals are counted by outcome.
7. Booted without boot files: the console says HTTPS is off and why, and
   port 80 still serves.
8. Booted with a key that is not the certificate's (host board only): the
   console says so, the metrics page's starling_tls_state is
   bad_credentials (serving on the first boot), and port 80 still serves.

Bounded: every client has a timeout; the app is stopped and the namespace
removed at the end.
"""
import os
import re
import subprocess
import sys
import tempfile

import host_process

# test/http is on the path: //test:scenario.bzl sets PYTHONPATH.
from http_checks import AUTH, boot_files, throwaway_pair, tls_state

GUEST = "10.0.2.15"
HERE = os.path.dirname(os.path.abspath(__file__))


def run(argv, timeout=20, stdin=b""):
    return subprocess.run(argv, input=stdin, capture_output=True, timeout=timeout)


def client_ca_and_certs(directory):
    """A client CA, a client certificate it signed and a stranger's
    self-signed one (openssl, ECDSA P-256): their paths."""
    def path(name):
        return os.path.join(directory, name)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    run(["openssl", "req", "-x509", *ec, "-keyout", path("ca.key"), "-out", path("ca.pem"),
         "-days", "30", "-subj", "/CN=starling test client CA"]).check_returncode()
    run(["openssl", "req", "-new", *ec, "-keyout", path("client.key"), "-out", path("client.csr"),
         "-subj", "/CN=prometheus"]).check_returncode()
    run(["openssl", "x509", "-req", "-in", path("client.csr"), "-CA", path("ca.pem"),
         "-CAkey", path("ca.key"), "-CAcreateserial", "-out", path("client.pem"), "-days", "30",
         "-extfile", "/dev/stdin"], stdin=b"extendedKeyUsage=clientAuth\n").check_returncode()
    run(["openssl", "req", "-x509", *ec, "-keyout", path("stranger.key"), "-out",
         path("stranger.pem"), "-days", "30", "-subj", "/CN=prometheus"]).check_returncode()
    return {"ca": path("ca.pem"), "client": path("client.pem"), "client.key": path("client.key"),
            "stranger": path("stranger.pem"), "stranger.key": path("stranger.key")}


def fingerprint(cert):
    out = run(["openssl", "x509", "-in", cert, "-noout", "-fingerprint", "-sha256"]).stdout.decode()
    return out.strip().split("=", 1)[1]


def curl(args, timeout=15):
    r = run(["curl", "-sS", "-v", "--max-time", "10", *args], timeout=timeout)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


def s_client(args, stdin=b"", timeout=15):
    r = run(["timeout", "10", "openssl", "s_client", "-connect", f"{GUEST}:443", *args],
            stdin=stdin, timeout=timeout)
    return r.returncode, (r.stdout + r.stderr).decode(errors="replace")


def boot(args, initrd=None, bootargs=""):
    """The app on the TAP with `initrd` as its boot files (or none)."""
    if getattr(args, "qemu", None):
        os.environ["STARLING_HTTPD_NETDEV"] = "tap,id=n0,ifname=st0,script=no,downscript=no"
        extra = ["-append", f"ip={GUEST}/24 {bootargs}".strip()]
        if initrd:
            extra += ["-initrd", initrd]
        return host_process.App([args.qemu, "--timeout", "300", "--", *extra])
    argv = [args.app, "--tap=st0", f"--ip={GUEST}/24"]
    if initrd:
        argv.append(f"--initrd={initrd}")
    if bootargs:
        argv.append(f"--bootargs={bootargs}")
    return host_process.App(argv)


def inside(args):
    failures = []
    work = tempfile.mkdtemp(prefix="starling-https-")
    cert, key = throwaway_pair(work)
    clients = client_ca_and_certs(work)
    initrd = boot_files(work, f"tls/cert.pem={cert}", f"tls/key.pem={key}",
                        f"management/client-ca.pem={clients['ca']}")
    app = boot(args, initrd, "httpd.http=redirect")
    try:
        if not app.wait_for("httpd: serving http on port 80", args.timeout):
            failures.append("httpd never said it was serving")
            return host_process.report(app, failures)
        m = re.search(r"httpd: certificate sha256 ([0-9A-F:]+)", app.console())
        if m is None or m.group(1) != fingerprint(cert):
            failures.append(f"fingerprint on the console {m and m.group(1)} is not "
                            f"openssl's {fingerprint(cert)}")
        if "httpd: serving https on port 443, port 80 redirects to it" not in app.console():
            failures.append("no line saying HTTPS is served and port 80 redirects")
        if getattr(args, "qemu", None) and not re.search(
                r"Starling: map 0x[0-9a-f]+-0x[0-9a-f]+ r-- .* the initrd \(boot files\)", app.console()):
            failures.append("the kernel did not map QEMU's -initrd read-only")

        url = f"https://{GUEST}/healthz"
        code, body, log = curl(["--tlsv1.3", "--cacert", cert, "-i", url])
        print("curl TLS 1.3:", re.findall(r"SSL connection using [^\n]*", log))
        if code != 0 or not body.rstrip().endswith("ok"):
            failures.append(f"curl --tlsv1.3 {url}: exit {code}, {body!r} {log[-400:]}")
        if "strict-transport-security: max-age=31536000" not in body.lower():
            failures.append("no Strict-Transport-Security on the HTTPS response")
        if "SSL connection using TLSv1.3" not in log:
            failures.append("curl did not negotiate TLS 1.3")

        code, body, log = curl(["--tls-max", "1.2", "--cacert", cert, url])
        print("curl TLS 1.2:", re.findall(r"SSL connection using [^\n]*", log))
        if code != 0 or body.strip() != "ok" or not re.search(
                r"SSL connection using TLSv1\.2 / ECDHE-ECDSA-CHACHA20-POLY1305", log):
            failures.append(f"curl --tls-max 1.2: exit {code}, {body!r} {log[-400:]}")

        # s_client exits 0 either way: what it printed says.
        code, out = s_client(["-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"])
        if "alert protocol version" not in out or "Cipher is (NONE)" not in out:
            failures.append(f"TLS 1.1 was not refused with a protocol_version alert: {out[-300:]}")

        session = os.path.join(work, "session.pem")
        request = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        code, first = s_client(["-tls1_3", "-sess_out", session, "-ign_eof"], stdin=request)
        code2, second = s_client(["-tls1_3", "-sess_in", session, "-ign_eof"], stdin=request)
        print("resumption:", re.findall(r"(New|Reused), TLSv1\.3[^\n]*", first + second))
        if "Reused, TLSv1.3" not in second:
            failures.append(f"the TLS 1.3 session was not resumed from its ticket: {second[-400:]}")

        code, body, log = curl(["-i", f"http://{GUEST}/healthz"])
        if " 308 " not in body.split("\r\n", 1)[0] or f"location: https://{GUEST}/healthz" not in body.lower():
            failures.append(f"port 80 did not redirect: {body[:300]!r}")

        # /metrics: its owner's only. The status each request got.
        url = f"https://{GUEST}/metrics"
        tried = {
            "client certificate the CA signed": (["--cert", clients["client"], "--key",
                                                   clients["client.key"]], 200),
            "the same over TLS 1.2": (["--tls-max", "1.2", "--cert", clients["client"], "--key",
                                       clients["client.key"]], 200),
            "a stranger's self-signed certificate": (["--cert", clients["stranger"], "--key",
                                                       clients["stranger.key"]], 403),
            "no credential": ([], 401),
            "a wrong token": (["--header", "Authorization: Bearer " + "0" * 64], 401),
            "the boot token": (["--header", AUTH], 200),
        }
        for what, (extra, want) in tried.items():
            code, body, log = curl(["--cacert", cert, "-i", *extra, url])
            got = re.match(r"HTTP/1\.1 (\d{3})", body)
            got = int(got.group(1)) if got else f"curl exit {code}"
            print(f"GET /metrics with {what}: {got}")
            if got != want:
                failures.append(f"GET /metrics with {what}: {got}, want {want}")
            if want == 401 and 'www-authenticate: bearer realm="starling"' not in body.lower():
                failures.append(f"the 401 for {what} has no WWW-Authenticate: Bearer challenge")
        code, body, log = curl(["--cacert", cert, f"https://{GUEST}/healthz"])
        if body.strip() != "ok":
            failures.append(f"/healthz is not public: {body!r}")

        code, metrics, log = curl(["--cacert", cert, "--header", AUTH, url])
        outcomes = dict(re.findall(
            r'starling_http_management_requests_total\{outcome="(\w+)"\} (\d+)', metrics))
        print("management requests:", outcomes)
        # Admitted: the three above and this scrape (counted before it renders).
        if outcomes != {"admitted": "4", "unauthorized": "2", "forbidden": "1"}:
            failures.append(f"management requests not counted by outcome: {outcomes}")
        state = tls_state(metrics)
        print("starling_tls_state:", state)
        if state != "serving":
            failures.append(f"starling_tls_state with a certificate: {state}, want serving")
        counts = dict(re.findall(r'starling_tls_handshakes_total\{version="(1\.[23])"\} (\d+)', metrics))
        print("handshakes:", counts)
        if int(counts.get("1.3", 0)) < 3 or int(counts.get("1.2", 0)) < 1:
            failures.append(f"handshakes not counted by version: {counts}")
    finally:
        app.stop()
    text_first = app.console()  # the next boot's log takes its place

    plain = boot(args)
    try:
        if not plain.wait_for("httpd: serving http on port 80", args.timeout):
            failures.append("httpd without boot files never served")
        elif "httpd: https off: no tls/cert.pem and tls/key.pem in the boot files" not in plain.console():
            failures.append("without boot files, no line saying HTTPS is off and why")
        else:
            code, body, log = curl([f"http://{GUEST}/healthz"])
            if body.strip() != "ok":
                failures.append(f"without HTTPS, port 80 did not serve: {body!r}")
    finally:
        plain.stop()

    # A key that is not the certificate's: refused, said, and on the page
    # (on the host board only: the check is the app's, not the board's).
    if getattr(args, "qemu", None):
        return finish(text_first, plain, failures)
    mismatched = boot_files(work, f"tls/cert.pem={cert}", f"tls/key.pem={clients['stranger.key']}")
    wrong = boot(args, mismatched)
    try:
        if not wrong.wait_for("httpd: serving http on port 80", args.timeout):
            failures.append("httpd with a mismatched key never served")
        elif "httpd: https off: key: does not belong to the certificate" not in wrong.console():
            failures.append("with a mismatched key, no line saying HTTPS is off and why")
        else:
            code, metrics, log = curl(["--header", AUTH, f"http://{GUEST}/metrics"])
            state = tls_state(metrics)
            print("starling_tls_state with a mismatched key:", state)
            if state != "bad_credentials":
                failures.append(f"starling_tls_state with a mismatched key: {state}")
    finally:
        wrong.stop()
    return finish(text_first, wrong, failures)


def finish(text_first, last, failures):
    """The first boot's lines about boot files, TLS and stalls (its console
    text), then the verdict on the last boot."""
    print("---- first boot (its lines about boot files, TLS and stalls) ----")
    lines = text_first.splitlines()
    print("\n".join(line for line in lines
                    if "initrd" in line or line.startswith("httpd:") or "STALL: a task" in line))
    return host_process.report(last, failures)


def main():
    return host_process.app_test_main(__file__, __doc__, inside, qemu=True)


if __name__ == "__main__":
    sys.exit(main())
