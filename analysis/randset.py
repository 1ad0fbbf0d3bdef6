"""Data of 000_*'s randSet & randSet experiment, from ``nqc randset`` (src/cli/cmd_randset.cpp).

``nqc randset N --trials T --seed S --csv HIST.csv --trials-csv TRIALS.csv`` fills the empty
N x N board by repeated randSet & randSet passes until a dead end, T times. It writes two CSVs:

- HIST.csv (``--csv``): the histogram of the number of queens k standing at the dead end,
  header ``k,count,share``;
- TRIALS.csv (``--trials-csv``): one row per trial, header ``trial,first_pass,dead_end_k``:
  the queens the first pass placed and the queens standing at the dead end.

Its standard output adds the mean share of the N queens that the first pass places
("first_pass_share: 0.600529"). The per-trial CSV gives both the first-pass distribution and
the dead-end histogram; the histogram CSV gives only the latter. Neither records N, so a CSV
is given as ``N:FILE``, and :func:`read_csv` tells the two kinds apart by their header.
"""

from __future__ import annotations

import math
import re
import subprocess
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.errors import AnalysisError

#: Headers of the two CSVs nqc randset writes.
HIST_COLUMNS = ["k", "count", "share"]
TRIALS_COLUMNS = ["trial", "first_pass", "dead_end_k"]


@dataclass
class RandsetRun:
    """One ``nqc randset`` run for board size n.

    histogram: the dead-end histogram (k, count, share), from the histogram CSV or counted
    from the per-trial CSV. per_trial: one row per trial (trial, first_pass, dead_end_k and
    first_pass_share = first_pass / n), None when only the histogram CSV is known.
    first_pass_share: mean share of n placed by the first pass: the per-trial mean, else the
    value nqc printed, else None."""

    n: int
    trials: int
    histogram: pd.DataFrame
    first_pass_share: float | None = None
    csv: Path | None = None
    per_trial: pd.DataFrame | None = None
    trials_csv: Path | None = None

    @property
    def first_pass_sd(self) -> float | None:
        """Standard deviation of the first-pass share over the trials (None without per-trial data)."""
        if self.per_trial is None or len(self.per_trial) < 2:
            return None
        return float(self.per_trial["first_pass_share"].std(ddof=1))

    @property
    def first_pass_se(self) -> float | None:
        """Standard error of the mean first-pass share (None without per-trial data)."""
        sd = self.first_pass_sd
        return None if sd is None else sd / math.sqrt(len(self.per_trial))

    @property
    def mean_dead_end_share(self) -> float:
        """Mean share of n standing at the dead end."""
        h = self.histogram
        return float((h["k"] * h["count"]).sum() / h["count"].sum() / self.n)


def _read_table(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise AnalysisError(f"{path}: no such file")
    try:
        with warnings.catch_warnings():
            # index_col=False: rows longer than the header are an error, not an index
            warnings.simplefilter("error", pd.errors.ParserWarning)
            return pd.read_csv(path, index_col=False)
    except pd.errors.ParserWarning:
        raise AnalysisError(f"{path}: not an nqc randset CSV (rows with more fields than the header)") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise AnalysisError(f"{path}: not an nqc randset CSV ({str(e).strip()})") from None


def _integer_columns(df: pd.DataFrame, columns: list[str], path: Path) -> pd.DataFrame:
    """The columns as int64; an AnalysisError naming the first row that is not a whole number >= 0."""
    out = df[columns].copy()
    for col in columns:
        values = pd.to_numeric(df[col], errors="coerce")
        bad = values.isna() | (values < 0) | (values != np.floor(values))
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            value = df[col].iloc[row]
            what = "is missing" if pd.isna(value) else f"= '{value}' is not a whole number >= 0"
            raise AnalysisError(f"{path}: row {row + 2}: {col} {what} (not an nqc randset CSV?)")
        out[col] = values.astype(np.int64)
    return out


def _histogram_from_trials(dead_end_k: pd.Series) -> pd.DataFrame:
    counts = dead_end_k.value_counts().sort_index()
    return pd.DataFrame({"k": counts.index.to_numpy(dtype=np.int64), "count": counts.to_numpy(dtype=np.int64),
                         "share": counts.to_numpy(dtype=float) / counts.sum()})


def _read_histogram(path: Path, table: pd.DataFrame, n: int) -> pd.DataFrame:
    hist = table.copy()
    hist[["k", "count"]] = _integer_columns(table, ["k", "count"], path)
    if int(hist["k"].max()) > n:
        raise AnalysisError(f"{path}: holds k = {int(hist['k'].max())} > n = {n} (wrong N in N:FILE?)")
    if int(hist["count"].sum()) == 0:
        raise AnalysisError(f"{path}: the histogram counts no trial")
    return hist


def _read_trials(path: Path, table: pd.DataFrame, n: int) -> pd.DataFrame:
    trials = _integer_columns(table, TRIALS_COLUMNS, path)
    for col in ("first_pass", "dead_end_k"):
        top = int(trials[col].max())
        if top > n:
            raise AnalysisError(f"{path}: holds {col} = {top} > n = {n} (wrong N in N:FILE?)")
    behind = trials["dead_end_k"] < trials["first_pass"]
    if behind.any():
        row = int(np.flatnonzero(behind.to_numpy())[0])
        raise AnalysisError(f"{path}: row {row + 2}: dead_end_k = {trials['dead_end_k'].iloc[row]} < first_pass = "
                            f"{trials['first_pass'].iloc[row]} (repeated passes never remove queens)")
    if trials["trial"].duplicated().any():
        raise AnalysisError(f"{path}: trial {int(trials.loc[trials['trial'].duplicated(), 'trial'].iloc[0])} "
                            "appears twice")
    trials["first_pass_share"] = trials["first_pass"] / n
    return trials


def read_csv(path: str | Path, n: int, first_pass_share: float | None = None) -> RandsetRun:
    """Reads a CSV of ``nqc randset`` for board size n: the histogram (``--csv``, header
    k,count,share) or the per-trial CSV (``--trials-csv``, header trial,first_pass,dead_end_k),
    told apart by the header. `first_pass_share` (nqc's printed mean) is kept when the CSV
    has no per-trial values."""
    path = Path(path)
    table = _read_table(path)
    header = [str(c).strip() for c in table.columns]
    table.columns = header
    if header[:3] == HIST_COLUMNS and not table.empty:
        hist = _read_histogram(path, table, n)
        return RandsetRun(n=n, trials=int(hist["count"].sum()), histogram=hist,
                          first_pass_share=first_pass_share, csv=path)
    if header[:3] == TRIALS_COLUMNS and not table.empty:
        trials = _read_trials(path, table, n)
        return RandsetRun(n=n, trials=len(trials), histogram=_histogram_from_trials(trials["dead_end_k"]),
                          first_pass_share=float(trials["first_pass_share"].mean()),
                          per_trial=trials, trials_csv=path)
    raise AnalysisError(f"{path}: not an nqc randset CSV (expected rows under the header k,count,share "
                        "of --csv or trial,first_pass,dead_end_k of --trials-csv)")


def parse_spec(spec: str) -> tuple[int, Path]:
    """``"100:runs/randset-100.csv"`` -> (100, Path("runs/randset-100.csv"))."""
    match = re.fullmatch(r"(\d+):(.+)", spec)
    if not match or int(match.group(1)) < 1:
        raise AnalysisError(f"--randset {spec}: expected N:FILE (the board size, a colon and a CSV "
                            "of nqc randset N: --trials-csv FILE or --csv FILE), e.g. 100:randset-n100-trials.csv")
    return int(match.group(1)), Path(match.group(2))


def run(nqc: str | Path, n: int, trials: int, out_dir: str | Path, seed: int = 1) -> RandsetRun:
    """Runs ``nqc randset n --trials trials --seed seed --csv OUT_DIR/randset-n{n}.csv
    --trials-csv OUT_DIR/randset-n{n}-trials.csv``, keeps its standard output next to them
    (randset-n{n}.txt) and reads both CSVs (they must agree on the dead-end histogram)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    csv = out_dir / f"randset-n{n}.csv"
    trials_csv = out_dir / f"randset-n{n}-trials.csv"
    cmd = [str(nqc), "randset", str(n), "--trials", str(trials), "--seed", str(seed), "--csv", str(csv),
           "--trials-csv", str(trials_csv)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        raise AnalysisError(f"{nqc}: cannot run ({e.strerror})") from None
    if done.returncode != 0:
        hint = " (this nqc predates --trials-csv: rebuild it)" if "--trials-csv" in done.stderr else ""
        raise AnalysisError(f"{' '.join(cmd)}: exit {done.returncode}: {done.stderr.strip()}{hint}")
    (out_dir / f"randset-n{n}.txt").write_text(" ".join(cmd[1:]) + "\n" + done.stdout)
    result = read_csv(trials_csv, n)
    hist = read_csv(csv, n).histogram
    if not hist[HIST_COLUMNS[:2]].reset_index(drop=True).equals(result.histogram[HIST_COLUMNS[:2]]):
        raise AnalysisError(f"{csv} and {trials_csv}: the dead-end histograms differ")
    result.csv = csv
    return result
