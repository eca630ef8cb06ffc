#!/usr/bin/env python3
"""The boards share one build of everything below their board packages.

    neutral_objects_test.py FILE...

The FILEs are board_objects targets' outputs (objects.bzl), named
<app>_<board>_objects; of them only the manifests (.objects) are read: the
exec-root path of every object compiled for one application's image on one
board, bazel-out/<configuration>/bin/<package>/_objs/... . The kernel,
drivers and net select nothing on the board (platform/neutral_deps.bzl), so
each of their objects must come from one configuration that is the same for
every board, and none of them from a board's own; the board packages'
objects (platform/...) must come from each board's own configuration. Fails
naming the objects built twice, or in the wrong place.
"""

import re
import sys

OBJECT = re.compile(r"^bazel-out/([^/]+)/bin/(.+?)/_objs/")
# Packages whose code knows its board (neutral_deps.bzl's BOARD_SPECIFIC_PREFIXES,
# and the applications' own sources, compiled with their board's NIC type).
BOARD_SPECIFIC = ("platform", "apps", "test", "bench")


def read_lines(lines):
    """(configuration, package, path) of each object path among lines."""
    objects = []
    for line in lines:
        m = OBJECT.match(line.strip())
        if m:
            objects.append((m.group(1), m.group(2), line.strip()))
    return objects


def read(path):
    with open(path) as f:
        return read_lines(f)


def check(manifests):
    """Failure lines for {board: [(configuration, package, path)]}."""
    failures = []
    neutral_configs = {}
    board_configs = {}
    for board, objects in manifests.items():
        neutral = [o for o in objects if not o[1].startswith(BOARD_SPECIFIC)]
        specific = [o for o in objects if o[1].startswith(BOARD_SPECIFIC)]
        if len(neutral) < 20:
            failures.append(f"{board}: only {len(neutral)} objects from the kernel, drivers and net "
                            "(is the manifest an image's?)")
        if not specific:
            failures.append(f"{board}: no objects from its board package")
        for config, _, path in neutral:
            neutral_configs.setdefault(config, []).append((board, path))
        board_configs[board] = {c for c, _, _ in specific}
    if len(neutral_configs) > 1:
        failures.append("the kernel, drivers and net are built in %d configurations, want one:" % len(neutral_configs))
        for config, where in sorted(neutral_configs.items()):
            boards = sorted({b for b, _ in where})
            failures.append(f"  {config}: {len(where)} objects for {', '.join(boards)}, e.g. {where[0][1]}")
    for board, configs in board_configs.items():
        shared = configs & set(neutral_configs)
        if shared:
            failures.append(f"{board}: its board package is built in the neutral configuration {sorted(shared)}")
    boards = list(board_configs)
    for i, a in enumerate(boards):
        for b in boards[i + 1:]:
            if board_configs[a] & board_configs[b]:
                failures.append(f"{a} and {b} build their board packages in the same configuration "
                                f"{sorted(board_configs[a] & board_configs[b])}")
    return failures


def main(argv):
    manifests = {}
    for path in argv:
        name = path.rsplit("/", 1)[-1]
        if name.endswith("_objects.objects"):
            manifests[name[: -len("_objects.objects")]] = read(path)
    if len(manifests) < 2:
        print(f"FAIL: want the manifests of two or more boards' images, got {sorted(manifests) or 'none'}")
        return 2
    failures = check(manifests)
    for board, objects in manifests.items():
        neutral = sum(1 for o in objects if not o[1].startswith(BOARD_SPECIFIC))
        print(f"{board}: {len(objects)} objects, {neutral} of them board-neutral")
    if failures:
        print("FAIL: " + "\nFAIL: ".join(failures))
        return 1
    print("ok: every board-neutral object is built once, in one configuration, for every board")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
