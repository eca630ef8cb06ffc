#!/bin/bash
# The layers of docs/architecture.md, checked on the real build graph: a
# nested `bazel query` over every target's dependencies (all select()
# branches), then test/lint/layering.py. Then the same on a scratch copy of
# the workspace with two bad edges added (kernel -> a driver, production ->
# a test model): the check must fail and name both, so a rule that cannot
# fail does not pass here.
set -uo pipefail
source toolchain/tests/nested_bazel.sh

checker=test/lint/layering.py

# query_graph NAME WORKSPACE: writes NAME.graph, NAME.kinds, NAME.testonly.
query_graph() {
  local name=$1 ws=$2 out=$TEST_TMPDIR/$1
  local repos=()
  mapfile -t repos < <(reuse_repository_flags)
  (
    cd "$ws" || exit 1
    b() { env -u TEST_TMPDIR bazel --output_base="$TEST_TMPDIR/$name.base" query \
      --color=no --curses=no --noshow_progress --keep_going \
      --repo_env=STARLING_DEB_CACHE="$(_deb_cache)" "${repos[@]}" "$@"; }
    # Every package of the workspace, by top-level folder: `//...` itself
    # would walk into the outer Bazel's bazel-* convenience links.
    local all="//:all" d
    for d in */; do
      d=${d%/}
      [[ $d == bazel-* || -L $d ]] && continue
      [[ -n $(find "$d" -name BUILD.bazel -print -quit) ]] && all+=" + //$d/..."
    done
    b "deps($all)" --output=graph --nograph:factored >"$out.graph" &&
      b "$all" --output=label_kind >"$out.kinds" &&
      b "attr(testonly, 1, $all) + tests($all)" --output=label >"$out.testonly"
    local rc=$?
    env -u TEST_TMPDIR bazel --output_base="$TEST_TMPDIR/$name.base" shutdown
    exit $rc
  ) 2>"$out.log"
}

fail=0
if ! query_graph tree "$NESTED_WORKSPACE"; then
  echo "FAIL: bazel query on the workspace failed:"
  tail -20 "$TEST_TMPDIR/tree.log"
  exit 1
fi
if python3 "$checker" "$TEST_TMPDIR"/tree.{graph,kinds,testonly}; then
  echo "ok   the tree keeps its layers"
else
  echo "FAIL: the tree breaks the layering rules above (docs/architecture.md)"
  fail=1
fi

# The scratch workspace: the tracked files, two bad edges.
scratch=$TEST_TMPDIR/scratch
scratch_copy "$scratch"
python3 - "$scratch" <<'PY'
import sys
root = sys.argv[1]
for path, dep in [("kernel/console/BUILD.bazel", "//drivers/irq"),
                  ("platform/host/BUILD.bazel", "//drivers/virtio/model:fake_device")]:
    p = f"{root}/{path}"
    s = open(p).read()
    anchor = '    deps = [\n'
    assert anchor in s, path
    open(p, "w").write(s.replace(anchor, anchor + f'        "{dep}",\n', 1))
PY
if ! query_graph scratch "$scratch"; then
  echo "FAIL: bazel query on the scratch workspace failed:"
  tail -20 "$TEST_TMPDIR/scratch.log"
  exit 1
fi
python3 "$checker" "$TEST_TMPDIR"/scratch.{graph,kinds,testonly} >"$TEST_TMPDIR/scratch.check"
rc=$?
if [[ $rc -ne 1 ]]; then
  echo "FAIL: the checker passed a workspace with bad edges (exit $rc)"
  fail=1
fi
for edge in ' -> //drivers/irq:irq: kernel may not depend on drivers' \
  ' -> //drivers/virtio/model:fake_device: production code depends on test code'; do
  if grep -qF -- "$edge" "$TEST_TMPDIR/scratch.check"; then
    echo "ok   bad edge reported:$(grep -F -- "$edge" "$TEST_TMPDIR/scratch.check" | head -1 | cut -c10-)"
  else
    echo "FAIL: the checker did not report '$edge'; it printed:"
    cat "$TEST_TMPDIR/scratch.check"
    fail=1
  fi
done
chmod -R u+w "$TEST_TMPDIR"/*.base 2>/dev/null
rm -rf "$TEST_TMPDIR"/*.base "$scratch"
exit $fail
