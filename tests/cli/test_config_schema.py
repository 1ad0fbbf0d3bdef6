"""configs/nqc-config.schema.json (generated from nqc's config table: a unit test checks it is
`nqc run --config-schema`) against two checkers: Debian's python3-jsonschema (the reference
implementation of draft-07) and nqc's own config checks (`nqc run --dry-run`).

For every config in configs/ and bench/configs/, every config in tests/cli/data/, and a
corpus of mutations of configs/ci.json (each key set to values of every wrong kind, each
required key dropped, unknown keys at every level): when jsonschema refuses a config, nqc
must refuse it too (exit 1) with an error whose JSON path lies at or under jsonschema's;
when jsonschema accepts it, nqc must accept it or refuse it for a reason a schema cannot
state (k against n, n = 2 or 3, plan size, instance files), listed in SEMANTIC.

Usage: /usr/bin/python3 test_config_schema.py NQC REPO_ROOT
"""
import copy
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import jsonschema

NQC, ROOT = sys.argv[1], os.path.abspath(sys.argv[2])
SCHEMA = json.load(open(os.path.join(ROOT, "configs", "nqc-config.schema.json")))
jsonschema.Draft7Validator.check_schema(SCHEMA)
VALIDATOR = jsonschema.Draft7Validator(SCHEMA)

# Refusals that no JSON Schema can express; nqc states them after the schema passes.
SEMANTIC = [
    r"/k: k range .* (has no k in|is outside) 1\.\.n-1",
    r"/k: k range .* is empty \(min > max\)",
    r"/k: give either \"fixed\" or \"min\"/\"max\", not both",
    r"n = [23] has no solution",
    r"/engine: engine '\w+' takes at most \d+ free rows",
    r"/k: k applies to derived cases \(sizes\) only",
    r"\(n = \d+, \w+ = \d+\)(: expected \w+ <= | is given twice| has up to C|: no \d+ queens stand)",
    r"/engine: engine 'grigoryan' cannot exclude diagonals",
    r"/engine: engine '\w+' is incomplete \(it cannot prove a composition infeasible\)",
    r"more than 10\^(7 shards|12 cases)",
    r"/instances/files/\d+: .*(cannot open|No such file|not a composition)",
]

passed = failed = 0


def report(ok, desc, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok - {desc}")
    else:
        failed += 1
        print(f"FAIL - {desc}")
        for line in detail.splitlines():
            print(f"#   {line}")


def nqc_verdict(path):
    """(exit code, JSON path of the error or None, message)."""
    # -o: a directory that does not exist, so that results on disk cannot change the verdict.
    r = subprocess.run(
        [NQC, "run", path, "--dry-run", "--log-level", "error", "-o", os.path.join(TMP, "no-such-dir")],
        capture_output=True,
        text=True,
    )
    msg = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
    m = re.search(re.escape(path) + r": (/\S*): ", msg)
    return r.returncode, (m.group(1).rstrip(":") if m else None), msg


def schema_verdict(config):
    """None when valid, else the JSON paths (as '/a/0/b') of every error jsonschema finds.

    nqc names the first error it meets; jsonschema's best_match picks among equals in a way
    that changed between versions (/sizes/1 before /sizes/0 in 4.26), so any one will do."""
    errors = list(VALIDATOR.iter_errors(config))
    if not errors:
        return None
    return sorted({"/" + "/".join(str(p) for p in e.absolute_path) for e in errors})


def check(desc, config=None, path=None):
    if path is None:
        fd, path = tempfile.mkstemp(suffix=".json", dir=TMP)
        with os.fdopen(fd, "w") as f:
            json.dump(config, f)
    else:
        try:
            config = json.load(open(path))
        except json.JSONDecodeError:
            rc, _, msg = nqc_verdict(path)
            report(rc == 1 and "invalid JSON" in msg, f"{desc}: invalid JSON refused by both", msg)
            return
    expected = schema_verdict(config)
    rc, at, msg = nqc_verdict(path)
    if expected is not None:
        ok = rc == 1 and at is not None and any(e == "/" or at == e or at.startswith(e + "/") for e in expected)
        report(ok, f"{desc}: refused at {' or '.join(expected)}", f"jsonschema paths: {expected}\nnqc exit {rc}: {msg}")
    elif rc == 0:
        report(True, f"{desc}: accepted by both")
    else:
        ok = rc == 1 and any(re.search(p, msg) for p in SEMANTIC)
        report(ok, f"{desc}: schema-valid, refused for a semantic reason", f"nqc exit {rc}: {msg}")


TMP = tempfile.mkdtemp(prefix="nqc-schema-")
files = sorted(
    glob.glob(os.path.join(ROOT, "configs", "*.json"))
    + glob.glob(os.path.join(ROOT, "bench", "configs", "*.json"))
    + glob.glob(os.path.join(ROOT, "tests", "cli", "data", "*.json"))
)
for f in files:
    if f.endswith(".schema.json"):
        continue
    check(os.path.relpath(f, ROOT), path=f)

base = json.load(open(os.path.join(ROOT, "configs", "ci.json")))
INSTANCE = os.path.join(TMP, "instance.txt")  # a composition file: n = 8, queens in rows 1 and 2
with open(INSTANCE, "w") as f:
    f.write("8\n1 3 0 0 0 0 0 0\n")
base.pop("output")
WRONG = {
    "string": "x",
    "empty string": "",
    "negative": -1,
    "zero": 0,
    "fraction": 1.5,
    "huge": 2**64,
    "true": True,
    "null": None,
    "empty list": [],
    "list": [1, 2],
    "empty object": {},
    "object": {"a": 1},
}


def mutations():
    for key in [
        "name",
        "description",
        "seed",
        "engine",
        "engine_params",
        "k",
        "time_limit_s",
        "max_nodes",
        "shard_seconds",
        "shard_cases",
        "output",
        "sizes",
        "instances",
        "$schema",
    ]:
        for what, value in WRONG.items():
            c = copy.deepcopy(base)
            if key == "instances":
                c.pop("sizes")  # they exclude each other
            c[key] = value
            yield f"/{key} = {what}", c
    for key in ["n", "solutions", "compositions_per_solution"]:
        for what, value in WRONG.items():
            c = copy.deepcopy(base)
            c["sizes"][0][key] = value
            yield f"/sizes/0/{key} = {what}", c
        c = copy.deepcopy(base)
        del c["sizes"][1][key]
        yield f"/sizes/1 without {key}", c
    for what, value in WRONG.items():
        c = copy.deepcopy(base)
        c["sizes"][0]["n"] = [8, value, 10]
        yield f"/sizes/0/n/1 = {what}", c
    for sub in ["min", "max", "fixed"]:
        for what, value in list(WRONG.items()) + [("two", 2), ("minus two", -2), ("minus one", -1)]:
            yield f"/k/{sub} = {what}", {**copy.deepcopy(base), "k": {sub: value}}
    for where in ["", "sizes/0", "k", "instances"]:
        c = copy.deepcopy(base)
        if where == "instances":
            c.pop("sizes")
            c["instances"] = {"files": [os.path.join(ROOT, "tests", "cli", "data", "other-config.json")], "extra": 1}
        elif where == "k":
            c["k"] = {"min": 1, "extra": 1}
        elif where:
            c["sizes"][0]["extra"] = 1
        else:
            c["extra"] = 1
        yield f"unknown key at /{where}", c
    # The other generated origins: each key's group, every wrong value of each field, a missing
    # field, and what only nqc can refuse (a value the board does not allow, a pair twice).
    origins = {
        "random_compositions": {"n": [14, 20], "free_rows": 10, "samples": 3},
        "excluded_diagonals": {"n": 12, "diags": [8, 10], "samples": 3},
        "canonical_compositions": {"n": [8, 9], "k": [1, 2]},
    }
    for key, group in origins.items():
        good = {k: v for k, v in base.items() if k != "sizes"}
        yield f"/{key}", {**good, key: [group]}
        for field in group:
            for what, value in WRONG.items():
                yield f"/{key}/0/{field} = {what}", {**good, key: [{**group, field: value}]}
            yield f"/{key}/0 without {field}", {**good, key: [{f: v for f, v in group.items() if f != field}]}
        yield f"/{key} and /sizes", {**copy.deepcopy(base), key: [group]}
        yield f"/{key} with /k", {**good, key: [group], "k": {"fixed": 2}}
        yield f"/{key}: a pair twice", {**good, key: [group, group]}
        param = [f for f in group if f not in ("n", "samples")][0]
        yield f"/{key}: {param} beyond the board", {**good, key: [{**group, "n": 4, param: 20}]}
    yield "/canonical_compositions: too many", {"name": "c", "canonical_compositions": [{"n": 40, "k": 7}]}
    yield "/canonical_compositions: board too large", {"name": "c", "canonical_compositions": [{"n": 2000, "k": 1}]}
    yield "/canonical_compositions: more than plan time allows", {
        "name": "c",
        "canonical_compositions": [{"n": 60, "k": 3}],
    }
    for n, k in ((2, 2), (3, 3)):
        yield f"/canonical_compositions: no {k} queens stand on the {n} board", {
            "name": "c",
            "canonical_compositions": [{"n": n, "k": k}],
        }
    yield "/excluded_diagonals: board too large", {
        "name": "c",
        "excluded_diagonals": [{"n": 20000, "diags": 10, "samples": 1}],
    }
    for key, group in origins.items():
        for engine in ("grigoryan", "minconflicts"):
            yield f"/{key} with the incomplete {engine}", {"name": "c", "engine": engine, key: [group]}
    yield "/excluded_diagonals with grigoryan", {
        "name": "c",
        "engine": "grigoryan",
        "excluded_diagonals": [origins["excluded_diagonals"]],
    }
    c = copy.deepcopy(base)
    del c["name"]
    yield "without name", c
    c = copy.deepcopy(base)
    del c["sizes"]
    yield "neither sizes nor instances", c
    c = copy.deepcopy(base)
    c["instances"] = {"files": ["a.txt"]}
    yield "both sizes and instances", c
    for what, value in WRONG.items():
        c = copy.deepcopy(base)
        c.pop("sizes")
        c["instances"] = {"files": [INSTANCE], "diags": value}
        yield f"/instances/diags = {what}", c
        c = copy.deepcopy(base)
        c.pop("sizes")
        c["instances"] = {"files": value}
        yield f"/instances/files = {what}", c
    yield "/engine_params for grigoryan", {
        **copy.deepcopy(base),
        "engine": "grigoryan",
        "engine_params": {"restarts": 10},
    }
    yield "/engine_params unknown for grigoryan", {
        **copy.deepcopy(base),
        "engine": "grigoryan",
        "engine_params": {"x": 1},
    }
    yield "/engine_params for exact", {**copy.deepcopy(base), "engine": "exact", "engine_params": {"restarts": 1}}
    yield "/engine_params without engine (auto)", {**copy.deepcopy(base), "engine_params": {"noise": 0.1}}
    # Every parameter of every engine, from `nqc run --help-config`: its default, values of every
    # wrong kind, and just outside its range (small boards: bitboard takes at most 128 free rows).
    small = {**copy.deepcopy(base), "sizes": [{"n": [8, 10], "solutions": 1, "compositions_per_solution": 1}]}
    for engine, name, default, expected in engine_params():
        for what, value in [("default", default)] + list(WRONG.items()) + out_of_range(expected):
            yield f"/engine_params/{name} of {engine} = {what}", {
                **copy.deepcopy(small),
                "engine": engine,
                "engine_params": {name: value},
            }
    yield "/k fixed and min", {**copy.deepcopy(base), "k": {"fixed": 1, "min": 1}}
    yield "/k min > max", {**copy.deepcopy(base), "k": {"min": 5, "max": 3}}
    yield "/$schema string", {**copy.deepcopy(base), "$schema": "../configs/nqc-config.schema.json"}


def engine_params():
    """(engine, name, default, expected) of every parameter `nqc run --help-config` lists."""
    text = subprocess.run([NQC, "run", "--help-config"], capture_output=True, text=True, check=True).stdout
    engine, rows = None, []
    for line in text.splitlines():
        m = re.match(r"^ {6}(\w+):$", line)
        if m:
            engine = m.group(1)
        m = re.match(r"^ {8}(\w+) = (.*) \((.*)\)$", line)
        if m and engine:
            rows.append((engine, m.group(1), json.loads(m.group(2)), m.group(3)))
    assert len(rows) >= 27, f"--help-config lists {len(rows)} engine parameters"
    return rows


def out_of_range(expected):
    """Values just outside the range an `expected` text states ("an integer 0..9", "a number 0..1")."""
    m = re.match(r"an integer (-?\d+)\.\.(\d+)$", expected) or re.match(r"a number (-?[\d.]+)\.\.([\d.]+)$", expected)
    if m:
        lo, hi = (json.loads(g) for g in m.groups())
        return [("below the range", lo - 1), ("above the range", hi + 1)] + (
            [("inside the range", (lo + hi) / 2)] if "number" in expected else []
        )
    m = re.match(r"an integer >= (-?\d+)$", expected) or re.match(r"a number >= (-?[\d.]+)$", expected)
    if m:
        return [("below the range", json.loads(m.group(1)) - 1)]
    m = re.match(r"one of (.*)$", expected)
    if m:
        return [(f"choice {c}", c) for c in m.group(1).split(", ")] + [("no choice", "none")]
    return []


for desc, config in mutations():
    check(desc, config)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
