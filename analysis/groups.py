"""Groups of cases: one per run (config and engine) by default, else by the ``--by`` columns (binned)."""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np
import pandas as pd

from analysis.errors import AnalysisError
from analysis.load import CONFIG_HASH, ENGINE, EXPERIMENT, SOURCE, AnalysisWarning, run_nqc
from analysis.randset import INTEGER, NUMBER

#: The pseudo-column of the default grouping: one group per run (config and engine).
RUN = "run"
#: Columns computed from the cases for --by.
DERIVED = {"k/n": lambda cases: cases["k"].to_numpy(dtype=float) / cases["n"].to_numpy(dtype=float)}
#: Columns that are not groups: tables are per n already; times, counts per case are not labels.
NOT_GROUPS = {"n": "the tables are per n already"}
#: A numeric column with more distinct values than this needs bins.
MAX_VALUES = 20


@dataclass(frozen=True)
class By:
    """One grouping: a column, optionally binned by `edges` or into `bins` quantile bins."""

    column: str
    edges: tuple[float, ...] | None = None
    bins: int | None = None

    def __str__(self) -> str:
        if self.edges is not None:
            return f"{self.column}:{','.join(_number(e) for e in self.edges)}"
        return f"{self.column}:{self.bins}" if self.bins is not None else self.column


DEFAULT = (By(RUN),)


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


#: The number of quantile bins of ``COLUMN:B``.
BINS_MIN, BINS_MAX = 2, 100


def parse_by(text: str) -> By:
    """``COLUMN``, ``COLUMN:B`` (B quantile bins) or ``COLUMN:E1,E2,...`` (ascending edges)."""
    column, sep, spec = text.partition(":")
    column = column.strip()
    if not column:
        raise AnalysisError(f"--by '{text}': expected COLUMN, COLUMN:BINS or COLUMN:EDGE,EDGE,...")
    if column in NOT_GROUPS:
        raise AnalysisError(f"--by {column}: {NOT_GROUPS[column]}")
    if not sep:
        return By(column)
    parts = spec.split(",")
    if len(parts) == 1 and INTEGER.fullmatch(parts[0]):
        bins = int(parts[0])
        if not BINS_MIN <= bins <= BINS_MAX:
            raise AnalysisError(
                f"--by {text}: expected {BINS_MIN}..{BINS_MAX} quantile bins, got {bins} "
                f"(one bin edge is written with a decimal point: {column}:{bins}.0)"
            )
        return By(column, bins=bins)
    if not all(NUMBER.fullmatch(p) for p in parts):
        raise AnalysisError(
            f"--by {text}: expected a number of bins or comma-separated bin edges (decimal "
            f"numbers), e.g. {column}:4 or {column}:1,10,100"
        )
    edges = tuple(float(p) for p in parts)
    if not all(math.isfinite(e) for e in edges) or any(b <= a for a, b in zip(edges, edges[1:])):
        raise AnalysisError(f"--by {text}: the bin edges must be finite numbers in ascending order")
    return By(column, edges=edges)


def engines(cases: pd.DataFrame) -> pd.Series:
    """The engine of each case: the ``engine`` member, else the config's engine (older files)."""
    if ENGINE in cases.columns:
        return cases[ENGINE].astype(str)
    by_hash = {s.attrs.get("config_hash", ""): str(s.config.get("engine", "?")) for s in cases.attrs.get("sources", [])}
    return cases[CONFIG_HASH].astype(str).map(lambda h: by_hash.get(h, "?"))


def run_labels(cases: pd.DataFrame) -> pd.Categorical:
    """One label per run (config_hash and engine), ordered by first appearance."""
    keys = pd.DataFrame(
        {
            "hash": cases[CONFIG_HASH].astype(str).to_numpy(),
            "engine": engines(cases).to_numpy(),
            "experiment": cases[EXPERIMENT].astype(str).to_numpy(),
        }
    )
    runs = keys.drop_duplicates(["hash", "engine"])
    candidates = [
        lambda r: r.engine,
        lambda r: r.experiment or r.engine,
        lambda r: f"{r.experiment or '?'} / {r.engine}",
        lambda r: f"{r.experiment or '?'} / {r.engine} ({r.hash[:8] or 'no hash'})",
        lambda r: f"{r.experiment or '?'} / {r.engine} ({r.hash or 'no hash'})",
    ]
    for make in candidates:
        labels = [make(r) for r in runs.itertuples()]
        if len(set(labels)) == len(labels):
            break
    names = {(r.hash, r.engine): label for r, label in zip(runs.itertuples(), labels)}
    values = [names[(h, e)] for h, e in zip(keys["hash"], keys["engine"])]
    return pd.Categorical(values, categories=list(dict.fromkeys(labels)), ordered=True)


def _range_label(lo: float | None, hi: float | None, integer: bool, closed: bool = False) -> str:
    """[lo, hi) (or [lo, hi] when `closed`) as a label: '1..9' for integers, '[0.25, 0.5)' else; open ends."""
    if lo is None:
        return f"<= {_number(math.ceil(hi) - 1)}" if integer else f"< {_number(hi)}"
    if hi is None:
        return f">= {_number(math.ceil(lo))}" if integer else f">= {_number(lo)}"
    if integer:
        a, b = math.ceil(lo), (math.floor(hi) if closed else math.ceil(hi) - 1)
        return f"{a}" if a == b else f"{a}..{b}"
    return f"[{_number(lo)}, {_number(hi)}{']' if closed else ')'}"


def _binned(values: np.ndarray, by: By) -> pd.Categorical:
    """`values` in the bins of `by`, labelled as ranges, categories in ascending order."""
    if not np.all(np.isfinite(values)):
        raise AnalysisError(f"--by {by}: column {by.column} has values that are not finite numbers")
    integer = bool(np.all(values == np.round(values)))
    if by.bins is not None:  # quantile bins: [min, q1), [q1, q2), ..., [q_last, max]
        inner = np.quantile(values, np.linspace(0, 1, by.bins + 1))[1:-1]
        if integer:
            inner = np.ceil(inner)
        lo_all, hi_all = float(values.min()), float(values.max())
        inner = np.unique(inner[(inner > lo_all) & (inner <= hi_all)])
        bounds = [lo_all, *inner.tolist(), hi_all]
        cut = np.searchsorted(inner, values, side="right")
        labels = [
            _range_label(bounds[i], bounds[i + 1], integer, closed=(i == len(bounds) - 2))
            for i in range(len(bounds) - 1)
        ]
    else:  # edges: below the first, [e0, e1), ..., at or above the last
        edges = np.asarray(by.edges, dtype=float)
        cut = np.searchsorted(edges, values, side="right")
        labels = [_range_label(None, edges[0], integer)]
        labels += [_range_label(a, b, integer) for a, b in zip(edges, edges[1:])]
        labels.append(_range_label(edges[-1], None, integer))
    used = sorted(set(cut.tolist()))
    return pd.Categorical([labels[i] for i in cut], categories=[labels[i] for i in used], ordered=True)


def _values(cases: pd.DataFrame, column: str) -> pd.Series | np.ndarray:
    if column == RUN:
        return run_labels(cases)
    if column in DERIVED:
        return DERIVED[column](cases)
    if column not in cases.columns:
        known = sorted([RUN, *DERIVED, *(c for c in cases.columns if c not in NOT_GROUPS and c != SOURCE)])
        raise AnalysisError(f"--by {column}: no such column (one of: {', '.join(known)})")
    return cases[column]


def group_frame(cases: pd.DataFrame, by=DEFAULT) -> pd.DataFrame:
    """The group of each case: one column per `by` (named as its column), categorical labels in order."""
    out = {}
    for b in by:
        values = _values(cases, b.column)
        if b.edges is not None or b.bins is not None:
            try:
                numeric = np.asarray(values, dtype=float)
            except (TypeError, ValueError):
                raise AnalysisError(f"--by {b}: column {b.column} is not numeric; give it without bins") from None
            out[b.column] = _binned(numeric, b)
        elif isinstance(values, pd.Categorical):
            out[b.column] = values
        else:
            series = pd.Series(values, index=cases.index)
            distinct = series.dropna().unique()
            if pd.api.types.is_numeric_dtype(series) and len(distinct) > MAX_VALUES:
                raise AnalysisError(
                    f"--by {b.column}: {len(distinct)} distinct values; give bins, e.g. "
                    f"--by {b.column}:4 (quartiles) or --by {b.column}:EDGE,EDGE,... (edges)"
                )
            order = sorted(distinct, key=lambda v: (isinstance(v, str), v)) if len(distinct) else []
            out[b.column] = pd.Categorical(
                series.astype(object).where(series.notna(), "(none)"),
                categories=[*order, *(["(none)"] if series.isna().any() else [])],
                ordered=True,
            )
    return pd.DataFrame(out, index=cases.index)


#: Columns whose groups are whole runs (or unions of them), for tables needing all of a point's cases.
WHOLE_RUNS = (RUN, ENGINE, EXPERIMENT, CONFIG_HASH)


def whole_runs(by, what: str, why: str) -> None:
    """AnalysisError for the first of `by` that could split a run (not WHOLE_RUNS, or binned)."""
    for b in by:
        if b.column not in WHOLE_RUNS or b.edges is not None or b.bins is not None:
            accepted = ", ".join(WHOLE_RUNS[:-1]) + f" or {WHOLE_RUNS[-1]}"
            raise AnalysisError(f"--by {b}: {what} groups whole runs only ({why}): give --by {accepted}, or no --by")


#: nqc's refusal of runs one table would mix (aggregate.cpp check_pooling): the runs and what differs.
_NQC_MIXED = re.compile(
    r"(?P<runs>.+) are (?P<what>runs of other engines or settings \(.*\)): one table would mix them"
)


def one_setting(cases: pd.DataFrame, by, what: str) -> None:
    """AnalysisError when a group of `by` pools runs nqc would not pool into one table (``nqc rows --pool``: other
    engine settings, or a case in two runs)."""
    if not by or RUN in columns(by):  # one table already checked by nqc, or a run per group at most
        return
    run_paths: dict[str, list[str]] = {}  # config_hash -> its runs (a shard file stands for its directory)
    for s in cases.attrs.get("sources", []):
        path = Path(s.path)
        run = str(path.parent.parent if path.parent.name == "shards" else path)
        paths = run_paths.setdefault(str(s.attrs.get("config_hash", "")), [])
        if run not in paths:
            paths.append(run)
    for labels, part in split(cases, by, warn=False):
        runs = [h for h in dict.fromkeys(part[CONFIG_HASH].astype(str)) if h in run_paths]
        if len(runs) < 2:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the reading itself warned already (unfinished runs)
                run_nqc("rows", *(p for h in runs for p in run_paths[h]), "--pool")
        except AnalysisError as e:
            where = ", ".join(f"{k} = {v}" for k, v in labels.items())
            found = _NQC_MIXED.match(str(e))
            if not found:  # a case in two runs: nqc's line says it
                raise AnalysisError(f"--by {' '.join(map(str, by))}: the group {where} holds {e}") from None
            raise AnalysisError(
                f"--by {' '.join(map(str, by))}: the group {where} holds {found['runs']}, {found['what']}: "
                f"{what} would mix cases run under other limits or engine options; give --by run (the default: "
                "one group per run)"
            ) from None


def columns(by=DEFAULT) -> list[str]:
    """The names of the group columns of `by`, in order."""
    return [b.column for b in by]


def split(cases: pd.DataFrame, by=DEFAULT, warn: bool = True) -> Iterator[tuple[dict, pd.DataFrame]]:
    """(labels, cases) per non-empty group in label order; `warn` when a group pools engines."""
    keys = group_frame(cases, by)
    names = list(keys.columns)
    pooled = []
    grouper = [keys[c] for c in names] if len(names) > 1 else keys[names[0]]
    for label, part in cases.groupby(grouper, sort=True, observed=True):
        label = label if len(names) > 1 else (label,)
        labels = dict(zip(names, (str(v) for v in label)))
        if warn and not ({RUN, ENGINE} & set(names)):
            found = sorted(set(engines(part)))
            if len(found) > 1:
                pooled.append((labels, found))
        yield labels, part
    if pooled:
        labels, found = pooled[0]
        where = ", ".join(f"{k} = {v}" for k, v in labels.items())
        warnings.warn(
            f"--by {' '.join(names)}: the group {where} pools the engines {', '.join(found)}"
            + (f" (and {len(pooled) - 1} more groups)" if len(pooled) > 1 else "")
            + "; add --by run or --by engine to keep them apart",
            AnalysisWarning,
            stacklevel=3,
        )


def count(cases: pd.DataFrame, by=DEFAULT) -> int:
    """The number of non-empty groups (1 when `by` is empty: all cases pooled)."""
    if not by:
        return 1
    keys = group_frame(cases, by)
    return int(keys.drop_duplicates().shape[0])


def per_group(cases: pd.DataFrame, by, make, warn: bool = True) -> pd.DataFrame:
    """``make(part)`` per group stacked, the group columns first; one default group: ``make(cases)`` alone."""
    if not by or (tuple(by) == DEFAULT and count(cases, by) == 1):
        return make(cases)
    frames = [labelled(make(part), labels) for labels, part in split(cases, by, warn)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns(by))


def labelled(frame: pd.DataFrame, labels: dict) -> pd.DataFrame:
    """`frame` with a column per group label (name -> value) first; `frame` is changed."""
    for i, (name, value) in enumerate(labels.items()):
        frame.insert(i, name, value)
    return frame


def label_columns(frame: pd.DataFrame, first: str = "n") -> list[str]:
    """The group columns of a per-group table: those before its column `first`."""
    return list(frame.columns[: list(frame.columns).index(first)])
