"""Least-squares fits of log10(1000 t) on log10(n) (statsmodels), as [Grigoryan]'s, with 95% intervals."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis import output, paper
from analysis.errors import AnalysisError
from analysis.table import summary

#: Fits over fewer board sizes than this carry a warning.
FEW_POINTS = 5

#: The quantities :func:`fits` fits, with their labels.
QUANTITIES = {
    "mean_s": "mean time per case",
    "t90mean_s": "t90mean per case",
    "per_queen_mean_s": "mean time per placed queen",
    "per_queen_t90mean_s": "t90mean per placed queen",
}


@dataclass
class Fit:
    """One fit of log10(1000 t) = a + b log10(n); t in seconds."""

    quantity: str
    label: str
    n_min: int
    n_max: int
    points: int
    a: float
    b: float
    a_ci: tuple[float, float]
    b_ci: tuple[float, float]
    r: float
    r2: float
    residuals: pd.DataFrame  # n, log10_n, log10_1000t, fitted, residual

    def predict_s(self, n: float) -> float:
        """The time in seconds this fit predicts at board size n."""
        return paper.predicted_time_s(n, self.a, self.b)

    @property
    def warning(self) -> str | None:
        """A warning when the fit rests on fewer than FEW_POINTS board sizes, else None."""
        if self.points >= FEW_POINTS:
            return None
        ns = output.ns_text(self.residuals["n"])
        return (
            f"the fit of {self.label} rests on {self.points} points (n = {ns}), fewer than {FEW_POINTS}: "
            "its a, b and R say little"
            + (
                " and it has no interval"
                if self.points < 3
                else f" (b's 95% CI {self.b_ci[0]:.3g}..{self.b_ci[1]:.3g})"
            )
        )

    @property
    def paper(self) -> tuple[float, float, float] | None:
        """The paper's (a, b, R) for the same quantity, or None when it published none."""
        return (paper.A, paper.B, paper.R) if self.quantity == "mean_s" else None


def fit_loglog(n, t, quantity: str = "mean_s", label: str | None = None) -> Fit:
    """Least squares of log10(1000 t) on log10(n); AnalysisError with fewer than two n or a time not positive."""
    n = np.asarray(n, dtype=float)
    t = np.asarray(t, dtype=float)
    label = label or QUANTITIES.get(quantity, quantity)
    if np.unique(n).size < 2:
        raise AnalysisError(
            f"fit of {label}: {np.unique(n).size} board size(s) "
            f"{[int(v) for v in np.unique(n)]} in range (need at least 2)"
        )
    bad = ~(t > 0) | ~np.isfinite(t)
    if bad.any():
        raise AnalysisError(
            f"fit of {label}: time {t[bad][0]!r} s at n = {int(n[bad][0])} " "cannot be log-transformed"
        )
    import statsmodels.api as sm  # here: its import takes ~0.5 s that table and errors need not pay

    x = np.log10(n)
    y = np.log10(1000.0 * t)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # exact fits and 2 points: zero or no residual dof
        result = sm.OLS(y, sm.add_constant(x, has_constant="add")).fit()
        ci = np.asarray(result.conf_int(0.05)) if result.df_resid > 0 else np.full((2, 2), np.nan)
        r2 = float(result.rsquared)
    a, b = (float(v) for v in result.params)
    if not math.isfinite(r2):  # all y equal: statsmodels gives NaN; the line fits exactly
        r2 = 1.0 if np.allclose(result.resid, 0.0) else float("nan")
    residuals = pd.DataFrame(
        {
            "n": n.astype(np.int64),
            "log10_n": x,
            "log10_1000t": y,
            "fitted": result.fittedvalues,
            "residual": result.resid,
        }
    )
    return Fit(
        quantity=quantity,
        label=label,
        n_min=int(n.min()),
        n_max=int(n.max()),
        points=int(n.size),
        a=a,
        b=b,
        a_ci=(float(ci[0, 0]), float(ci[0, 1])),
        b_ci=(float(ci[1, 0]), float(ci[1, 1])),
        r=math.copysign(math.sqrt(max(r2, 0.0)), b),
        r2=r2,
        residuals=residuals,
    )


def per_queen_times(cases: pd.DataFrame, time: str = "wall_s") -> pd.DataFrame:
    """Per n: mean and t90mean of t / (n - k), seconds per placed queen, as nqc computes Table 1's."""
    free = cases["n"].to_numpy(dtype=float) - cases["k"].to_numpy(dtype=float)
    keep = free > 0
    if not keep.any():
        return pd.DataFrame({"n": pd.Series(dtype=np.int64), "mean_s": [], "t90mean_s": []})
    per_queen = cases.loc[keep].assign(per_queen_s=cases[time].to_numpy(dtype=float)[keep] / free[keep])
    return summary(per_queen, "per_queen_s")[["n", "mean_s", "t90mean_s"]]


def fits(
    table: pd.DataFrame,
    cases: pd.DataFrame | None = None,
    n_min: int | None = paper.FIT_N_MIN,
    n_max: int | None = None,
    time: str = "wall_s",
) -> list[Fit]:
    """Fits of mean and t90mean per case (`table`) and per placed queen (`cases`) over n_min..n_max."""

    def in_range(df: pd.DataFrame) -> pd.DataFrame:
        return df[df["n"].between(-math.inf if n_min is None else n_min, math.inf if n_max is None else n_max)]

    where = f"n = {n_min if n_min is not None else 'min'}..{n_max if n_max is not None else 'max'}"
    chosen = in_range(table)
    if len(chosen) < 2:
        raise AnalysisError(
            f"{len(chosen)} board size(s) in {where} (the data has n = "
            f"{output.ns_text(table['n'])}): a fit needs at least 2; "
            "widen --n-min/--n-max"
        )
    out = [fit_loglog(chosen["n"], chosen[q], q) for q in ("mean_s", "t90mean_s")]
    if cases is not None:
        queens = in_range(per_queen_times(cases, time))
        out += [fit_loglog(queens["n"], queens[q], "per_queen_" + q) for q in ("mean_s", "t90mean_s")]
    return out


def per_group(parts, n_min: int | None, n_max: int | None, time: str) -> list[tuple[dict, list[Fit] | str]]:
    """(labels, its fits, or why it has none) for each (labels, generated cases) of `parts`."""
    from analysis.table import table1

    out = []
    for labels, part in parts:
        try:
            out.append((labels, fits(table1(part, time), part, n_min, n_max, time)))
        except AnalysisError as e:
            out.append((labels, str(e)))
    return out


def _num(x: float, digits: int = 6) -> str:
    return "n/a" if not math.isfinite(x) else f"{x:.{digits}f}"


def _ci(lo_hi: tuple[float, float]) -> str:
    lo, hi = lo_hi
    return "n/a (2 points)" if not (math.isfinite(lo) and math.isfinite(hi)) else f"[{lo:.6f}, {hi:.6f}]"


def fits_table(fit_list: list[Fit]) -> pd.DataFrame:
    """Our fits side by side with the paper's published one (rows), as strings for printing."""
    rows = []
    for f in fit_list:
        ours = [_num(f.a), _ci(f.a_ci), _num(f.b), _ci(f.b_ci), _num(f.r), _num(f.r2)]
        rows.append([f"ours: {f.label}", f"{f.n_min}..{f.n_max}", str(f.points), *ours])
        if f.paper is not None:
            a, b, r = f.paper
            theirs = [_num(a), "not published", _num(b), "not published", _num(r, 4), _num(r * r, 4)]
            rows.append([f"paper ({paper.NAME}): {f.label}", f"{paper.FIT_N_MIN}..{paper.FIT_N_MAX}", "", *theirs])
    return pd.DataFrame(rows, columns=["fit", "n range", "points", "a", "a 95% CI", "b", "b 95% CI", "R", "R^2"])


def residuals_table(fit_list: list[Fit]) -> pd.DataFrame:
    """Per n: observed log10(1000 t) and residual (observed - fitted) of each fit, wide."""
    out = None
    for f in fit_list:
        part = f.residuals[["n", "log10_1000t", "residual"]].rename(
            columns={"log10_1000t": f"{f.quantity}: log10(1000 t)", "residual": f"{f.quantity}: residual"}
        )
        out = part if out is None else out.merge(part, on="n", how="outer")
    return out.sort_values("n").reset_index(drop=True)


def fits_csv(fit_list: list[Fit]) -> pd.DataFrame:
    """One row per fit with every number unformatted (for fits.csv)."""
    rows = [
        [f.quantity, f.n_min, f.n_max, f.points, f.a, *f.a_ci, f.b, *f.b_ci, f.r, f.r2, *(f.paper or [np.nan] * 3)]
        for f in fit_list
    ]
    columns = "quantity n_min n_max points a a_ci_low a_ci_high b b_ci_low b_ci_high r r2 paper_a paper_b paper_r"
    return pd.DataFrame(rows, columns=columns.split())
