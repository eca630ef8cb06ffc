#!/usr/bin/python3
"""Checks the build graph against Starling's layers (docs/architecture.md).

Input: the edges of `bazel query 'deps(//...)' --output=graph
--nograph:factored`, the kinds of `//...` (`--output=label_kind`) and the
testonly targets (`attr(testonly, 1, //...) + tests(//...)`, labels).
Prints one line per edge that breaks a rule, naming both ends and the rule,
and exits 1 if there is any.

The rules, by the top-level folder a target's package is in:
  kernel   may use kernel
  drivers  may use kernel, drivers
  net      may use kernel, net            (the NIC interface, never a driver)
  platform may use kernel, drivers, net, platform   (boards bind drivers)
  apps     may use kernel, net, platform, apps       (never a driver directly)
  test, fuzz, bench, toolchain/tests, toolchain/compare: consumers, may use
           anything (toolchain/compare builds the apps to report on them)
  toolchain, the root package: toolchain and the root package only
  docs     the documentation's pages, files only (a test reads the page it
           checks the code against)
Everyone may use the toolchain, the root package (WORKSPACE), the docs and the
configuration targets (and every test the toolchain's test support and
the Python tests' //test/lib) (platforms, constraints, config_settings: `//platform`'s
board and CPU settings are what select() reads, not code).
And: a target outside the consumers that is not testonly never depends on a
testonly one or on anything under //test (production never depends on test
code).
"""

import re
import sys

ALLOWED = {
    "kernel": {"kernel"},
    "drivers": {"kernel", "drivers"},
    "net": {"kernel", "net"},
    "platform": {"kernel", "drivers", "net", "platform"},
    "apps": {"kernel", "net", "platform", "apps"},
    "toolchain": {"toolchain", "root"},
    "root": {"toolchain", "root"},
    "docs": {"docs"},
}
CONSUMERS = {"test", "fuzz", "bench", "toolchain/tests", "toolchain/compare"}
UNIVERSAL = {"toolchain", "root", "docs"}
CONFIGURATION_KINDS = {
    "constraint_setting",
    "constraint_value",
    "platform",
    "config_setting",
    "toolchain",
    "toolchain_type",
}

EDGE = re.compile(r'^\s*"([^"]+)"\s*->\s*"([^"]+)"')
KIND = re.compile(r"^(\S+) rule (//\S+)$")


def layer(label):
    """The layer of a label in the main repository, or None for external ones."""
    if not label.startswith("//"):
        return None
    package = label[2:].split(":", 1)[0]
    for consumer in ("toolchain/tests", "toolchain/compare"):
        if package == consumer or package.startswith(consumer + "/"):
            return consumer
    top = package.split("/", 1)[0]
    return top if top else "root"


def violations(edges, kinds, testonly):
    """The broken rules, as sorted lines."""
    found = set()
    for source, target in edges:
        from_layer, to_layer = layer(source), layer(target)
        if from_layer is None or to_layer is None:
            continue
        if source not in kinds:  # a file, not a rule: no dependencies of its own
            continue
        if from_layer not in CONSUMERS:
            exempt = (
                to_layer in UNIVERSAL
                or kinds.get(target) in CONFIGURATION_KINDS
                # Test support every layer's tests may use (nested_bazel.sh,
                # the Python tests' //test/lib).
                or (to_layer == "toolchain/tests" and source in testonly)
                or (target.startswith("//test/lib:") and source in testonly)
            )
            if not exempt and to_layer not in ALLOWED.get(from_layer, set()):
                found.add(
                    "%s -> %s: %s may not depend on %s (allowed: %s)"
                    % (
                        source,
                        target,
                        from_layer,
                        to_layer,
                        ", ".join(sorted(ALLOWED.get(from_layer, set()))) or "nothing",
                    )
                )
        production = from_layer not in CONSUMERS and source not in testonly
        if production and (target in testonly or to_layer == "test"):
            found.add(
                "%s -> %s: production code depends on test code (%s)"
                % (source, target, "testonly" if target in testonly else "under //test")
            )
    return sorted(found)


def read_edges(path):
    edges = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = EDGE.match(line)
            if m:
                edges.append((m.group(1), m.group(2)))
    return edges


def read_kinds(path):
    kinds = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = KIND.match(line.strip())
            if m:
                kinds[m.group(2)] = m.group(1)
    return kinds


def read_labels(path):
    with open(path, encoding="utf-8") as f:
        return {line.strip() for line in f if line.strip()}


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: layering.py GRAPH KINDS TESTONLY\n")
        return 2
    edges = read_edges(argv[1])
    kinds = read_kinds(argv[2])
    testonly = read_labels(argv[3])
    if not edges or not kinds:
        sys.stderr.write("layering: no edges or no kinds read: is the query output empty?\n")
        return 2
    broken = violations(edges, kinds, testonly)
    for line in broken:
        print("LAYERING: " + line)
    print(
        "layering: %d edges between %d rules checked, %d broken"
        % (sum(1 for s, t in edges if layer(s) and layer(t)), len(kinds), len(broken))
    )
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
