#!/bin/bash
# //toolchain/compare's own checks, without QEMU (compare.py --no-run), on
# the flags of the three configurations and the qemu_virt echo image of (a)
# and (c) (BUILD.bazel says why not (b)'s):
#   - the diff (a) -> (b), clang 19 at its default small-data limit, names
#     -msmall-data-limit=0 removed: the seed's flags really are in the report;
#   - (a) and (c), the pinned flags with either compiler, have no small-data
#     sections; the diff (a) -> (c) names the other compiler's tools;
#   - a diff of a configuration with itself moves nothing.
#   compare_test.sh COMPARE_PY ARGS...   (ARGS: compare.py's --nm, --readelf, --variant ...)
set -euo pipefail
compare=$1
shift
json="$TEST_TMPDIR/report.json"
python3 "$compare" --no-run --diff a_clang19 b_clang19_default_small_data --json "$json" "$@" \
  >"$TEST_TMPDIR/report.txt"
cat "$TEST_TMPDIR/report.txt"
python3 "$compare" --no-run --diff a_clang19 c_clang22 --json "$TEST_TMPDIR/ac.json" "$@" >/dev/null
python3 "$compare" --no-run --diff c_clang22 c_clang22 --json "$TEST_TMPDIR/cc.json" "$@" >/dev/null
python3 - "$json" "$TEST_TMPDIR/ac.json" "$TEST_TMPDIR/cc.json" <<'PY'
import json, sys
ab, ac, cc = (json.load(open(p)) for p in sys.argv[1:])
v = ab["variants"]
problems = []
def check(ok, what):
    if not ok:
        problems.append(what)
check("echo_qemu" not in v["b_clang19_default_small_data"]["images"],
      "(b) has an image: BUILD.bazel's _TEST_ARGS changed, and this test with it?")
for n in ("a_clang19", "c_clang22"):
    img = v[n]["images"]["echo_qemu"]
    check(not img["small_data"], "%s has small-data sections %s" % (n, img["small_data"]))
check(v["a_clang19"]["compiler"] == "clang19" and v["c_clang22"]["compiler"] == "clang22",
      "compilers: %s" % {n: x["compiler"] for n, x in v.items()})
check(v["b_clang19_default_small_data"]["compiler"] == "clang19",
      "(b)'s compiler: %s" % v["b_clang19_default_small_data"]["compiler"])
removed = ab["diff"]["moved"]["flags"].get("compile", {}).get("removed", [])
check("-msmall-data-limit=0" in removed, "the (a)->(b) diff does not show -msmall-data-limit=0 removed: %s" % removed)
check(v["a_clang19"]["images"]["echo_qemu"]["sha256"] != v["c_clang22"]["images"]["echo_qemu"]["sha256"],
      "(a) and (c) are the same image")
added = ac["diff"]["moved"]["flags"].get("compile", {}).get("added", [])
check(any("clang22" in f for f in added), "the (a)->(c) diff does not name clang 22's tool: %s" % added)
check(not any(cc["diff"]["moved"][k] for k in ("flags", "sections", "symbols")),
      "a configuration differs from itself: %s" % cc["diff"]["moved"])
for p in problems:
    print("FAIL: " + p)
print("compare: %d problem(s)" % len(problems))
sys.exit(1 if problems else 0)
PY
