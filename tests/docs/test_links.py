"""Every relative link of the repository's Markdown documents resolves.

For each tracked *.md file (README.md, docs/*.md, jobs/README.md, analysis/README.md, ...), every
inline link [text](TARGET) outside code (fenced blocks and `spans`) whose TARGET is not a URL
names a file or directory of the repository, relative to the document, and its #anchor, if any,
is a heading of the target (GitHub's anchors: lower case, punctuation but - and _ dropped,
spaces as -, a repeated heading suffixed -1, -2, ...); a bare #anchor is one of the document's
own headings.

Files: `git ls-files` of the repository (the tree without build*/ and results/ outside a git
checkout). Prints one "ok - " or "FAIL - " line per check, then "N passed, M failed".

Usage: /usr/bin/python3 test_links.py REPO_ROOT
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

ROOT = os.path.abspath(sys.argv[1])
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
URL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def markdown_files():
    """Paths relative to ROOT of the *.md files: git's tracked files, or the tree outside git."""
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "*.md"], capture_output=True, check=True).stdout
        return sorted(p for p in out.decode().split("\0") if p)
    except (OSError, subprocess.CalledProcessError):
        files = []
        for top, dirs, names in os.walk(ROOT):
            dirs[:] = [d for d in dirs if d != ".git" and not d.startswith("build") and d != "results"]
            files += [os.path.relpath(os.path.join(top, n), ROOT) for n in names if n.endswith(".md")]
        return sorted(files)


def prose_lines(text):
    """(line number, line) of the text outside fenced code blocks, inline code spans blanked."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield number, re.sub(r"`[^`]*`", "``", line)


def anchors(text):
    """The anchors GitHub gives the headings of a Markdown text."""
    seen = {}
    for _, line in prose_lines(text.replace("`", "")):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        yield slug if count == 0 else f"{slug}-{count}"


texts = {}
for path in markdown_files():
    with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
        texts[path] = f.read()
check("README.md" in texts and "docs/cli.md" in texts, f"the documents are found ({len(texts)} Markdown files)")

broken, links = [], 0
for path, text in texts.items():
    for number, line in prose_lines(text):
        for target in LINK.findall(line):
            if URL.match(target):
                continue
            links += 1
            file_part, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            where = f"{path}:{number}: ({target})"
            if resolved.startswith("..") or not os.path.exists(os.path.join(ROOT, resolved)):
                broken.append(f"{where}: no file {resolved}")
            elif anchor and resolved.endswith(".md"):
                if resolved not in texts:
                    with open(os.path.join(ROOT, resolved), encoding="utf-8", errors="replace") as f:
                        texts[resolved] = f.read()
                if anchor not in set(anchors(texts[resolved])):
                    broken.append(f"{where}: no heading #{anchor} in {resolved}")
check(
    not broken and links > 0,
    f"every relative link of the Markdown documents resolves, file and heading ({links} links)",
    "\n".join(broken),
)

finish()
