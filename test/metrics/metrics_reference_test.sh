#!/bin/bash
# docs/metrics-reference.md against the registrations it is generated from,
# and docs/metrics.md's names against the same registry.
#
#   metrics_reference_test.sh METRICS_PAGE REFERENCE_MD METRICS_MD
set -uo pipefail
page=$1 reference=$2 overview=$3
fail=0
generated=$("$page" --reference) || { echo "FAIL: metrics_page --reference failed"; exit 1; }
if diff -u "$reference" <(printf '%s\n' "$generated") >"$TEST_TMPDIR/diff"; then
  echo "ok   docs/metrics-reference.md is what the registrations declare ($(grep -c '^| `' "$reference") families)"
else
  echo "FAIL: docs/metrics-reference.md differs from the registrations:"
  head -40 "$TEST_TMPDIR/diff"
  echo "Fix: bazel run //test/metrics:metrics_page -- --reference > docs/metrics-reference.md"
  fail=1
fi
# Every whole family name docs/metrics.md's "What is registered" table
# gives (backticked, without the starling_ prefix; `nic_tx_*_total` and
# label values are not names) must be registered, so the overview cannot
# name a family that is gone or renamed.
families=$(grep -o '^| `starling_[a-z0-9_]*`' "$reference" | sed 's/^| `starling_//; s/`$//')
named=$(sed -n '/^## What is registered/,/^## /p' "$overview" | grep '^| ' |
  awk -F'|' '{print $3}' | grep -o '`[a-z][a-z0-9_]*`' | tr -d '`' | sort -u)
checked=0
for name in $named; do
  checked=$((checked + 1))
  if ! grep -qx "$name" <<<"$families"; then
    echo "FAIL: docs/metrics.md names starling_$name, which nothing registers"
    fail=1
  fi
done
echo "ok   $checked family names in docs/metrics.md's table checked"
exit $fail
