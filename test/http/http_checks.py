"""What the httpd tests share (QEMU, test/http; the host board,
test/host_board): named checks, the metrics page parsed by Prometheus's own
parser (python3-prometheus-client), and the console verdict at the end.

    from http_checks import Checks, metrics
in a py_test that depends on //test/http:http_checks. From an sh_test's
script in another package: list "//test/http:http_checks.py" in the test's
data and put $TEST_SRCDIR/starling/test/http on the path first.

/metrics is a management route (net/http/management.h): the tests boot
httpd with this run's TOKEN in its boot files (token_file() for
run_qemu.sh --management-token, boot_files() for an archive: list
"//platform/boot_media:make_initrd.py" in the test's data), and metrics()
and AUTH send it.
"""
import http.client
import os
import re
import secrets
import subprocess
import sys
import time
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


# This test run's management token, and the header that carries it.
TOKEN = secrets.token_hex(32)
AUTH = "Authorization: Bearer " + TOKEN


def token_file(directory):
    """TOKEN in a file under `directory` (run_qemu.sh --management-token)."""
    path = os.path.join(directory, "management-token")
    with open(path, "w") as f:
        f.write(TOKEN + "\n")
    return path


def make_initrd_py():
    """platform/boot_media/make_initrd.py, from the runfiles."""
    here = os.path.dirname(os.path.abspath(__file__))
    for root in (os.environ.get("TEST_SRCDIR", ""), os.path.join(here, "..", "..")):
        for candidate in (os.path.join(root, "starling", "platform", "boot_media", "make_initrd.py"),
                          os.path.join(root, "platform", "boot_media", "make_initrd.py")):
            if os.path.exists(candidate):
                return candidate
    raise FileNotFoundError("platform/boot_media/make_initrd.py (list it in the test's data)")


def boot_files(directory, *entries):
    """A boot-file archive (docs/boot-files.md) under `directory` holding
    management/token (TOKEN) and `entries` ("name=path"): its path."""
    path = os.path.join(directory, "boot.cpio")
    subprocess.run([sys.executable, make_initrd_py(), path,
                    "management/token=" + token_file(directory), *entries],
                   check=True, capture_output=True, timeout=30)
    return path


def throwaway_pair(directory, ip="10.0.2.15"):
    """A self-signed ECDSA P-256 certificate for `ip` and starling.test, and
    its key, made with openssl under `directory`: (cert path, key path)."""
    cert = os.path.join(directory, "cert.pem")
    key = os.path.join(directory, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", cert, "-days", "30",
                    "-subj", "/CN=starling.test",
                    "-addext", f"subjectAltName=IP:{ip},DNS:starling.test"],
                   check=True, capture_output=True, timeout=30)
    return cert, key


def tls_state(page):
    """The state whose starling_tls_state sample is 1 on a metrics page
    (net/tls/tls_metrics.h: serving, no_credentials, no_entropy,
    bad_credentials), or what is wrong with the set (a string either way)."""
    on = re.findall(r'^starling_tls_state\{state="([a-z_]+)"\} 1$', page, re.M)
    off = re.findall(r'^starling_tls_state\{state="([a-z_]+)"\} 0$', page, re.M)
    if len(on) != 1 or len(off) != 3:
        return f"not one state of four set: on {on}, off {off}"
    return on[0]


def get_and_close(sock, path="/healthz", host="starling.test"):
    """GET `path` with Connection: close on a connected socket (plain or
    TLS): every byte the server sent until it closed."""
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
    reply = b""
    while True:
        chunk = sock.recv(4096)
        if not chunk:
            return reply
        reply += chunk


class Checks:
    def __init__(self):
        self.failures = []

    def __call__(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what, flush=True)
        if not ok:
            self.failures.append(what)

    def finish(self, guest):
        """No PANIC or FAIL on the guest's console; the console's tail; the exit code."""
        text = guest.console()
        for bad in ("PANIC", "FAIL"):
            self(bad not in text, f"console shows no {bad}")
        print("---- console ----")
        print(text[-2000:])
        return 1 if self.failures else 0


def verdict(failures):
    """Each failure on a FAIL line, else PASS: the exit code."""
    for f in failures:
        print("FAIL:", f)
    print("PASS" if not failures else "")
    return 1 if failures else 0


def curl(*args, input_bytes=None):
    """curl, bounded: 10 s for the transfer, 30 s for the process."""
    return subprocess.run(["curl", "--silent", "--show-error", "--max-time", "10", *args],
                          capture_output=True, input=input_bytes, timeout=30)


def check_index(check, base, index):
    """GET / (retried for 5 s: the first may wait for ARP or the listener):
    200, the site's index.html byte for byte, text/html, a strong ETag.
    Returns the response head."""
    for _ in range(50):
        r = curl("--include", base + "/")
        if r.returncode == 0:
            break
        time.sleep(0.1)
    head, _, body = r.stdout.partition(b"\r\n\r\n")
    check(r.returncode == 0 and head.startswith(b"HTTP/1.1 200 OK"), "curl GET / is 200")
    check(body == index, f"GET / is site/index.html byte for byte ({len(body)} of {len(index)} bytes)")
    check(b"\r\nContent-Type: text/html; charset=utf-8" in head, "index.html is text/html")
    check(re.search(rb'\r\nETag: "[0-9a-f]{16}"', head) is not None, "GET / carries a strong ETag")
    return head


def metrics(port, host="127.0.0.1", source=None, token=TOKEN):
    """GET /metrics with `token` (from the address `source`, if given):
    (status, Content-Type, {sample with labels: value}, page bytes)."""
    headers = {"Authorization": "Bearer " + token}
    if source is None:
        request = urllib.request.Request(f"http://{host}:{port}/metrics", headers=headers)
        with urllib.request.urlopen(request, timeout=10) as resp:
            body = resp.read().decode()
            status, ctype = resp.status, resp.headers.get("Content-Type")
    else:
        conn = http.client.HTTPConnection(host, port, timeout=10, source_address=(source, 0))
        try:
            conn.request("GET", "/metrics", headers=headers)
            resp = conn.getresponse()
            body = resp.read().decode()
            status, ctype = resp.status, resp.getheader("Content-Type")
        finally:
            conn.close()
    values = {}
    for family in text_string_to_metric_families(body):
        for s in family.samples:
            key = s.name
            if s.labels:
                key += "{" + ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items())) + "}"
            values[key] = s.value
    return status, ctype, values, len(body)
