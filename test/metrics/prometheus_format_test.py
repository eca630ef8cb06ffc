#!/usr/bin/env python3
"""The metrics page, checked by a parser that is not ours.

    prometheus_format_test.py METRICS_PAGE_BINARY PROMTOOL

Runs //test/metrics:metrics_page (the registrations every network
application gets, on the host) and parses its Prometheus page with
prometheus_client's text parser (Debian's python3-prometheus-client):
every family parses, has help text and a type, counters' names end in
_total, label values round-trip through the escaping, every component's
families are there with their labels, and each key of the stats line (the
same registry's other rendering) equals its sample's value. Then
Prometheus's own lint, `promtool check metrics` (Debian's, pinned:
@prometheus), must find nothing on the page: base units (seconds, bytes), no
_total on a gauge, no abbreviated units. A page with two known faults is
linted first, so a promtool that checks nothing cannot pass the test.
"""
import os
import subprocess
import sys
from checks import check, finish

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    print("FAIL: python3-prometheus-client missing. Fix: sudo ./setup.sh")
    sys.exit(1)




result = subprocess.run([sys.argv[1]], capture_output=True, text=True)
check("metrics_page ran", result.returncode == 0, result.stderr.strip())
if result.returncode != 0:
    sys.exit(1)
page, _, line = result.stdout.partition("---\n")
print(result.stderr.strip())

try:
    families = list(text_string_to_metric_families(page))
except Exception as e:  # the parser's own refusal is the finding
    check("prometheus_client parses the page", False, repr(e))
    sys.exit(1)
check("prometheus_client parses the page", len(families) > 0, "%d families" % len(families))
by_name = {}
for family in families:
    by_name[family.name] = family
    # prometheus_client strips _total from a counter family's name.
    check("%s: type and help" % family.name, family.type in ("counter", "gauge") and bool(family.documentation))
    for sample in family.samples:
        if family.type == "counter" and not sample.name.endswith("_total"):
            check("counter sample %s ends in _total" % sample.name, False)
        # Counts are integers; a time is in seconds (Prometheus's base
        # unit), a decimal fraction of at most 9 places (kept in ns).
        if sample.value < 0 or (sample.value != int(sample.value) and
                                not family.name.endswith("_seconds")):
            check("sample %s is a non-negative integer (or seconds)" % sample.name, False,
                  str(sample.value))

names = "\n".join(page.splitlines())
check("HELP and TYPE once per family", all(
    names.count("# TYPE %s " % f) == 1 for f in set(
        l.split()[2] for l in page.splitlines() if l.startswith("# TYPE "))))

expected = {
    "starling_runtime_ready_tasks": "gauge",
    "starling_runtime_idle_cycles": "counter",
    "starling_coroutine_frame_bytes_peak": "gauge",
    "starling_coroutine_frame_failures": "counter",
    "starling_pages_free": "gauge",
    "starling_page_allocation_failures": "counter",
    "starling_nic_rx_frames": "counter",
    "starling_netif_rx_runts": "counter",
    "starling_rx_buffers_held": "gauge",
    "starling_rx_buffers": "gauge",
    "starling_lwip_pool_used": "gauge",
    "starling_lwip_pool_size": "gauge",
    "starling_lwip_heap_bytes_peak": "gauge",
    "starling_tcp_connections": "gauge",
    "starling_tcp_connection_slots": "gauge",
    "starling_tcp_refused_slots": "counter",
    "starling_metrics_page_bytes": "gauge",
    "starling_metrics_render_seconds": "gauge",
    "starling_metrics_render_instructions": "gauge",
    "starling_metrics_renders": "counter",
    "starling_http_slots": "gauge",
    "starling_http_slots_limit": "gauge",
    "starling_http_requests": "counter",
    "starling_http_responses": "counter",
    "starling_tls_sessions": "gauge",
    "starling_tls_memory_limit_bytes": "gauge",
    "starling_tls_state": "gauge",
}
for name, kind in expected.items():
    family = by_name.get(name)
    check("family %s (%s)" % (name, kind), family is not None and family.type == kind,
          family.type if family else "missing")

pools = {s.labels.get("pool") for s in by_name["starling_lwip_pool_size"].samples}
check("lwIP pools labelled", {"PBUF_POOL", "PBUF", "TCP_PCB", "TCP_SEG", "UDP_PCB"} <= pools, str(sorted(pools)))
sizes = {s.labels["pool"]: s.value for s in by_name["starling_lwip_pool_size"].samples}
check("every pool has a bound", all(v > 0 for v in sizes.values()), str(sizes))
check("NIC samples labelled nic=fake",
      all(s.labels.get("nic") == "fake" for s in by_name["starling_nic_rx_frames"].samples))
tricky = by_name["starling_test_escaping"]
check("help text round-trips", tricky.documentation == "A help line with a backslash \\ and a\nnewline.",
      repr(tricky.documentation))
check("label value round-trips", tricky.samples[0].labels.get("path") == 'C:\\dir "quoted"\nnext',
      repr(tricky.samples[0].labels))

# The page's own cost (kernel/metrics/page.h): the second render shows the first's.
cost = {name: by_name[name].samples[0].value for name in
        ("starling_metrics_page_bytes", "starling_metrics_render_seconds", "starling_metrics_renders")
        if name in by_name}
print("render cost on the page:", cost)
check("the page shows the render before it (1 render, its bytes and time)",
      cost.get("starling_metrics_renders") == 1 and
      0 < cost.get("starling_metrics_page_bytes", 0) <= len(page.encode()) + 64 and
      0 < cost.get("starling_metrics_render_seconds", 0) < 1, str(cost))

# The stats line: the same registry's line rendering, the keys it always had.
check("stats line starts with STARLING-STATS and ends the line",
      line.startswith("STARLING-STATS ") and line.endswith("\n"), line[:40])
pairs = dict(item.split("=", 1) for item in line.split()[1:])
for key in ["pbuf_pool_used", "pbuf_ref_used", "rx_wrappers_used", "tcp_pcbs_used", "tcp_segs_used",
            "tcp_active", "tcp_time_wait", "tcp_conns", "pbuf_pool_max", "lwip_heap_max_bytes",
            "pages_max", "coroutine_frames_max_bytes", "coroutine_frame_failures", "rx_wrappers_max",
            "netif_rx_runts", "nic_rx_frames", "nic_interrupts", "netif_tx_checksum_offload",
            "idle_cycles", "instret", "uptime_ns"]:
    check("stats line has %s" % key, key in pairs)
check("stats line value = the page's sample (test_escaping)", pairs.get("test_escaping") == "7")
used = {s.labels["pool"]: s.value for s in by_name["starling_lwip_pool_used"].samples}
check("stats line pbuf_pool_used = starling_lwip_pool_used{pool=PBUF_POOL}",
      int(pairs.get("pbuf_pool_used", -1)) == int(used["PBUF_POOL"]))

# promtool: Prometheus's conventions, as dashboards built on them expect.
promtool = sys.argv[2]
check("promtool (@prometheus) runs", os.access(promtool, os.X_OK), promtool)
if os.access(promtool, os.X_OK):
    def lint(text):
        r = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True,
                           text=True, timeout=60)
        return r.returncode, (r.stdout + r.stderr).strip()
    bad = ("# HELP x_slots_total A gauge named as a counter.\n# TYPE x_slots_total gauge\n"
           "x_slots_total 1\n# HELP x_uptime_ns An abbreviated unit.\n# TYPE x_uptime_ns gauge\n"
           "x_uptime_ns 5\n")
    rc, out = lint(bad)
    check("promtool finds a gauge's _total and an abbreviated unit",
          rc != 0 and "x_slots_total" in out and "x_uptime_ns" in out, out)
    rc, out = lint(page)
    for finding in out.splitlines():
        print("promtool: " + finding)
    check("promtool check metrics: no findings on the page", rc == 0 and out == "",
          "exit %d, %d finding(s)" % (rc, len(out.splitlines())))

sys.exit(finish())
print("PASS")
