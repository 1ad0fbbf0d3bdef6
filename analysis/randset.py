"""CSVs of ``nqc randset N`` (``--csv``: k,count,share; ``--trials-csv``: trial,first_pass,dead_end_k)."""

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
#: Largest 64-bit integer.
INT64_MAX = 2**63 - 1
#: A whole number as nqc writes it, and a decimal number (also --by's bins and edges).
INTEGER = re.compile(r"[+-]?[0-9]+")
NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
#: |share - count / total| allowed in the histogram CSV (nqc writes 6 significant digits).
SHARE_TOLERANCE = 1e-6
#: The hint for a number of queens above n.
WRONG_N = "wrong N in N:FILE?"
#: The name of standard input in messages (a CSV given as ``N:-``).
STDIN = Path("<stdin>")
_EXPECTED_HEADERS = f"{','.join(HIST_COLUMNS)} of --csv or {','.join(TRIALS_COLUMNS)} of --trials-csv"


@dataclass
class RandsetRun:
    """One ``nqc randset`` run: dead-end `histogram`, `per_trial` rows (None from --csv), mean first-pass share."""

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
        count = self.histogram["count"].to_numpy(dtype=float)  # float: k * count may exceed 64 bits
        return float((self.histogram["k"].to_numpy(dtype=float) * count).sum() / count.sum() / self.n)


def read_rows(
    path: Path,
    stdin: bool = False,
    kind: str = "an nqc randset CSV",
    expected: str = _EXPECTED_HEADERS,
    directory: str = "a CSV of nqc randset (--trials-csv FILE or --csv FILE)",
) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Header and (line, fields) rows of a CSV (or standard input); errors say it is not `kind`."""
    if not stdin and not path.exists():
        raise AnalysisError(f"{path}: no such file")
    if not stdin and path.is_dir():  # a FIFO (a shell's <(nqc randset ...)) is read as a file
        raise AnalysisError(f"{path}: is a directory, expected {directory}")
    try:
        with (
            io.StringIO(sys.stdin.buffer.read().decode("utf-8-sig"), newline="")
            if stdin
            else open(path, newline="", encoding="utf-8-sig")
        ) as f:
            reader = csv.reader(f, strict=True)
            records = [(reader.line_num, row) for row in reader]
    except UnicodeDecodeError as e:
        raise AnalysisError(f"{path}: not {kind} (not UTF-8 text: {e.reason} at byte {e.start})") from None
    except csv.Error as e:
        raise AnalysisError(f"{path}: not {kind} (row {reader.line_num}: {e})") from None
    except OSError as e:
        raise AnalysisError(f"{path}: cannot read ({e.strerror or e})") from None
    while records and not records[-1][1]:
        records.pop()
    if not records:
        raise AnalysisError(f"{path}: not {kind} (empty file; expected the header {expected})")
    return [c.strip() for c in records[0][1]], records[1:]


def csv_fields(path: Path, line: int, row: list[str], columns: list[str]) -> list[str]:
    """The row's fields, stripped; an error unless there is exactly one per column."""
    if len(row) != len(columns):
        got = "a blank line" if not row else f"{output.plural(len(row), 'field')} '{','.join(row)}'"
        raise AnalysisError(f"{path}: row {line}: {got}, expected {len(columns)}: {','.join(columns)}")
    return [v.strip() for v in row]


def csv_integer(where: str, text: str, lo: int, hi: int, expected: str, below: str = "", above: str = "") -> int:
    """`text` as an integer in lo..hi, else AnalysisError 'WHERE: ..., expected EXPECTED' (hints
    `below`/`above`)."""
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


def csv_share(where: str, text: str, expected: str) -> float:
    """`text` as a finite decimal number in 0..1."""
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


def csv_once(seen: dict, value: int, where: str, what: str, line: int) -> None:
    """An error when `value` (of column `what`) repeats an earlier row."""
    if value in seen:
        raise AnalysisError(f"{where}: {what} repeats row {seen[value]}, expected each {what.split()[0]} once")
    seen[value] = line


def _read_histogram(path: Path, rows: list[tuple[int, list[str]]], n: int) -> pd.DataFrame:
    """The dead-end histogram: k in 0..n (each once), count >= 1, share = count / total trials."""
    values, seen = [], {}
    for line, row in rows:
        k_text, count_text, share_text = csv_fields(path, line, row, HIST_COLUMNS)
        at = f"{path}: row {line}, column"
        k = csv_integer(f"{at} k", k_text, 0, n, f"queens at the dead end, an integer in 0..n = 0..{n}", above=WRONG_N)
        csv_once(seen, k, f"{at} k", f"k = {k}", line)
        count = csv_integer(f"{at} count", count_text, 1, INT64_MAX, "trials that ended with k queens, an integer >= 1")
        share = csv_share(f"{at} share", share_text, "count / total trials, a number in 0..1")
        values.append((k, count, share, line))
    total = sum(v[1] for v in values)
    if total > INT64_MAX:
        raise AnalysisError(f"{path}: column count: the counts add up to {total}, more than a 64-bit integer holds")
    for _, count, share, line in values:
        if abs(share - count / total) > SHARE_TOLERANCE:
            raise AnalysisError(
                f"{path}: row {line}, column share: {share:g} is not count / total trials = "
                f"{count} / {total} = {count / total:.6g} (within {SHARE_TOLERANCE:g})"
            )
    k, count, share, _ = zip(*values)
    return pd.DataFrame(
        {"k": np.array(k, dtype=np.int64), "count": np.array(count, dtype=np.int64), "share": np.array(share)}
    )


def _read_trials(path: Path, rows: list[tuple[int, list[str]]], n: int) -> pd.DataFrame:
    """Trial rows: ids unique, first_pass in 1..n, dead_end_k in first_pass..n."""
    values, seen = [], {}
    for line, row in rows:
        trial_text, first_text, dead_text = csv_fields(path, line, row, TRIALS_COLUMNS)
        at = f"{path}: row {line}, column"
        trial = csv_integer(f"{at} trial", trial_text, 0, INT64_MAX, "a trial number >= 0")
        csv_once(seen, trial, f"{at} trial", f"trial {trial}", line)
        first = csv_integer(
            f"{at} first_pass",
            first_text,
            1,
            n,
            f"queens placed by the first pass, an integer in 1..n = 1..{n}",
            below="the first pass on the empty board places at least one queen",
            above=WRONG_N,
        )
        dead = csv_integer(
            f"{at} dead_end_k",
            dead_text,
            first,
            n,
            f"queens at the dead end, an integer in first_pass..n = {first}..{n}",
            below="repeated passes never remove queens",
            above=WRONG_N,
        )
        values.append((trial, first, dead))
    trials = pd.DataFrame(np.array(values, dtype=np.int64).reshape(-1, 3), columns=TRIALS_COLUMNS)
    trials["first_pass_share"] = trials["first_pass"] / n
    return trials


def read_csv(path: str | Path, n: int, first_pass_share: float | None = None) -> RandsetRun:
    """A CSV of ``nqc randset`` for n (``--csv`` or ``--trials-csv``, by its header; ``-`` is stdin); AnalysisError
    naming file, row and column."""
    stdin = output.is_std_stream(path)
    path = STDIN if stdin else Path(path)
    check_n(n, f"{path}: n")
    header, rows = read_rows(path, stdin)
    if header == HIST_COLUMNS and rows:
        hist = _read_histogram(path, rows, n)
        return RandsetRun(n, int(hist["count"].sum()), hist, first_pass_share, csv=path)
    if header == TRIALS_COLUMNS and rows:
        trials = _read_trials(path, rows, n)
        counts = trials["dead_end_k"].value_counts().sort_index()
        hist = pd.DataFrame(
            {
                "k": counts.index.to_numpy(dtype=np.int64),
                "count": counts.to_numpy(dtype=np.int64),
                "share": counts.to_numpy(dtype=float) / counts.sum(),
            }
        )
        share = float(trials["first_pass_share"].mean())
        return RandsetRun(n, len(trials), hist, share, per_trial=trials, trials_csv=path)
    shown = ",".join(header)
    found = f"no rows under the header '{shown}'" if header in (HIST_COLUMNS, TRIALS_COLUMNS) else f"header '{shown}'"
    raise AnalysisError(
        f"{path}: not an nqc randset CSV (expected rows under the header {_EXPECTED_HEADERS}; found {found})"
    )


def check_n(n, what: str) -> int:
    """n as a board size 1..N_MAX; an AnalysisError starting with `what` otherwise."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= N_MAX:
        raise AnalysisError(f"{what} = {n} is not a board size, expected an integer in 1..{N_MAX}")
    return int(n)


def parse_spec(spec: str) -> tuple[int, Path]:
    """``'100:FILE'`` -> (100, Path(FILE)); ``'100:-'`` -> (100, '-'), standard input."""
    match = re.fullmatch(r"([0-9]+):(.+)", spec)
    if not match:
        raise AnalysisError(
            f"--randset {spec}: expected N:FILE (the board size, a colon and a CSV "
            "of nqc randset N: --trials-csv FILE or --csv FILE), e.g. 100:randset-n100-trials.csv"
        )
    if not 1 <= int(match.group(1)) <= N_MAX:
        raise AnalysisError(
            f"--randset {spec}: N = {match.group(1)} is not a board size, expected N:FILE with N in 1..{N_MAX}"
        )
    return int(match.group(1)), _file(match.group(2))


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
    """Runs ``nqc randset`` for n into OUT_DIR/randset-n{n}.csv, -trials.csv, .txt and reads them; none left on
    failure."""
    n = check_n(n, "randset n")
    if Path(nqc).is_dir():  # the system would say "Permission denied"
        raise AnalysisError(f"{nqc}: is a directory, expected the nqc executable")
    out_dir = output.make_dir(out_dir)
    hist_csv, trials_csv = out_dir / f"randset-n{n}.csv", out_dir / f"randset-n{n}-trials.csv"
    txt = out_dir / f"randset-n{n}.txt"

    def command(hist_path, trials_path) -> list[str]:
        args = (nqc, "randset", n, "--trials", trials, "--seed", seed, "--csv", hist_path, "--trials-csv", trials_path)
        return [str(a) for a in args]

    with output.replacing(hist_csv) as tmp_hist, output.replacing(trials_csv) as tmp_trials:
        try:
            done = subprocess.run(command(tmp_hist, tmp_trials), capture_output=True, text=True, check=False)
        except OSError as e:
            raise AnalysisError(f"{nqc}: cannot run ({e.strerror})") from None
        if done.returncode != 0:
            message = f"{' '.join(command(hist_csv, trials_csv))}: exit {done.returncode}: {done.stderr.strip()}"
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
