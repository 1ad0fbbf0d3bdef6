"""Instance runs (a config's ``instances``: composition files and CSPLib prob079 .param files):
what each file and each ``diags`` gave.

An instance's outcome is a result: ``solved`` (a completion, checked), ``infeasible`` (proved to
have none) or ``gave_up`` (stopped by a limit, or an incomplete engine such as ``grigoryan`` or
``minconflicts`` found none). The tables count the outcomes and give the times of each verdict,
per group (analysis.groups: per run by default):

- :func:`by_diags`: per n and diags (the excluded diagonals a .param case used; composition
  files have none): files, cases, solved / infeasible / gave up, and the mean, median and
  maximum time of the solved cases and of the infeasibility proofs, the mean time of the cases
  that gave up;
- :func:`by_file`: per file and diags: its n and k, its outcome(s) and time.
- :func:`disagreements`: instances that one group solved and another proved infeasible (one of
  the engines is wrong: rerun the case with ``nqc rerun``).

Which rows are instance rows, and where the file and diags are stored, is analysis.load's.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from analysis import groups
from analysis.load import DIAGS, INSTANCE, instance_cases

OUTCOMES = ("solved", "infeasible", "gave_up")
#: Columns of :func:`by_diags` after the group columns.
BY_DIAGS_COLUMNS = [
    "n",
    DIAGS,
    "files",
    "cases",
    *OUTCOMES,
    "solved_mean_s",
    "solved_median_s",
    "solved_max_s",
    "infeasible_mean_s",
    "infeasible_median_s",
    "infeasible_max_s",
    "gave_up_mean_s",
]
#: Columns of :func:`by_file` after the group columns.
BY_FILE_COLUMNS = [INSTANCE, DIAGS, "n", "k", "cases", *OUTCOMES, "outcome", "mean_s", "nodes"]
#: Shown in place of the diags of a composition file.
NO_DIAGS = "-"
#: At most this many files are listed in Markdown (the CSV has them all).
MAX_LISTED_FILES = 50


def only(cases: pd.DataFrame) -> pd.DataFrame:
    """The rows of instance runs among `cases`."""
    return cases[instance_cases(cases).to_numpy()]


def _stats(t: np.ndarray) -> tuple[float, float, float]:
    if t.size == 0:
        return float("nan"), float("nan"), float("nan")
    return float(t.mean()), float(np.median(t)), float(t.max())


def _by_diags_one(cases: pd.DataFrame, time: str) -> pd.DataFrame:
    rows = []
    for (n, diags), part in cases.groupby(["n", DIAGS], sort=True, dropna=False):
        outcome = part["outcome"].astype(str).to_numpy()
        t = part[time].to_numpy(dtype=float)
        solved, infeasible = _stats(t[outcome == "solved"]), _stats(t[outcome == "infeasible"])
        gave_up = t[outcome == "gave_up"]
        rows.append(
            {
                "n": int(n),
                DIAGS: diags,
                "files": int(part[INSTANCE].nunique()),
                "cases": len(part),
                **{o: int(np.sum(outcome == o)) for o in OUTCOMES},
                "solved_mean_s": solved[0],
                "solved_median_s": solved[1],
                "solved_max_s": solved[2],
                "infeasible_mean_s": infeasible[0],
                "infeasible_median_s": infeasible[1],
                "infeasible_max_s": infeasible[2],
                "gave_up_mean_s": float(gave_up.mean()) if gave_up.size else float("nan"),
            }
        )
    out = pd.DataFrame(rows, columns=BY_DIAGS_COLUMNS)
    out[DIAGS] = out[DIAGS].astype("Int64")
    return out


def by_diags(cases: pd.DataFrame, by=groups.DEFAULT, time: str = "wall_s") -> pd.DataFrame:
    """Outcome counts and verdict times per group, n and diags, over the instance rows of
    `cases` (empty when there are none)."""
    inst = only(cases)
    if inst.empty:
        return pd.DataFrame(columns=BY_DIAGS_COLUMNS)
    return groups.per_group(inst, by, lambda part: _by_diags_one(part, time))


def _by_file_one(cases: pd.DataFrame, time: str) -> pd.DataFrame:
    rows = []
    for (path, diags), part in cases.groupby([INSTANCE, DIAGS], sort=True, dropna=False):
        outcome = part["outcome"].astype(str)
        counts = {o: int((outcome == o).sum()) for o in OUTCOMES}
        distinct = sorted(set(outcome))
        rows.append(
            {
                INSTANCE: path,
                DIAGS: diags,
                "n": int(part["n"].iloc[0]),
                "k": int(part["k"].iloc[0]),
                "cases": len(part),
                **counts,
                "outcome": distinct[0] if len(distinct) == 1 else "mixed",
                "mean_s": float(part[time].mean()),
                "nodes": float(part["nodes"].mean()) if "nodes" in part else float("nan"),
            }
        )
    out = pd.DataFrame(rows, columns=BY_FILE_COLUMNS)
    out[DIAGS] = out[DIAGS].astype("Int64")
    return out


def by_file(cases: pd.DataFrame, by=groups.DEFAULT, time: str = "wall_s") -> pd.DataFrame:
    """Per group, instance file and diags: n, k (queens given), cases, outcome counts, the
    outcome (or "mixed"), the mean time and nodes (empty when there are no instance rows)."""
    inst = only(cases)
    if inst.empty:
        return pd.DataFrame(columns=BY_FILE_COLUMNS)
    return groups.per_group(inst, by, lambda part: _by_file_one(part, time))


def disagreements(cases: pd.DataFrame, by=groups.DEFAULT) -> pd.DataFrame:
    """Instances (file and diags) that one group solved and another proved infeasible: a
    contradiction, one engine is wrong. Columns: instance, diags, then one column per group
    with its outcome(s)."""
    inst = only(cases)
    if inst.empty or groups.count(inst, by) < 2:
        return pd.DataFrame(columns=[INSTANCE, DIAGS])
    keys = groups.group_frame(inst, by)
    label = keys.astype(str).agg(" / ".join, axis=1)
    frame = pd.DataFrame(
        {
            INSTANCE: inst[INSTANCE].to_numpy(),
            DIAGS: inst[DIAGS].astype("Int64").to_numpy(),
            "group": label.to_numpy(),
            "outcome": inst["outcome"].astype(str).to_numpy(),
        }
    )
    verdicts = (
        frame.groupby([INSTANCE, DIAGS, "group"], dropna=False)["outcome"]
        .agg(lambda v: ",".join(sorted(set(v))))
        .unstack("group")
    )
    has = lambda part: verdicts.apply(lambda col: col.fillna("").str.contains(part)).any(axis=1)  # noqa: E731
    conflict = verdicts[has("solved") & has("infeasible")]
    return conflict.reset_index()


def short_paths(paths: pd.Series) -> tuple[pd.Series, str]:
    """The paths relative to their common directory, and that directory ("" when none)."""
    values = [str(p) for p in paths]
    if not values:
        return paths, ""
    try:
        common = os.path.commonpath([os.path.dirname(v) for v in values])
    except ValueError:
        return paths, ""
    if not common or common == os.sep:
        return paths, ""
    return pd.Series([os.path.relpath(v, common) for v in values], index=paths.index), common


def _s(x) -> str:
    return "" if x is None or (isinstance(x, float) and not np.isfinite(x)) else f"{x:.3g}"


def _diags_shown(v) -> str:
    return NO_DIAGS if pd.isna(v) else str(int(v))


def by_diags_markdown(table: pd.DataFrame) -> str:
    """:func:`by_diags` as Markdown: times of each verdict as mean / median / max seconds."""
    keys = list(table.columns[: list(table.columns).index("n")])
    shown = pd.DataFrame(
        {
            **{k: table[k].map(str) for k in keys},
            "n": table["n"].map(str),
            "diags": table[DIAGS].map(_diags_shown),
            "files": table["files"].map(str),
            "cases": table["cases"].map(str),
            "solved": table["solved"].map(str),
            "infeasible": table["infeasible"].map(str),
            "gave up": table["gave_up"].map(str),
            "solved: mean / median / max s": [
                " / ".join(_s(v) for v in (a, b, c)) if s else ""
                for a, b, c, s in zip(
                    table["solved_mean_s"], table["solved_median_s"], table["solved_max_s"], table["solved"]
                )
            ],
            "infeasible: mean / median / max s": [
                " / ".join(_s(v) for v in (a, b, c)) if s else ""
                for a, b, c, s in zip(
                    table["infeasible_mean_s"],
                    table["infeasible_median_s"],
                    table["infeasible_max_s"],
                    table["infeasible"],
                )
            ],
            "gave up: mean s": table["gave_up_mean_s"].map(_s),
        }
    )
    return shown.to_markdown(index=False, disable_numparse=True, colalign=["left"] * len(keys) + ["right"] * 10)


def by_file_markdown(table: pd.DataFrame, limit: int | None = MAX_LISTED_FILES) -> tuple[str, str]:
    """:func:`by_file` as Markdown (the first `limit` files), paths relative to their common
    directory; with several groups, one row per file and diags and one column per group
    ("outcome, seconds"), side by side. Returns (markdown, that directory)."""
    keys = list(table.columns[: list(table.columns).index(INSTANCE)])
    shown_paths, common = short_paths(table[INSTANCE])
    table = table.assign(_file=shown_paths.to_numpy(), _diags=table[DIAGS].map(_diags_shown).to_numpy())
    if keys:
        label = table[keys].astype(str).agg(" / ".join, axis=1)
        cell = [
            f"{o}, {_s(t)} s" + (f" ({c} cases)" if c > 1 else "")
            for o, t, c in zip(table["outcome"], table["mean_s"], table["cases"])
        ]
        wide = table.assign(_group=label.to_numpy(), _cell=cell).pivot_table(
            index=["_file", "_diags", "n", "k"], columns="_group", values="_cell", aggfunc="first", sort=False
        )
        wide = wide[list(dict.fromkeys(label))].fillna("").reset_index()
        part = wide if limit is None else wide.head(limit)
        shown = pd.DataFrame(
            {
                "file": part["_file"],
                "diags": part["_diags"],
                "n": part["n"].map(str),
                "k": part["k"].map(str),
                **{g: part[g] for g in wide.columns[4:]},
            }
        )
        return (
            shown.to_markdown(
                index=False,
                disable_numparse=True,
                colalign=["left"] + ["right"] * 3 + ["left"] * (len(shown.columns) - 4),
            ),
            common,
        )
    part = table if limit is None else table.head(limit)
    shown = pd.DataFrame(
        {
            "file": part["_file"],
            "diags": part["_diags"],
            "n": part["n"].map(str),
            "k": part["k"].map(str),
            "outcome": part["outcome"],
            "cases": part["cases"].map(str),
            "mean s": part["mean_s"].map(_s),
            "nodes": part["nodes"].map(lambda v: "" if not np.isfinite(v) else f"{v:.0f}"),
        }
    )
    return shown.to_markdown(index=False, disable_numparse=True, colalign=["left"] + ["right"] * 7), common


def file_rows(table: pd.DataFrame) -> int:
    """The rows :func:`by_file_markdown` shows without a limit (files x diags)."""
    return int(table[[INSTANCE, DIAGS]].drop_duplicates().shape[0]) if not table.empty else 0
