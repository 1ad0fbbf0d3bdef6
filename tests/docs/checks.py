"""The check lines of the docs tests: one "ok - DESC" or "FAIL - DESC" line per check (details
of a failure on lines starting with "#   "), then "N passed, M failed" and the exit code.

    from checks import check, finish
    check(ok, "what holds", "detail shown on failure")
    finish()  # exits 1 when a check failed
"""
import sys

_counts = {"passed": 0, "failed": 0}


def check(ok, desc, detail=""):
    """Prints the check's line; counts it."""
    if ok:
        _counts["passed"] += 1
        print("ok - " + desc)
    else:
        _counts["failed"] += 1
        print("FAIL - " + desc)
        for line in detail.splitlines():
            print("#   " + line)


def finish():
    """Prints "N passed, M failed" and exits: 1 when a check failed, else 0."""
    print(f"{_counts['passed']} passed, {_counts['failed']} failed")
    sys.exit(1 if _counts["failed"] else 0)
