"""Data of [Grigoryan]'s randSet & randSet experiment, from ``nqc randset`` (src/cli/cmd_randset.cpp).

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

import csv
import io
import math
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from analysis import output
from analysis.errors import AnalysisError
from analysis.schema import N_MAX

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
        count = h["count"].to_numpy(dtype=float)  # float: k * count may exceed 64 bits
        return float((h["k"].to_numpy(dtype=float) * count).sum() / count.sum() / self.n)


#: Largest 64-bit integer (the largest board size: analysis.schema.N_MAX).
INT64_MAX = 2**63 - 1
#: A whole number as nqc writes it (ASCII digits, optional sign) and a decimal number (also the
#: bins and edges of --by, analysis.groups).
INTEGER = re.compile(r"[+-]?[0-9]+")
NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
#: |share - count / total| allowed in the histogram CSV (nqc writes 6 significant digits).
SHARE_TOLERANCE = 1e-6
#: The hint for a number of queens above n.
WRONG_N = "wrong N in N:FILE?"


#: The name of standard input in messages (a CSV given as ``N:-``).
STDIN = Path("<stdin>")


def _read_rows(path: Path, stdin: bool = False) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and the rows (line number, fields) of a CSV (`stdin`: of standard input,
    `path` then its name in messages); blank lines at the end are dropped, a blank line
    elsewhere is an error."""
    if not stdin and not path.exists():
        raise AnalysisError(f"{path}: no such file")
    if not stdin and path.is_dir():  # a FIFO (a shell's <(nqc randset ...)) is read as a file
        raise AnalysisError(f"{path}: is a directory, expected a CSV of nqc randset (--trials-csv FILE or --csv FILE)")
    try:
        with (
            io.StringIO(sys.stdin.buffer.read().decode("utf-8-sig"), newline="")
            if stdin
            else open(path, newline="", encoding="utf-8-sig")
        ) as f:
            reader = csv.reader(f, strict=True)
            records = [(reader.line_num, row) for row in reader]
    except UnicodeDecodeError as e:
        raise AnalysisError(f"{path}: not an nqc randset CSV (not UTF-8 text: {e.reason} at byte {e.start})") from None
    except csv.Error as e:
        raise AnalysisError(f"{path}: not an nqc randset CSV (row {reader.line_num}: {e})") from None
    except OSError as e:
        raise AnalysisError(f"{path}: cannot read ({e.strerror or e})") from None
    while records and not records[-1][1]:
        records.pop()
    if not records:
        raise AnalysisError(
            f"{path}: not an nqc randset CSV (empty file; expected the header "
            f"{','.join(HIST_COLUMNS)} of --csv or {','.join(TRIALS_COLUMNS)} of --trials-csv)"
        )
    header = [c.strip() for c in records[0][1]]
    return header, records[1:]


def _fields(path: Path, line: int, row: list[str], columns: list[str]) -> list[str]:
    """The row's fields, stripped; an error unless there is exactly one per column."""
    if len(row) != len(columns):
        got = "a blank line" if not row else f"{len(row)} field{'s' if len(row) != 1 else ''} '{','.join(row)}'"
        raise AnalysisError(f"{path}: row {line}: {got}, expected {len(columns)}: {','.join(columns)}")
    return [v.strip() for v in row]


def _integer(
    path: Path, line: int, column: str, text: str, lo: int, hi: int, expected: str, below: str = "", above: str = ""
) -> int:
    """`text` as an exact integer in lo..hi; else an AnalysisError naming file, row and column
    and `expected` (what the column holds), plus the hint `below` / `above` for a value out of
    range on that side. Checked in this order: present, a whole number (no fraction, exponent,
    NaN), within 64 bits, then the range."""
    where = f"{path}: row {line}, column {column}"
    if not text:
        raise AnalysisError(f"{where}: empty, expected {expected}")
    if not INTEGER.fullmatch(text):
        raise AnalysisError(f"{where}: '{text}' is not a whole number, expected {expected}")
    value = int(text)
    if not -INT64_MAX - 1 <= value <= INT64_MAX:
        raise AnalysisError(f"{where}: {text} does not fit a 64-bit integer, expected {expected}")
    if not lo <= value <= hi:
        hint = below if value < lo else above
        raise AnalysisError(f"{where}: {value} is out of range, expected {expected}" + (f" ({hint})" if hint else ""))
    return value


def _share(path: Path, line: int, column: str, text: str, expected: str) -> float:
    """`text` as a finite decimal number in 0..1."""
    where = f"{path}: row {line}, column {column}"
    if not text:
        raise AnalysisError(f"{where}: empty, expected {expected}")
    if not NUMBER.fullmatch(text):
        raise AnalysisError(f"{where}: '{text}' is not a number, expected {expected}")
    value = float(text)
    if not math.isfinite(value):
        raise AnalysisError(f"{where}: '{text}' is not a finite number, expected {expected}")
    if not 0.0 <= value <= 1.0:
        raise AnalysisError(f"{where}: {text} is out of range, expected {expected}")
    return value


def _read_histogram(path: Path, rows: list[tuple[int, list[str]]], n: int) -> pd.DataFrame:
    """The dead-end histogram: k in 0..n (each once), count >= 1, share = count / total trials."""
    ks, counts, shares, lines = [], [], [], []
    seen: dict[int, int] = {}
    for line, row in rows:
        k_text, count_text, share_text = _fields(path, line, row, HIST_COLUMNS)
        k = _integer(
            path, line, "k", k_text, 0, n, f"queens at the dead end, an integer in 0..n = 0..{n}", above=WRONG_N
        )
        if k in seen:
            raise AnalysisError(f"{path}: row {line}, column k: k = {k} repeats row {seen[k]}, expected each k once")
        seen[k] = line
        counts.append(
            _integer(path, line, "count", count_text, 1, INT64_MAX, "trials that ended with k queens, an integer >= 1")
        )
        shares.append(_share(path, line, "share", share_text, "count / total trials, a number in 0..1"))
        ks.append(k)
        lines.append(line)
    total = sum(counts)
    if total > INT64_MAX:
        raise AnalysisError(f"{path}: column count: the counts add up to {total}, more than a 64-bit integer holds")
    for line, count, share in zip(lines, counts, shares):
        if abs(share - count / total) > SHARE_TOLERANCE:
            raise AnalysisError(
                f"{path}: row {line}, column share: {share:g} is not count / total trials = "
                f"{count} / {total} = {count / total:.6g} (within {SHARE_TOLERANCE:g})"
            )
    return pd.DataFrame(
        {
            "k": np.array(ks, dtype=np.int64),
            "count": np.array(counts, dtype=np.int64),
            "share": np.array(shares, dtype=float),
        }
    )


def _read_trials(path: Path, rows: list[tuple[int, list[str]]], n: int) -> pd.DataFrame:
    """One row per trial: trial ids unique, first_pass in 1..n (the first pass on the empty
    board places at least one queen), dead_end_k in first_pass..n (passes never remove queens)."""
    trial_ids, first, dead = [], [], []
    seen: dict[int, int] = {}
    for line, row in rows:
        trial_text, first_text, dead_text = _fields(path, line, row, TRIALS_COLUMNS)
        trial = _integer(path, line, "trial", trial_text, 0, INT64_MAX, "a trial number >= 0")
        if trial in seen:
            raise AnalysisError(
                f"{path}: row {line}, column trial: trial {trial} repeats row {seen[trial]}, "
                "expected each trial once"
            )
        seen[trial] = line
        fp = _integer(
            path,
            line,
            "first_pass",
            first_text,
            1,
            n,
            f"queens placed by the first pass, an integer in 1..n = 1..{n}",
            below="the first pass on the empty board places at least one queen",
            above=WRONG_N,
        )
        dk = _integer(
            path,
            line,
            "dead_end_k",
            dead_text,
            fp,
            n,
            f"queens at the dead end, an integer in first_pass..n = {fp}..{n}",
            below="repeated passes never remove queens",
            above=WRONG_N,
        )
        trial_ids.append(trial)
        first.append(fp)
        dead.append(dk)
    trials = pd.DataFrame(
        {
            "trial": np.array(trial_ids, dtype=np.int64),
            "first_pass": np.array(first, dtype=np.int64),
            "dead_end_k": np.array(dead, dtype=np.int64),
        }
    )
    trials["first_pass_share"] = trials["first_pass"] / n
    return trials


def _histogram_from_trials(dead_end_k: pd.Series) -> pd.DataFrame:
    counts = dead_end_k.value_counts().sort_index()
    return pd.DataFrame(
        {
            "k": counts.index.to_numpy(dtype=np.int64),
            "count": counts.to_numpy(dtype=np.int64),
            "share": counts.to_numpy(dtype=float) / counts.sum(),
        }
    )


def read_csv(path: str | Path, n: int, first_pass_share: float | None = None) -> RandsetRun:
    """Reads a CSV of ``nqc randset`` for board size n: the histogram (``--csv``, header
    k,count,share) or the per-trial CSV (``--trials-csv``, header trial,first_pass,dead_end_k),
    told apart by the header; ``"-"`` reads standard input (named ``<stdin>`` in messages).
    `first_pass_share` (nqc's printed mean) is kept when the CSV has no per-trial values.

    Every row must have exactly three fields and every field is checked (see _read_histogram,
    _read_trials); the first fault is an AnalysisError naming the file, row (line number,
    the header being row 1) and column, and what was expected."""
    stdin = output.is_std_stream(path)
    path = STDIN if stdin else Path(path)
    check_n(n, f"{path}: n")
    header, rows = _read_rows(path, stdin)
    if header == HIST_COLUMNS and rows:
        hist = _read_histogram(path, rows, n)
        return RandsetRun(
            n=n, trials=int(hist["count"].sum()), histogram=hist, first_pass_share=first_pass_share, csv=path
        )
    if header == TRIALS_COLUMNS and rows:
        trials = _read_trials(path, rows, n)
        return RandsetRun(
            n=n,
            trials=len(trials),
            histogram=_histogram_from_trials(trials["dead_end_k"]),
            first_pass_share=float(trials["first_pass_share"].mean()),
            per_trial=trials,
            trials_csv=path,
        )
    found = (
        f"no rows under the header '{','.join(header)}'"
        if header in (HIST_COLUMNS, TRIALS_COLUMNS)
        else f"header '{','.join(header)}'"
    )
    raise AnalysisError(
        f"{path}: not an nqc randset CSV (expected rows under the header {','.join(HIST_COLUMNS)} "
        f"of --csv or {','.join(TRIALS_COLUMNS)} of --trials-csv; found {found})"
    )


def check_n(n, what: str) -> int:
    """n as a board size 1..N_MAX; an AnalysisError starting with `what` otherwise."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= N_MAX:
        raise AnalysisError(f"{what} = {n} is not a board size, expected an integer in 1..{N_MAX}")
    return int(n)


def parse_spec(spec: str) -> tuple[int, Path]:
    """``"100:runs/randset-100.csv"`` -> (100, Path("runs/randset-100.csv")); N in 1..N_MAX;
    ``"100:-"`` -> (100, "-"), standard input."""
    match = re.fullmatch(r"([0-9]+):(.+)", spec)
    if not match:
        raise AnalysisError(
            f"--randset {spec}: expected N:FILE (the board size, a colon and a CSV "
            "of nqc randset N: --trials-csv FILE or --csv FILE), e.g. 100:randset-n100-trials.csv"
        )
    n = int(match.group(1))
    if not 1 <= n <= N_MAX:
        raise AnalysisError(
            f"--randset {spec}: N = {match.group(1)} is not a board size, expected N:FILE " f"with N in 1..{N_MAX}"
        )
    return n, _file(match.group(2))


def _file(text):
    """A CSV's name: the string "-" (standard input) kept, else a Path."""
    return text if output.is_std_stream(text) else Path(text)


def check_specs(specs: list[tuple[int, Path]]) -> list[tuple[int, Path]]:
    """Refuses an n given twice, or one file given for two n (a CSV of nqc randset is of one n)."""
    by_n: dict[int, Path] = {}
    by_file: dict[str, int] = {}
    for n, path in specs:
        n = check_n(n, "--randset N")
        if n in by_n:
            raise AnalysisError(f"n = {n} given twice in --randset ({by_n[n]} and {path}): give one CSV per n")
        key = str(STDIN) if output.is_std_stream(path) else os.path.realpath(path)
        if key in by_file:
            raise AnalysisError(
                f"{path} given twice in --randset (for n = {by_file[key]} and n = {n}): "
                "a CSV of nqc randset holds one n"
            )
        by_n[n], by_file[key] = _file(path), n
    return [(n, _file(p)) for n, p in specs]


def parse_specs(specs: list[str]) -> list[tuple[int, Path]]:
    """Every ``--randset N:FILE``, parsed and checked (see parse_spec, check_specs)."""
    return check_specs([parse_spec(s) for s in specs])


def run(nqc: str | Path, n: int, trials: int, out_dir: str | Path, seed: int = 1) -> RandsetRun:
    """Runs ``nqc randset n --trials trials --seed seed --csv OUT_DIR/randset-n{n}.csv
    --trials-csv OUT_DIR/randset-n{n}-trials.csv``, keeps its standard output next to them
    (randset-n{n}.txt) and reads both CSVs (they must agree on the dead-end histogram).

    nqc writes to temporary names that are renamed when it succeeds; when it fails or its CSVs
    are refused, none of the three files is left."""
    n = check_n(n, "randset n")
    if Path(nqc).is_dir():  # the system would say "Permission denied"
        raise AnalysisError(f"{nqc}: is a directory, expected the nqc executable")
    out_dir = output.make_dir(out_dir)
    hist_csv = out_dir / f"randset-n{n}.csv"
    trials_csv = out_dir / f"randset-n{n}-trials.csv"
    txt = out_dir / f"randset-n{n}.txt"

    def command(hist_path, trials_path) -> list[str]:
        return [
            str(nqc),
            "randset",
            str(n),
            "--trials",
            str(trials),
            "--seed",
            str(seed),
            "--csv",
            str(hist_path),
            "--trials-csv",
            str(trials_path),
        ]

    with output.replacing(hist_csv) as tmp_hist, output.replacing(trials_csv) as tmp_trials:
        cmd = command(tmp_hist, tmp_trials)
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        except OSError as e:
            raise AnalysisError(f"{nqc}: cannot run ({e.strerror})") from None
        if done.returncode != 0:
            hint = " (this nqc predates --trials-csv: rebuild it)" if "--trials-csv" in done.stderr else ""
            message = f"{' '.join(command(hist_csv, trials_csv))}: exit {done.returncode}: {done.stderr.strip()}{hint}"
            for tmp, final in ((tmp_hist, hist_csv), (tmp_trials, trials_csv)):  # the names the user knows
                message = message.replace(str(tmp), str(final))
            raise AnalysisError(message)
    try:
        output.write_text(txt, " ".join(command(hist_csv, trials_csv)[1:]) + "\n" + done.stdout)
        result = read_csv(trials_csv, n)
        hist = read_csv(hist_csv, n).histogram
        if not hist[HIST_COLUMNS[:2]].reset_index(drop=True).equals(result.histogram[HIST_COLUMNS[:2]]):
            raise AnalysisError(f"{hist_csv} and {trials_csv}: the dead-end histograms differ")
    except BaseException:
        output.remove([hist_csv, trials_csv, txt])
        raise
    result.csv = hist_csv
    return result
