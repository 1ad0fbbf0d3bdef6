"""The config example of docs/configs.md and the defaults the documents name follow the config table.

The config table in nqc (src/experiment/config.cpp) declares every key's default; the committed
JSON Schema (configs/nqc-config.schema.json, generated from the table and tested equal to it)
carries them as "default". docs/configs.md shows configs/demo.json "with its defaults written
out", and the documents (README.md, docs/*.md) name defaults in their prose; this test holds
both to the schema, so that a default changed in the table fails here until the documents follow:

1. docs/configs.md's first ```json block after "defaults written out" has every key of
   configs/demo.json (but "description") with demo.json's value, and every other key with the
   schema's default.
2. Each "`KEY` (VALUE" in README.md or docs/*.md, for a top-level key with a default, names that
   default (100,000 read as 100000).

Prints one "ok - " or "FAIL - " line per check, then "N passed, M failed".

Usage: /usr/bin/python3 test_config_docs.py REPO_ROOT
"""
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

ROOT = os.path.abspath(sys.argv[1])


CONFIGS_DOC = "docs/configs.md"
with open(os.path.join(ROOT, CONFIGS_DOC), encoding="utf-8") as f:
    configs_doc = f.read()
documents = {}
for path in [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))):
    with open(path, encoding="utf-8") as f:
        documents[os.path.relpath(path, ROOT)] = f.read()
with open(os.path.join(ROOT, "configs/nqc-config.schema.json"), encoding="utf-8") as f:
    schema = json.load(f)
with open(os.path.join(ROOT, "configs/demo.json"), encoding="utf-8") as f:
    demo = json.load(f)
defaults = {key: spec["default"] for key, spec in schema["properties"].items() if "default" in spec}
check(
    {"seed", "engine", "k", "time_limit_s", "max_nodes", "shard_seconds", "shard_cases"} <= defaults.keys(),
    f"the schema declares the defaults of the top-level keys ({', '.join(sorted(defaults))})",
)

# 1. The example block.
at = re.search(r"defaults\s+written out", configs_doc)
block = re.search(r"```json\n(.*?)\n```", configs_doc[at.end() :], re.S) if at else None
check(block is not None, f"{CONFIGS_DOC}: the config example with its defaults written out is there")
if block:
    try:
        example = json.loads(block.group(1))
    except json.JSONDecodeError as e:
        example = None
        check(False, f"{CONFIGS_DOC}'s config example is valid JSON", str(e))
    if example is not None:
        expected = {k: v for k, v in demo.items() if k != "description"}
        for key in example:
            if key not in expected and key in defaults:
                expected[key] = defaults[key]
        check(
            example == expected,
            f"{CONFIGS_DOC}'s config example is configs/demo.json with the table's defaults",
            f"{CONFIGS_DOC}: {json.dumps(example, sort_keys=True)}\nexpected: {json.dumps(expected, sort_keys=True)}",
        )
        missing = sorted(k for k in demo if k != "description" and k not in example)
        check(not missing, f"{CONFIGS_DOC}'s config example has every key of configs/demo.json", f"missing: {missing}")

# 2. Defaults named in the prose: "`shard_seconds` (30)", "`shard_cases` (100,000, ...".
named = 0
for name, text in documents.items():
    for key, value in defaults.items():
        for m in re.finditer(r"`" + re.escape(key) + r"` \(([0-9][0-9,.]*)", text):
            named += 1
            got = m.group(1).replace(",", "")
            check(float(got) == float(value), f"{name} names {key}'s default as {m.group(1)} (the table: {value})")
check(named >= 2, f"the documents' prose names defaults of the table ({named} found)")

finish()
