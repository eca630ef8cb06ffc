#!/usr/bin/env python3
"""apps/httpd's HTTPS against TLS clients and scanners nobody here wrote
(issue 31), on the host board (the same net/tls code as the riscv64 image,
over the DWMAC driver and its model on a TAP): Python's ssl, openssl
s_client, sslscan and testssl.sh, all Debian's. The certificate is a
throwaway ECDSA P-256 pair made here, given as boot files.

1. Python's ssl (verifying the certificate): TLS 1.3 and, capped, TLS 1.2
   with an ECDHE-ECDSA AEAD suite; ALPN http/1.1; GET /healthz answered.
2. openssl s_client, each protocol version: TLS 1.0 and 1.1 refused, 1.2
   and 1.3 accepted; each suite offered alone: the six AEAD suites we
   configure accepted (three TLS 1.3, three TLS 1.2 ECDHE-ECDSA), CBC,
   CCM, static-RSA, DHE and NULL suites refused; renegotiation asked for
   by the client ("R" in s_client) refused with no second handshake.
3. sslscan: only TLSv1.2 and TLSv1.3 enabled, every accepted suite ECDHE
   or TLS 1.3 and an AEAD, no compression, not vulnerable to Heartbleed.
4. testssl.sh (every graded section; not its client simulation): no
   finding of severity MEDIUM or worse. Each LOW finding
   must be one of ACCEPTED_LOW below, with its reason; a new one fails
   the test until it is fixed or accepted here.
"""
import json
import os
import re
import ssl
import socket
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

import host_process

# Kept: an sh_test runs this script as a plain file, and http_checks.py is
# not in its directory (which Python puts on the path itself).
sys.path.insert(0, os.path.join(os.environ.get("TEST_SRCDIR", ""), "starling", "test", "http"))
from http_checks import boot_files, get_and_close  # noqa: E402

GUEST = "10.0.2.15"

# testssl.sh findings of severity LOW we accept, by id, and why.
ACCEPTED_LOW = {
    "DNS_CAArecord": "the server is reached by IP address here: no DNS name to hold a CAA record",
    "OCSP_stapling": "Mbed TLS 3.6's server cannot staple OCSP responses (and the board has no "
                     "clock to judge their age); clients check revocation themselves",
}

# The suites we configure (net/tls/mbedtls_config.h), in OpenSSL's names.
TLS13_ACCEPTED = ["TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
                  "TLS_AES_128_GCM_SHA256"]
TLS13_REFUSED = ["TLS_AES_128_CCM_SHA256", "TLS_AES_128_CCM_8_SHA256"]
TLS12_ACCEPTED = ["ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305",
                  "ECDHE-ECDSA-AES128-GCM-SHA256"]
TLS12_REFUSED = ["ECDHE-ECDSA-AES128-SHA", "ECDHE-ECDSA-AES256-SHA384", "AES128-GCM-SHA256",
                 "DHE-RSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES128-CCM", "ECDHE-ECDSA-NULL-SHA"]


def ca_signed_pair(work):
    """A test CA and a server certificate it signed for GUEST: paths
    (ca, cert, key)."""
    def path(name):
        return os.path.join(work, name)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    def run(argv, stdin=None):
        subprocess.run(argv, input=stdin, check=True, capture_output=True, timeout=30)
    run(["openssl", "req", "-x509", *ec, "-keyout", path("ca.key"), "-out", path("ca.pem"),
         "-days", "365", "-subj", "/CN=starling test CA"])
    run(["openssl", "req", "-new", *ec, "-keyout", path("key.pem"), "-out", path("server.csr"),
         "-subj", "/CN=starling.test"])
    extensions = (f"subjectAltName=IP:{GUEST},DNS:starling.test\n"
                  "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
                  "crlDistributionPoints=URI:http://ca.starling.test/ca.crl\n"
                  "authorityInfoAccess=OCSP;URI:http://ocsp.starling.test/\n")
    run(["openssl", "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey",
         path("ca.key"), "-CAcreateserial", "-out", path("cert.pem"), "-days", "365",
         "-extfile", "/dev/stdin"], stdin=extensions.encode())
    return path("ca.pem"), path("cert.pem"), path("key.pem")


def s_client(args, stdin=b"", timeout=20):
    r = subprocess.run(["timeout", "15", "openssl", "s_client", "-connect", f"{GUEST}:443",
                        "-servername", "starling.test", *args],
                       input=stdin, capture_output=True, timeout=timeout)
    return (r.stdout + r.stderr).decode(errors="replace")


def negotiated(out):
    """(protocol, cipher) s_client says it negotiated, or None if refused."""
    m = re.search(r"New, (TLSv1(?:\.\d)?|SSLv3), Cipher is (\S+)", out)
    if m is None or m.group(2) == "(NONE)":
        return None
    return m.group(1), m.group(2)


def python_ssl(failures, ca):
    for cap in (None, ssl.TLSVersion.TLSv1_2):
        context = ssl.create_default_context(cafile=ca)
        context.set_alpn_protocols(["http/1.1"])
        if cap:
            context.maximum_version = cap
        with socket.create_connection((GUEST, 443), timeout=10) as raw:
            with context.wrap_socket(raw, server_hostname="starling.test") as s:
                version, cipher = s.version(), s.cipher()[0]
                reply = get_and_close(s)
                alpn = s.selected_alpn_protocol()
        print(f"python ssl {'(max TLS 1.2)' if cap else ''}: {version} {cipher} alpn={alpn}")
        want = "TLSv1.2" if cap else "TLSv1.3"
        if version != want:
            failures.append(f"python ssl negotiated {version}, want {want}")
        if cap and not re.fullmatch(r"ECDHE-ECDSA-(AES(128|256)-GCM-SHA(256|384)|CHACHA20-POLY1305)",
                                    cipher):
            failures.append(f"python ssl TLS 1.2 suite {cipher} is not ECDHE-ECDSA with an AEAD")
        if alpn != "http/1.1":
            failures.append(f"ALPN: {alpn}, want http/1.1")
        if not reply.startswith(b"HTTP/1.1 200 OK") or not reply.endswith(b"ok\n"):
            failures.append(f"python ssl GET /healthz: {reply[:80]!r}")


def versions_and_suites(failures):
    for flag, accept in (("-tls1", False), ("-tls1_1", False), ("-tls1_2", True), ("-tls1_3", True)):
        got = negotiated(s_client([flag, "-cipher", "DEFAULT@SECLEVEL=0"]))
        print(f"s_client {flag}: {got or 'refused'}")
        if bool(got) != accept:
            failures.append(f"s_client {flag}: {got or 'refused'}, want "
                            f"{'accepted' if accept else 'refused'}")
    for suite in TLS13_ACCEPTED + TLS13_REFUSED:
        got = negotiated(s_client(["-tls1_3", "-ciphersuites", suite]))
        accept = suite in TLS13_ACCEPTED
        print(f"s_client TLS 1.3 {suite}: {got[1] if got else 'refused'}")
        if (got is not None and got[1] == suite) != accept:
            failures.append(f"TLS 1.3 suite {suite}: {got or 'refused'}, want "
                            f"{'accepted' if accept else 'refused'}")
    for suite in TLS12_ACCEPTED + TLS12_REFUSED:
        got = negotiated(s_client(["-tls1_2", "-cipher", suite + "@SECLEVEL=0"]))
        accept = suite in TLS12_ACCEPTED
        print(f"s_client TLS 1.2 {suite}: {got[1] if got else 'refused'}")
        if (got is not None and got[1] == suite) != accept:
            failures.append(f"TLS 1.2 suite {suite}: {got or 'refused'}, want "
                            f"{'accepted' if accept else 'refused'}")


def renegotiation(failures):
    # s_client reads "R" on a line of its own as "renegotiate now"; then a
    # request, which a server that refused renegotiation never answers.
    out = s_client(["-tls1_2"], stdin=b"R\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    handshakes = out.count("New, TLSv1.2")
    print("renegotiation: s_client says",
          re.findall(r"RENEGOTIATING|Secure Renegotiation IS(?: NOT)? supported|"
                     r"no renegotiation|alert[^\n]*", out))
    if "RENEGOTIATING" not in out:
        failures.append("s_client did not try to renegotiate (the test is not testing)")
    if handshakes != 1 or "HTTP/1.1 200 OK" in out.split("RENEGOTIATING", 1)[-1]:
        failures.append(f"renegotiation went through ({handshakes} handshakes): {out[-400:]}")


def sslscan(failures, work):
    xml_path = os.path.join(work, "sslscan.xml")
    r = subprocess.run(["sslscan", "--no-colour", f"--xml={xml_path}", f"{GUEST}:443"],
                       capture_output=True, timeout=300)
    if r.returncode != 0 or not os.path.exists(xml_path):
        failures.append(f"sslscan failed: exit {r.returncode} {r.stderr[-300:]!r}")
        return
    root = ElementTree.parse(xml_path).getroot()
    test = root.find("ssltest")
    enabled = sorted(f"{p.get('type')}{p.get('version')}" for p in test.iter("protocol")
                     if p.get("enabled") == "1")
    suites = [(c.get("sslversion"), c.get("cipher")) for c in test.iter("cipher")]
    print("sslscan protocols:", enabled)
    print("sslscan suites:", suites)
    if enabled != ["tls1.2", "tls1.3"]:
        failures.append(f"sslscan: protocols enabled {enabled}, want TLS 1.2 and 1.3 only")
    for version, suite in suites:
        aead = "GCM" in suite or "CHACHA20" in suite
        if not aead or (version == "TLSv1.2" and not suite.startswith("ECDHE-")):
            failures.append(f"sslscan: {version} {suite} is not forward secret with an AEAD")
    if not suites:
        failures.append("sslscan accepted no suite (the test is not testing)")
    compression = test.find("compression")
    if compression is not None and compression.get("supported") != "0":
        failures.append("sslscan: compression supported")
    for hb in test.iter("heartbleed"):
        if hb.get("vulnerable") != "0":
            failures.append(f"sslscan: Heartbleed on {hb.get('sslversion')}")


def testssl(failures, work, ca):
    json_path = os.path.join(work, "testssl.json")
    # Every section whose findings carry a severity: protocols, cipher
    # lists, forward secrecy, server preferences, server defaults (the
    # certificate), HTTP headers, vulnerabilities. Left out: the client
    # simulation (-c), which grades nothing (INFO lines only: which browser
    # would get which suite) and took 78 of testssl's 168 s; the real
    # clients above stand in for it.
    r = subprocess.run(["testssl", "-p", "-s", "-f", "-P", "-S", "-h", "-U", "--quiet", "--color",
                        "0", "--warnings", "off", "--ip", "one", "--add-ca", ca, "--jsonfile", json_path, f"https://{GUEST}/"],
                       capture_output=True, timeout=900)
    if not os.path.exists(json_path):
        failures.append(f"testssl.sh wrote no findings: exit {r.returncode} {r.stdout[-500:]!r}")
        return
    with open(json_path) as f:
        findings = json.load(f)
    by_severity = {}
    for item in findings:
        by_severity.setdefault(item.get("severity"), []).append(item)
    print("testssl.sh findings by severity:", {k: len(v) for k, v in by_severity.items()})
    for severity in ("MEDIUM", "HIGH", "CRITICAL", "FATAL"):
        for item in by_severity.get(severity, []):
            failures.append(f"testssl.sh {severity}: {item['id']}: {item['finding']}")
    for item in by_severity.get("LOW", []):
        reason = ACCEPTED_LOW.get(item["id"])
        print(f"testssl.sh LOW {item['id']}: {item['finding']} -- "
              f"{'accepted: ' + reason if reason else 'NOT ACCEPTED'}")
        if reason is None:
            failures.append(f"testssl.sh LOW not accepted: {item['id']}: {item['finding']}")
    for item in by_severity.get("WARN", []):
        print(f"testssl.sh WARN {item['id']}: {item['finding']}")
    if "TLS1_3" not in {i["id"] for i in findings}:
        failures.append("testssl.sh did not test TLS 1.3 (the test is not testing)")


def inside(args):
    failures = []
    work = tempfile.mkdtemp(prefix="starling-tls-clients-")
    ca, cert, key = ca_signed_pair(work)
    initrd = boot_files(work, f"tls/cert.pem={cert}", f"tls/key.pem={key}")
    app = host_process.app_for(args, f"{GUEST}/24,gw=10.0.2.2", "STARLING_HTTPD_NETDEV", initrd)
    try:
        if not app.wait_for("httpd: serving https on port 443", args.timeout):
            failures.append("httpd never said it was serving https")
            return host_process.report(app, failures)
        python_ssl(failures, ca)
        versions_and_suites(failures)
        renegotiation(failures)
        sslscan(failures, work)
        testssl(failures, work, ca)
        if app.proc.poll() is not None:
            failures.append("httpd did not survive the scanners")
    finally:
        app.stop()
    return host_process.report(app, failures)


def main():
    return host_process.app_test_main(__file__, __doc__, inside, namespace_timeout=900)


if __name__ == "__main__":
    sys.exit(main())
