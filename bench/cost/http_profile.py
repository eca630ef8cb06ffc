#!/usr/bin/env python3
"""Where a keep-alive HTTP and HTTPS request's instructions go, function by function.

  bazel run --config=bench //bench/cost:http_profile [-- --requests N] [--top N] [--out DIR]

Boots //bench/http's httpd image (its 612-byte page) under QEMU -icount
-singlestep with QEMU's user network (the host's loopback forwarded to the
guest's ports 80 and 443), opens one keep-alive connection each way (plain,
then TLS through Python's ssl), and after a few warm-up requests logs
every executed instruction with its function (-d exec,nochain, switched on
and off through QEMU's monitor) while --requests more run one at a time.
Per request, each way: the instructions by function, and the largest
differences HTTPS minus plain (what TLS adds to the same request, the
figure issue 50's ratio is about); then who called the copies and the
zeroing (memcpy, memset: the function the log shows just before each
call). A TLS request's log is ~5 MB: the logs go to --out (default a
temporary directory, removed afterwards).

The figures count every instruction in the window, the idle loop's and
the timer ticks' between requests too, so they sit above //bench/http's
busy instructions per request (~900 a request at 50 requests, ~700 at
100), more so for the cheaper plain request: compare functions, and the
two ways within one run.
"""

import argparse
import collections
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time

import cost_profile  # read_window, demangle, bare: beside this file

REQUEST = b"GET / HTTP/1.1\r\nHost: starling\r\n\r\n"
COPIES = ("memcpy", "memset", "memmove", "memcmp")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    """One keep-alive connection; each call sends a GET and reads the whole response."""

    def __init__(self, port, tls):
        sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        if tls:
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE  # the image's throwaway certificate
            sock = context.wrap_socket(sock)
        self.sock = sock
        self.pending = b""

    def request(self):
        self.sock.sendall(REQUEST)
        while True:
            end = self.pending.find(b"\r\n\r\n")
            if end >= 0:
                head = self.pending[:end]
                if not head.startswith(b"HTTP/1.1 200 "):
                    raise RuntimeError("not a 200: %r" % head[:80])
                length = re.search(rb"\r\nContent-Length: (\d+)", head, re.I)
                if not length:
                    raise RuntimeError("no Content-Length: %r" % head[:200])
                total = end + 4 + int(length.group(1))
                if len(self.pending) >= total:
                    self.pending = self.pending[total:]
                    return
            data = self.sock.recv(65536)
            if not data:
                raise RuntimeError("the server closed the connection")
            self.pending += data

    def close(self):
        self.sock.close()


class Guest:
    """The httpd image under QEMU, its monitor on a UNIX socket."""

    def __init__(self, launcher, out, ports):
        self.out = out
        self.monitor_path = os.path.join(out, "monitor")
        self.console = os.path.join(out, "console.log")
        env = dict(os.environ, STARLING_HTTPD_PORT=str(ports[0]), STARLING_HTTPS_PORT=str(ports[1]))
        with open(self.console, "w") as console:
            self.process = subprocess.Popen(
                [launcher, "--timeout", "900", "--", "-icount", "shift=0", "-singlestep",
                 "-d", "nochain", "-D", os.path.join(out, "between.log"),
                 "-monitor", "unix:%s,server,nowait" % self.monitor_path],
                stdout=console, stderr=subprocess.STDOUT, env=env)

    def wait_ready(self, seconds=180):
        deadline = time.time() + seconds
        while time.time() < deadline:
            with open(self.console, errors="replace") as f:
                if "httpd: ready" in f.read():
                    return True
            if self.process.poll() is not None:
                return False
            time.sleep(0.5)
        return False

    def monitor(self, *commands):
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(self.monitor_path)
            for command in commands:
                s.sendall(command.encode() + b"\n")
                time.sleep(0.2)  # the monitor takes one line at a time

    def trace(self, path):
        self.monitor("logfile " + path, "log nochain,exec")

    def untrace(self):
        self.monitor("log nochain", "logfile " + os.path.join(self.out, "between.log"))

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


def callers(path, targets):
    """{(copy function, caller): instructions} and {(copy, caller): calls} from a log."""
    cost = collections.Counter()
    calls = collections.Counter()
    previous = None
    caller = None
    with open(path, errors="replace") as log:
        for line in log:
            if not line.startswith("Trace"):
                continue
            match = cost_profile.TRACE.match(line)
            if not match:
                continue
            symbol = match.group(2) or "pc " + match.group(1)
            if symbol in targets:
                if previous != symbol:
                    caller = previous
                    calls[(symbol, caller)] += 1
                cost[(symbol, caller)] += 1
            previous = symbol
    return cost, calls


def per_function(symbols, names, requests):
    table = collections.Counter()
    for symbol, count in symbols.items():
        table[cost_profile.bare(names.get(symbol, symbol))] += count / requests
    return table


def report(ways, names, requests, top, out):
    plain = per_function(ways["plain"], names, requests)
    https = per_function(ways["https"], names, requests)
    for way, table in (("plain", plain), ("https", https)):
        out.write("== %s: %d keep-alive requests; %s instructions per request\n"
                  % (way, requests, "{:,.0f}".format(sum(table.values()))))
        for name, count in table.most_common(top):
            out.write("  %9s  %s\n" % ("{:,.0f}".format(count), name))
    total = sum(https.values()) - sum(plain.values())
    out.write("== https - plain: %s instructions per request (x%.2f)\n"
              % ("{:,.0f}".format(total), sum(https.values()) / max(sum(plain.values()), 1)))
    rows = sorted(set(plain) | set(https), key=lambda n: -abs(https[n] - plain[n]))
    for name in rows[:top]:
        out.write("  %9s  %9s %9s  %s\n" % ("{:+,.0f}".format(https[name] - plain[name]),
                                            "{:,.0f}".format(plain[name]),
                                            "{:,.0f}".format(https[name]), name))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launcher", required=True, help="//bench/http:qemu's run script")
    parser.add_argument("--cxxfilt", help="llvm-cxxfilt, to demangle C++ names")
    parser.add_argument("--requests", type=int, default=100, help="traced requests each way")
    parser.add_argument("--top", type=int, default=40, help="functions shown per table")
    parser.add_argument("--out", help="keep the logs here (default: a temporary directory)")
    args = parser.parse_args(argv)
    if args.requests < 1:
        parser.error("--requests must be at least 1")

    out = os.path.abspath(args.out) if args.out else tempfile.mkdtemp(prefix="starling-hprof-")
    os.makedirs(out, exist_ok=True)
    ports = (free_port(), free_port())
    guest = Guest(os.path.abspath(args.launcher), out, ports)
    logs = {}
    try:
        if not guest.wait_ready():
            sys.stderr.write("http_profile: FAIL: httpd never said 'httpd: ready'; console:\n")
            with open(guest.console, errors="replace") as f:
                sys.stderr.write(f.read()[-3000:])
            return 1
        for way, port, tls in (("plain", ports[0], False), ("https", ports[1], True)):
            client = Client(port, tls)
            for _ in range(5):  # the handshake, the first request's one-off work
                client.request()
            time.sleep(0.2)
            logs[way] = os.path.join(out, way + ".trace.log")
            guest.trace(logs[way])
            for _ in range(args.requests):
                client.request()
            time.sleep(0.1)  # the last ACKs
            guest.untrace()
            client.close()
            sys.stderr.write("http_profile: %s: %d requests traced\n" % (way, args.requests))
    except (OSError, RuntimeError) as e:
        sys.stderr.write("http_profile: FAIL: %s (console: %s)\n" % (e, guest.console))
        return 1
    finally:
        guest.stop()

    ways = {way: cost_profile.read_window(path)[0] for way, path in logs.items()}
    if not all(ways.values()):
        sys.stderr.write("http_profile: FAIL: no instruction logged (QEMU's -d exec)\n")
        return 1
    names = cost_profile.demangle(args.cxxfilt, sorted(set(ways["plain"]) | set(ways["https"])))
    report(ways, names, args.requests, args.top, sys.stdout)
    copy_symbols = {s for s in ways["https"] if s in COPIES}
    for way in ("plain", "https"):
        cost, calls = callers(logs[way], copy_symbols)
        caller_names = cost_profile.demangle(args.cxxfilt, sorted({c for _, c in cost if c}))
        sys.stdout.write("== %s: copies and zeroing by caller (instructions, calls per request)\n"
                         % way)
        for (copy, caller), count in cost.most_common(args.top // 2):
            sys.stdout.write("  %9s %5.1f  %-7s from %s\n" % (
                "{:,.0f}".format(count / args.requests), calls[(copy, caller)] / args.requests,
                copy, cost_profile.bare(caller_names.get(caller, str(caller)))))
    if args.out is None:
        shutil.rmtree(out, ignore_errors=True)
    else:
        sys.stderr.write("http_profile: logs in %s\n" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
