#!/bin/bash
# docs/star64.md's tables of the starling.gmac= keys against the
# declarations they are generated from (gmac_params.cc's, gmac_keys()).
#
#   gmac_keys_doc_test.sh GMAC_KEYS_DOC STAR64_MD
set -uo pipefail
tool=$1 page=$2
generated=$("$tool" "$page") || { echo "FAIL: gmac_keys_doc could not read the page's tables"; exit 1; }
if diff -u "$page" <(printf '%s\n' "$generated") >"$TEST_TMPDIR/diff"; then
  echo "ok   docs/star64.md's starling.gmac= tables are what the declarations say ($(grep -c '^| `' "$page") rows in the page's tables)"
else
  echo "FAIL: docs/star64.md's starling.gmac= tables differ from the declarations:"
  head -60 "$TEST_TMPDIR/diff"
  echo "Fix: bazel run //platform/star64:gmac_keys_doc -- --update docs/star64.md"
  exit 1
fi
