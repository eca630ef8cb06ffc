"""What the httpd tests share (QEMU, test/http; the host board,
test/host_board): named checks, the metrics page parsed by Prometheus's own
parser (python3-prometheus-client), and the console verdict at the end.

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from http_checks import Checks, metrics
From another package: list "//test/http:http_checks.py" in the test's data
and put os.path.join(os.environ["TEST_SRCDIR"], "starling", "test", "http")
on sys.path.
"""
import http.client
import re
import subprocess
import time
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


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


def metrics(port, host="127.0.0.1", source=None):
    """GET /metrics (from the address `source`, if given): (status,
    Content-Type, {sample with labels: value}, page bytes)."""
    if source is None:
        with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=10) as resp:
            body = resp.read().decode()
            status, ctype = resp.status, resp.headers.get("Content-Type")
    else:
        conn = http.client.HTTPConnection(host, port, timeout=10, source_address=(source, 0))
        try:
            conn.request("GET", "/metrics")
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
