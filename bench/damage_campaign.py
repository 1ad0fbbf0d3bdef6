#!/usr/bin/python3
"""Damage campaign: damage copies of a finished run the way disks, copies and
editors do, run nqc's readers on each copy, and count what happened.

usage: bench/damage_campaign.py [--copies N] [--seed S] [--nqc NQC] [--config CONFIG]
                                [--targets results,shard,config,plan] [--analysis] [--keep DIR]

One reference run of CONFIG (default configs/ci.json: 230 cases, 15 shard files), then for
every target file and every damage kind, N damaged copies of the results directory (each a
file that differs from the original):
  targets  results  DIR/results.h5; readers `nqc aggregate DIR` (judged), `nqc rerun DIR
                    --case C`, `nqc export DIR --case C` and with --analysis `python3 -m
                    analysis table DIR` (judged too)
           shard    one shard file (drawn at random), results.h5 removed; readers `nqc run
                    CONFIG -o DIR --resume` (judged) and `nqc aggregate DIR`
           config   DIR/config.json, results.h5 removed; reader `nqc run CONFIG -o DIR --resume`
           plan     DIR/plan.json, results.h5 removed; the same reader
  kinds    bit      one random bit flipped
           bits     2..64 random bits flipped
           truncate the first 0..size-1 bytes kept
           zero     a block of 2^0..2^12 bytes zeroed at a random offset
Each copy gets one verdict, from the judged reader(s):
  crash      a reader died by a signal, ran past its time limit or printed a sanitizer report
  passed     a reader exited 0 with results other than the reference's: damage passed as data
  no effect  a reader exited 0 with the reference's results (the damaged bytes are never read)
  diagnosed  exit 1 and one line, nothing in the directory changed (but DIR/launches, which
             records every launch): the damaged file named
             as damaged (or its rows as not the plan's) with the advice for its kind ("delete
             it and rebuild it from the shard files", "delete it and run the config again with
             --resume", "--resume --repair")
  wrong      anything else (another message, another exit code)
and, for a diagnosed copy, whether following the advice (delete the file and --resume;
--resume --repair) gives the reference's rows ("remedy ok").
Prints one table row per target and kind, and the totals, in Markdown (BENCHMARKS.md,
"Damaged files"). Exit status 1 when any copy crashed, passed or was wrongly diagnosed.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "cli"))
import damage  # noqa: E402  (tests/cli/damage.py: the damage kinds, one place)

KINDS = ("bit", "bits", "truncate", "zero")
TARGETS = ("results", "shard", "config", "plan")
TIME_LIMIT_S = 60
SANITIZER_MARKS = ("AddressSanitizer", "UndefinedBehaviorSanitizer", "runtime error:", "terminate called")
ENV = dict(
    os.environ,
    OMPI_ALLOW_RUN_AS_ROOT="1",
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
    OMPI_MCA_btl_vader_single_copy_mechanism="none",
    PYTHONDONTWRITEBYTECODE="1",
    MPLBACKEND="Agg",
)


def run(cmd):
    """(exit code or None when the time limit passed, stdout, stderr)."""
    try:
        p = subprocess.run(
            cmd, capture_output=True, text=True, errors="replace", timeout=TIME_LIMIT_S, env=ENV, cwd=REPO
        )
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or "", e.stderr or ""


def crashed(rc, err):
    return rc is None or rc < 0 or any(m in err for m in SANITIZER_MARKS)


def rows_of(path):
    """The rows of a result file without what differs between two runs (the columns nqc marks
    run_dependent: times, rank, and the launch that ran a case: a shard run again by the remedy
    is another launch's)."""
    import json

    import h5py
    import numpy as np
    from numpy.lib import recfunctions

    with open(os.path.join(REPO, "analysis", "result_schema.json"), encoding="utf-8") as schema:
        varying = {c["name"] for c in json.load(schema)["columns"] if c["run_dependent"]}
    with h5py.File(path, "r") as f:
        rows = f["cases"][()]
    keep = [n for n in rows.dtype.names if n not in varying]
    return np.sort(recfunctions.repack_fields(rows[keep]), order="case_id").tobytes()


def snapshot(d):
    """Every file under d but the launch records with its content's hash: a refusal must change
    nothing (DIR/launches records every launch, a refused one too, as the directory's provenance)."""
    import hashlib

    return {
        os.path.relpath(os.path.join(r, f), d): hashlib.sha256(open(os.path.join(r, f), "rb").read()).hexdigest()
        for r, _, files in os.walk(d)
        for f in files
        if os.path.relpath(r, d).split(os.sep)[0] != "launches"
    }


def damaged_copy(rng, data, kind):
    """A damaged copy of `data` (bytes) that differs from it, and what was done."""
    for _ in range(1000):
        copy = bytearray(data)
        if kind == "bit":
            done = [damage.flip_bit(copy, rng.randrange(len(copy)), rng.randrange(8))]
        elif kind == "bits":
            done = damage.flip_bits(copy, rng.randint(2, 64), rng)
        elif kind == "truncate":
            done = [damage.truncate(copy, rng.randrange(len(copy)))]
        else:
            done = [damage.zero(copy, rng.randrange(len(copy)), 1 << rng.randint(0, 12))]
        if copy != data:
            return bytes(copy), "; ".join(done) if len(done) < 4 else f"{len(done)} bits flipped"
    raise RuntimeError("no damage changes the file")


class Campaign:
    def __init__(self, args, work):
        self.args, self.work = args, work
        self.nqc = os.path.abspath(args.nqc)
        self.config = os.path.abspath(args.config)
        self.ref = os.path.join(work, "ref")
        rc, _, err = run([self.nqc, "run", self.config, "-o", self.ref, "-q"])
        if rc != 0:
            sys.exit(f"damage_campaign: the reference run failed: {err}")
        self.ref_rows = rows_of(os.path.join(self.ref, "results.h5"))
        self.ref_table = run([self.nqc, "aggregate", self.ref])[1]
        self.ref_analysis = run(self.analysis_cmd(self.ref))[1] if args.analysis else None
        self.ref_config = open(os.path.join(self.ref, "config.json"), "rb").read()
        self.shards = sorted(os.listdir(os.path.join(self.ref, "shards")))
        self.case = 3  # a case every config has
        self.details = []

    def analysis_cmd(self, d):
        return ["/usr/bin/python3", "-m", "analysis", "table", d]

    def copy(self, name, keep_results):
        d = os.path.join(self.work, name)
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(self.ref, d)
        if not keep_results:
            os.remove(os.path.join(d, "results.h5"))
        return d

    def one_line_diagnosis(self, err, file, advice, prefixes):
        # nqc run -q keeps the end-of-launch summary of a launch that got as far as its merge.
        lines = [line for line in err.splitlines() if line.strip() and "] [info] summary: " not in line]
        if len(lines) != 1:
            return False
        line = lines[0]
        if not any(line.startswith(p) or p in line[:80] for p in prefixes):
            return False
        named = f"{file}: damaged (" in line or (f"{file}: holds " in line) or (f"{file}: row " in line)
        return named and advice in line

    def remedy_ok(self, target, d, file):
        if target in ("results", "shard"):
            os.remove(file)
            rc, _, _ = run([self.nqc, "run", self.config, "-o", d, "--resume", "-q"])
        else:
            rc, _, _ = run([self.nqc, "run", self.config, "-o", d, "--resume", "--repair", "-q"])
        if rc != 0:
            return False
        if target == "config" and open(file, "rb").read() != self.ref_config:
            return False
        return rows_of(os.path.join(d, "results.h5")) == self.ref_rows

    def judge(self, target, d, file):
        """(verdict, remedy ok or None, detail)."""
        log = "[error] "
        if target == "results":
            advice = f": delete it and rebuild it from the shard files: nqc run {d}/config.json -o {d} --resume"
            judged = [([self.nqc, "aggregate", d], self.ref_table, ["nqc: error: "])]
            if self.args.analysis:
                judged.append((self.analysis_cmd(d), self.ref_analysis, ["nqc-analysis: error: "]))
            others = [
                [self.nqc, "rerun", d, "--case", str(self.case)],
                [self.nqc, "export", d, "--case", str(self.case), "-o", os.path.join(d, "case.txt")],
            ]
        elif target == "shard":
            advice = ": delete it and run the config again with --resume (its cases run again)"
            judged = [([self.nqc, "run", self.config, "-o", d, "--resume", "-q"], None, [log])]
            others = []
        else:
            advice = ": run again with --resume --repair to rewrite it from this "
            judged = [([self.nqc, "run", self.config, "-o", d, "--resume", "-q"], None, [log])]
            others = []
        # The other readers first: they must not crash, and must not change the directory.
        for cmd in others:
            rc, _, err = run(cmd)
            if crashed(rc, err):
                return "crash", None, f"{' '.join(cmd[1:3])}: exit {rc}: {err[-300:]}"
        if target == "shard":
            rc, _, err = run([self.nqc, "aggregate", d])
            if crashed(rc, err):
                return "crash", None, f"aggregate: exit {rc}: {err[-300:]}"
        verdicts = []
        before = snapshot(d)
        for cmd, reference, prefixes in judged:
            rc, out, err = run(cmd)
            if crashed(rc, err):
                return "crash", None, f"{os.path.basename(cmd[0])} {cmd[1]}: exit {rc}: {err[-300:]}"
            if rc == 0:
                same = (
                    out == reference
                    if reference is not None
                    else rows_of(os.path.join(d, "results.h5")) == self.ref_rows
                )
                verdicts.append(
                    ("no effect", None, "") if same else ("passed", None, f"{cmd[1]}: exit 0, other results")
                )
            elif rc == 1 and self.one_line_diagnosis(err, file, advice, prefixes):
                changed = snapshot(d) != before
                verdicts.append(
                    ("wrong", None, f"{cmd[1]}: changed the directory: {err.strip()}")
                    if changed
                    else ("diagnosed", None, err.strip())
                )
            else:
                verdicts.append(("wrong", None, f"{cmd[1]}: exit {rc}: {err.strip()[-400:]}"))
        order = ["passed", "wrong", "no effect", "diagnosed"]
        verdict, _, detail = min(verdicts, key=lambda v: order.index(v[0]))
        if verdict == "diagnosed":
            return verdict, self.remedy_ok(target, d, file), detail
        return verdict, None, detail

    def target_file(self, target, d, rng):
        if target == "results":
            return os.path.join(d, "results.h5")
        if target == "shard":
            return os.path.join(d, "shards", rng.choice(self.shards))
        return os.path.join(d, f"{target}.json")

    def run(self):
        rng = random.Random(self.args.seed)
        counts = {}
        for target in self.args.targets:
            for kind in KINDS:
                c = counts.setdefault(
                    (target, kind),
                    dict.fromkeys(("files", "crash", "passed", "no effect", "diagnosed", "wrong", "remedy ok"), 0),
                )
                for i in range(self.args.copies):
                    d = self.copy(f"{target}-{kind}-{i}", keep_results=target == "results")
                    file = self.target_file(target, d, rng)
                    data, done = damaged_copy(rng, open(file, "rb").read(), kind)
                    with open(file, "wb") as f:
                        f.write(data)
                    verdict, remedy, detail = self.judge(target, d, file)
                    c["files"] += 1
                    c[verdict] += 1
                    c["remedy ok"] += remedy is True
                    if verdict in ("crash", "passed", "wrong") or remedy is False:
                        self.details.append(
                            f"{target} {kind} #{i} ({os.path.basename(file)}: {done}): {verdict}"
                            f"{', remedy failed' if remedy is False else ''}: {detail}"
                        )
                        if self.args.keep:
                            dst = os.path.join(self.args.keep, os.path.basename(d))
                            shutil.rmtree(dst, ignore_errors=True)
                            shutil.copytree(d, dst)
                    shutil.rmtree(d)
        return counts


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--copies", type=int, default=25, help="damaged copies per target and kind (default 25)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--nqc", default=os.path.join(REPO, "build/src/cli/nqc"))
    p.add_argument("--config", default=os.path.join(REPO, "configs/ci.json"))
    p.add_argument("--targets", default=",".join(TARGETS))
    p.add_argument("--analysis", action="store_true", help="judge `python3 -m analysis table` on results.h5 too")
    p.add_argument("--keep", help="copy every results directory that did not get a correct diagnosis here")
    args = p.parse_args()
    args.targets = args.targets.split(",")
    if any(t not in TARGETS for t in args.targets):
        p.error(f"--targets: choose from {','.join(TARGETS)}")
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="nqc-damage-") as work:
        campaign = Campaign(args, work)
        counts = campaign.run()
    cols = ("files", "crash", "passed", "no effect", "diagnosed", "wrong", "remedy ok")
    heads = (
        "files damaged",
        "crashes",
        "passed as data",
        "no effect",
        "one-line diagnosis",
        "wrong diagnosis",
        "advice followed: reference rows",
    )
    print("| file | damage | " + " | ".join(heads) + " |")
    print("|---|---|" + "---:|" * len(heads))
    total = dict.fromkeys(cols, 0)
    for (target, kind), c in counts.items():
        print(f"| {target} | {kind} | " + " | ".join(str(c[k]) for k in cols) + " |")
        for k in cols:
            total[k] += c[k]
    print("| **all** | | " + " | ".join(f"**{total[k]}**" for k in cols) + " |")
    print(
        f"\n{total['files']} damaged copies in {time.monotonic() - start:.0f} s "
        f"(--copies {args.copies} --seed {args.seed}{' --analysis' if args.analysis else ''})"
    )
    for line in campaign.details:
        print(line)
    return 1 if total["crash"] or total["passed"] or total["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
