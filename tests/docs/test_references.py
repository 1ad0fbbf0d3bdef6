"""The works nqc cites are cited through docs/REFERENCES.md, never through files outside the
repository.

1. No tracked file but docs/REFERENCES.md and those under tests/ names a source document by its file name in the
   project's notes (000_*, 001_*, ... or 000_0123456789abcdef), a path into them (../shared,
   shared/seeds, shared/data, ...), their seeds/ directory, or paper-facts.md. No file is
   exempt.
2. Every citation key in brackets ([Grigoryan], [Minton92], ...) in any tracked file is
   defined in docs/REFERENCES.md, and every key defined there is cited somewhere.

Files: `git ls-files` of the repository (the tree without build*/ and results/ outside a
git checkout). Prints one "ok - " or "FAIL - " line per check, then "N passed, M failed".

Usage: /usr/bin/python3 test_references.py REPO_ROOT
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

ROOT = os.path.abspath(sys.argv[1])
REFERENCES = "docs/REFERENCES.md"

# A reference to a document outside the repository (not a number like 100_000_000, not the
# fuzz targets' tests/fuzz/seeds/).
OUTSIDE = re.compile(
    r"(?<![\w/])\d{3}_(\*|[0-9a-f]{16})"
    r"|\.\./shared|\bshared/(seeds|data|cases|paper-facts|DESIGN|STYLE|slurm-local)"
    r"|(?<![\w/.-])seeds/|paper-facts"
)
# What looks like a citation key: a capital, then letters with at least one lower-case one,
# then optional digits and -suffix ([Grigoryan], [Minton92], [CSPLib079]); not an index
# (list[Path]), a link ([text](url)) nor a placeholder in capitals ([DIAGS]). Keys in capitals
# ([OEIS-A000170]) count as cited where they appear, but a misspelt one goes unnoticed.
KEY = re.compile(r"(?<![\w.\[\]])\[([A-Z][A-Za-z]*[a-z][A-Za-z]*\d{0,3}(?:-[A-Za-z0-9]+)?)\](?![(:])")
DEFINED = re.compile(r"^\*\*\[([^\]]+)\]\*\*", re.M)
SKIP_EXT = (".h5", ".gz", ".png", ".pdf", ".svg", ".bin", ".npy")


def tracked_files():
    """Paths relative to ROOT: git's tracked files, or the tree outside a git checkout."""
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True, check=True).stdout
        return [p for p in out.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for top, dirs, names in os.walk(ROOT):
            dirs[:] = [d for d in dirs if d != ".git" and not d.startswith("build") and d != "results"]
            files += [os.path.relpath(os.path.join(top, n), ROOT) for n in names]
        return files


def text_of(path):
    """The file's text, or None for a binary or unreadable file."""
    if path.endswith(SKIP_EXT) or "/fuzz/failed/" in path or "/fuzz/seeds/" in path:
        return None
    try:
        data = open(os.path.join(ROOT, path), "rb").read()
    except OSError:
        return None
    return None if b"\0" in data else data.decode("utf-8", errors="replace")


texts = {p: t for p in tracked_files() if (t := text_of(p)) is not None}
check(REFERENCES in texts, f"{REFERENCES} exists")

outside = []
for path, text in sorted(texts.items()):
    if path == REFERENCES or path.startswith("tests/"):
        continue
    for number, line in enumerate(text.splitlines(), 1):
        if OUTSIDE.search(line):
            outside.append(f"{path}:{number}: {line.strip()[:160]}")
check(
    not outside,
    f"no file but {REFERENCES} and tests/ cites a document outside the repository "
    f"({len(outside)} lines; cite a key of {REFERENCES} instead)",
    "\n".join(outside),
)

defined = DEFINED.findall(texts.get(REFERENCES, ""))
check(len(defined) == len(set(defined)), f"each key is defined once in {REFERENCES}")
cited = {}
for path, text in texts.items():
    if path == REFERENCES:
        continue
    for number, line in enumerate(text.splitlines(), 1):
        for key in set(KEY.findall(line)) | {k for k in defined if f"[{k}]" in line}:
            cited.setdefault(key, []).append(f"{path}:{number}")
unknown = sorted(k for k in cited if k not in defined)
check(
    not unknown,
    f"every cited key is defined in {REFERENCES} ({len(cited)} keys cited)",
    "\n".join(f"[{k}]: {', '.join(cited[k][:5])}" for k in unknown),
)
uncited = [k for k in defined if k not in cited]
check(
    not uncited,
    f"every key of {REFERENCES} is cited somewhere ({len(defined)} defined)",
    "uncited: " + ", ".join(uncited),
)

finish()
