"""Instance runs (composition and .param files): outcomes and times per diags or file, contradictions."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from analysis import groups, output
from analysis.load import DIAGS, INSTANCE, instance_cases

OUTCOMES = ("solved", "infeasible", "gave_up")
#: The statistics of the times of each verdict in :func:`by_diags`.
VERDICT_TIMES = {"solved": ("mean", "median", "max"), "infeasible": ("mean", "median", "max"), "gave_up": ("mean",)}
#: Columns of :func:`by_diags` after the group columns.
BY_DIAGS_COLUMNS = ["n", DIAGS, "files", "cases", *OUTCOMES] + [
    f"{o}_{stat}_s" for o, stats in VERDICT_TIMES.items() for stat in stats
]
#: Columns of :func:`by_file` after the group columns.
BY_FILE_COLUMNS = [INSTANCE, DIAGS, "n", "k", "cases", *OUTCOMES, "outcome", "mean_s", "nodes"]
#: Shown in place of the diags of a composition file.
NO_DIAGS = "-"
#: At most this many files are listed in Markdown (the CSV has them all).
MAX_LISTED_FILES = 50
_STATS = {"mean": np.mean, "median": np.median, "max": np.max}


def _instance_rows(cases: pd.DataFrame, by, per_group, columns) -> pd.DataFrame:
    """``per_group(part)`` over the instance rows, stacked with the group columns first; diags as Int64."""
    inst = cases[instance_cases(cases).to_numpy()]
    if inst.empty:
        return pd.DataFrame(columns=columns)

    def one(part: pd.DataFrame) -> pd.DataFrame:
        out = pd.DataFrame(per_group(part), columns=columns)
        out[DIAGS] = out[DIAGS].astype("Int64")
        return out

    return groups.per_group(inst, by, one)


def by_diags(cases: pd.DataFrame, by=groups.DEFAULT, time: str = "wall_s") -> pd.DataFrame:
    """Per group, n and diags: files, cases, outcome counts and the times of each verdict (seconds)."""

    def rows(cases: pd.DataFrame) -> list[dict]:
        out = []
        for (n, diags), part in cases.groupby(["n", DIAGS], sort=True, dropna=False):
            outcome = part["outcome"].astype(str).to_numpy()
            t = part[time].to_numpy(dtype=float)
            row = {"n": int(n), DIAGS: diags, "files": int(part[INSTANCE].nunique()), "cases": len(part)}
            row |= {o: int(np.sum(outcome == o)) for o in OUTCOMES}
            for o, stats in VERDICT_TIMES.items():
                mine = t[outcome == o]
                row |= {f"{o}_{s}_s": float(_STATS[s](mine)) if mine.size else float("nan") for s in stats}
            out.append(row)
        return out

    return _instance_rows(cases, by, rows, BY_DIAGS_COLUMNS)


def by_file(cases: pd.DataFrame, by=groups.DEFAULT, time: str = "wall_s") -> pd.DataFrame:
    """Per group, file and diags: n, k, cases, outcome counts, the outcome (or 'mixed'), mean time and nodes."""

    def rows(cases: pd.DataFrame) -> list[dict]:
        out = []
        for (path, diags), part in cases.groupby([INSTANCE, DIAGS], sort=True, dropna=False):
            outcome = part["outcome"].astype(str)
            distinct = sorted(set(outcome))
            out.append(
                {
                    INSTANCE: path,
                    DIAGS: diags,
                    "n": int(part["n"].iloc[0]),
                    "k": int(part["k"].iloc[0]),
                    "cases": len(part),
                    **{o: int((outcome == o).sum()) for o in OUTCOMES},
                    "outcome": distinct[0] if len(distinct) == 1 else "mixed",
                    "mean_s": float(part[time].mean()),
                    "nodes": float(part["nodes"].mean()) if "nodes" in part else float("nan"),
                }
            )
        return out

    return _instance_rows(cases, by, rows, BY_FILE_COLUMNS)


def disagreements(cases: pd.DataFrame, by=groups.DEFAULT) -> pd.DataFrame:
    """Instances solved by one group and proved infeasible by another, with each group's verdicts."""
    inst = cases[instance_cases(cases).to_numpy()]
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
    keys = groups.label_columns(table)
    shown = {k: table[k].map(str) for k in keys} | {"n": table["n"].map(str), "diags": table[DIAGS].map(_diags_shown)}
    shown |= {c.replace("_", " "): table[c].map(str) for c in ("files", "cases", *OUTCOMES)}
    for o in ("solved", "infeasible"):
        times = zip(*(table[f"{o}_{s}_s"] for s in VERDICT_TIMES[o]), table[o])
        shown[f"{o}: mean / median / max s"] = [" / ".join(_s(v) for v in t[:-1]) if t[-1] else "" for t in times]
    shown["gave up: mean s"] = table["gave_up_mean_s"].map(_s)
    return output.markdown(pd.DataFrame(shown), ["left"] * len(keys) + ["right"] * 10)


def by_file_markdown(table: pd.DataFrame, limit: int | None = MAX_LISTED_FILES) -> tuple[str, str]:
    """The per-file table as Markdown (at most `limit` rows) and the directory common to its files."""
    keys = groups.label_columns(table, INSTANCE)
    shown_paths, common = short_paths(table[INSTANCE])
    table = table.assign(_file=shown_paths.to_numpy(), _diags=table[DIAGS].map(_diags_shown).to_numpy())

    def shown(part: pd.DataFrame, more: dict) -> pd.DataFrame:
        return pd.DataFrame(
            {"file": part["_file"], "diags": part["_diags"], "n": part["n"].map(str), "k": part["k"].map(str), **more}
        )

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
        frame = shown(part, {g: part[g] for g in wide.columns[4:]})
        return output.markdown(frame, ["left"] + ["right"] * 3 + ["left"] * (len(frame.columns) - 4)), common
    part = table if limit is None else table.head(limit)
    frame = shown(
        part,
        {
            "outcome": part["outcome"],
            "cases": part["cases"].map(str),
            "mean s": part["mean_s"].map(_s),
            "nodes": part["nodes"].map(lambda v: "" if not np.isfinite(v) else f"{v:.0f}"),
        },
    )
    return output.markdown(frame, ["left"] + ["right"] * 7), common


def file_rows(table: pd.DataFrame) -> int:
    """The rows :func:`by_file_markdown` shows without a limit (files x diags)."""
    return int(table[[INSTANCE, DIAGS]].drop_duplicates().shape[0]) if not table.empty else 0
