#!/usr/bin/env python3
"""httpd end to end on the host board: apps/httpd as a Linux process, its NIC
the DWMAC driver over the device model, the model's wire a TAP device inside
a network namespace this test creates (as host_echo_test does). Linux's own
clients talk to it through the TAP, so every request and answer crosses the
driver's descriptor rings, the model's DMA and interrupts.

Checks: curl GET / byte for byte against apps/httpd/site/index.html (and its
Content-Type and ETag), GET /healthz, POST /echo (4 KiB, byte for byte), a
404; a client served again from the port of a connection the server closed
first (its side in TIME-WAIT); GET /metrics parsed by prometheus_client
(test/http/http_checks.py): its Content-Type, the render cost of the page before it; a keep-alive burst
(ab -k -n 500 -c 8: all complete, none failed, all on kept-alive
connections, all 2xx); then the metrics again: slots and body buffers back
at the scrape's own, every request counted, no driver error. Bounded: every
wait has a deadline, the app is stopped at the end, the namespace removed.

  host_httpd_test.py --app apps/httpd/host --index apps/httpd/site/index.html
"""
import os
import re
import socket
import subprocess
import sys
import time

from host_process import App, app_test_main, report

# Kept: an sh_test runs this script as a plain file, and http_checks.py is
# not in its directory (which Python puts on the path itself).
sys.path.insert(0, os.path.join(os.environ.get("TEST_SRCDIR", ""), "starling", "test", "http"))
from http_checks import Checks, boot_files, check_index, curl, get_and_close, metrics  # noqa: E402

GUEST = "10.0.2.15"
BASE = f"http://{GUEST}"
BURST = 500
CONCURRENCY = 8

check = Checks()


def inside(args):
    with open(args.index, "rb") as f:
        index = f.read()
    initrd = boot_files(os.environ.get("TEST_TMPDIR", "/tmp"))  # the management token
    app = App([args.app, "--tap=st0", f"--ip={GUEST}/24,gw=10.0.2.2", f"--initrd={initrd}"])
    try:
        if not app.wait_for("httpd: ready", args.timeout):
            check(False, "httpd printed 'httpd: ready'")
            return finish(app)
        check_index(check, BASE, index)

        r = curl(BASE + "/healthz")
        check(r.returncode == 0 and r.stdout == b"ok\n", "GET /healthz is ok")

        # The same server over IPv6 (issue 30): its link-local address, from
        # Linux's fe80::2 on the TAP.
        subprocess.run(["ip", "-6", "addr", "add", "fe80::2/64", "dev", "st0", "nodad"], check=True)
        ll = None
        deadline = time.monotonic() + 10
        while ll is None and time.monotonic() < deadline:
            m = re.search(r"net: ipv6 address (fe80::[0-9a-f:]+) valid \(link-local\)", app.console())
            ll = m.group(1) if m else None
            time.sleep(0.1)
        check(ll is not None, "httpd printed its IPv6 link-local address")
        if ll is not None:
            r = curl("-g", f"http://[{ll}%25st0]/healthz")
            check(r.returncode == 0 and r.stdout == b"ok\n", f"GET /healthz over IPv6 ([{ll}]) is ok")
            r = curl("-g", "--header", "Content-Type: application/octet-stream", "--data-binary",
                     "@-", f"http://[{ll}%25st0]/echo", input_bytes=bytes(range(256)) * 16)
            check(r.returncode == 0 and r.stdout == bytes(range(256)) * 16,
                  "POST /echo (4 KiB) over IPv6 echoed byte for byte")

        payload = bytes((i * 7 + 3) % 256 for i in range(4096))
        r = curl("--header", "Content-Type: application/octet-stream", "--data-binary", "@-",
                 BASE + "/echo", input_bytes=payload)
        check(r.returncode == 0 and r.stdout == payload, "POST /echo (4 KiB) echoed byte for byte")

        r = curl("--output", "/dev/null", "--write-out", "%{http_code}", BASE + "/nope")
        check(r.stdout == b"404", f"GET /nope is 404 (got {r.stdout.decode()})")

        # A client that connects again from the port of a connection the
        # server closed first (Connection: close), while the server's side
        # of it is in TIME-WAIT: served at once (lwIP patch 0018; without
        # it every SYN was answered for the old connection and connect()
        # timed out, as Linux's bind() to port 0 can pick that port).
        with socket.create_connection((GUEST, 80), timeout=5) as first:
            port = first.getsockname()[1]
            get_and_close(first)
        time.sleep(0.3)  # our LAST-ACK ends with the server's ACK
        again = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        again.settimeout(3)
        try:
            again.bind(("10.0.2.2", port))
            again.connect((GUEST, 80))
            reply = get_and_close(again)
            check(reply.startswith(b"HTTP/1.1 200 OK"),
                  f"a client again from port {port}, the server's side in TIME-WAIT, served")
        except OSError as e:
            check(False, f"a client again from port {port}, the server's side in TIME-WAIT, "
                  f"served ({type(e).__name__}: {e})")
        finally:
            again.close()

        # Twice: the second page shows the first one's render cost.
        metrics(80, GUEST)
        status, ctype, before, size = metrics(80, GUEST)
        check(status == 200, "GET /metrics is 200")
        check(ctype == "text/plain; version=0.0.4; charset=utf-8", f"metrics Content-Type ({ctype})")
        render_s = before.get("starling_metrics_render_seconds", 0)
        page_bytes = before.get("starling_metrics_page_bytes", 0)
        print(f"metrics page: {size} bytes; the one before: {page_bytes:g} bytes rendered in "
              f"{render_s * 1e6:.1f} us ({before.get('starling_metrics_render_instructions', 0):g} "
              "instructions: the host board counts none)")
        check(abs(page_bytes - size) < 64, "starling_metrics_page_bytes is the page's size")
        check(0 < render_s < 1, "starling_metrics_render_seconds is set (0 < t < 1 s)")
        check(before.get("starling_metrics_renders_total", 0) >= 1, "renders counted")
        check(before.get("starling_http_slots_limit") == 64, "64 slots (the default)")

        r = subprocess.run(["ab", "-k", "-n", str(BURST), "-c", str(CONCURRENCY), "-s", "10",
                            BASE + "/healthz"], capture_output=True, text=True, timeout=120)
        print(r.stdout[-1500:])
        if r.returncode != 0:
            print(r.stderr[-1500:])
        complete = re.search(r"Complete requests:\s+(\d+)", r.stdout)
        failed = re.search(r"Failed requests:\s+(\d+)", r.stdout)
        kept = re.search(r"Keep-Alive requests:\s+(\d+)", r.stdout)
        rps = re.search(r"Requests per second:\s+([\d.]+)", r.stdout)
        check(r.returncode == 0 and complete is not None and int(complete.group(1)) == BURST,
              f"ab -k -c {CONCURRENCY}: {BURST} complete")
        check(failed is not None and failed.group(1) == "0", "ab: 0 failed")
        check("Non-2xx responses" not in r.stdout, "ab: no non-2xx response")
        check(kept is not None and int(kept.group(1)) == BURST,
              f"ab: all {BURST} on kept-alive connections")
        print(f"figure: host board, ab -k -c {CONCURRENCY}: {rps.group(1) if rps else '?'} requests/s "
              "(ASan build, not gated)")

        time.sleep(0.5)
        after = metrics(80, GUEST)[2]
        check(after.get("starling_http_slots") == 1, "slots back to the scrape's own")
        check(after.get("starling_http_body_buffers") == 1, "body buffers: only the scrape's own")
        served = (after.get('starling_http_responses_total{code="200"}', 0) -
                  before.get('starling_http_responses_total{code="200"}', 0))
        check(served >= BURST, f"{served:g} more 200s counted (>= {BURST})")
        check(after.get('starling_http_responses_total{code="404"}', 0) >= 1, "the 404 counted")
        check(after.get("starling_http_connections_refused_total", 1) == 0, "no connection refused")
        errors = {k: v for k, v in after.items()
                  if k.startswith(("starling_nic_rx_errors_total", "starling_nic_resets_total")) and v}
        check(not errors, f"no NIC errors or resets {errors or ''}")
    finally:
        app.stop()
    return finish(app)


def finish(app):
    return report(app, list(check.failures), ("host: NIC dwmac (device model) on TAP st0",
                                              f"httpd: address {GUEST}/24",
                                              "httpd: serving http on port 80 (64 slots"))


def main():
    return app_test_main(__file__, __doc__, inside,
                         files=[("--index", "apps/httpd/site/index.html")])


if __name__ == "__main__":
    sys.exit(main())
