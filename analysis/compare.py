"""Runs side by side per n and group, with each group's mean time as a ratio to a baseline's (delta method on log r:
paired over the same compositions, else Welch)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from analysis import groups, output
from analysis import table as table_mod
from analysis.errors import AnalysisError
from analysis.load import COMPOSITION_KEYS

#: Columns of :func:`comparison` after the group columns.
COLUMNS = (
    "n cases mean_s mean_s_lo mean_s_hi median_s t90mean_s t90mean_s_lo t90mean_s_hi bt0 bt0_lo bt0_hi "
    "false_negatives false_negative_share false_negative_share_lo false_negative_share_hi gave_up infeasible "
    "ratio ratio_lo ratio_hi paired verdict"
).split()
#: The verdict where the baseline has no case at that n.
NO_BASELINE = "n/a (no baseline cases)"
#: The label of a group made of several --by columns.
SEPARATOR = " / "


def label_of(row, keys: list[str]) -> str:
    """The label of a group (its values of the group columns, joined)."""
    return SEPARATOR.join(str(row[k]) for k in keys)


def ratio_ci(
    baseline: np.ndarray, other: np.ndarray, paired: bool, level: float = table_mod.LEVEL
) -> tuple[float, float, float]:
    """mean(other) / mean(baseline) with its `level` interval (delta method on the log; `paired`: aligned pairs)."""
    x, y = np.asarray(baseline, dtype=float), np.asarray(other, dtype=float)
    mx, my = (v.mean() if v.size else float("nan") for v in (x, y))
    if not (mx > 0 and my > 0 and math.isfinite(mx) and math.isfinite(my)):
        return float("nan"), float("nan"), float("nan")
    r = my / mx
    if paired:
        m = x.size
        if m < 2:
            return r, float("nan"), float("nan")
        cov = np.cov(x, y, ddof=1)
        var = cov[1, 1] / (m * my * my) + cov[0, 0] / (m * mx * mx) - 2 * cov[0, 1] / (m * mx * my)
        df = m - 1
    else:
        if x.size < 2 or y.size < 2:
            return r, float("nan"), float("nan")
        vx = x.var(ddof=1) / (x.size * mx * mx)
        vy = y.var(ddof=1) / (y.size * my * my)
        var = vx + vy
        df = var * var / (vx * vx / (x.size - 1) + vy * vy / (y.size - 1)) if var > 0 else float(x.size + y.size - 2)
    var = max(float(var), 0.0)
    half = stats.t.ppf(0.5 + level / 2, df) * math.sqrt(var)
    return r, r * math.exp(-half), r * math.exp(half)


def pairs(baseline: pd.DataFrame, other: pd.DataFrame, time: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The two groups' times of the same compositions at one n, aligned; None unless they match one to one."""
    keys = [k for k in COMPOSITION_KEYS if k in baseline.columns and k in other.columns]
    if len(baseline) != len(other) or not keys:
        return None
    if baseline.duplicated(keys).any() or other.duplicated(keys).any():
        return None
    merged = baseline[keys + [time]].merge(other[keys + [time]], on=keys, suffixes=("_a", "_b"))
    if len(merged) != len(baseline):
        return None
    return merged[f"{time}_a"].to_numpy(dtype=float), merged[f"{time}_b"].to_numpy(dtype=float)


def _verdict(r: float, lo: float, hi: float) -> str:
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "n/a"
    return "faster" if hi < 1 else "slower" if lo > 1 else "no clear difference"


def comparison(
    cases: pd.DataFrame, by=groups.DEFAULT, time: str = "wall_s", baseline: str | None = None
) -> pd.DataFrame:
    """Per n and group: the group columns, then COLUMNS (ratio to `baseline`, default the first group).
    AnalysisError for fewer than two groups or an unknown baseline."""
    parts = list(groups.split(cases, by))
    keys = groups.columns(by)
    if len(parts) < 2:
        raise AnalysisError(
            "a comparison needs at least two groups; these cases form one"
            + (f" ({label_of(parts[0][0], keys)})" if parts else "")
            + ": give result files of two runs (another engine or config) or --by COLUMN"
        )
    labels = [label_of(lab, keys) for lab, _ in parts]
    base = labels[0] if baseline is None else baseline
    if base not in labels:
        raise AnalysisError(f"--baseline {base}: no such group (the groups: {', '.join(labels)})")
    base_cases = dict(zip(labels, (part for _, part in parts)))[base]
    rows = []
    for (lab, part), label in zip(parts, labels):
        t1 = table_mod.table1(part, time)
        for _, r in t1.iterrows():
            n = int(r["n"])
            row = {**lab, **{c: r[c] for c in COLUMNS if c in t1.columns}}
            base_n = base_cases[base_cases["n"] == n]
            mine = part[part["n"] == n]
            if label == base:
                ratio, paired, verdict = (1.0, 1.0, 1.0), None, "baseline"
            elif base_n.empty:
                ratio, paired, verdict = (float("nan"),) * 3, None, NO_BASELINE
            else:
                matched = pairs(base_n, mine, time)
                x, y = matched if matched is not None else (base_n[time].to_numpy(float), mine[time].to_numpy(float))
                paired = matched is not None
                ratio = ratio_ci(x, y, paired)
                verdict = _verdict(*ratio)
            rows.append(
                {**row, **dict(zip(("ratio", "ratio_lo", "ratio_hi"), ratio)), "paired": paired, "verdict": verdict}
            )
    out = pd.DataFrame(rows, columns=keys + COLUMNS)
    order = {label: i for i, label in enumerate(labels)}
    out["_order"] = [order[label_of(r, keys)] for _, r in out.iterrows()]
    out = out.sort_values(["n", "_order"], kind="stable").drop(columns="_order").reset_index(drop=True)
    out.attrs["baseline"] = base
    out.attrs["groups"] = labels
    out.attrs["keys"] = keys
    return out


def _g(x: float, digits: int = 3) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x:.{digits}g}"


def _interval(x: float, lo: float, hi: float, scale: float = 1.0, digits: int = 3, unit: str = "") -> str:
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{_g(scale * x, digits)}{unit}"
    return f"{_g(scale * x, digits)}{unit} ({_g(scale * lo, digits)}..{_g(scale * hi, digits)})"


def to_markdown(comp: pd.DataFrame) -> str:
    """:func:`comparison` as Markdown: one row per n and group, intervals in parentheses."""
    keys = comp.attrs.get("keys") or groups.label_columns(comp)
    base = comp.attrs.get("baseline", "")
    shown = pd.DataFrame(
        {
            "n": comp["n"].map(lambda v: str(int(v))),
            **{k: comp[k].map(str) for k in keys},
            "cases": comp["cases"].map(lambda v: str(int(v))),
            "mean s (95% CI)": [_interval(r.mean_s, r.mean_s_lo, r.mean_s_hi) for r in comp.itertuples()],
            "t90mean s (95% CI)": [_interval(r.t90mean_s, r.t90mean_s_lo, r.t90mean_s_hi) for r in comp.itertuples()],
            "0 bt % (95% CI)": [_interval(r.bt0, r.bt0_lo, r.bt0_hi, 100, 3) for r in comp.itertuples()],
            "false neg (95% CI of share)": [
                f"{int(r.false_negatives)} ({_g(r.false_negative_share_lo, 2)}.." f"{_g(r.false_negative_share_hi, 2)})"
                for r in comp.itertuples()
            ],
            "gave up": comp["gave_up"].map(lambda v: str(int(v))),
            "infeasible": comp["infeasible"].map(lambda v: str(int(v))),
            f"mean time / {base} (95% CI)": [
                "1"
                if r.verdict == "baseline"
                else _interval(r.ratio, r.ratio_lo, r.ratio_hi) + (" paired" if r.paired is True else "")
                for r in comp.itertuples()
            ],
            "verdict": comp["verdict"],
        }
    )
    return output.markdown(shown, ["right"] + ["left"] * len(keys) + ["right"] * 8 + ["left"])


#: What :func:`summary` says of the n of the verdicts without a ratio, in its order (after faster and slower).
_SAID = {
    "no clear difference": "no clear difference at n = {} "
    "(the 95% interval of the ratio contains 1: the sample cannot tell)",
    "n/a": "no ratio at n = {} (fewer than 2 cases)",
    NO_BASELINE: "no ratio at n = {} (the baseline has no cases there)",
}


def summary(comp: pd.DataFrame) -> list[str]:
    """Per group but the baseline: the n where it is clearly faster or slower, and where it cannot tell."""
    keys = comp.attrs.get("keys") or groups.label_columns(comp)
    base = comp.attrs.get("baseline", "")
    lines = []
    for label in comp.attrs.get("groups", []):
        if label == base:
            continue
        mine = comp[[label_of(r, keys) == label for _, r in comp.iterrows()]]
        parts = []
        for verdict in ("faster", "slower"):
            sel = mine[mine["verdict"] == verdict]
            if not sel.empty:
                lo, hi = _g(sel["ratio"].min(), 2), _g(sel["ratio"].max(), 2)
                parts.append(
                    f"{verdict} at n = {output.ns_text(sel['n'])} "
                    f"(mean time {lo if lo == hi else f'{lo} to {hi}'} times the baseline's)"
                )
        for verdict, said in _SAID.items():
            sel = mine[mine["verdict"] == verdict]
            if not sel.empty:
                parts.append(said.format(output.ns_text(sel["n"])))
        lines.append(f"- **{label}** against **{base}**: " + "; ".join(parts) + ".")
    return lines
