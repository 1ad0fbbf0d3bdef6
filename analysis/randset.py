"""Data of 000_*'s randSet & randSet experiment, from ``nqc randset`` (src/cli/cmd_randset.cpp).

``nqc randset N --trials T --csv FILE`` fills the empty N x N board by repeated randSet &
randSet passes until a dead end, T times. Its CSV holds the histogram of the number of
queens k standing at the dead end (columns k, count, share); its standard output adds the
mean share of the N queens that the first pass places ("first_pass_share: 0.600266"), which
the CSV lacks. The CSV does not record N, so a CSV is given as ``N:FILE``.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analysis.errors import AnalysisError


@dataclass
class RandsetRun:
    """One ``nqc randset`` run: board size n, trials, the dead-end histogram (k, count, share)
    and the mean first-pass share of n (None when only the CSV is known)."""

    n: int
    trials: int
    histogram: pd.DataFrame
    first_pass_share: float | None = None
    csv: Path | None = None


def read_csv(path: str | Path, n: int, first_pass_share: float | None = None) -> RandsetRun:
    """Reads an ``nqc randset --csv`` file for board size n."""
    path = Path(path)
    if not path.is_file():
        raise AnalysisError(f"{path}: no such file")
    try:
        hist = pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise AnalysisError(f"{path}: not an nqc randset CSV ({e})") from None
    if list(hist.columns[:3]) != ["k", "count", "share"] or hist.empty:
        raise AnalysisError(f"{path}: not an nqc randset CSV (expected the header k,count,share and rows)")
    if int(hist["k"].max()) > n:
        raise AnalysisError(f"{path}: holds k = {int(hist['k'].max())} > n = {n} (wrong N in N:FILE?)")
    return RandsetRun(n=n, trials=int(hist["count"].sum()), histogram=hist,
                      first_pass_share=first_pass_share, csv=path)


def parse_spec(spec: str) -> tuple[int, Path]:
    """``"100:runs/randset-100.csv"`` -> (100, Path("runs/randset-100.csv"))."""
    match = re.fullmatch(r"(\d+):(.+)", spec)
    if not match or int(match.group(1)) < 1:
        raise AnalysisError(f"--randset {spec}: expected N:FILE (the board size, a colon and the "
                            "CSV of nqc randset N --csv FILE), e.g. 100:randset-100.csv")
    return int(match.group(1)), Path(match.group(2))


def run(nqc: str | Path, n: int, trials: int, out_dir: str | Path, seed: int = 1) -> RandsetRun:
    """Runs ``nqc randset n --trials trials --seed seed --csv OUT_DIR/randset-n{n}.csv`` and keeps
    its standard output next to it (randset-n{n}.txt)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    csv = out_dir / f"randset-n{n}.csv"
    cmd = [str(nqc), "randset", str(n), "--trials", str(trials), "--seed", str(seed), "--csv", str(csv)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        raise AnalysisError(f"{nqc}: cannot run ({e.strerror})") from None
    if done.returncode != 0:
        raise AnalysisError(f"{' '.join(cmd)}: exit {done.returncode}: {done.stderr.strip()}")
    (out_dir / f"randset-n{n}.txt").write_text(" ".join(cmd[1:]) + "\n" + done.stdout)
    match = re.search(r"^first_pass_share:\s*([0-9.eE+-]+)", done.stdout, re.MULTILINE)
    return read_csv(csv, n, float(match.group(1)) if match else None)
