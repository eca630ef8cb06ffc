#!/bin/bash
# Runs lwIP's fuzz harness once per sample input (usage: fuzz_inputs_test.sh
# LWIP_FUZZ INPUT...). Any sanitizer report or assert fails it.
set -euo pipefail
fuzz=$1
shift
for input in "$@"; do
  "$fuzz" <"$input" >/dev/null
  echo "ok   ${input##*/}"
done
echo "$# inputs"
