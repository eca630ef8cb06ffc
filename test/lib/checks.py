"""One way for the Python tests to check and report.

    import checks
    checks.check("the page parses", ok, detail)   # "ok   ..." or "FAIL ...: detail"
    checks.check_equal("entries", got, want)       # "FAIL entries: got 3, want 4"
    sys.exit(checks.finish())                      # 1 if anything failed

Every check prints one line, flushed, and a failed one is remembered in
`failures` (its `what`); finish() prints how many failed.
"""
import sys

failures = []


def check(what, ok, detail=""):
    """Prints `what` as passed or failed (with `detail`); returns `ok`."""
    print(("ok   " if ok else "FAIL ") + what + (": %s" % detail if detail != "" else ""),
          flush=True)
    if not ok:
        failures.append(what)
    return bool(ok)


def check_equal(what, got, want):
    """check() that `got` == `want`, showing both when they differ."""
    if got == want:
        return check(what, True, repr(got))
    return check(what, False, "got %r, want %r" % (got, want))


def finish():
    """The exit status: 0 if every check passed, else 1 (with a summary)."""
    if failures:
        print("%d check(s) failed: %s" % (len(failures), ", ".join(failures)), file=sys.stderr)
        return 1
    return 0
