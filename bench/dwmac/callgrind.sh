#!/bin/bash
# Instructions per frame in the DWMAC driver, counted by callgrind: the
# inclusive cost of the driver's entry points (receive, release, transmit)
# minus what the device model spends inside the register accesses they make
# (DwmacModel::read32/write32 run the model's DMA), divided by the frames.
#   bazel run -c opt --config=nosan //bench/dwmac:callgrind [-- <mode> <n> <size>]
set -euo pipefail

bench="$1"
mode="${2:-both}"
n="${3:-200000}"
size="${4:-1514}"

if ! command -v valgrind >/dev/null; then
  echo "valgrind is not installed (apt-get install valgrind)" >&2
  exit 1
fi
if [[ "$("$bench" --check)" != "sanitizers: off" ]]; then
  echo "the benchmark was built with sanitizers; run it with --config=nosan:" >&2
  echo "  bazel run -c opt --config=nosan //bench/dwmac:callgrind" >&2
  exit 1
fi

out="$(mktemp)"
trap 'rm -f "$out"' EXIT
"$bench" "$mode" "$n" "$size"
valgrind --tool=callgrind --callgrind-out-file="$out" "$bench" "$mode" "$n" "$size" >/dev/null 2>&1
callgrind_annotate --inclusive=yes --threshold=100 "$out" 2>/dev/null |
  awk -v n="$n" -v mode="$mode" '
    function count(s) { gsub(",", "", s); return s + 0 }
    /Dwmac::receive\(/ { rx += count($1) }
    /Dwmac::release\(/ { rel += count($1) }
    /Dwmac::transmit\(/ { tx += count($1) }
    /DwmacModel::read32\(/ { mr += count($1) }
    /DwmacModel::write32\(/ { mw += count($1) }
    /PROGRAM TOTALS/ { total = count($1) }
    END {
      driver = rx + rel + tx - mr - mw
      frames = (mode == "both") ? 2 * n : n
      printf "program total: %.0f instructions (%.1f per frame, model and set-up included)\n", total, total / frames
      printf "driver entry points inclusive: receive %.0f, release %.0f, transmit %.0f\n", rx, rel, tx
      printf "model inside register accesses: read32 %.0f, write32 %.0f\n", mr, mw
      printf "driver instructions per frame (%s, %d frames): %.1f\n", mode, frames, driver / frames
      if (mode == "both") {
        printf "  RX (receive + release): %.1f per frame\n", (rx + rel - mr) / n
        printf "  TX (transmit, copy included, model excluded): %.1f per frame\n", (tx - mw) / n
      }
    }'
