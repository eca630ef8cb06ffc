-- wrk's end-of-run callback (wrk -s report.lua): one machine-readable line
-- with the exact figures, so bench/http/httpbench.py never parses wrk's
-- rounded text ("1.23ms"). Latencies are wrk's, in microseconds.
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "wrk_report requests=%d duration_us=%d bytes=%d connect_errors=%d read_errors=%d " ..
    "write_errors=%d timeouts=%d non_2xx_3xx=%d mean_us=%.1f p50_us=%d p75_us=%d " ..
    "p90_us=%d p99_us=%d p999_us=%d max_us=%d\n",
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write,
    e.timeout, e.status, latency.mean, latency:percentile(50), latency:percentile(75),
    latency:percentile(90), latency:percentile(99), latency:percentile(99.9), latency.max))
end
