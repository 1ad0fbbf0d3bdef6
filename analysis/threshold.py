"""The completion threshold a(n) ([OEIS-A374013]) read off the canonical cases."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from analysis import groups, output
from analysis.errors import AnalysisError
from analysis.load import CANONICAL, ORBIT_SIZE, SOURCE, origin_cases
from analysis.randset import csv_fields, csv_integer, csv_once, read_rows
from analysis.schema import N_MAX

#: The published terms of A374013 (a(4..20)), as the OEIS gives them.
OEIS = Path(__file__).resolve().parent / "data" / "oeis-a374013.csv"
#: How outputs name them.
OEIS_NAME = "OEIS A374013"
#: Columns of :func:`by_k` after the group columns.
BY_K_COLUMNS = ["n", "k", "cases", "compositions", "solved", "infeasible", "gave_up", "infeasible_compositions"]
#: Columns of :func:`thresholds` after the group columns.
COLUMNS = ["n", "ks", "a", "a_lo", "a_hi", "note", "witness", "witnesses", "oeis", "agreement"]


def read_oeis(path: Path = OEIS) -> dict[int, int]:
    """a(n) by n from a CSV with the header n,a (each n once)."""
    header, rows = read_rows(path, kind="a CSV of a(n)", expected="n,a", directory="a CSV of a(n)")
    if header != ["n", "a"]:
        raise AnalysisError(f"{path}: header '{','.join(header)}', expected n,a")
    terms, seen = {}, {}
    for line, row in rows:
        n_text, a_text = csv_fields(path, line, row, header)
        n = csv_integer(f"{path}: row {line}, column n", n_text, 1, N_MAX, f"a board size in 1..{N_MAX}")
        csv_once(seen, n, f"{path}: row {line}, column n", f"n = {n}", line)
        terms[n] = csv_integer(f"{path}: row {line}, column a", a_text, 0, n, f"a number of queens in 0..n = 0..{n}")
    return terms


def _canonical(cases: pd.DataFrame, by) -> pd.DataFrame:
    """The canonical cases; an AnalysisError when there are some and `by` could split a board size."""
    canonical = origin_cases(cases, CANONICAL)
    if not canonical.empty:
        groups.whole_runs(by, "the completion threshold", "a(n) is read off every case of n, of every k")
        groups.one_setting(canonical, by, "a board size's certificate")
    return canonical


def by_k(cases: pd.DataFrame, by=groups.DEFAULT) -> pd.DataFrame:
    """Per group, n and k of the canonical cases: cases, compositions, outcomes, infeasible compositions."""

    def rows(part: pd.DataFrame) -> pd.DataFrame:
        out = []
        for (n, k), cell in part.groupby(["n", "k"], sort=True):
            outcome = cell["outcome"].astype(str).to_numpy()
            orbit = cell[ORBIT_SIZE].to_numpy(dtype=np.int64)
            counts = [int(np.sum(outcome == o)) for o in ("solved", "infeasible", "gave_up")]
            out.append(
                [int(n), int(k), len(cell), int(orbit.sum()), *counts, int(orbit[outcome == "infeasible"].sum())]
            )
        return pd.DataFrame(out, columns=BY_K_COLUMNS)

    canonical = _canonical(cases, by)
    return pd.DataFrame(columns=BY_K_COLUMNS) if canonical.empty else groups.per_group(canonical, by, rows)


#: The note of a board without solution (n = 2, 3: every k = 1 case infeasible): a(n) undefined.
NO_SOLUTION = "no solution: every case of k = 1 is infeasible, so not even the empty board completes"


def _bounds(n: int, cells: pd.DataFrame, complete: bool) -> tuple[int | None, int | None, bool, str]:
    """(lower bound, upper bound, settled, note) of a(n) from the :func:`by_k` rows of n."""
    at = cells.set_index("k")
    infeasible = [int(k) for k in at.index if at.loc[k, "infeasible"] > 0]
    hi = min(infeasible) - 1 if infeasible else None
    lo = 0
    while lo + 1 in at.index and at.loc[lo + 1, "infeasible"] == 0 and at.loc[lo + 1, "gave_up"] == 0:
        lo += 1
    if not complete:
        return None, hi, False, "read from shard files: the run may be unfinished, its cases incomplete"
    if 1 in at.index and at.loc[1, "infeasible"] == at.loc[1, "cases"] and at.loc[1, "compositions"] == n * n:
        return None, None, False, NO_SOLUTION  # every cell's queen infeasible: no solution at all
    if lo == hi or lo == n:
        return lo, lo, True, ""
    top = hi if hi is not None else int(at.index.max())
    notes, start = [], None  # in the order of k: the ranges of k not run, the k with cases that gave up
    for k in range(1, top + 2):
        if k <= top and k not in at.index:
            start = k if start is None else start
            continue
        if start is not None:
            notes.append(f"k = {output.ranges_text(range(start, k))} not run")
            start = None
        gave_up = int(at.loc[k, "gave_up"]) if k <= top else 0
        if gave_up:
            notes.append(f"k = {k}: {output.plural(gave_up, 'case')} gave up")
    if hi is None and top < n:
        notes.append(f"k = {top + 1} not run: no infeasible case up to k = {top}")
    return lo, hi, False, "; ".join(notes)


def thresholds(cases: pd.DataFrame, by=groups.DEFAULT, oeis: dict[int, int] | None = None) -> pd.DataFrame:
    """Per group and n: a(n) when settled, else its bounds and a note; the witness (lowest infeasible case at k =
    a_hi + 1); the OEIS term and agreement."""
    oeis = read_oeis() if oeis is None else oeis
    shards = {str(s.path) for s in cases.attrs.get("sources", []) if s.launches is None}

    def rows(part: pd.DataFrame) -> pd.DataFrame:
        counts = by_k(part, ())
        out = []
        for n, cells in counts.groupby("n", sort=True):
            complete = not part.loc[part["n"] == n, SOURCE].astype(str).isin(shards).any()
            lo, hi, settled, note = _bounds(int(n), cells, complete)
            a = lo if settled else None
            witness, witnesses = None, 0
            if hi is not None and hi < n:
                wit = part[(part["n"] == n) & (part["k"] == hi + 1) & (part["outcome"].astype(str) == "infeasible")]
                witness, witnesses = int(wit["case_id"].min()), len(wit)
            term = oeis.get(int(n))
            agreement = ""
            if term is not None:
                inside = note != NO_SOLUTION and (lo is None or lo <= term) and (hi is None or term <= hi)
                agreement = "agrees" if a is not None and a == term else "within bounds" if inside else "differs"
            ks = output.ranges_text(cells["k"])
            out.append([int(n), ks, a, lo, hi, note, witness, witnesses, term, agreement])
        frame = pd.DataFrame(out, columns=COLUMNS)
        for name in ("a", "a_lo", "a_hi", "witness", "oeis"):
            frame[name] = frame[name].astype("Int64")
        return frame

    canonical = _canonical(cases, by)
    return pd.DataFrame(columns=COLUMNS) if canonical.empty else groups.per_group(canonical, by, rows)


def _int(v) -> str:
    return "" if pd.isna(v) else str(int(v))


def _shown_a(r) -> str:
    """a(n) as shown: the value, 'undefined', or 'open: LO..HI'."""
    if not pd.isna(r.a):
        return _int(r.a)
    return "undefined" if r.note == NO_SOLUTION else f"open: {_int(r.a_lo) or '?'}..{_int(r.a_hi) or r.n}"


def to_markdown(table: pd.DataFrame) -> str:
    """:func:`thresholds` as Markdown: a(n), else its bounds and what is missing."""
    keys = groups.label_columns(table)
    shown = {k: table[k].map(str) for k in keys} | {"n": table["n"].map(str), "k run": table["ks"]}
    shown["a(n)"] = [_shown_a(r) for r in table.itertuples()]
    shown["witness case (k = a(n) + 1)"] = [
        f"{_int(w)}" + (f" (of {c} infeasible cases)" if c > 1 else "") if not pd.isna(w) else ""
        for w, c in zip(table["witness"], table["witnesses"])
    ]
    shown[OEIS_NAME] = table["oeis"].map(_int)
    shown["agreement"] = table["agreement"]
    shown["note"] = table["note"]
    return output.markdown(pd.DataFrame(shown), ["left"] * len(keys) + ["right"] * 5 + ["left"] * 2)


def by_k_markdown(table: pd.DataFrame) -> str:
    """:func:`by_k` as Markdown."""
    keys = groups.label_columns(table)
    shown = {k: table[k].map(str) for k in keys}
    shown |= {c.replace("_", " "): table[c].map(str) for c in BY_K_COLUMNS}
    return output.markdown(pd.DataFrame(shown), ["left"] * len(keys) + ["right"] * len(BY_K_COLUMNS))


def summary(table: pd.DataFrame, oeis: dict[int, int] | None = None) -> list[str]:
    """Sentences on :func:`thresholds`: settled, open, undefined, against the OEIS terms."""
    oeis = read_oeis() if oeis is None else oeis
    keys = groups.label_columns(table)
    where = lambda r: " / ".join(str(getattr(r, k)) for k in keys) + ": " if keys else ""  # noqa: E731
    settled = table[table["a"].notna()]
    undefined = table[table["note"] == NO_SOLUTION]
    unsettled = table[table["a"].isna() & (table["note"] != NO_SOLUTION)]
    compared = table[table["agreement"] != ""]
    line = f"a(n) settled for {len(settled)} of {len(table)} board sizes"
    if not settled.empty:
        line += ": " + ", ".join(f"{where(r)}a({r.n}) = {int(r.a)}" for r in settled.itertuples())
    lines = [line + "."]
    if not unsettled.empty:
        lines.append(
            "Not settled: "
            + "; ".join(
                f"{where(r)}a({r.n}) in {_int(r.a_lo) or '?'}..{_int(r.a_hi) or '?'} ({r.note})"
                for r in unsettled.itertuples()
            )
            + "."
        )
    if not undefined.empty:
        ns = ", ".join(f"{where(r)}a({r.n})" for r in undefined.itertuples())
        lines.append(f"Undefined ({NO_SOLUTION}): {ns}.")
    if not compared.empty:
        counts = compared["agreement"].value_counts()
        lines.append(
            f"Against {OEIS_NAME} ({len(compared)} n with a published term): "
            + ", ".join(f"{counts[v]} {v}" for v in ("agrees", "within bounds", "differs") if v in counts)
            + "."
        )
    if oeis:
        first, last = min(oeis), max(oeis)
        below = sorted({int(n) for n in table["n"] if n < first})
        above = sorted({int(n) for n in table["n"] if n > last})
        if below:
            lines.append(f"No published term for n = {output.ranges_text(below)}: {OEIS_NAME} starts at n = {first}.")
        if above:
            lines.append(
                f"No published term for n = {output.ranges_text(above)}: the terms read here end at n = {last}."
            )
    return lines
