#!/usr/bin/python3
"""bench/http's helpers; bench.sh calls them (docs/benchmarks.md, "HTTP:
httpd against nginx").

  httpbench.py wrk-csv --leg L --connections C --seconds S --threads T
                       --wrk-output FILE --csv FILE --dat FILE
      wrk's output (with report.lua's wrk_report line) -> the leg's CSV
      (header + one row) and the latency percentiles for the plot.
  httpbench.py probe --host H [--port P] [--path /] [--expect-bytes N] [--seconds S]
      waits until GET path answers 200 with N body bytes; exit 1 after S.
  httpbench.py cost --host H --expect-bytes N [--requests N] [--connections K]
                    [--wrk PATH --wrk-seconds S --wrk-connections C]
                    [--tls-port 443 [--handshakes N]]
      guest instructions per request from /metrics under -icount (below);
      with --tls-port the requests go over HTTPS, and N new connections
      give the instructions per full handshake; key=value lines on stdout.
  httpbench.py metrics --host H [--port P]
      GET /metrics once: the page on stdout.
  httpbench.py check-smoke CSV... [--cost FILE]
      the smoke test's checks; exit 1 naming the first failure.
  httpbench.py summary --out DIR --legs qemu,host,nginx [--params TEXT]
      DIR/summary.txt from the legs' CSVs (LEG, LEG_https, LEG_handshakes)
      and DIR/cost.txt, cost6.txt, cost_tls.txt.
"""

import argparse
import csv
import os
import re
import socket
import ssl
import subprocess
import sys
import time

# The brief's columns first (issue 15, item 6), then the rest of wrk's figures.
CSV_COLUMNS = [
    "leg", "connections", "seconds", "requests", "requests_per_s",
    "latency_p50_us", "latency_p90_us", "latency_p99_us", "errors",
    "threads", "latency_mean_us", "latency_p75_us", "latency_p999_us", "latency_max_us",
    "non_2xx", "socket_errors", "bytes",
]
PERCENTILES = [("50", "p50_us"), ("75", "p75_us"), ("90", "p90_us"), ("99", "p99_us"),
               ("99.9", "p999_us")]


def fail(message):
    print(f"httpbench: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def wrk_report(path):
    """report.lua's line as {key: number}."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [line for line in f if line.startswith("wrk_report ")]
    if not lines:
        fail(f"{path}: no wrk_report line (wrk failed, or ran without -s report.lua)")
    return {k: float(v) for k, v in (kv.split("=", 1) for kv in lines[-1].split()[1:])}


def cmd_wrk_csv(a):
    r = wrk_report(a.wrk_output)
    socket_errors = int(r["connect_errors"] + r["read_errors"] + r["write_errors"] + r["timeouts"])
    non_2xx = int(r["non_2xx_3xx"])
    seconds = r["duration_us"] / 1e6
    row = {
        "leg": a.leg, "connections": a.connections, "seconds": a.seconds,
        "requests": int(r["requests"]),
        "requests_per_s": "%.1f" % (r["requests"] / seconds if seconds > 0 else 0),
        "latency_p50_us": int(r["p50_us"]), "latency_p90_us": int(r["p90_us"]),
        "latency_p99_us": int(r["p99_us"]), "errors": socket_errors + non_2xx,
        "threads": a.threads, "latency_mean_us": "%.1f" % r["mean_us"],
        "latency_p75_us": int(r["p75_us"]), "latency_p999_us": int(r["p999_us"]),
        "latency_max_us": int(r["max_us"]), "non_2xx": non_2xx, "socket_errors": socket_errors,
        "bytes": int(r["bytes"]),
    }
    with open(a.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerow(row)
    with open(a.dat, "w") as f:
        for label, key in PERCENTILES:
            f.write('"p%s" %d\n' % (label, int(r[key])))


def url_host(host):
    """A host as a URL or Host header has it: IPv6 literals in brackets."""
    return f"[{host}]" if ":" in host else host


class Connection:
    """One keep-alive HTTP/1.1 connection; GETs one at a time (no pipelining),
    each answer read whole before the next request goes."""

    def __init__(self, host, port, timeout, tls=False):
        self.host = host
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if tls:
            # A full handshake each time (no session is kept to resume):
            # the benchmark's certificate is a throwaway, not checked.
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            self.sock = context.wrap_socket(self.sock)
        self.buf = b""

    def _fill(self):
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("the server closed the connection")
        self.buf += data

    def get(self, path):
        """(status, body, server_closes)."""
        # The request wrk sends for http://HOST/: the same bytes to every server.
        # /metrics is httpd's management route: the token bench.sh booted it with.
        auth = ""
        if path == "/metrics" and os.environ.get("STARLING_MANAGEMENT_TOKEN"):
            auth = f"Authorization: Bearer {os.environ['STARLING_MANAGEMENT_TOKEN']}\r\n"
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {url_host(self.host)}\r\n{auth}\r\n".encode())
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        while len(self.buf) < length:
            self._fill()
        body, self.buf = self.buf[:length], self.buf[length:]
        return status, body, headers.get("connection", "").lower() == "close"

    def close(self):
        self.sock.close()


def cmd_probe(a):
    deadline = time.monotonic() + a.seconds
    last = "no attempt"
    while time.monotonic() < deadline:
        try:
            c = Connection(a.host, a.port, 2)
            status, body, _ = c.get(a.path)
            c.close()
            if status == 200 and (a.expect_bytes < 0 or len(body) == a.expect_bytes):
                return 0
            last = f"status {status}, {len(body)} body bytes (want 200, {a.expect_bytes})"
            if status == 200:
                break  # the wrong page: waiting will not change it
        except OSError as e:
            last = str(e)
        time.sleep(0.1)
    fail(f"GET http://{url_host(a.host)}:{a.port}{a.path}: {last}")


SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?)\s+(\S+)")


def scrape(conn):
    """GET /metrics on a kept-alive connection -> {name{labels}: value}."""
    status, body, closes = conn.get("/metrics")
    if status != 200 or closes:
        fail(f"GET /metrics: status {status}{', connection closed' if closes else ''}")
    values = {}
    for line in body.decode("utf-8").splitlines():
        m = SAMPLE.match(line)
        if m and not line.startswith("#"):
            values[m.group(1)] = float(m.group(2))
    for key in ("starling_runtime_instructions_total", "starling_runtime_idle_cycles_total"):
        if key not in values:
            fail(f"/metrics has no {key}")
    return values


OK = 'starling_http_responses_total{code="200"}'


def window(x, y):
    """What the guest did between two scrapes' counter reads: instructions
    retired, idle cycles, busy instructions, 200 responses."""
    instructions = y["starling_runtime_instructions_total"] - x["starling_runtime_instructions_total"]
    idle = y["starling_runtime_idle_cycles_total"] - x["starling_runtime_idle_cycles_total"]
    return {"instructions": instructions, "idle": idle, "busy": instructions - idle,
            "ok": y.get(OK, 0) - x.get(OK, 0)}


# Busy instructions, as bench/echo counts them (docs/benchmarks.md): under
# -icount shift=0 QEMU's instret and cycle CSRs are virtual time, one ns per
# instruction plus the time skipped while the hart waits in wfi; the
# executor's idle cycles are exactly that skipped time, so instret minus
# idle cycles is what the guest retired while busy.
#
# The scrape itself: a scrape's counters are read in the middle of its own
# request (after the head is parsed, before the page is written). Two
# scrapes back to back (A, B) on one kept-alive connection enclose exactly
# one scrape's work, read point to read point; the measured window (B to C)
# encloses the same one scrape plus the requests. So
#   per request = (busy(B..C) - busy(A..B)) / requests,
# and the 200 responses the guest counted (minus A..B's one) cross-check
# the client's count. Connections are opened and warmed before A and closed
# after C: the window holds requests only (keep-alive, no handshakes).
def cmd_cost(a):
    scraper = Connection(a.host, a.port, a.timeout)  # plain HTTP: its cost is subtracted
    # httpd closes a connection after its 1000th request (max_requests): at
    # most 900 measured requests on each, so none closes inside the window.
    connections = a.connections or -(-a.requests // 900)
    per_connection = -(-a.requests // connections)
    if per_connection + a.warmup >= 1000:
        fail("more than 999 requests per connection: httpd closes after its 1000th (max_requests); "
             "use more --connections")
    tls = a.tls_port is not None
    load_port = a.tls_port if tls else a.port
    load = [Connection(a.host, load_port, a.timeout, tls) for _ in range(connections)]

    def gets(conn, n):
        for _ in range(n):
            status, body, closes = conn.get(a.path)
            if status != 200 or len(body) != a.expect_bytes or closes:
                fail(f"GET {a.path}: status {status}, {len(body)} bytes"
                     f"{', connection closed' if closes else ''} (want 200, {a.expect_bytes})")

    for conn in load:
        gets(conn, a.warmup)
    sa = scrape(scraper)
    sb = scrape(scraper)
    left = a.requests
    started = time.monotonic()
    for conn in load:
        n = min(per_connection, left)
        gets(conn, n)
        left -= n
    wall = time.monotonic() - started
    sc = scrape(scraper)
    one, run = window(sa, sb), window(sb, sc)
    if run["instructions"] <= 0:
        fail("starling_runtime_instructions_total did not move: not a QEMU guest under -icount?")
    busy = run["busy"] - one["busy"]
    print(f"closed_loop requests={a.requests} connections={connections} "
          f"guest_ok_responses={int(run['ok'] - one['ok'])} wall_s={wall:.2f}")
    print(f"closed_loop scrape_busy_instructions={one['busy']:.0f} "
          f"window_busy_instructions={run['busy']:.0f} window_idle_cycles={run['idle']:.0f}")
    print(f"closed_loop instret_per_request={run['instructions'] / a.requests:.1f}")
    print(f"closed_loop busy_instructions_per_request={busy / a.requests:.1f}")
    for conn in load:
        conn.close()

    if tls and a.handshakes:
        # New connections, one request each: connect, a full TLS handshake,
        # GET, close. Less one keep-alive request's instructions, what is
        # left is the connection's: TCP's setup and teardown and the
        # handshake (the handshake is nearly all of it).
        sa = scrape(scraper)
        sb = scrape(scraper)
        started = time.monotonic()
        for _ in range(a.handshakes):
            conn = Connection(a.host, load_port, a.timeout, True)
            gets(conn, 1)
            conn.close()
        wall = time.monotonic() - started
        sc = scrape(scraper)
        one_scrape, run = window(sa, sb), window(sb, sc)
        per_connection = (run["busy"] - one_scrape["busy"]) / a.handshakes
        print(f"handshakes connections={a.handshakes} wall_s={wall:.2f} "
              f"busy_instructions_per_connection={per_connection:.1f}")
        print(f"handshakes busy_instructions_per_handshake={per_connection - busy / a.requests:.1f}")

    if not a.wrk:
        scraper.close()
        return
    # wrk's keep-alive connections at once: the same subtraction; the
    # requests are the guest's own count of 200s (wrk does not count the
    # answers still in flight when it stops).
    sa = scrape(scraper)
    sb = scrape(scraper)
    out = subprocess.run(
        [a.wrk, "-t", "1", "-c", str(a.wrk_connections), "-d", f"{a.wrk_seconds}s",
         f"{'https' if tls else 'http'}://{url_host(a.host)}:{load_port}{a.path}"],
        capture_output=True, text=True, timeout=a.wrk_seconds + 60)
    sc = scrape(scraper)
    scraper.close()
    one, run = window(sa, sb), window(sb, sc)
    requests = run["ok"] - one["ok"]
    if out.returncode != 0 or requests <= 0:
        fail(f"wrk under -icount: exit {out.returncode}, {requests:.0f} requests\n{out.stdout}{out.stderr}")
    errors = re.findall(r"(Socket errors:.*|Non-2xx or 3xx responses:.*)", out.stdout)
    print(f"wrk_c{a.wrk_connections} requests={requests:.0f} seconds={a.wrk_seconds} "
          f"wrk_errors={'none' if not errors else '; '.join(errors).replace(' ', '_')}")
    print(f"wrk_c{a.wrk_connections} busy_instructions_per_request="
          f"{(run['busy'] - one['busy']) / requests:.1f} "
          f"idle_share={run['idle'] / run['instructions']:.3f}")


def cmd_metrics(a):
    c = Connection(a.host, a.port, 10)
    status, body, _ = c.get("/metrics")
    c.close()
    sys.stdout.write(body.decode("utf-8", "replace"))
    return 0 if status == 200 else 1


def cmd_check_smoke(a):
    for path in a.csvs:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        if not rows or rows[0][:len(CSV_COLUMNS)] != CSV_COLUMNS:
            fail(f"{path}: header is not {','.join(CSV_COLUMNS)}")
        if len(rows) != 2:
            fail(f"{path}: expected one row, got {len(rows) - 1}")
        row = dict(zip(rows[0], rows[1]))
        if len(rows[1]) != len(rows[0]):
            fail(f"{path}: {len(rows[1])} columns, header has {len(rows[0])}")
        for name in CSV_COLUMNS[1:]:
            if not re.fullmatch(r"[0-9]+(\.[0-9]+)?", row[name]):
                fail(f"{path}: {name} is not a number: {row[name]!r}")
        if int(row["errors"]) != 0:
            fail(f"{path}: {row['errors']} errors ({row['non_2xx']} non-2xx, "
                 f"{row['socket_errors']} socket errors)")
        if int(row["requests"]) <= 0 or float(row["requests_per_s"]) <= 0:
            fail(f"{path}: no requests answered")
        if not int(row["latency_p50_us"]) <= int(row["latency_p90_us"]) <= int(row["latency_p99_us"]):
            fail(f"{path}: percentiles out of order: {row}")
    if a.cost:
        with open(a.cost) as f:
            text = f.read()
        m = re.search(r"closed_loop busy_instructions_per_request=([0-9.]+)", text)
        if not m or float(m.group(1)) <= 0:
            fail(f"{a.cost}: no positive closed_loop busy_instructions_per_request")
    print("httpbench: smoke checks passed")


def read_row(path):
    with open(path, newline="") as f:
        return next(csv.DictReader(f))


def cmd_summary(a):
    rows = {}
    for base in a.legs.split(","):
        for leg in (base, base + "_https", base + "_handshakes"):
            try:
                rows[leg] = read_row(f"{a.out}/{leg}.csv")
            except (OSError, StopIteration):
                pass
    cost_tls = ""
    try:
        with open(f"{a.out}/cost_tls.txt") as f:
            cost_tls = f.read()
    except OSError:
        pass
    cost = ""
    cost6 = ""
    try:
        with open(f"{a.out}/cost.txt") as f:
            cost = f.read()
    except OSError:
        pass
    try:
        with open(f"{a.out}/cost6.txt") as f:
            cost6 = f.read()
    except OSError:
        pass
    lines = [f"# bench/http summary {time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())}, {a.params}"]
    for leg, r in rows.items():
        lines.append(f"{leg} requests_per_s={r['requests_per_s']} latency_p50_us={r['latency_p50_us']} "
                     f"latency_p90_us={r['latency_p90_us']} latency_p99_us={r['latency_p99_us']} "
                     f"errors={r['errors']} requests={r['requests']}")
    nginx = rows.get("nginx")
    # Each httpd leg against nginx in its family; each IPv6 leg against its
    # IPv4 twin.
    pairs = [("qemu", "nginx", "httpd(qemu)/nginx"), ("host", "nginx", "httpd(host)/nginx"),
             ("qemu6", "nginx6", "httpd(qemu6)/nginx6"), ("host6", "nginx6", "httpd(host6)/nginx6"),
             ("qemu6", "qemu", "qemu6/qemu"), ("host6", "host", "host6/host"),
             ("nginx6", "nginx", "nginx6/nginx"),
             # HTTPS: keep-alive requests, and new connections (a full
             # handshake each, wrk -H "Connection: close").
             ("qemu_https", "nginx_https", "httpd(qemu)/nginx https"),
             ("host_https", "nginx_https", "httpd(host)/nginx https"),
             ("qemu_handshakes", "nginx_handshakes", "httpd(qemu)/nginx new TLS connections"),
             ("host_handshakes", "nginx_handshakes", "httpd(host)/nginx new TLS connections"),
             ("qemu_https", "qemu", "https/http qemu"), ("host_https", "host", "https/http host"),
             ("nginx_https", "nginx", "https/http nginx"),
             # The same over IPv6, and each IPv6 HTTPS leg against its IPv4 twin.
             ("qemu6_https", "nginx6_https", "httpd(qemu6)/nginx6 https"),
             ("host6_https", "nginx6_https", "httpd(host6)/nginx6 https"),
             ("qemu6_handshakes", "nginx6_handshakes", "httpd(qemu6)/nginx6 new TLS connections"),
             ("host6_handshakes", "nginx6_handshakes", "httpd(host6)/nginx6 new TLS connections"),
             ("qemu6_https", "qemu_https", "qemu6/qemu https"),
             ("host6_https", "host_https", "host6/host https"),
             ("nginx6_https", "nginx_https", "nginx6/nginx https"),
             ("host6_handshakes", "host_handshakes", "host6/host new TLS connections"),
             ("nginx6_handshakes", "nginx_handshakes", "nginx6/nginx new TLS connections")]
    for leg, peer, name in pairs:
        if leg in rows and peer in rows:
            r, n = rows[leg], rows[peer]
            rps = float(r["requests_per_s"]) / max(float(n["requests_per_s"]), 1e-9)
            p99 = float(r["latency_p99_us"]) / max(float(n["latency_p99_us"]), 1e-9)
            lines.append(f"ratio {name} requests_per_s={rps:.3f} latency_p99={p99:.3f}")
    lines += [f"cost {line}" for line in cost.splitlines() if line.strip()]
    lines += [f"cost6 {line}" for line in cost6.splitlines() if line.strip()]
    lines += [f"cost_tls {line}" for line in cost_tls.splitlines() if line.strip()]
    plain = re.search(r"closed_loop busy_instructions_per_request=([0-9.]+)", cost)
    secure = re.search(r"closed_loop busy_instructions_per_request=([0-9.]+)", cost_tls)
    if plain and secure:
        ratio = float(secure.group(1)) / max(float(plain.group(1)), 1e-9)
        lines.append(f"goal a keep-alive HTTPS request <= 3x a plain one's instructions: "
                     f"{ratio:.2f}x ({'met' if ratio <= 3 else 'not met'})")
    if "host_https" in rows and "nginx_https" in rows:
        h = float(rows["host_https"]["requests_per_s"])
        n = float(rows["nginx_https"]["requests_per_s"])
        lines.append(f"goal host board keep-alive HTTPS requests/s >= nginx's: {h:.0f} vs {n:.0f} "
                     f"({'met' if h >= n else 'not met'})")
    m = re.search(r"closed_loop busy_instructions_per_request=([0-9.]+)", cost)
    if m:
        v = float(m.group(1))
        lines.append(f"goal busy guest instructions per keep-alive request <= 15000: {v:.0f} "
                     f"({'met' if v <= 15000 else 'not met'})")
    if nginx and "host" in rows:
        h, n = float(rows["host"]["requests_per_s"]), float(nginx["requests_per_s"])
        lines.append(f"goal host board requests/s >= nginx's: {h:.0f} vs {n:.0f} "
                     f"({'met' if h >= n else 'not met'})")
    with open(f"{a.out}/summary.txt", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("wrk-csv")
    for name in ("leg", "connections", "seconds", "threads", "wrk-output", "csv", "dat"):
        s.add_argument("--" + name, required=True)
    s.set_defaults(run=cmd_wrk_csv)
    s = sub.add_parser("probe")
    s.add_argument("--host", required=True)
    s.add_argument("--port", type=int, default=80)
    s.add_argument("--path", default="/")
    s.add_argument("--expect-bytes", type=int, default=-1)
    s.add_argument("--seconds", type=float, default=30)
    s.set_defaults(run=cmd_probe)
    s = sub.add_parser("cost")
    s.add_argument("--host", required=True)
    s.add_argument("--port", type=int, default=80)
    s.add_argument("--path", default="/")
    s.add_argument("--requests", type=int, default=9000)
    s.add_argument("--connections", type=int, default=0, help="0: one per 900 requests")
    s.add_argument("--warmup", type=int, default=20)
    s.add_argument("--expect-bytes", type=int, required=True)
    s.add_argument("--timeout", type=float, default=10)
    s.add_argument("--wrk")
    s.add_argument("--wrk-seconds", type=int, default=3)
    s.add_argument("--wrk-connections", type=int, default=32)
    s.add_argument("--tls-port", type=int, help="the load over HTTPS to this port (scrapes stay plain)")
    s.add_argument("--handshakes", type=int, default=0,
                   help="with --tls-port: this many new connections, a full handshake each")
    s.set_defaults(run=cmd_cost)
    s = sub.add_parser("metrics")
    s.add_argument("--host", required=True)
    s.add_argument("--port", type=int, default=80)
    s.set_defaults(run=cmd_metrics)
    s = sub.add_parser("check-smoke")
    s.add_argument("csvs", nargs="+")
    s.add_argument("--cost")
    s.set_defaults(run=cmd_check_smoke)
    s = sub.add_parser("summary")
    s.add_argument("--out", required=True)
    s.add_argument("--legs", required=True)
    s.add_argument("--params", default="")
    s.set_defaults(run=cmd_summary)
    a = p.parse_args()
    sys.exit(a.run(a) or 0)


if __name__ == "__main__":
    main()
