#!/usr/bin/env python3
"""The wall clock from a real NTP server (issue 50, docs/clock.md): the
riscv64 httpd image in QEMU on a TAP in a namespace of the test's own, with
`sntp=10.0.2.9,10.0.2.2 sntp.poll_s=15`. Nothing answers at 10.0.2.9;
Debian's chronyd (the pinned @chrony, `-x`: it never sets the host's clock)
serves at 10.0.2.2.

HTTPS with a client CA in the boot files: a client certificate the CA
signed, valid from 2020 to 2021 (made with python3-cryptography), stands
for a lapsed one.

1. Before any answer: no Date header, starling_clock_synchronized 0; the
   lapsed certificate is admitted to /metrics (its dates cannot be
   checked) and counted as unchecked.
2. The silent server is left after lwIP's 15 s; chronyd's time is taken
   (console "clock: ... from 10.0.2.2 (sntp, set)"): Date headers and
   starling_clock_unix_seconds within 3 s of the host's clock; now the
   lapsed certificate gets 403 (counted as refused), a current one 200.
3. chronyd stops and a server that lies takes 10.0.2.2: to one request it
   answers "unsynchronised" (leap indicator 3), stratum 16, a reply to
   another request, then 1990. Each refused and counted by reason
   (starling_sntp_responses_total); the clock keeps its time.
4. Then it answers an hour back: taken (console "stepped back"), counted
   (starling_clock_steps_back_total 1), the Date header an hour back, and
   the server still serving.

  sntp_qemu_test.py --qemu apps/httpd/qemu --chronyd .../chronyd
"""
import datetime
import email.utils
import http.client
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

# test/host_board, test/lib and test/http are on the path: //test:scenario.bzl
# sets PYTHONPATH.
import host_process
import ntp_server
from http_checks import boot_files, metrics, throwaway_pair

GUEST = "10.0.2.15"
SERVER = "10.0.2.2"
SILENT = "10.0.2.9"
POLL_S = 15


def client_certificates(work):
    """A client CA (valid now), a certificate it signed that lapsed in 2021
    and one valid now, each with its key: {name: (cert path, key path)}."""
    from cryptography import x509  # noqa: PLC0415
    from cryptography.hazmat.primitives import hashes, serialization  # noqa: PLC0415
    from cryptography.hazmat.primitives.asymmetric import ec  # noqa: PLC0415
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID  # noqa: PLC0415

    def name(cn):
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])

    def write(stem, cert, key):
        paths = (os.path.join(work, stem + ".pem"), os.path.join(work, stem + ".key"))
        with open(paths[0], "wb") as f:
            f.write(cert.public_bytes(serialization.Encoding.PEM))
        with open(paths[1], "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM,
                                      serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
        return paths

    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder().subject_name(name("starling test client CA"))
          .issuer_name(name("starling test client CA")).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(days=1))
          .not_valid_after(now + datetime.timedelta(days=30))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    out = {"ca": write("ca", ca, ca_key)}
    for stem, start, end in (("lapsed", datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc),
                              datetime.datetime(2021, 1, 1, tzinfo=datetime.timezone.utc)),
                             ("current", now - datetime.timedelta(days=1),
                              now + datetime.timedelta(days=30))):
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (x509.CertificateBuilder().subject_name(name("prometheus")).issuer_name(ca.subject)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(start).not_valid_after(end)
                .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]),
                               critical=False)
                .sign(ca_key, hashes.SHA256()))
        out[stem] = write(stem, cert, key)
    return out


def metrics_status(server_cert, client):
    """The status of GET https://GUEST/metrics with `client` (cert, key)."""
    r = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10",
                        "--cacert", server_cert, "--cert", client[0], "--key", client[1],
                        f"https://{GUEST}/metrics"], capture_output=True, text=True, timeout=20)
    return r.stdout.strip() or f"curl exit {r.returncode}: {r.stderr.strip()[-200:]}"


def date_header():
    """The Date header of GET /healthz, or None."""
    conn = http.client.HTTPConnection(GUEST, 80, timeout=10)
    try:
        conn.request("GET", "/healthz")
        resp = conn.getresponse()
        resp.read()
        return resp.getheader("Date")
    finally:
        conn.close()


def date_seconds(header):
    return email.utils.parsedate_to_datetime(header).timestamp()


def lies(request, n):
    """To the first request, four bad answers (the last one 1990, which
    only the clock's floor refuses); to later ones, the time an hour back."""
    now = time.time()
    if n == 1:
        return [ntp_server.reply(request, now, leap=3),
                ntp_server.reply(request, now, stratum=16),
                ntp_server.reply(request, now, origin=bytes(8)),
                ntp_server.reply(request, 631_152_000.0)]  # 1990-01-01
    return [ntp_server.reply(request, now - 3600)]


def start_chronyd(chronyd, work):
    conf = os.path.join(work, "chrony.conf")
    with open(conf, "w") as f:
        f.write("local stratum 8\nallow all\ncmdport 0\nuser root\n"
                f"pidfile {work}/chronyd.pid\n")
    log = open(os.path.join(work, "chronyd.log"), "wb")
    return subprocess.Popen([chronyd, "-f", conf, "-d", "-x"], stdout=log, stderr=subprocess.STDOUT)


def inside(args):
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    work = tempfile.mkdtemp(prefix="starling-sntp-")
    server_cert, server_key = throwaway_pair(work, GUEST)
    clients = client_certificates(work)
    initrd = boot_files(work, f"tls/cert.pem={server_cert}", f"tls/key.pem={server_key}",
                        f"management/client-ca.pem={clients['ca'][0]}")
    os.environ["STARLING_HTTPD_NETDEV"] = "tap,id=n0,ifname=st0,script=no,downscript=no"
    app = host_process.App([args.qemu, "--timeout", "600", "--", "-initrd", initrd, "-append",
                            f"ip={GUEST}/24 sntp={SILENT},{SERVER} sntp.poll_s={POLL_S}"])
    chronyd = None
    liar = None
    try:
        if not app.wait_for("httpd: ready", args.timeout):
            check(False, "httpd said it was ready")
            return host_process.report(app, failures)
        check(f"clock unset; sntp from {SILENT} {SERVER}" in app.console(),
              "the console names the servers, the clock unset")
        # 1. Unset: no Date, not synchronized.
        check(date_header() is None, "no Date header while the clock is unset")
        m = metrics(80, GUEST)[2]
        check(m.get("starling_clock_synchronized") == 0, "starling_clock_synchronized 0 at first")
        got = metrics_status(server_cert, clients["lapsed"])
        check(got == "200", f"unset: the lapsed certificate admitted, its dates unchecked ({got})")
        m = metrics(80, GUEST)[2]
        unchecked = m.get('starling_tls_client_cert_dates_total{result="unchecked"}', 0)
        check(unchecked >= 1, f"... and counted as unchecked ({unchecked:g})")

        # 2. chronyd on the link; the silent server is left after 15 s.
        chronyd = start_chronyd(args.chronyd, work)
        started = time.monotonic()
        check(app.wait_for(f"from {SERVER} (sntp, set)", 45),
              "the clock set from chronyd (after the silent server's 15 s)")
        print(f"chronyd's time taken {time.monotonic() - started:.1f} s after it started")
        header = date_header()
        skew = abs(date_seconds(header) - time.time()) if header else None
        print(f"Date: {header} (host {email.utils.formatdate(usegmt=True)})")
        check(skew is not None and skew <= 3, f"a Date header within 3 s of the host ({skew})")
        m = metrics(80, GUEST)[2]
        check(m.get("starling_clock_synchronized") == 1, "starling_clock_synchronized 1")
        unix = m.get("starling_clock_unix_seconds", 0)
        check(abs(unix - time.time()) <= 3, f"starling_clock_unix_seconds {unix:.3f} within 3 s")
        check(m.get('starling_sntp_responses_total{result="accepted"}', 0) >= 1,
              "the accepted response counted")
        got = metrics_status(server_cert, clients["lapsed"])
        check(got == "403", f"set: the lapsed certificate refused ({got})")
        got = metrics_status(server_cert, clients["current"])
        check(got == "200", f"set: a current certificate admitted ({got})")
        m = metrics(80, GUEST)[2]
        refused = m.get('starling_tls_client_cert_dates_total{result="refused"}', 0)
        check(refused >= 1, f"the lapsed certificate counted as refused ({refused:g})")

        # 3. A server that lies, then 4. one an hour back.
        chronyd.terminate()
        chronyd.wait(timeout=10)
        chronyd = None
        liar = ntp_server.NtpServer(SERVER, lies)
        check(app.wait_for("clock: refused 1990-01-01T00:00:00Z", POLL_S + 15),
              "1990 refused (console)")
        m = metrics(80, GUEST)[2]
        for reason in ("unsynchronised", "stratum", "origin", "before_floor"):
            got = m.get(f'starling_sntp_responses_total{{result="{reason}"}}', 0)
            check(got >= 1, f"a lie refused as {reason} ({got:g})")
        header = date_header()
        skew = abs(date_seconds(header) - time.time()) if header else None
        check(skew is not None and skew <= 3, f"the clock kept its time through the lies ({skew})")

        check(app.wait_for("(sntp, stepped back ", POLL_S + 15), "the hour back taken (console)")
        stepped = re.search(r"\(sntp, stepped back ([0-9.]+) s\)", app.console())
        step = float(stepped.group(1)) if stepped else 0.0
        check(abs(step - 3600) <= 3, f"the step back said on the console: {step:.3f} s")
        header = date_header()
        back = time.time() - date_seconds(header) if header else None
        check(back is not None and abs(back - 3600) <= 3, f"the Date header an hour back ({back})")
        m = metrics(80, GUEST)[2]
        check(m.get("starling_clock_steps_back_total") == 1, "starling_clock_steps_back_total 1")
        # Polled every 15 s, the liar's next answer is a step of microseconds.
        step = m.get("starling_clock_last_step_seconds", -1)
        check(0 <= step <= 3601, f"starling_clock_last_step_seconds {step:.6f}")
        print(f"the liar answered {liar.requests} requests")
    finally:
        if liar:
            liar.close()
        if chronyd:
            chronyd.terminate()
            chronyd.wait(timeout=10)
        app.stop()
        log = os.path.join(work, "chronyd.log")
        if os.path.exists(log):
            with open(log, "rb") as f:
                print("---- chronyd ----\n" + f.read().decode("utf-8", "replace")[-1500:])
    return host_process.report(app, failures, (f"clock: refused a response from {SERVER}",))


def main():
    return host_process.app_test_main(__file__, __doc__, inside, qemu=True, app=False,
                                      files=[("--chronyd", "the pinned chronyd")], timeout=60)


if __name__ == "__main__":
    sys.exit(main())
