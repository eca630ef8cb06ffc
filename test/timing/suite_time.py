#!/usr/bin/env python3
"""Where a `bazel test //...` run's time went, from Bazel's own records.

Reads the JSON trace profile (--profile, with
--experimental_profile_include_primary_output so each action names what it
built) and the build event protocol file (--build_event_json_file: each test's
own time, its tags and whether it was cached), both written by
`--config=timing` (.bazelrc), and prints Markdown tables:

  1. the run's phases in wall-clock seconds: Bazel's launch, the repository
     rules (each pinned package fetched and extracted), loading and analysis,
     execution (the build and the tests, interleaved on the cores), the
     exclusive tests' serial tail, and the total (with setup.sh's time when
     --setup-seconds is given);
  2. the build by kind: actions and the seconds they held a core, for each
     configuration (riscv64 images per board, compilation mode and compiler;
     the host's tests, tools and fuzzers) and each kind of action;
  3. every test's own time, slowest first, marked when it runs a nested Bazel
     (tag "nested_bazel") or runs alone (tag "exclusive").

  python3 test/timing/suite_time.py [--profile FILE] [--bep FILE]
      [--setup-seconds N] [--top N]

Defaults: the files --config=timing writes (bazel-timing-* in the workspace).
test/timing/cold_run.sh makes a cold run from a fresh clone and calls this.
"""

import argparse
import bisect
import collections
import json
import os
import re
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def default_path(name):
    """A file of .timing/ in the workspace (this script's checkout)."""
    workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY") or os.path.dirname(os.path.dirname(HERE))
    return os.path.join(workspace, "bazel-timing-" + name)


def load_profile(path):
    """The trace events of a JSON profile (gzipped or not).

    A profile cut short (Bazel killed mid-run) lacks its closing brackets:
    the events written so far are still read, one per line."""
    if path.endswith(".gz"):
        # zlib with a gzip header: reads what was written of a stream cut short.
        with open(path, "rb") as f:
            text = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(f.read()).decode("utf-8", "replace")
    else:
        with open(path) as f:
            text = f.read()
    try:
        return json.loads(text)["traceEvents"]
    except (ValueError, KeyError):
        events = []
        for line in text.splitlines():
            line = line.strip().rstrip(",")
            if line.startswith("{") and line.endswith("}"):
                try:
                    events.append(json.loads(line))
                except ValueError:
                    pass
        return events


def load_bep(path):
    """The build event protocol's events, one JSON object per line."""
    events = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                events.append(json.loads(line))
    return events


def seconds(us):
    return us / 1e6


def union_seconds(spans):
    """Wall-clock seconds covered by (start, end) spans in microseconds."""
    total = 0
    end = None
    for s, e in sorted(spans):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return seconds(total)


# ---------------------------------------------------------------------------
# Phases


def phases(events):
    """Wall-clock seconds of each phase, from the profile's phase markers."""
    marks = {}
    launch = 0
    end = 0
    for e in events:
        if "ts" in e:
            end = max(end, e["ts"] + e.get("dur", 0))
        if e.get("cat") != "build phase marker":
            continue
        if e["name"] == "Launch Blaze":
            launch = e.get("dur", 0)
        else:
            marks.setdefault(e["name"], e["ts"])
    analysis_start = marks.get("Load and analyze dependencies", marks.get("Evaluate target patterns", 0))
    execution_start = marks.get("Prepare for build", marks.get("Build artifacts", analysis_start))
    execution_end = marks.get("Complete build", end)
    repos = [(e["ts"], e["ts"] + e["dur"], e["name"]) for e in events
             if e.get("cat") == "Starlark repository function call" and e.get("name", "").startswith("//external:")]
    return {
        "launch": seconds(launch),
        "startup": seconds(analysis_start),
        "analysis": seconds(execution_start - analysis_start),
        "repositories": union_seconds([(s, e) for s, e, _ in repos]),
        "repository_list": sorted(((seconds(e - s), n[len("//external:"):]) for s, e, n in repos), reverse=True),
        "execution": seconds(execution_end - execution_start),
        "finish": seconds(max(0, end - execution_end)),
        "total": seconds(launch + end),
    }


# ---------------------------------------------------------------------------
# The build by kind

_CONFIG_RE = re.compile(r"bazel-out/([^/]+)/(bin|genfiles|testlogs)/(.*)")
_BOARDS = [("platform/qemu_virt/", "qemu_virt"), ("platform/star64/", "star64"), ("platform/host/", "host")]


def action_kind(name):
    """The kind of an action from its progress message ("Compiling x.cc")."""
    verb = name.split(" ", 1)[0]
    return {
        "Compiling": "compile",
        "Linking": "link",
        "Testing": "test",
    }.get(verb, "other")


def describe_config(config, paths):
    """A reader's name for an output directory, from what was built in it.

    Board transitions give directories like k8-fastbuild-ST-<hash>: the board
    is the board package found among their outputs; the compilation mode and
    a compiler or variant suffix are in the name itself."""
    transitioned = re.search(r"-ST-[0-9a-f]+$", config)
    base = config[:transitioned.start()] if transitioned else config
    m = re.match(r"k8-(fastbuild|opt|dbg)(?:-(.*))?$", base)
    mode = m.group(1) if m else "?"
    suffix = (m.group(2) or "") if m else base
    boards = sorted({board for prefix, board in _BOARDS for p in paths if p.startswith(prefix)})
    # The top configuration (no transition) packages the images of every
    # board: its board package outputs are image files, not compiles.
    riscv = [b for b in boards if b != "host"] if transitioned else []
    if riscv:
        what = "riscv64 " + "+".join(riscv)
    elif transitioned and any(p.startswith("fuzz/") for p in paths):
        what = "host fuzzers"
    elif not transitioned and m:
        what = "host tests and tools, image packaging"
    elif transitioned and (any(p.startswith("kernel/boot/") for p in paths) or
                           (suffix and "host" not in boards)):
        # The kernel, drivers and net every board shares
        # (platform/neutral_deps.bzl: riscv64-only boot code, no board), or a
        # compiler variant's libraries without a board (the seed's lwIP).
        what = "riscv64, no board package"
    else:
        what = "host"
    label = "%s, %s" % (what, mode)
    if suffix:
        label += ", " + suffix
    return label


def _resource_waits(events):
    """{thread: [(start, end)]} of the waits for a core ("action resource lock")."""
    waits = collections.defaultdict(list)
    for e in events:
        if e.get("cat") == "action resource lock" and "dur" in e:
            waits[e.get("tid")].append((e["ts"], e["ts"] + e["dur"]))
    for spans in waits.values():
        spans.sort()
    return waits


def _running_time(action, waits):
    """An action's time less its wait for a core, in the profile's microseconds.

    An action holds its thread from the moment it is ready; with --jobs above
    the number of cores (.bazelrc) most of a compile's time can be the wait
    for one, which Bazel's profile records as "action resource lock" on the
    action's thread."""
    start, end = action["ts"], action["ts"] + action["dur"]
    spans = waits.get(action.get("tid"), [])
    i = bisect.bisect_left(spans, (start, start))
    waited = 0
    while i < len(spans) and spans[i][0] < end:
        waited += min(end, spans[i][1]) - spans[i][0]
        i += 1
    return max(0, action["dur"] - waited)


def build_by_kind(events):
    """{config label: {kind: [count, core-seconds]}} over every action."""
    per_config = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0.0]))
    config_paths = collections.defaultdict(set)
    waits = _resource_waits(events)
    rows = []
    for e in events:
        if e.get("cat") != "action processing" or "dur" not in e:
            continue
        output = (e.get("args") or {}).get("primaryOutput", "") or e.get("out", "")
        m = _CONFIG_RE.search(output)
        config = m.group(1) if m else "(no output directory)"
        if m:
            config_paths[config].add(m.group(3))
        rows.append((config, action_kind(e["name"]), seconds(_running_time(e, waits))))
    labels = {c: describe_config(c, paths) for c, paths in config_paths.items()}
    for config, kind, dur in rows:
        label = labels.get(config, config)
        if label != config and config != "(no output directory)":
            label = "%s [%s]" % (label, config)
        cell = per_config[label][kind]
        cell[0] += 1
        cell[1] += dur
    return per_config


# ---------------------------------------------------------------------------
# Tests


def tests(bep):
    """[(label, seconds, status, cached, tags)] from the build event protocol."""
    tags = {}
    for e in bep:
        tc = e.get("id", {}).get("targetConfigured")
        if tc and "configured" in e:
            tags[tc["label"]] = e["configured"].get("tag", [])
    out = {}
    for e in bep:
        tr = e.get("id", {}).get("testResult")
        if not tr or "testResult" not in e:
            continue
        r = e["testResult"]
        ms = int(r.get("testAttemptDurationMillis", 0))
        label = tr["label"]
        prev = out.get(label)
        cached = bool(r.get("cachedLocally") or r.get("executionInfo", {}).get("cachedRemotely"))
        secs = ms / 1000.0 + (prev[1] if prev else 0)
        out[label] = (label, secs, r.get("status", "?"), cached, tags.get(label, []))
    return sorted(out.values(), key=lambda t: -t[1])


# ---------------------------------------------------------------------------
# Output


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(lines)


def report(profile_events, bep_events, setup_seconds=None, top=None):
    ph = phases(profile_events)
    test_rows = tests(bep_events) if bep_events is not None else []
    exclusive = sum(t[1] for t in test_rows if "exclusive" in t[4] and not t[3])
    nested = sum(t[1] for t in test_rows if "nested_bazel" in t[4] and not t[3])
    out = []
    rows = []
    if setup_seconds is not None:
        rows.append(("setup.sh", "%.0f" % setup_seconds))
    rows += [
        ("Bazel's launch and command start", "%.0f" % ph["startup"] if ph["startup"] else "%.0f" % ph["launch"]),
        ("loading and analysis", "%.0f" % ph["analysis"]),
        ("... of which repository rules (wall, overlapping)", "%.0f" % ph["repositories"]),
        ("execution: the build and the tests", "%.0f" % ph["execution"]),
        ("... of which exclusive tests, one at a time (sum)", "%.0f" % exclusive),
        ("... of which tests running a nested Bazel (sum)", "%.0f" % nested),
        ("after execution", "%.0f" % ph["finish"]),
        ("Bazel in all", "%.0f" % ph["total"]),
    ]
    if setup_seconds is not None:
        rows.append(("**setup.sh and Bazel**", "**%.0f** (%.1f min)" % (setup_seconds + ph["total"], (setup_seconds + ph["total"]) / 60)))
    out.append("### Phases (wall-clock seconds)\n")
    out.append(table(["phase", "seconds"], rows))
    if ph["repository_list"]:
        out.append("\n### Repository rules (seconds each)\n")
        out.append(table(["repository", "seconds"], [(n, "%.1f" % s) for s, n in ph["repository_list"]]))
    by_kind = build_by_kind(profile_events)
    if by_kind:
        out.append("\n### The build by configuration (actions; seconds each held a core, waits for one left out)\n")
        rows = []
        grand = [0, 0.0]
        for label, kinds in sorted(by_kind.items(), key=lambda kv: -sum(c[1] for c in kv[1].values())):
            total = [sum(c[0] for c in kinds.values()), sum(c[1] for c in kinds.values())]
            grand[0] += total[0]
            grand[1] += total[1]
            cells = []
            for kind in ("compile", "link", "test", "other"):
                c = kinds.get(kind)
                cells.append("%d; %.0f" % (c[0], c[1]) if c else "")
            rows.append([label] + cells + ["%d; %.0f" % (total[0], total[1])])
        rows.append(["**all**", "", "", "", "", "**%d; %.0f**" % (grand[0], grand[1])])
        out.append(table(["configuration", "compile", "link", "test", "other", "all"], rows))
    if test_rows:
        shown = test_rows[:top] if top else test_rows
        out.append("\n### Tests, slowest first (seconds; %d tests, %d cached)\n" % (
            len(test_rows), sum(1 for t in test_rows if t[3])))
        rows = []
        for label, secs, status, cached, tags in shown:
            notes = [n for n in ("exclusive", "nested_bazel") if n in tags]
            if cached:
                notes.append("cached")
            rows.append((label, "%.1f" % secs, status, ", ".join(notes)))
        out.append(table(["test", "seconds", "status", "notes"], rows))
    return "\n".join(out) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--profile", default=default_path("profile.json.gz"), help="Bazel's --profile output")
    p.add_argument("--bep", default=default_path("bep.json"), help="Bazel's --build_event_json_file output")
    p.add_argument("--setup-seconds", type=float, help="setup.sh's time, for the total")
    p.add_argument("--top", type=int, help="show only the N slowest tests")
    args = p.parse_args(argv)
    if not os.path.exists(args.profile):
        sys.exit("suite_time: no profile at %s. Make one with: bazel test //... --config=timing "
                 "(or pass --profile FILE)" % args.profile)
    bep = None
    if os.path.exists(args.bep):
        bep = load_bep(args.bep)
    else:
        print("suite_time: no build event file at %s: tests not shown" % args.bep, file=sys.stderr)
    sys.stdout.write(report(load_profile(args.profile), bep, args.setup_seconds, args.top))


if __name__ == "__main__":
    main()
