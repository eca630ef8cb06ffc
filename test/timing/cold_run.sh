#!/bin/bash
# A cold `./setup.sh && bazel test //...`, as a new contributor's first run:
# a fresh clone of this checkout's HEAD, a fresh Bazel output base, and (with
# --empty-caches) no deb cache and no disk cache either; then where the time
# went (test/timing/suite_time.py), and the time of a second, no-change run.
#
#   test/timing/cold_run.sh [--empty-caches] [--keep] [--dir DIR]
#
#   --empty-caches  move ~/.cache/starling (pinned .debs, Bazel's disk cache)
#                   aside for the run, as on a new machine, and put it back
#                   after (the run's own caches are then discarded).
#   --keep          keep the clone and its output base (default: removed).
#   --dir DIR       where to clone (default: a new folder under /tmp).
# Runs setup.sh itself (root, as the README's commands do). Prints Markdown;
# the Bazel logs stay in DIR/cold.log and DIR/rerun.log.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
empty=0 keep=0 dir=""
while (($#)); do
  case $1 in
    --empty-caches) empty=1 ;;
    --keep) keep=1 ;;
    --dir) dir=$2; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "cold_run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[[ $(id -u) -eq 0 ]] || { echo "cold_run.sh: run as root (setup.sh installs packages): sudo $0" >&2; exit 1; }
dir=${dir:-$(mktemp -d /tmp/starling-cold.XXXXXX)}
cache=$HOME/.cache/starling
aside=""
output_base=""
cleanup() {
  if [[ -n $aside ]]; then
    rm -rf "$cache"
    mv "$aside" "$cache"
  fi
  if ((!keep)); then
    (cd "$dir/checkout" 2>/dev/null && bazel shutdown >/dev/null 2>&1) || true
    chmod -R u+w "$dir" 2>/dev/null || true
    rm -rf "$dir"
    # Its output base too (gigabytes), once it is this run's own.
    if [[ -n $output_base ]]; then
      chmod -R u+w "$output_base" 2>/dev/null || true
      rm -rf "$output_base"
    fi
  fi
}
trap cleanup EXIT
if ((empty)) && [[ -e $cache ]]; then
  aside=$cache.aside.$$
  mv "$cache" "$aside"
fi

# The machine's speed, to compare runs on different days: one core's time for
# a fixed workload (3,000,000 chained sha256 rounds in python3). 58ee082's
# cold run took 570 s one day and 1,223 s another (docs/testing.md): without
# a figure like this the two days could not be told from a change in the suite.
calibrate() {
  local t0 t1
  t0=$(date +%s.%N)
  python3 -c 'import hashlib
h = b"starling"
for _ in range(3_000_000):
    h = hashlib.sha256(h).digest()'
  t1=$(date +%s.%N)
  python3 -c "print(f'{$t1 - $t0:.2f}')"
}
# Busy core-seconds from /proc/stat (user, nice, system, irq, softirq, steal).
busy_jiffies() {
  awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat
}
calibration=$(calibrate)

git clone -q "$src" "$dir/checkout"
cd "$dir/checkout"
# A fresh output base: Bazel's default is keyed by the workspace's path (the
# md5 of it under ~/.cache/bazel/_bazel_$USER). A path an earlier run used
# (--dir with --keep, then the folder deleted) still has that run's output
# base, and the "cold" run would reuse its action cache: one such run read
# 10 min 56 s with 113 tests cached (docs/testing.md).
candidate=$HOME/.cache/bazel/_bazel_$(id -un)/$(printf %s "$PWD" | md5sum | cut -d' ' -f1)
if [[ -e $candidate ]]; then
  echo "cold_run.sh: $PWD already has an output base from an earlier run ($candidate):" \
    "this run would not be cold. Fix: rm -rf $candidate (after 'bazel shutdown' in that" \
    "checkout), or choose another --dir" >&2
  exit 1
fi
output_base=$candidate
start=$(date +%s)
./setup.sh >"$dir/setup.log" 2>&1 || { cat "$dir/setup.log"; exit 1; }
setup=$(( $(date +%s) - start ))
start=$(date +%s)
busy0=$(busy_jiffies)
status=0
bazel test //... --config=timing >"$dir/cold.log" 2>&1 || status=$?
cold=$(( $(date +%s) - start ))
busy=$(( ($(busy_jiffies) - busy0) / $(getconf CLK_TCK) ))
cp bazel-timing-profile.json.gz bazel-timing-bep.json "$dir/"
start=$(date +%s)
rerun_status=0
bazel test //... >"$dir/rerun.log" 2>&1 || rerun_status=$?
rerun=$(( $(date +%s) - start ))

echo "## A cold run ($(date -u +%F), $(nproc) cores, $(git rev-parse --short HEAD)$( ((empty)) && echo ', empty caches'))"
echo
echo "setup.sh ${setup} s; bazel test //... ${cold} s (exit ${status}); together $(( (setup + cold) / 60 )) min $(( (setup + cold) % 60 )) s."
echo "The machine: ${calibration} s for the calibration workload (one core); the cold bazel test kept the cores busy ${busy} core-seconds of $(( cold * $(nproc) ))."
echo "A second, no-change bazel test //...: ${rerun} s (exit ${rerun_status}), $(grep -cE '^//[^ ]+ +\(cached\) PASSED' "$dir/rerun.log") tests cached of $(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$dir/rerun.log") passed."
echo
python3 "$here/suite_time.py" --profile "$dir/bazel-timing-profile.json.gz" --bep "$dir/bazel-timing-bep.json" \
  --setup-seconds "$setup"
exit $status
