"""[Grigoryan]'s Table 1 per n (nqc aggregate) with 95% intervals; seconds, shares as fractions."""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
from scipy import stats

from analysis import groups, load, output, paper

#: Columns of :func:`table1`, in order.
COLUMNS = (
    "n cases mean_s median_s t90mean_s max_s bt0 bt1 bt2 bt3 bt_more false_negatives false_negative_share "
    "false_negative_share_lo false_negative_share_hi gave_up infeasible mean_backtracks mean_k mean_s_lo "
    "mean_s_hi t90mean_s_lo t90mean_s_hi bt0_lo bt0_hi"
).split()
#: Confidence level of every interval the analysis gives.
LEVEL = 0.95

#: Markdown headers of the columns shown in reports (the CSV has all of COLUMNS).
_MARKDOWN = {
    "n": "n",
    "cases": "cases",
    "mean_s": "mean s",
    "median_s": "median s",
    "t90mean_s": "t90mean s",
    "max_s": "max s",
    "bt0": "0 bt",
    "bt1": "1 bt",
    "bt2": "2 bt",
    "bt3": "3 bt",
    "bt_more": ">3 bt",
    "false_negatives": "false neg",
    "false_negative_share": "false neg share",
    "gave_up": "gave up",
}


def clopper_pearson(count, cases, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Exact two-sided interval (lo, hi) of the share count / cases (arrays or scalars)."""
    count, cases = np.asarray(count, dtype=float), np.asarray(cases, dtype=float)
    alpha = 1 - level
    lo = np.where(count > 0, stats.beta.ppf(alpha / 2, np.maximum(count, 1), cases - count + 1), 0.0)
    hi = np.where(count < cases, stats.beta.ppf(1 - alpha / 2, count + 1, np.maximum(cases - count, 1)), 1.0)
    return lo, hi


def mean_ci(times, level: float = LEVEL) -> tuple[float, float]:
    """`level` interval of the mean: mean -+ t_(m-1) SD / sqrt(m); NaN for fewer than 2 values."""
    t = np.asarray(times, dtype=float)
    if t.size < 2 or not np.all(np.isfinite(t)):
        return float("nan"), float("nan")
    half = stats.t.ppf(0.5 + level / 2, t.size - 1) * t.std(ddof=1) / np.sqrt(t.size)
    return float(t.mean() - half), float(t.mean() + half)


def t90mean_ci(times, level: float = LEVEL) -> tuple[float, float]:
    """Interval of the mean of the fastest 90% (winsorized SD, Tukey & McLaughlin; approximate)."""
    t = np.sort(np.asarray(times, dtype=float))
    fast = max(1, (t.size * 9) // 10)
    if fast < 2 or not np.all(np.isfinite(t)):
        return float("nan"), float("nan")
    winsorized = np.minimum(t, t[fast - 1])
    se = winsorized.std(ddof=1) / ((fast / t.size) * np.sqrt(t.size))
    centre = float(t[:fast].mean())
    half = stats.t.ppf(0.5 + level / 2, fast - 1) * se
    return centre - half, centre + half


#: Table 1's columns a frame may lack: those of a solved derived case.
_DEFAULTS = {"outcome": "solved", "false_negative": False, "limit": "none", "instance": "", "origin": "derived"}


def summary(cases: pd.DataFrame, time: str = "wall_s") -> pd.DataFrame:
    """nqc's Table 1 of `cases` (``nqc aggregate --rows -``), per n; missing columns are a solved derived case's."""
    rows = pd.DataFrame(index=cases.index)
    for name, column in load.COLUMNS.items():
        default = _DEFAULTS.get(name, next(iter(column.get("values", {0: 0}))))
        rows[name] = cases[name] if name in cases.columns and name != "instance" else default
    rows["wall_s"] = cases[time]
    rows["outcome"] = rows["outcome"].astype(str)
    rows["false_negative"] = np.where(rows["false_negative"].astype(bool), "TRUE", "FALSE")
    text = rows.to_csv(index=False, float_format="%.17g").encode()
    stdout = load.run_nqc("aggregate", "--rows", "-", "--csv", "-", stdin=text)
    return pd.read_csv(io.BytesIO(stdout), float_precision="round_trip")


def table1(cases: pd.DataFrame, time: str = "wall_s") -> pd.DataFrame:
    """:func:`summary` of `cases` with the 95% intervals, one row per n ascending."""
    if cases.empty:
        return pd.DataFrame(columns=COLUMNS)
    out = summary(cases, time)
    fn_lo, fn_hi = clopper_pearson(out["false_negatives"], out["cases"])
    bt0_lo, bt0_hi = clopper_pearson(np.rint(out["bt0"] * out["cases"]), out["cases"])
    out["false_negative_share"] = out["false_negatives"] / out["cases"]
    out["false_negative_share_lo"], out["false_negative_share_hi"] = fn_lo, fn_hi
    out["bt0_lo"], out["bt0_hi"] = bt0_lo, bt0_hi
    by_n = {n: group[time].to_numpy(dtype=float) for n, group in cases.groupby("n", sort=True)}
    intervals = [(*mean_ci(by_n[n]), *t90mean_ci(by_n[n])) for n in out["n"]]
    out[["mean_s_lo", "mean_s_hi", "t90mean_s_lo", "t90mean_s_hi"]] = pd.DataFrame(intervals, index=out.index)
    return out[COLUMNS]


def table_by(cases: pd.DataFrame, by=groups.DEFAULT, time: str = "wall_s") -> pd.DataFrame:
    """:func:`table1` per group (analysis.groups), stacked with the group columns first."""
    return groups.per_group(cases, by, lambda part: table1(part, time))


#: Columns of :func:`false_negative_table`.
FN_COLUMNS = ["n", "cases", "false_negatives", "share", "lo", "hi", "paper", "verdict", "cases_needed", "note"]


def cases_needed(bound: float, level: float = LEVEL) -> int:
    """The least number of cases, none a false negative, whose 95% upper bound is below `bound`."""
    return int(math.floor(math.log((1 - level) / 2) / math.log1p(-bound))) + 1


def power_note(cases: int, fn: int, lo: float, hi: float, bound: float | None) -> str:
    """In words, what `fn` false negatives in `cases` (interval lo..hi) say about `bound` (None: none seen)."""
    if bound is None:
        return (
            f"none in {cases:,}: consistent (95% upper bound {hi:.2g})"
            if fn == 0
            else f"{fn} seen where the paper saw none"
        )
    if hi < bound:
        return f"the 95% upper bound {hi:.2g} is below {bound:g}"
    if lo >= bound:
        return f"the 95% lower bound {lo:.2g} is above {bound:g}: more than the paper's bound"
    if fn == 0:
        return (
            f"the sample cannot test the claim: none in {cases:,} cases leaves a 95% upper bound of "
            f"{hi:.2g}, above {bound:g}; it takes {cases_needed(bound):,} cases with none seen"
        )
    return f"the sample cannot tell: the 95% interval {lo:.2g}..{hi:.2g} contains {bound:g}"


def fn_row(label, cases: int, fn: int, bound: float | None) -> dict:
    """A row of :func:`false_negative_table`: `fn` false negatives in `cases` against `bound`."""
    lo, hi = (float(v) for v in clopper_pearson(fn, cases))
    if bound is None:  # the paper saw none
        claim, verdict = "none seen", ("none seen" if fn == 0 else "some seen")
    else:
        claim = f"< {bound:g}"
        verdict = "below" if hi < bound else "above" if lo >= bound else "cannot tell"
    return {
        "n": label,
        "cases": cases,
        "false_negatives": fn,
        "share": fn / cases if cases else float("nan"),
        "lo": lo,
        "hi": hi,
        "paper": claim,
        "verdict": verdict,
        "cases_needed": cases_needed(bound) if bound is not None else None,
        "note": power_note(cases, fn, lo, hi, bound),
    }


def false_negative_table(table: pd.DataFrame) -> pd.DataFrame:
    """False negative share per n (and pooled per claim), exact interval, against the paper's claim."""
    keys = groups.label_columns(table)
    if keys:
        frames = [
            groups.labelled(
                false_negative_table(part.drop(columns=keys)), dict(zip(keys, label if len(keys) > 1 else (label,)))
            )
            for label, part in table.groupby(keys if len(keys) > 1 else keys[0], sort=False)
        ]
        return pd.concat(frames, ignore_index=True)
    rows, pooled = [], []
    for lo_n, hi_n, bound in paper.FALSE_NEGATIVE_CLAIMS:
        part = table[(table["n"] >= lo_n) & ((table["n"] < hi_n) if hi_n is not None else True)]
        for _, r in part.iterrows():
            rows.append(fn_row(int(r["n"]), int(r["cases"]), int(r["false_negatives"]), bound))
        if len(part) > 1:
            label = f"{int(part['n'].min())}..{int(part['n'].max())}"
            pooled.append(fn_row(label, int(part["cases"].sum()), int(part["false_negatives"].sum()), bound))
    out = pd.DataFrame(rows + pooled, columns=FN_COLUMNS)
    out["cases_needed"] = out["cases_needed"].astype("Int64")
    return out


def false_negative_markdown(fn: pd.DataFrame) -> str:
    """:func:`false_negative_table` as Markdown (shares to 3 digits, cases needed where untestable)."""

    def frac(x: float) -> str:
        return "0" if x == 0 else f"{x:.3g}"

    keys = groups.label_columns(fn)

    def verdict(r) -> str:
        if r["verdict"] == "cannot tell" and r["false_negatives"] == 0:
            return f"cannot tell: needs {r['cases_needed']:,} cases"
        return r["verdict"]

    shown = pd.DataFrame(
        {
            **{k: fn[k].map(str) for k in keys},
            "n": fn["n"].map(str),
            "cases": fn["cases"].map(str),
            "false neg": fn["false_negatives"].map(str),
            "share": fn["share"].map(frac),
            "95% interval": [f"{frac(a)} .. {frac(b)}" for a, b in zip(fn["lo"], fn["hi"])],
            "paper": fn["paper"],
            "verdict": [verdict(r) for _, r in fn.iterrows()],
        }
    )
    return output.markdown(shown, ["left"] * len(keys) + ["right"] * 5 + ["left"] * 2)


def to_markdown(table: pd.DataFrame) -> str:
    """Table 1 as Markdown: times (3 digits), backtrack shares in %, false negative share as a fraction."""
    keys = groups.label_columns(table)

    def cell(col: str):
        if col.endswith("_s"):
            return "{:.3g}".format
        if col.startswith("bt"):
            return lambda x: f"{100 * x:.2f}%"
        return (lambda x: "0" if x == 0 else f"{x:.2e}") if col.endswith("share") else str

    shown = pd.DataFrame(
        {
            **{k: table[k].map(str) for k in keys},
            **{header: table[col].map(cell(col)) for col, header in _MARKDOWN.items()},
        }
    )
    return output.markdown(shown, ["left"] * len(keys) + ["right"] * (len(shown.columns) - len(keys)))
