#!/bin/bash
# //toolchain/compare's own checks, without QEMU (compare.py --no-run), on
# the qemu_virt echo image of the three configurations:
#   - (b), clang 19 at its default small-data limit, has small-data sections
#     holding lwIP's memp pools: the seed's build really is in the report;
#   - (a) and (c), the pinned flags with either compiler, have none;
#   - the diff (a) -> (b) names -msmall-data-limit=0 and the small-data
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
seed = v["b_clang19_default_small_data"]["images"]["echo_qemu"]
check(seed["small_data"], "(b) has no small-data section: the seed's configuration did not take effect")
check(any("memp" in s for s in seed["small_data_symbols"]),
      "(b)'s small data holds no memp symbol: %s" % seed["small_data_symbols"][:10])
for n in ("a_clang19", "c_clang22"):
    img = v[n]["images"]["echo_qemu"]
    check(not img["small_data"], "%s has small-data sections %s" % (n, img["small_data"]))
check(v["a_clang19"]["compiler"] == "clang19" and v["c_clang22"]["compiler"] == "clang22",
      "compilers: %s" % {n: x["compiler"] for n, x in v.items()})
check(v["a_clang19"]["images"]["echo_qemu"]["sha256"] != seed["sha256"], "(a) and (b) are the same image")
removed = ab["diff"]["moved"]["flags"].get("compile", {}).get("removed", [])
check("-msmall-data-limit=0" in removed, "the (a)->(b) diff does not show -msmall-data-limit=0 removed: %s" % removed)
listed = [k for k in ab["diff"]["moved"]["sections"] if "sdata" in k or "sbss" in k]
check(listed or sum(seed["small_data"].values()) <= 64,
      "the (a)->(b) diff lists no small-data section: %s" % ab["diff"]["moved"]["sections"])
added = ac["diff"]["moved"]["flags"].get("compile", {}).get("added", [])
check(any("clang22" in f for f in added), "the (a)->(c) diff does not name clang 22's tool: %s" % added)
check(not any(cc["diff"]["moved"][k] for k in ("flags", "sections", "symbols")),
      "a configuration differs from itself: %s" % cc["diff"]["moved"])
for p in problems:
    print("FAIL: " + p)
print("compare: %d problem(s)" % len(problems))
sys.exit(1 if problems else 0)
PY
