"""The timeline of a run: when each rank ran its cases and how busy each rank and host was."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.collections import PolyCollection
from matplotlib.colors import to_rgb
from matplotlib.legend_handler import HandlerTuple
from matplotlib.patches import Patch
from matplotlib.ticker import FixedFormatter, FixedLocator, NullLocator
from matplotlib.transforms import ScaledTranslation, blended_transform_factory

from analysis import figures, output
from analysis.load import UNKNOWN_HOST, launch_ranks

#: Gaps shorter than this share of the launch's span (below a pixel) are merged into one bar.
MERGE_FRACTION = 1 / 2000
#: At most this many launches are drawn (those with the most engine time); the tables hold all.
MAX_PANELS = 4
#: Each rank's busy share is written beside its row when a panel has at most this many ranks.
RANK_LABELS_MAX = 24
#: The figure's width (inches), as the others; its height grows with the ranks between these.
WIDTH_IN = figures.FIGSIZE_IN[0]
MIN_HEIGHT_IN, MAX_HEIGHT_IN = 3.2, 16.0
#: The columns the timeline needs.
NEEDED = ("start_s", "wall_s", "rank", "launch")

RANK_COLUMNS = (
    "experiment config_hash launch host rank cases shards busy_s first_start_s last_end_s span_s busy_share".split()
)
HOST_COLUMNS = (
    "experiment config_hash launch host ranks rank_count cases busy_s last_end_s span_s busy_share "
    "rank_share_min rank_share_max"
).split()
_KEY = ["config_hash", "launch"]


def format_ranks(ranks) -> str:
    """Ranks as nqc writes them in ``hosts``: ranges joined by "+" ([0, 1, 2, 5] -> "0-2+5")."""
    return output.ranges_text(ranks, "-", "+")


def share_text(share: float) -> str:
    """A busy share for a label: "73%", "3.4%", "0.05%" (two significant digits below 10%)."""
    if not np.isfinite(share):
        return "n/a"
    return f"{100 * share:.0f}%" if share >= 0.095 or share == 0 else f"{100 * share:.2g}%"


@dataclass
class Timeline:
    """The cases with a place on a time line, summarised in one sorted pass (:func:`of`)."""

    lanes: pd.DataFrame  #: per rank that ran a case: config_hash, experiment, launch, rank, cases, shards, busy_s, ...
    spans: pd.DataFrame  #: per launch, in order: config_hash, launch, experiment, span_s (the latest end of its cases)
    #: the bars: one shard's consecutive cases on a rank, split at gaps over `fraction` of the span; shade 0/1
    bars: pd.DataFrame
    ranks: pd.DataFrame | None = None  #: every rank with its host (RANK_COLUMNS, world_size, start_utc)
    where: str = ""  #: " in FILES", for messages

    @property
    def empty(self) -> bool:
        return self.spans.empty

    def busy_shares(self, per: str = "rank") -> pd.DataFrame:
        """Per rank (RANK_COLUMNS) or host (HOST_COLUMNS) of each launch: busy_s, span_s and busy_share."""
        if self.empty:
            return pd.DataFrame(columns=RANK_COLUMNS if per == "rank" else HOST_COLUMNS)
        if per == "rank":
            return self.ranks[RANK_COLUMNS].copy()
        ranks = self.ranks.assign(_order=np.arange(len(self.ranks)))
        hosts = (
            ranks.groupby(_KEY + ["host"], sort=False)
            .agg(
                experiment=("experiment", "first"),
                ranks=("rank", format_ranks),
                rank_count=("rank", "size"),
                cases=("cases", "sum"),
                busy_s=("busy_s", "sum"),
                last_end_s=("last_end_s", "max"),
                span_s=("span_s", "first"),
                rank_share_min=("busy_share", "min"),
                rank_share_max=("busy_share", "max"),
                _order=("_order", "min"),
            )
            .reset_index()
            .sort_values("_order", kind="stable")
        )
        hosts["busy_share"] = _share(hosts["busy_s"], hosts["rank_count"].to_numpy() * hosts["span_s"])
        return hosts.reset_index(drop=True)[HOST_COLUMNS]

    def chosen_launches(self, max_panels: int = MAX_PANELS) -> pd.DataFrame:
        """The launches drawn (config_hash, launch), in order: all, or the `max_panels` with most engine time."""
        busy = self.lanes.groupby(_KEY, sort=False)["busy_s"].sum().rename("busy").reset_index()
        order = self.spans[_KEY].merge(busy, on=_KEY, how="left").fillna({"busy": 0.0})
        if len(order) > max_panels:
            order = order.loc[order["busy"].nlargest(max_panels, keep="first").index].sort_index()
        return order[_KEY].reset_index(drop=True)

    def draw(self, path, dpi: float = figures.DPI, max_panels: int = MAX_PANELS) -> Path:
        """The timeline figure: a panel per launch, a row per rank grouped by host. NoData when empty."""
        if self.empty:
            raise figures.NoData("no case records when it started in a known launch: no timeline" + self.where)
        ranks = self.ranks
        launches = self.chosen_launches(max_panels).merge(_launch_table(ranks), on=_KEY)
        total = len(self.spans)
        several_runs = self.spans["config_hash"].nunique() > 1
        rows = launches[_KEY].merge(ranks.groupby(_KEY, sort=False).size().rename("rows").reset_index(), on=_KEY)
        heights = np.array([panel_height(r) + (0.18 if several_runs else 0) for r in rows["rows"]])
        title_in, legend_in = (0.55 if total > len(launches) else 0.35), 0.55
        heights *= min(1.0, (MAX_HEIGHT_IN - title_in - legend_in) / heights.sum())  # several tall panels: squeezed
        size = (WIDTH_IN, max(MIN_HEIGHT_IN, title_in + sum(heights) + legend_in))
        fig, axes = figures._figure(
            size, dpi, len(launches), squeeze=False, gridspec_kw={"height_ratios": list(heights)}
        )
        axes = axes[:, 0]
        ranks_of = dict(tuple(ranks.groupby(_KEY, sort=False)))
        bars_of = dict(tuple(self.bars.groupby(_KEY, sort=False)))
        for ax, launch, height in zip(axes, launches.itertuples(), heights):
            key = (launch.config_hash, launch.launch)
            _panel(ax, launch, ranks_of[key], bars_of[key], height, several_runs)
        axes[-1].legend(
            *_legend_handles(),
            handler_map={tuple: HandlerTuple(ndivide=None, pad=0)},
            loc="upper center",
            bbox_to_anchor=(0.5, 0),
            ncol=2,
            fontsize=7,
            frameon=False,
            bbox_transform=blended_transform_factory(fig.transFigure, axes[-1].transAxes)
            + ScaledTranslation(0, -0.42, fig.dpi_scale_trans),
        )  # centred on the figure, below the x label
        more = (
            f"\n{len(launches)} of {total} launches drawn (those with the most engine time); the tables list every one"
            if total > len(launches)
            else ""
        )
        fig.suptitle("Timeline: each rank's engine calls over time, ranks grouped by host" + more, fontsize=10)
        return figures._save(fig, path, dpi)


def _share(busy, time) -> np.ndarray:
    """busy / time where time > 0, else NaN."""
    time = np.asarray(time, dtype=float)
    return np.where(time > 0, np.asarray(busy, dtype=float) / np.where(time > 0, time, 1), np.nan)


_LANE_COLUMNS = "config_hash experiment launch rank cases shards busy_s first_start_s last_end_s".split()
_BAR_COLUMNS = ["config_hash", "launch", "rank", "shard_id", "start_s", "end_s", "busy_s", "cases", "shade"]


def _kept(cases: pd.DataFrame) -> np.ndarray | None:
    """Rows with a place on a time line (finite start_s, wall_s >= 0, launch > 0, a rank); None without them."""
    if not set(NEEDED) <= set(cases.columns) or cases.empty:
        return None
    start, wall = cases["start_s"].to_numpy(dtype=float), cases["wall_s"].to_numpy(dtype=float)
    launch, rank = cases["launch"].to_numpy(dtype=float), cases["rank"].to_numpy(dtype=float)
    finite = np.isfinite(start) & np.isfinite(wall) & np.isfinite(launch) & np.isfinite(rank)
    return finite & (wall >= 0) & (launch > 0) & (rank >= 0)


def has_timeline(cases: pd.DataFrame) -> bool:
    """Whether any case records when it started (``start_s``) in a known launch."""
    keep = _kept(cases)
    return keep is not None and bool(keep.any())


def _runs(cases: pd.DataFrame, keep: np.ndarray) -> tuple[np.ndarray, list[str], list[str]]:
    """A code per kept row for its run, and each code's config_hash and experiment (categorical codes kept)."""
    if "config_hash" not in cases.columns:
        return np.zeros(int(keep.sum()), dtype=np.int64), [""], [""]
    column = cases["config_hash"]
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes, names = column.cat.codes.to_numpy().astype(np.int64), [str(v) for v in column.cat.categories]
    else:
        codes, uniques = pd.factorize(column.astype(str))
        names = [str(v) for v in uniques]
    codes = codes[keep]
    present, first = np.unique(codes, return_index=True)
    rows = np.flatnonzero(keep)[first]
    experiment = cases["experiment"] if "experiment" in cases.columns else None
    by_row = sorted(zip(rows, present))  # runs in the order of their first case (the paths' order)
    renumber = np.zeros(len(names), dtype=np.int64)
    renumber[[code for _, code in by_row]] = np.arange(len(by_row))
    return (
        renumber[codes],
        [names[code] for _, code in by_row],
        [str(experiment.iloc[row]) if experiment is not None else "" for row, _ in by_row],
    )


def _build(cases: pd.DataFrame, fraction: float = MERGE_FRACTION) -> Timeline:
    """The :class:`Timeline` of `cases` without its ranks' hosts (see :func:`of`)."""
    keep = _kept(cases)
    if keep is None or not keep.any():
        return Timeline(
            pd.DataFrame(columns=_LANE_COLUMNS),
            pd.DataFrame(columns=_KEY + ["experiment", "span_s"]),
            pd.DataFrame(columns=_BAR_COLUMNS),
        )
    code, names, experiments = _runs(cases, keep)
    start = cases["start_s"].to_numpy(dtype=float)[keep]
    wall = cases["wall_s"].to_numpy(dtype=float)[keep]
    launch = cases["launch"].to_numpy(dtype=float)[keep].astype(np.int64)
    rank = cases["rank"].to_numpy(dtype=float)[keep].astype(np.int64)
    shard = cases["shard_id"].to_numpy(dtype=float)[keep] if "shard_id" in cases.columns else np.full(start.size, -1.0)
    shard = np.where(np.isfinite(shard), shard, -1).astype(np.int64)
    order = np.lexsort((start, rank, launch, code))
    code, launch, rank, shard, start, wall = (a[order] for a in (code, launch, rank, shard, start, wall))
    end = start + wall

    def changes(*columns) -> np.ndarray:
        """True where a row starts a new run of equal values of `columns` (sorted rows)."""
        new = np.zeros(start.size, dtype=bool)
        new[:1] = True
        for column in columns:
            new[1:] |= column[1:] != column[:-1]
        return new

    new_launch = changes(code, launch)
    launch_at = np.flatnonzero(new_launch)
    span = np.maximum.reduceat(end, launch_at)
    new_lane = changes(code, launch, rank)
    lane_at = np.flatnonzero(new_lane)
    lane = np.cumsum(new_lane) - 1
    new_shard = new_lane | changes(shard)
    new_bar = new_shard.copy()
    new_bar[1:] |= (start[1:] - end[:-1]) > fraction * span[np.cumsum(new_launch)[1:] - 1]
    shard_seq = np.cumsum(new_shard)
    shade = (shard_seq - shard_seq[lane_at][lane]) % 2  # 0, 1, 0, ... from one shard to the next on a rank
    shards = pd.DataFrame({"lane": lane, "shard": shard}).drop_duplicates().groupby("lane").size().to_numpy()
    bar_at = np.flatnonzero(new_bar)

    def run_columns(at: np.ndarray) -> dict:
        return {"config_hash": [names[c] for c in code[at]], "experiment": [experiments[c] for c in code[at]]}

    lanes = pd.DataFrame(
        {
            **run_columns(lane_at),
            "launch": launch[lane_at],
            "rank": rank[lane_at],
            "cases": np.diff(np.append(lane_at, start.size)),
            "shards": shards,
            "busy_s": np.add.reduceat(wall, lane_at),
            "first_start_s": start[lane_at],
            "last_end_s": np.maximum.reduceat(end, lane_at),
        }
    )
    spans = pd.DataFrame({**run_columns(launch_at), "launch": launch[launch_at], "span_s": span})
    bars_ = pd.DataFrame(
        {
            "config_hash": run_columns(bar_at)["config_hash"],
            "launch": launch[bar_at],
            "rank": rank[bar_at],
            "shard_id": shard[bar_at],
            "start_s": start[bar_at],
            "end_s": np.maximum.reduceat(end, bar_at),
            "busy_s": np.add.reduceat(wall, bar_at),
            "cases": np.diff(np.append(bar_at, start.size)),
            "shade": shade[bar_at],
        }
    )
    return Timeline(lanes, spans[_KEY + ["experiment", "span_s"]], bars_)


def _per_rank(cases: pd.DataFrame, line: Timeline) -> pd.DataFrame:
    """Every rank of the launches on the time line with its host, counts and times; ranks grouped by host."""
    known = launch_ranks(cases).merge(line.spans[_KEY], on=_KEY, how="inner")
    ranks = line.lanes.drop(columns="experiment").merge(known[_KEY + ["rank", "host"]], on=_KEY + ["rank"], how="outer")
    ranks["host"] = ranks["host"].fillna(UNKNOWN_HOST)
    for column in ("cases", "shards"):
        ranks[column] = ranks[column].fillna(0).astype(np.int64)
    ranks["busy_s"] = ranks["busy_s"].fillna(0.0)
    meta = known.groupby(_KEY, sort=False)[["world_size", "start_utc"]].first().reset_index()
    launch_order = line.spans.reset_index(drop=True).assign(_launch=np.arange(len(line.spans)))
    ranks = ranks.merge(launch_order, on=_KEY).merge(meta, on=_KEY, how="left")
    ranks["world_size"] = ranks["world_size"].fillna(0).astype(np.int64)
    ranks["start_utc"] = ranks["start_utc"].fillna("").astype(str)
    ranks["busy_share"] = _share(ranks["busy_s"], ranks["span_s"])
    first = ranks.groupby(_KEY + ["host"])["rank"].transform("min")
    ranks["_order"] = np.where(ranks["host"] == UNKNOWN_HOST, np.iinfo(np.int64).max, first)
    ranks = ranks.sort_values(["_launch", "_order", "host", "rank"], kind="stable")
    return ranks.reset_index(drop=True)[RANK_COLUMNS + ["world_size", "start_utc"]]


def of(cases: pd.DataFrame, fraction: float = MERGE_FRACTION) -> Timeline:
    """The :class:`Timeline` of `cases` with its ranks' hosts, built once for tables and figure."""
    line = _build(cases, fraction)
    line.where = figures.files_note(cases)
    line.ranks = _per_rank(cases, line) if not line.empty else pd.DataFrame(columns=RANK_COLUMNS)
    return line


def _launch_table(ranks: pd.DataFrame) -> pd.DataFrame:
    """Per launch (config_hash, launch): experiment, world size, start, ranks, cases, busy and span."""
    per = (
        ranks.groupby(_KEY, sort=False)
        .agg(
            experiment=("experiment", "first"),
            world_size=("world_size", "first"),
            start_utc=("start_utc", "first"),
            rank_count=("rank", "size"),
            cases=("cases", "sum"),
            busy_s=("busy_s", "sum"),
            span_s=("span_s", "first"),
        )
        .reset_index()
    )
    per["world_size"] = np.where(per["world_size"] > 0, per["world_size"], per["rank_count"])
    return per


def _shades(color) -> tuple[tuple, tuple]:
    """A host's two shades: its colour and a lighter one (alternating from shard to shard)."""
    rgb = np.array(to_rgb(color))
    return tuple(rgb), tuple(rgb + (1 - rgb) * 0.55)


def _host_colours(hosts: list[str]) -> dict[str, str]:
    palette = [f"C{i}" for i in range(10) if i != 7]  # C7 is grey: kept for "?"
    named = [h for h in hosts if h != UNKNOWN_HOST]
    colours = {h: palette[i % len(palette)] for i, h in enumerate(named)}
    colours[UNKNOWN_HOST] = "0.55"
    return colours


def panel_height(rows: int) -> float:
    """Inches of a panel of `rows` ranks (its title and x axis included): 1.7 to 6."""
    return float(np.clip(0.95 + 0.2 * rows, 1.7, 6.0))


def _legend_handles() -> tuple[list, list]:
    dark, light = _shades("C0")
    return (
        [(Patch(facecolor=dark), Patch(facecolor=light)), Patch(facecolor="white", edgecolor="0.5")],
        ["a shard's cases (shades alternate by shard; colour: host)", "idle: no engine call"],
    )


def _panel(ax, launch, ranks: pd.DataFrame, lane_bars: pd.DataFrame, height_in: float, several_runs: bool) -> None:
    """One launch: a row per rank (ranks grouped by host, in `ranks`' order), its bars."""
    rows = {int(r): i for i, r in enumerate(ranks["rank"])}
    hosts = list(dict.fromkeys(ranks["host"]))
    colours = _host_colours(hosts)
    host_of = dict(zip(ranks["rank"].astype(int), ranks["host"]))
    y = lane_bars["rank"].map(rows).to_numpy(dtype=float)
    x0, x1 = lane_bars["start_s"].to_numpy(dtype=float), lane_bars["end_s"].to_numpy(dtype=float)
    half = 0.4
    corners = ((x0, -half), (x0, half), (x1, half), (x1, -half))
    verts = np.stack([np.column_stack([x, y + dy]) for x, dy in corners], axis=1)
    shades = {h: _shades(c) for h, c in colours.items()}
    faces = [shades[host_of[int(r)]][int(s)] for r, s in zip(lane_bars["rank"], lane_bars["shade"])]
    ax.add_collection(PolyCollection(verts, facecolors=faces, edgecolors=faces, linewidths=0.2))
    span = float(launch.span_s) if launch.span_s > 0 else 1.0
    ax.set_xlim(min(0.0, float(x0.min()) if x0.size else 0.0), span * 1.01)
    ax.set_ylim(len(rows) - 0.5, -0.5)  # the first rank on top
    # hosts: a line between them, their names and ranks on the left
    groups = ranks.groupby("host", sort=False)["rank"].agg(list)
    centres, labels, first = [], [], 0
    for host in hosts:
        members = groups[host]
        if first > 0:
            few = len(hosts) <= 16  # many hosts: lighter lines, or they hide the bars
            ax.axhline(first - 0.5, color="0.2" if few else "0.4", linewidth=0.8 if few else 0.4)
        centres.append(first + (len(members) - 1) / 2)
        labels.append((host, f"rank{'s' if len(members) > 1 else ''} {format_ranks(members)}"))
        first += len(members)
    room = max(height_in - 0.75, 0.3) * 72  # points of axes height, about
    lines = 2 if len(hosts) * 2 * 9.5 <= room else 1
    step = max(1, int(np.ceil(len(hosts) * 9.5 / room))) if lines == 1 else 1
    text = [f"{h}\n{r}" if lines == 2 else f"{h}: {r.split(' ', 1)[1]}" for h, r in labels]
    ax.yaxis.set_major_locator(FixedLocator(centres[::step]))
    ax.yaxis.set_major_formatter(FixedFormatter(text[::step]))
    ax.tick_params(axis="y", which="major", length=0, labelsize=8)
    for label, host in zip(ax.get_yticklabels(), hosts[::step]):
        label.set_color(shades[host][0] if host != UNKNOWN_HOST else "0.3")
    # each rank's busy share on the right, when they fit
    if len(rows) <= RANK_LABELS_MAX and len(rows) * 8.5 <= room:
        ax.yaxis.remove_overlapping_locs = False  # a host of one rank: its major tick is the rank's minor one
        ax.yaxis.set_minor_locator(FixedLocator(list(rows.values())))
        ax.yaxis.set_minor_formatter(
            FixedFormatter(
                [
                    f"rank {int(r)}: {share_text(s)} busy" if np.isfinite(s) else f"rank {int(r)}"
                    for r, s in zip(ranks["rank"], ranks["busy_share"])
                ]
            )
        )
        ax.tick_params(axis="y", which="minor", left=False, labelleft=False, right=False, labelright=True, labelsize=7)
    else:
        ax.yaxis.set_minor_locator(NullLocator())
    ax.grid(True, axis="x", alpha=0.3)
    ax.tick_params(axis="x", labelsize=8)
    ax.set_xlabel("seconds since the launch's shards began (a barrier of its ranks)", fontsize=8)
    busy = launch.busy_s / (launch.rank_count * span) if launch.span_s > 0 else float("nan")
    run = f"{launch.experiment or launch.config_hash}: " if several_runs else ""
    started = f", {launch.start_utc}" if launch.start_utc else ""
    named = [h for h in hosts if h != UNKNOWN_HOST]
    unknown = len(groups[UNKNOWN_HOST]) if UNKNOWN_HOST in groups.index else 0
    where = output.plural(len(named), "host") + (f" (+ {unknown} of unknown host)" if unknown else "")
    head = (
        f"{run}launch {launch.launch}{started}: {output.plural(launch.world_size, 'rank')} "
        f"on {where}, {launch.cases:,} cases"
    )
    tail = f"engine busy {share_text(busy)} of {output.plural(launch.rank_count, 'rank')} x {launch.span_s:.3g} s"
    ax.set_title(head + (", " if len(head) + len(tail) <= 86 else "\n") + tail, fontsize=8)
