#!/bin/bash
# The cost gate can fail: a scratch copy of the workspace gets one
# deliberately expensive line in the receive path (a 300-iteration loop per
# received frame in net/netif/netif.h, ~900 instructions), a nested Bazel
# runs the gate on the QEMU images there (//bench/cost:cost_gate_qemu), and
# the gate must refuse it naming the UDP echo's figure, with the table and
# the command that updates the budgets. A gate that passes this is no gate.
# The nested build takes every action the loop does not change (most of the
# two images, the generator) from the outer build's disk cache.
set -uo pipefail
source toolchain/tests/nested_bazel.sh

scratch=$TEST_TMPDIR/scratch
scratch_copy "$scratch"
python3 - "$scratch/net/netif/netif.h" <<'PY'
import sys
path = sys.argv[1]
s = open(path).read()
anchor = "          ++stats_.rx_frames;\n"
assert s.count(anchor) == 1, "the receive path's anchor moved: update gate_fails_test.sh"
s = s.replace(anchor, anchor + "          for (int spin = 0; spin < 300; ++spin) asm volatile(\"\");  // gate_fails_test\n")
open(path, "w").write(s)
PY

mapfile -t repos < <(reuse_repository_flags)
deb_cache=$(_deb_cache)
# The launchers find their image through TEST_SRCDIR when it is set: the
# nested run must see its own runfiles, not this test's.
(cd "$scratch" && env -u TEST_TMPDIR -u TEST_SRCDIR -u RUNFILES_DIR \
  bazel --batch --output_base="$TEST_TMPDIR/gate" run --color=no --curses=no --noshow_progress \
  --repo_env=STARLING_DEB_CACHE="$deb_cache" --disk_cache="$(outer_disk_cache)" "${repos[@]}" \
  //bench/cost:cost_gate_qemu) \
  >"$TEST_TMPDIR/gate.out" 2>"$TEST_TMPDIR/gate.log"
rc=$?
cat "$TEST_TMPDIR/gate.out"
fail=0
if [[ $rc -eq 0 ]]; then
  echo "FAIL: the gate passed a receive path with a deliberately expensive loop"
  fail=1
elif ! grep -q "^cost: bench" "$TEST_TMPDIR/gate.out"; then
  echo "FAIL: the nested run did not get to the gate (exit $rc); its log:"
  tail -30 "$TEST_TMPDIR/gate.log"
  exit 1
fi
for want in 'udp_echo.busy_instructions_per_packet .* OVER' \
  'FAIL: .* over budget or without one: .*udp_echo.busy_instructions_per_packet' \
  'bazel run //bench/cost:update_budgets'; do
  if grep -Eq -- "$want" "$TEST_TMPDIR/gate.out"; then
    echo "ok   the gate said: $(grep -Eo -- "$want" "$TEST_TMPDIR/gate.out" | head -1)"
  else
    echo "FAIL: the gate's output lacks /$want/"
    fail=1
  fi
done
exit $fail
