#!/usr/bin/env python3
"""The C++ in docs/ is code that compiles: every ```cpp block in a Markdown
file under docs/ (and any other fenced block that has one) stands right
under a marker naming where it comes from,

    <!-- snippet: apps/guide/udp_shout/main.cc -->           (the whole file)
    <!-- snippet: drivers/virtio/net.h#ring-operations -->  (a region)

and must equal that file, or the lines between `snippet-begin: NAME` and
`snippet-end: NAME` in it (the marker lines left out, the common indent
removed). The files are built and tested like any other code, so the guide
cannot show an API that no longer exists.

    doc_snippets.py [--root DIR]            check; exit 1 naming each mismatch
    doc_snippets.py [--root DIR] --write    copy the sources into the docs
"""
import argparse
import os
import re
import subprocess
import sys
import textwrap

MARKER = re.compile(r"^<!-- snippet: ([^#\s]+)(?:#([\w-]+))? -->$")


def source_text(root, path, name):
    """The snippet's text, or raises ValueError saying what is missing."""
    full = os.path.join(root, path)
    if not os.path.isfile(full):
        raise ValueError(f"{path} does not exist")
    with open(full, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if name is None:
        return lines
    begin = [i for i, l in enumerate(lines) if l.strip().endswith(f"snippet-begin: {name}")]
    end = [i for i, l in enumerate(lines) if l.strip().endswith(f"snippet-end: {name}")]
    if len(begin) != 1 or len(end) != 1 or end[0] <= begin[0]:
        raise ValueError(f"{path} has no single 'snippet-begin: {name}' ... "
                         f"'snippet-end: {name}' region")
    return textwrap.dedent("\n".join(lines[begin[0] + 1:end[0]])).splitlines()


def blocks(lines):
    """(marker index or None, first code line, end fence line) for each
    ```cpp block and each fenced block of any language under a marker."""
    i = 0
    while i < len(lines):
        fence = lines[i].strip()
        if fence.startswith("```") and len(fence) > 3:
            j = i + 1
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            k = i - 1
            while k >= 0 and not lines[k].strip():
                k -= 1
            marker = k if k >= 0 and MARKER.match(lines[k].strip()) else None
            if fence == "```cpp" or marker is not None:
                yield marker, i + 1, j
            i = j
        i += 1


def check_doc(root, doc, write):
    """Problems in one document (strings) and how many blocks it checked;
    rewrites it with --write."""
    with open(os.path.join(root, doc), encoding="utf-8") as f:
        lines = f.read().split("\n")
    problems = []
    out, last, checked = [], 0, 0
    for marker, first, end in blocks(lines):
        checked += 1
        out.extend(lines[last:first])
        last = end
        shown = lines[first:end]
        if marker is None:
            problems.append(f"{doc}:{first}: a ```cpp block without a '<!-- snippet: PATH -->' "
                            "line above it: put the code in a file that is built and name it")
            out.extend(shown)
            continue
        path, name = MARKER.match(lines[marker].strip()).groups()
        try:
            want = source_text(root, path, name)
        except ValueError as e:
            problems.append(f"{doc}:{marker + 1}: {e}")
            out.extend(shown)
            continue
        if shown != want:
            where = path + (f"#{name}" if name else "")
            problems.append(f"{doc}:{first}: the block differs from {where}: run "
                            "`python3 test/lint/doc_snippets.py --write` to copy it in")
        out.extend(want if write else shown)
    out.extend(lines[last:])
    if write and out != lines:
        with open(os.path.join(root, doc), "w", encoding="utf-8") as f:
            f.write("\n".join(out))
    return problems, checked


def docs(root):
    listed = subprocess.run(["git", "-C", root, "ls-files", "docs"], capture_output=True,
                            text=True)
    if listed.returncode == 0 and listed.stdout.strip():
        return [p for p in listed.stdout.split() if p.endswith(".md")]
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, fs in os.walk(os.path.join(root, "docs")) for f in fs
                  if f.endswith(".md"))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    problems, checked = [], 0
    for doc in docs(root):
        found, count = check_doc(root, doc, args.write)
        problems += found
        checked += count
    for p in problems:
        print(p)
    print(f"{checked} code blocks checked in docs/, {len(problems)} problems"
          + (" (written)" if args.write else ""))
    return 1 if problems and not args.write else 0


if __name__ == "__main__":
    sys.exit(main())
