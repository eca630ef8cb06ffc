"""test/lib/checks.py reports and counts as it says."""
import contextlib
import io
import sys

import checks

out = io.StringIO()
with contextlib.redirect_stdout(out):
    assert checks.check("passes", True) is True
    assert checks.check("fails", False, "why") is False
    assert checks.check_equal("equal", 3, 3) is True
    assert checks.check_equal("differs", 3, 4) is False
lines = out.getvalue().splitlines()
expected = ["ok   passes", "FAIL fails: why", "ok   equal: 3", "FAIL differs: got 3, want 4"]
if lines != expected or checks.failures != ["fails", "differs"]:
    print("FAIL checks.py printed %r, remembered %r" % (lines, checks.failures))
    sys.exit(1)
err = io.StringIO()
with contextlib.redirect_stderr(err):
    status = checks.finish()
if status != 1 or "2 check(s) failed" not in err.getvalue():
    print("FAIL finish() gave %r: %r" % (status, err.getvalue()))
    sys.exit(1)
print("ok   checks.py: lines, failures and the exit status")
