#!/usr/bin/env python3
"""apps/httpd in QEMU under load from real clients, through QEMU user
networking's hostfwd on a free loopback port:

  ab -k      2,000 keep-alive requests, 16 at a time: none failed, all 2xx
  h2load     --h1, 2,000 requests on 16 connections pipelined 4 deep
  wrk        2 s on 24 connections: no socket error, no non-2xx
  a storm    1,000 connections at once against the default 64 slots, for
             20 s: each gets 200, 503 with Retry-After, is refused, or still
             waits for one of lwIP's 128 PCBs (its SYN unanswered, the peer
             retrying); none gets anything else, some get the 503, no
             PANIC or assertion on the console; then every pool (slots,
             body buffers, pbufs, PCBs minus TIME_WAIT, TCP segments, TCP
             connections, RX buffers, coroutine frames) is back at its
             baseline and a new client is served.

Figures are printed (requests/s from each tool are this machine's, for
reading, not gated); what is asserted is what can be counted.

  httpd_load_qemu_test.py --launcher apps/httpd/qemu.run.sh
"""
import argparse
import errno
import os
import re
import resource
import selectors
import socket
import subprocess
import sys
import time
import urllib.request

from qemu_guest import QemuGuest, free_port
from http_checks import Checks, metrics, token_file

check = Checks()

SLOTS = 64  # httpd's default (net/http kMaxSlots): the whole table
STORM = 1000



def run(cmd, timeout=60):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    print("$ " + " ".join(cmd))
    print(r.stdout[-1500:])
    if r.returncode != 0:
        print(r.stderr[-1500:])
    return r



# What a storm may leave held only while it lasts.
def pools(m):
    return {
        "http slots": m["starling_http_slots"],
        "http body buffers": m["starling_http_body_buffers"],
        "pbufs (pool)": m['starling_lwip_pool_used{pool="PBUF_POOL"}'],
        "pbufs (ref)": m['starling_lwip_pool_used{pool="PBUF"}'],
        "TCP segments": m['starling_lwip_pool_used{pool="TCP_SEG"}'],
        "TCP PCBs minus TIME_WAIT": m['starling_lwip_pool_used{pool="TCP_PCB"}'] -
        m["starling_tcp_pcbs_time_wait"],
        "TCP connections": m["starling_tcp_connections"],
        "RX buffers held": sum(v for k, v in m.items() if k.startswith("starling_rx_buffers_held{")
                               or k == "starling_rx_buffers_held"),
        "coroutine frames": m["starling_coroutine_frames"],
    }


def storm(port, n, seconds):
    """n connections at once, each sending one keep-alive GET; the outcome of
    each: its status, or 'refused' (reset or closed with no answer)."""
    sel = selectors.DefaultSelector()
    request = b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"
    conns = {}
    outcome = {}
    for i in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        err = s.connect_ex(("127.0.0.1", port))
        if err not in (0, errno.EINPROGRESS):
            outcome[i] = "refused"
            s.close()
            continue
        conns[i] = [s, b"", False]
        sel.register(s, selectors.EVENT_WRITE, i)
    deadline = time.monotonic() + seconds
    while len(outcome) < n and time.monotonic() < deadline:
        for key, events in sel.select(timeout=0.2):
            i = key.data
            s, got, sent = conns[i]
            try:
                if not sent and events & selectors.EVENT_WRITE:
                    s.send(request)
                    conns[i][2] = True
                    sel.modify(s, selectors.EVENT_READ, i)
                    continue
                chunk = s.recv(4096)
            except OSError:
                chunk = b""
            if chunk:
                conns[i][1] = got = got + chunk
                m = re.match(rb"HTTP/1\.1 (\d{3}) ", got)
                if m and b"\r\n\r\n" in got:
                    outcome[i] = int(m.group(1))
                    if outcome[i] == 503 and b"\r\nRetry-After: 1\r\n" not in got:
                        outcome[i] = "503 without Retry-After"
                    sel.unregister(s)
                    if outcome[i] != 200:
                        s.close()  # as a client told to come back later does
            else:
                outcome[i] = "refused"
                sel.unregister(s)
                s.close()
    for i in range(n):
        outcome.setdefault(i, "waiting")
    return outcome, [c[0] for c in conns.values() if c[0].fileno() != -1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--launcher", required=True)
    ap.add_argument("--timeout", type=int, default=240)
    a = ap.parse_args()
    # The storm's sockets, and QEMU's (slirp opens one per connection it forwards).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    port = free_port()
    # Every client comes through user networking from one address
    # (10.0.2.2): the per-peer shares (TCP 63, slots 31) are lifted so that
    # the storm can reach the slots' own bound (docs/hostile-peers.md).
    guest = QemuGuest(a.launcher, a.timeout, env={"STARLING_HTTPD_PORT": str(port),
                                                    # its own: tests run side by side
                                                    "STARLING_HTTPS_PORT": str(free_port())},
                      runner_args=("--management-token",
                                   token_file(os.environ.get("TEST_TMPDIR", "/tmp"))),
                      qemu_args=("-append", "starling.tcp_peer_share=off httpd.peer_slots=64"))
    try:
        if not guest.wait_for("httpd: ready"):
            check(False, "httpd printed ready")
            return check.finish(guest)
        url = f"http://127.0.0.1:{port}/healthz"
        for _ in range(50):
            try:
                urllib.request.urlopen(url, timeout=2).read()
                break
            except OSError:
                time.sleep(0.1)

        r = run(["ab", "-k", "-n", "2000", "-c", "16", "-s", "10", url])
        complete = re.search(r"Complete requests:\s+(\d+)", r.stdout)
        failed = re.search(r"Failed requests:\s+(\d+)", r.stdout)
        kept = re.search(r"Keep-Alive requests:\s+(\d+)", r.stdout)
        rps = re.search(r"Requests per second:\s+([\d.]+)", r.stdout)
        check(r.returncode == 0 and complete and complete.group(1) == "2000", "ab: 2000 complete")
        check(failed is not None and failed.group(1) == "0", "ab: 0 failed")
        check("Non-2xx responses" not in r.stdout, "ab: no non-2xx response")
        check(kept is not None and kept.group(1) == "2000", "ab: all 2000 on kept-alive connections")
        print(f"figure: ab -k -c 16: {rps.group(1) if rps else '?'} requests/s")

        r = run(["h2load", "--h1", "-n", "2000", "-c", "16", "-m", "4", url])
        m = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, "
                      r"(\d+) failed, (\d+) errored", r.stdout)
        codes = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", r.stdout)
        check(m is not None and m.group(4) == "2000" and m.group(5) == "0" and m.group(6) == "0",
              "h2load --h1 -m 4 (pipelined): 2000 succeeded, 0 failed, 0 errored")
        check(codes is not None and codes.group(1) == "2000", "h2load: 2000 2xx")
        rps = re.search(r"finished in [\d.]+\w+, ([\d.]+) req/s", r.stdout)
        print(f"figure: h2load --h1 -c 16 -m 4: {rps.group(1) if rps else '?'} requests/s")

        # 24 connections: well below the 64 slots, with room for the
        # connections of the runs before that are still in their lingering
        # close (a 65th connection is a 503, as it should be).
        r = run(["wrk", "-t", "1", "-c", "24", "-d", "2s", "--latency", url])
        total = re.search(r"(\d+) requests in", r.stdout)
        check(r.returncode == 0 and total is not None and int(total.group(1)) > 0, "wrk: requests done")
        check("Socket errors" not in r.stdout, "wrk: no socket error")
        check("Non-2xx" not in r.stdout, "wrk: no non-2xx response")
        m = metrics(port)[2]
        print("TCP refused: backlog", m.get("starling_tcp_refused_backlog_total"), "slots/PCBs",
              m.get("starling_tcp_refused_slots_total"), "HTTP 503:",
              m.get('starling_http_responses_total{code="503"}'))
        rps = re.search(r"Requests/sec:\s+([\d.]+)", r.stdout)
        p99 = re.search(r"99%\s+(\S+)", r.stdout)
        print(f"figure: wrk -c 24: {rps.group(1) if rps else '?'} requests/s, "
              f"p99 {p99.group(1) if p99 else '?'}")

        time.sleep(1.0)
        m = metrics(port)[2]
        check(m.get("starling_http_slots_limit") == SLOTS, f"{SLOTS} slots (the default)")
        check(m.get('starling_lwip_pool_size{pool="TCP_PCB"}', 0) > SLOTS,
              "lwIP has PCBs beyond the slots (for the 503s)")
        baseline = pools(metrics(port)[2])
        print("baseline:", baseline)
        start = time.monotonic()
        outcome, sockets = storm(port, STORM, 20)
        print(f"storm took {time.monotonic() - start:.1f} s")
        tally = {}
        for v in outcome.values():
            tally[v] = tally.get(v, 0) + 1
        print(f"storm of {STORM} connections against {SLOTS} slots:", tally)
        # "waiting": lwIP's 128 PCBs were all held (64 slots, the rest 503s
        # lingering and TIME_WAIT), so its SYN went unanswered and the
        # peer's TCP (here slirp's) is still retrying: the PCB bound at work.
        check(set(tally) <= {200, 503, "refused", "waiting"},
              "storm: only 200, 503 with Retry-After, refused, or still waiting for a PCB")
        check(tally.get(200, 0) >= SLOTS, f"storm: at least the {SLOTS} slots served")
        check(tally.get(503, 0) >= 1, "storm: 503s with Retry-After for connections beyond the slots")
        console = guest.console()
        check("PANIC" not in console and "assertion failed" not in console,
              "storm: no PANIC or assertion on the console")
        for s in sockets:
            s.close()
        settled = None
        # slirp retries the storm's unanswered SYNs towards the guest on its
        # own back-off (1, 2, 4, ... s) after the clients have gone; a late
        # one briefly holds a PCB and its SYN-ACK segment. Seen once in a
        # full run (issue 47's stop) at 25 s: wait out the series.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:  # slirp may still be retrying the storm's SYNs: a scrape can time out
                settled = pools(metrics(port)[2])
            except OSError:
                continue
            if settled == baseline:
                break
            time.sleep(0.5)
        print("after:", settled)
        for k in baseline:
            check(settled[k] == baseline[k], f"after the storm: {k} back to {baseline[k]:g} "
                                             f"(is {settled[k]:g})")
        # slirp may still be retrying the storm's SYNs (the clients that were
        # "waiting"): a request can wait behind them, so each one below is
        # retried for up to 30 s. Under the whole suite's load one waited
        # past its 10 s once in four full runs.
        m = retrying(lambda: metrics(port)[2])
        # (No scrape during the storm: every slot and PCB is taken, so it
        # would be one more client waiting.)
        check(m["starling_http_slots_max"] <= SLOTS, "storm: the slots' high water within the bound")
        print("refused 503:", m["starling_http_connections_refused_total"],
              "TCP refused (slots/PCBs):", m.get("starling_tcp_refused_slots_total"),
              "backlog:", m.get("starling_tcp_refused_backlog_total"),
              "PCB pool empty:", m.get('starling_lwip_pool_failures_total{pool="TCP_PCB"}'))
        check(m["starling_http_connections_refused_total"] >= tally.get(503, 0),
              "every 503 counted")
        print(f"storm summary: {tally.get(200, 0)} x 200, {tally.get(503, 0)} x 503, "
              f"{tally.get('refused', 0)} refused, {tally.get('waiting', 0)} waiting; "
              f"pools after: {settled}")
        print(f"metrics page: {m['starling_metrics_page_bytes']:g} bytes, rendered in "
              f"{m['starling_metrics_render_seconds'] * 1e6:.1f} us "
              f"(peak {m['starling_metrics_render_peak_seconds'] * 1e6:.1f} us), "
              f"{m['starling_metrics_render_instructions']:g} on the instruction counter "
              "(the host's TSC without -icount)")
        def new_client():
            with urllib.request.urlopen(url, timeout=5) as resp:
                return resp.status, resp.read()

        status, body = retrying(new_client)
        check(status == 200 and body == b"ok\n", "after the storm a new client is served")
    finally:
        guest.stop()
    return check.finish(guest)



def retrying(request, seconds=30):
    """`request()`, tried again on a timeout or refusal until `seconds` have
    passed; the last try's error propagates."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return request()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


if __name__ == "__main__":
    sys.exit(main())
