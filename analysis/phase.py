"""The phase transition ([Gent17]) in random compositions (f free rows) and Excluded Diagonals instances (d): per
point, the share completable and the effort; per parameter, the crossing of 1/2 and the peaks; beside published
shares."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from analysis import groups, output
from analysis import table as table_mod
from analysis.errors import AnalysisError
from analysis.load import ORIGIN, SAMPLE_PARAM, SAMPLED, origin_cases
from analysis.randset import INT64_MAX, csv_fields, csv_integer, csv_once, csv_share, read_rows
from analysis.schema import N_MAX

#: [Gent17]'s phase transition: share completable of 1000 random compositions per (f, n).
GENT17 = Path(__file__).resolve().parent / "data" / "gent17-phase-transition.csv"
#: How outputs name it (legends, tables; never a file name) and how reports cite it.
GENT17_NAME = "Gent et al. 2017"
GENT17_REFERENCE = "[Gent17] (I. P. Gent, C. Jefferson, P. Nightingale, JAIR 59, 2017; nqc's docs/REFERENCES.md)"
#: Published shares compared by default, per origin.
DEFAULT_PUBLISHED = {"random": GENT17}
#: The column of a point's parameter (SAMPLED: the free rows f or the diagonals d).
PARAM = "param"
#: The parameter's symbol per origin, in tables and legends.
SYMBOL = {"random": "f", "excluded_diagonals": "d"}
#: The parameter's range per origin at board size n, as nqc's configs allow: f in 1..n, d from 0.
PARAM_RANGE = {"random": lambda n: (1, n), "excluded_diagonals": lambda n: (0, N_MAX)}
#: Columns of :func:`points` after the group columns.
COLUMNS = [ORIGIN, PARAM, "n", "cases", "solved", "infeasible", "gave_up", "share", "share_lo", "share_hi"] + [
    f"{stat}_{what}" for what in ("s", "nodes") for stat in ("median", "mean", "p90")
]
#: Columns :func:`compare` adds.
PUBLISHED_COLUMNS = (
    "published_share published_compositions inside difference difference_lo difference_hi p_value p_holm "
    "p_value_max p_holm_max verdict"
).split()
#: Columns of :func:`peaks` after the group columns.
PEAK_COLUMNS = [
    ORIGIN,
    PARAM,
    *"points n_half half_direction published_n_half peak_nodes_n peak_median_nodes peak_time_n peak_mean_s".split(),
]
#: A published CSV: the parameter's column (its name gives the origin), then these.
PUBLISHED_HEADER = ["n", "share_completable", "compositions"]
#: The significance level of the verdicts (after Holm's correction).
ALPHA = 1 - table_mod.LEVEL


@dataclass(frozen=True)
class Published:
    """Published shares of one origin: `frame`, the file and how legends name it."""

    frame: pd.DataFrame
    path: Path
    name: str


def _expected_header() -> str:
    return " or ".join(",".join([p, *PUBLISHED_HEADER]) for p in SAMPLED.values())


def read_published(path: str | Path) -> Published:
    """A CSV PARAM,n,share_completable,compositions (PARAM free_rows or diags), each point once."""
    path = Path(path)
    kind = "a CSV of published shares"
    header, rows = read_rows(path, kind=kind, expected=_expected_header(), directory=kind)
    origin = {name: o for o, name in SAMPLED.items()}.get(header[0] if header else "")
    if origin is None or header[1:] != PUBLISHED_HEADER:
        raise AnalysisError(f"{path}: header '{','.join(header)}', expected {_expected_header()}")
    if not rows:
        raise AnalysisError(f"{path}: not {kind} (no rows under the header)")
    values, seen = [], {}
    for line, row in rows:
        param_text, n_text, share_text, count_text = csv_fields(path, line, row, header)
        at = f"{path}: row {line}, column"
        n = csv_integer(f"{at} n", n_text, 1, N_MAX, f"a board size, an integer in 1..{N_MAX}")
        lo, hi = PARAM_RANGE[origin](n)
        limit = f"{lo}..n = {lo}..{n}" if hi == n else f"{lo}..{hi}"
        param = csv_integer(
            f"{at} {header[0]}", param_text, lo, hi, f"{header[0]} {SYMBOL[origin]}, an integer in {limit}"
        )
        csv_once(seen, (param, n), f"{at} n", f"point {header[0]} = {param}, n = {n}", line)
        share = csv_share(f"{at} share_completable", share_text, "a share in 0..1")
        count = csv_integer(f"{at} compositions", count_text, 1, INT64_MAX, "the compositions drawn, an integer >= 1")
        values.append((origin, param, n, share, count))
    frame = pd.DataFrame(values, columns=[ORIGIN, PARAM, "n", "published_share", "published_compositions"])
    return Published(frame, path, GENT17_NAME if path.resolve() == GENT17 else "published")


def _quantiles(values: np.ndarray) -> list[float]:
    """Median, mean and 90th percentile (numpy's linear interpolation); NaN when empty."""
    if values.size == 0:
        return [float("nan")] * 3
    return [float(np.median(values)), float(values.mean()), float(np.percentile(values, 90))]


def _share_interval(solved: int, gave_up: int, cases: int) -> tuple[float, float]:
    """Exact 95% interval of the share completable with the cases that gave up counted both ways (lower bound of
    `solved`, upper of `solved + gave_up`)."""
    lo = table_mod.clopper_pearson(solved, cases)[0]
    hi = table_mod.clopper_pearson(solved + gave_up, cases)[1]
    return float(lo), float(hi)


def points(cases: pd.DataFrame, by=groups.DEFAULT, time: str = "wall_s") -> pd.DataFrame:
    """Per group and point (origin, param, n) of the SAMPLED cases: outcomes, share completable with its interval,
    time and nodes; empty without such cases."""
    sampled = origin_cases(cases, *SAMPLED)
    if sampled.empty:
        return pd.DataFrame(columns=COLUMNS)
    groups.whole_runs(by, "the phase transition", "its points are per origin, f or d and n, each from all its cases")
    groups.one_setting(sampled, by, "a point of the phase transition")
    sampled = sampled.assign(**{PARAM: sampled[SAMPLE_PARAM].astype("int64").to_numpy()})

    def rows(part: pd.DataFrame) -> pd.DataFrame:
        out = []
        for (origin, param, n), point in part.groupby([ORIGIN, PARAM, "n"], sort=True):
            outcome = point["outcome"].astype(str).to_numpy()
            solved, infeasible = int(np.sum(outcome == "solved")), int(np.sum(outcome == "infeasible"))
            decided, gave_up = solved + infeasible, int(np.sum(outcome == "gave_up"))
            lo, hi = _share_interval(solved, gave_up, len(point)) if decided else (np.nan,) * 2
            out.append(
                [origin, int(param), int(n), len(point), solved, infeasible, gave_up]
                + [solved / decided if decided else float("nan"), lo, hi]
                + _quantiles(point[time].to_numpy(dtype=float))
                + _quantiles(point["nodes"].to_numpy(dtype=float))
            )
        return pd.DataFrame(out, columns=COLUMNS)

    return groups.per_group(sampled, by, rows)


def default_published(table: pd.DataFrame) -> Published | None:
    """DEFAULT_PUBLISHED of the first origin of `table` that has one, read; else None."""
    for origin in dict.fromkeys(table[ORIGIN]) if not table.empty else ():
        if origin in DEFAULT_PUBLISHED:
            return read_published(DEFAULT_PUBLISHED[origin])
    return None


def _fisher_range(solved: int, gave_up: int, cases: int, theirs: int, total: int) -> tuple[float, float]:
    """The least and largest Fisher two-sided p-value over the counts solved..solved + gave_up (unimodal: ends and
    the counts nearest theirs / total)."""

    def p(count: int) -> float:
        return float(stats.fisher_exact([[count, cases - count], [theirs, total - theirs]])[1])

    near = theirs / total * cases
    counts = {solved, solved + gave_up} | {
        c for c in (int(np.floor(near)), int(np.ceil(near))) if solved <= c <= solved + gave_up
    }
    values = [p(c) for c in sorted(counts)]
    return min(values[0], values[-1]), max(values)


#: The verdict of a point whose cases that gave up, counted completable or not, lead to different verdicts.
CANNOT_TELL = "cannot tell"


def compare(table: pd.DataFrame, published: Published) -> pd.DataFrame:
    """`table` with the published shares of `published`: inside, Newcombe difference, Fisher p-values (range over
    the cases that gave up) Holm-adjusted, verdict. AnalysisError without its origin."""
    origin = published.frame[ORIGIN].iloc[0]
    if not (table[ORIGIN] == origin).any():
        raise AnalysisError(
            f"--published {published.path}: its shares are of origin {origin} ({SAMPLED[origin]}), "
            "these results hold no such cases"
        )
    out = table.merge(published.frame, on=[ORIGIN, PARAM, "n"], how="left")
    has = out["published_share"].notna() & (out["solved"] + out["infeasible"] > 0)
    for name in PUBLISHED_COLUMNS[2:]:
        out[name] = pd.Series(dtype=object if name in ("inside", "verdict") else float, index=out.index)
    from statsmodels.stats.multitest import multipletests  # here: as in analysis.fit, its import is slow
    from statsmodels.stats.proportion import confint_proportions_2indep

    for i in out.index[has]:
        r = out.loc[i]
        ours, gave_up, cases = int(r["solved"]), int(r["gave_up"]), int(r["cases"])
        total = int(r["published_compositions"])
        theirs = int(round(r["published_share"] * total))
        out.at[i, "inside"] = bool(r["share_lo"] <= r["published_share"] <= r["share_hi"])
        out.at[i, "difference"] = r["share"] - theirs / total
        lo = confint_proportions_2indep(ours, cases, theirs, total, method="newcomb", compare="diff")[0]
        hi = confint_proportions_2indep(ours + gave_up, cases, theirs, total, method="newcomb", compare="diff")[1]
        out.at[i, "difference_lo"], out.at[i, "difference_hi"] = float(lo), float(hi)
        out.at[i, "p_value"], out.at[i, "p_value_max"] = _fisher_range(ours, gave_up, cases, theirs, total)
    if has.any():
        for p in ("p_value", "p_value_max"):
            out.loc[has, p.replace("value", "holm")] = multipletests(out.loc[has, p].astype(float), method="holm")[1]
        low, high = out.loc[has, "p_holm"], out.loc[has, "p_holm_max"]
        out.loc[has, "verdict"] = np.where(high < ALPHA, "differs", np.where(low >= ALPHA, "consistent", CANNOT_TELL))
    out.attrs["published"] = published
    return out


#: How :func:`peaks` says which way the share crosses 1/2 (``half_direction``).
FALLS, RISES = "falls", "rises"


def _half(n: np.ndarray, share: np.ndarray) -> tuple[float, str]:
    """The n where the share first crosses 1/2 (linear between sizes), FALLS or RISES; (NaN, '') if never."""
    keep = np.isfinite(share)
    n, share = n[keep], share[keep]
    for i in range(len(n) - 1):
        a, b = share[i], share[i + 1]
        if (a >= 0.5) != (b >= 0.5):
            return float(n[i] + (a - 0.5) / (a - b) * (n[i + 1] - n[i])), FALLS if a > b else RISES
    return float("nan"), ""


def _argmax_n(n: np.ndarray, values: np.ndarray) -> tuple[str, float]:
    """The n (all of them on a tie, "20, 21") with the largest value, and that value."""
    if not np.isfinite(values).any():
        return "", float("nan")
    top = np.nanmax(values)
    return output.ns_text(n[values == top]), float(top)


def peaks(table: pd.DataFrame) -> pd.DataFrame:
    """Per group and parameter: the crossing of 1/2 (ours, published), the n of peak median nodes and mean time."""
    keys = groups.label_columns(table, ORIGIN) + [ORIGIN, PARAM]
    published = table.attrs.get("published")
    rows = []
    for key, part in table.groupby(keys, sort=False):
        n = part["n"].to_numpy(dtype=float)
        theirs = float("nan")
        if published is not None:
            mine = published.frame[(published.frame[ORIGIN] == key[-2]) & (published.frame[PARAM] == key[-1])]
            theirs = _half(mine["n"].to_numpy(dtype=float), mine["published_share"].to_numpy(dtype=float))[0]
        rows.append(
            [*key, len(part), *_half(n, part["share"].to_numpy(dtype=float)), theirs]
            + [*_argmax_n(n, part["median_nodes"].to_numpy(dtype=float))]
            + [*_argmax_n(n, part["mean_s"].to_numpy(dtype=float))]
        )
    return pd.DataFrame(rows, columns=[*keys[:-2], *PEAK_COLUMNS])


def _g(x, fmt: str = ".3g") -> str:
    return "" if x is None or (isinstance(x, float) and not np.isfinite(x)) else format(x, fmt)


def param_label(origin: str, param) -> str:
    """A point's parameter as tables and legends show it: "f = 10", "d = 4"."""
    return f"{SYMBOL.get(origin, origin)} = {int(param)}"


def to_markdown(table: pd.DataFrame) -> str:
    """:func:`points` (or :func:`compare`) as Markdown."""
    keys = groups.label_columns(table, ORIGIN)
    shown = {k: table[k].map(str) for k in keys}
    shown["point"] = [param_label(o, p) for o, p in zip(table[ORIGIN], table[PARAM])]
    shown |= {c.replace("_", " "): table[c].map(str) for c in ("n", "cases", "solved", "infeasible", "gave_up")}
    shown["share completable (95% CI)"] = [
        f"{_g(s, '.3f')} ({_g(lo, '.3f')}..{_g(hi, '.3f')})" if np.isfinite(s) else ""
        for s, lo, hi in zip(table["share"], table["share_lo"], table["share_hi"])
    ]
    for what, unit in (("s", "s"), ("nodes", "nodes")):
        shown[f"median / mean / p90 {unit}"] = [
            " / ".join(_g(v) for v in row) for row in zip(*(table[f"{s}_{what}"] for s in ("median", "mean", "p90")))
        ]
    if "verdict" in table.columns:
        published = table.attrs["published"].name
        has = table["p_value"].notna()
        shown[published] = table["published_share"].map(lambda v: _g(v, ".3f"))
        shown["inside our CI"] = np.where(has, table["inside"].map({True: "yes", False: "no"}), "")
        shown["ours - published (95% CI)"] = [
            f"{d:+.3f} ({lo:+.3f}..{hi:+.3f})" if ok else ""
            for d, lo, hi, ok in zip(table["difference"], table["difference_lo"], table["difference_hi"], has)
        ]
        shown["p (Holm)"] = [
            "" if not ok else f"{p:.2g}" if p == top else f"{p:.2g}..{top:.2g}"
            for p, top, ok in zip(table["p_holm"], table["p_holm_max"], has)
        ]
        shown["verdict"] = table["verdict"].fillna("")
    frame = pd.DataFrame(shown)
    return output.markdown(frame, ["left"] * (len(keys) + 1) + ["right"] * (len(frame.columns) - len(keys) - 1))


def peaks_markdown(table: pd.DataFrame) -> str:
    """:func:`peaks` as Markdown."""
    keys = groups.label_columns(table, ORIGIN)
    shown = {k: table[k].map(str) for k in keys}
    shown["point"] = [param_label(o, p) for o, p in zip(table[ORIGIN], table[PARAM])]
    shown["points"] = table["points"].map(str)
    shown["n at share 1/2"] = [
        f"{_g(v, '.1f')} ({way})" if way else "" for v, way in zip(table["n_half"], table["half_direction"])
    ]
    if table["published_n_half"].notna().any():
        shown["published n at share 1/2"] = table["published_n_half"].map(lambda v: _g(v, ".1f"))
    shown["peak median nodes: n"] = table["peak_nodes_n"]
    shown["median nodes"] = table["peak_median_nodes"].map(_g)
    shown["peak mean time: n"] = table["peak_time_n"]
    shown["mean s"] = table["peak_mean_s"].map(_g)
    return output.markdown(pd.DataFrame(shown), ["left"] * (len(keys) + 1) + ["right"] * (len(shown) - len(keys) - 1))


def _points_text(rows: pd.DataFrame, sep: str = ", ") -> str:
    return sep.join(f"{param_label(r[ORIGIN], r[PARAM])}, n = {r['n']}" for _, r in rows.iterrows())


def summary(compared: pd.DataFrame) -> list[str]:
    """Sentences on :func:`compare`: points compared, those not compared and why, published points not run."""
    published = compared.attrs["published"]
    tested = compared["p_value"].notna()
    open_ = tested & (compared["verdict"] == CANNOT_TELL)
    has = tested & ~open_
    undecided = compared[compared["published_share"].notna() & ~tested]
    if not tested.any() and undecided.empty:
        return [f"No point of ours matches one of {published.name}."]
    missing = published.frame.merge(compared[[ORIGIN, PARAM, "n"]], how="left", indicator=True)
    missing = missing[missing["_merge"] == "left_only"]
    lines = []
    if has.any():
        inside, differs = int(compared.loc[has, "inside"].sum()), compared[has & (compared["verdict"] == "differs")]
        lines.append(
            f"{int(has.sum())} points compared with {published.name}: its share lies inside our 95% interval at "
            f"{inside} of them; the two-sample test (Fisher's exact, Holm-adjusted over the {int(tested.sum())} points"
            + (" tested" if open_.any() else "")
            + ") "
            + (
                "finds no point where the shares differ at the 5% level."
                if differs.empty
                else f"finds {len(differs)} where they differ at the 5% level: {_points_text(differs)}."
            )
        )
    if open_.any():
        rows = compared[open_]
        lines.append(
            f"Not compared: {output.plural(len(rows), 'published point')} where too many cases gave up "
            "to tell: counted completable they give one verdict, counted infeasible another ("
            + "; ".join(
                f"{param_label(r[ORIGIN], r[PARAM])}, n = {r['n']}: {r['solved'] + r['infeasible']} decided of "
                f"{r['cases']}"
                for _, r in rows.iterrows()
            )
            + ")."
        )
    if not undecided.empty:
        lines.append(
            f"Not compared: {output.plural(len(undecided), 'published point')} with no decided "
            f"case here, every case gave up ({_points_text(undecided, '; ')})."
        )
    if not missing.empty:
        lines.append(
            f"Not run here: {output.plural(len(missing), 'published point')} (" + _points_text(missing, "; ") + ")."
        )
    return lines
