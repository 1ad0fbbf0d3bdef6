"""analysis.timeline: the hosts of a launch's ranks, busy shares per rank and host, the bars and
the figure, and the report's Timeline section on real 1- and 2-rank runs of configs/ci.json."""

from __future__ import annotations

import random
import re
import shutil
import socket
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
import pytest

from analysis import figures, timeline
from analysis.load import HOSTS_BYTES, UNKNOWN_HOST, AnalysisWarning, Source, launch_ranks, load_cases, parse_hosts
from analysis.report import write_report
from conftest import png_size, synthetic_rows, write_result_file


# ---- the hosts column ------------------------------------------------------------------------


def nqc_hosts(host_of_rank: list[str]) -> str:
    """The `hosts` text as nqc writes it (src/runner/runner.cpp, launch_hosts): hosts in the order of
    their first rank, each with its ranks as ranges joined by "+"."""
    ranks: dict[str, list[int]] = {}
    for rank, host in enumerate(host_of_rank):
        ranks.setdefault(host, []).append(rank)
    return ",".join(f"{host}:{timeline.format_ranks(r)}" for host, r in ranks.items())


def test_parse_hosts_contiguous_ranges():
    assert parse_hosts("nqc-h0:0-1,nqc-h1:2-3,nqc-h2:4-5", 6) == {
        0: "nqc-h0",
        1: "nqc-h0",
        2: "nqc-h1",
        3: "nqc-h1",
        4: "nqc-h2",
        5: "nqc-h2",
    }
    assert parse_hosts("nqc-h0:0,nqc-h1:1-2,nqc-h2:3-5", 6) == {
        0: "nqc-h0",
        1: "nqc-h1",
        2: "nqc-h1",
        3: "nqc-h2",
        4: "nqc-h2",
        5: "nqc-h2",
    }
    assert parse_hosts("vm:0-2") == {0: "vm", 1: "vm", 2: "vm"}  # no world size: the ranks named
    assert parse_hosts("vm:0") == {0: "vm"}


def test_parse_hosts_plus_ranges():
    assert parse_hosts("a:0+2,b:1+3", 4) == {0: "a", 1: "b", 2: "a", 3: "b"}
    assert parse_hosts("nqc-h0:0+3,nqc-h1:1+4,nqc-h2:2+5", 6) == {
        0: "nqc-h0",
        1: "nqc-h1",
        2: "nqc-h2",
        3: "nqc-h0",
        4: "nqc-h1",
        5: "nqc-h2",
    }
    assert parse_hosts("a:0-1+4,b:2-3+5-6", 7) == {0: "a", 1: "a", 2: "b", 3: "b", 4: "a", 5: "b", 6: "b"}


def test_parse_hosts_old_format_and_unknown_ranks():
    # schema 2.1 and older: the distinct host names alone, the first rank 0's; the others unknown
    assert parse_hosts("a,b", 4) == {0: "a", 1: UNKNOWN_HOST, 2: UNKNOWN_HOST, 3: UNKNOWN_HOST}
    assert parse_hosts("vm", 1) == {0: "vm"}
    assert parse_hosts("vm", 3) == {0: "vm", 1: "?", 2: "?"}  # also a 2.2 launch killed before its ranks met
    assert parse_hosts("", 2) == {0: "?", 1: "?"}
    assert parse_hosts("(record damaged)", 0) == {} and parse_hosts("(record damaged)", 2) == {0: "?", 1: "?"}
    # malformed entries are skipped, ranks beyond the world dropped
    assert parse_hosts("a:x,b:1", 2) == {0: "?", 1: "b"}
    assert parse_hosts("a:3-1,b:0", 2) == {0: "b", 1: "?"}
    assert parse_hosts("a:0-1,b:2-3", 3) == {0: "a", 1: "a", 2: "b"}
    assert parse_hosts("a:0,a:0,b:0", 1) == {0: "a"}  # a rank named twice keeps its first host


def test_parse_hosts_cut_at_the_members_size():
    hosts = [f"node{h:04d}.example.org" for h in range(400) for _ in range(2)]
    text = nqc_hosts(hosts)
    assert len(text) > HOSTS_BYTES == 4096
    cut = text[: HOSTS_BYTES - 1]  # as the fixed-size member keeps it
    got = parse_hosts(cut, len(hosts))
    last = cut.split(",")[-1]
    assert got[0] == "node0000.example.org"
    assert all(got[r] == hosts[r] for r in range(len(hosts)) if got[r] != UNKNOWN_HOST)
    assert sum(h != UNKNOWN_HOST for h in got.values()) == 2 * (len(cut.split(",")) - 1), last  # last entry dropped


def test_parse_hosts_reads_what_nqc_writes():
    rng = random.Random(5)
    for _ in range(200):
        world = rng.randint(1, 40)
        names = [f"h{i}" for i in range(rng.randint(1, 6))]
        hosts = [rng.choice(names) for _ in range(world)]
        assert parse_hosts(nqc_hosts(hosts), world) == dict(enumerate(hosts))


def test_format_ranks():
    assert timeline.format_ranks([0, 1, 2, 5]) == "0-2+5"
    assert timeline.format_ranks([3, 1]) == "1+3"
    assert timeline.format_ranks([7]) == "7"


def test_launch_ranks_from_launches_tables_and_shard_attributes(small_run):
    host = socket.gethostname()
    merged = load_cases(small_run)  # the launches table's hosts "HOST:0", world size 1
    got = launch_ranks(merged)
    assert got[["launch", "rank", "host", "world_size"]].values.tolist() == [[1, 0, host, 1]]
    shard = load_cases(small_run / "shards" / "shard-000000.h5")  # attributes hostname, rank, launch
    got = launch_ranks(shard)
    assert got[["launch", "rank", "host", "world_size"]].values.tolist() == [[1, 0, host, 1]]


# ---- busy shares and bars on hand-made cases ---------------------------------------------------


def hand_made() -> pd.DataFrame:
    """Two launches of one run with known numbers (seconds):

    launch 1, 3 ranks, hosts "a:0+2,b:1":
      rank 0: shard 0 at [0, 1], [2, 3], [3.001, 3.501] (a gap of 0.001 s: merged), shard 5 at [3.6, 3.8]
      rank 1: shard 1 at [0.5, 4]; rank 2: nothing. Span 4.
    launch 2, 2 ranks, hosts "c" (the old format: rank 1's host unknown):
      rank 0: shard 2 at [1, 2], shard 3 at [2, 2.5]; rank 1: shard 4 at [0, 2.5]. Span 2.5.
    plus a case of launch 0 (unknown) and one without start_s, left out."""
    rows = [
        (1, 0, 0, 0.0, 1.0),
        (1, 0, 0, 2.0, 1.0),
        (1, 0, 0, 3.001, 0.5),
        (1, 0, 5, 3.6, 0.2),
        (1, 1, 1, 0.5, 3.5),
        (2, 0, 2, 1.0, 1.0),
        (2, 0, 3, 2.0, 0.5),
        (2, 1, 4, 0.0, 2.5),
        (0, 0, 6, 0.0, 100.0),
        (1, 0, 7, np.nan, 100.0),
    ]
    cases = pd.DataFrame(rows, columns=["launch", "rank", "shard_id", "start_s", "wall_s"])
    cases["config_hash"] = pd.Categorical(["cafe"] * len(cases))
    cases["experiment"] = "hand"
    launches = pd.DataFrame(
        {
            "id": [1, 2],
            "start_utc": ["2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"],
            "hosts": ["a:0+2,b:1", "c"],
            "world_size": [3, 2],
        }
    )
    cases.attrs["sources"] = [
        Source(path=Path("run/results.h5"), attrs={"config_hash": "cafe"}, rows=len(cases), launches=launches)
    ]
    return cases


def test_busy_shares_per_rank():
    got = timeline.of(hand_made()).busy_shares("rank")
    assert list(got.columns) == timeline.RANK_COLUMNS
    assert got[["launch", "host", "rank", "cases", "shards"]].values.tolist() == [
        [1, "a", 0, 4, 2],
        [1, "a", 2, 0, 0],
        [1, "b", 1, 1, 1],
        [2, "c", 0, 2, 2],
        [2, "?", 1, 1, 1],
    ]
    np.testing.assert_allclose(got["busy_s"], [2.7, 0.0, 3.5, 1.5, 2.5], rtol=1e-12)
    np.testing.assert_allclose(got["span_s"], [4, 4, 4, 2.5, 2.5], rtol=1e-12)
    np.testing.assert_allclose(got["busy_share"], [2.7 / 4, 0, 3.5 / 4, 1.5 / 2.5, 1.0], rtol=1e-12)
    np.testing.assert_allclose(got["last_end_s"], [3.8, np.nan, 4.0, 2.5, 2.5], rtol=1e-12)
    np.testing.assert_allclose(got["first_start_s"], [0.0, np.nan, 0.5, 1.0, 0.0], rtol=1e-12)
    assert set(got["experiment"]) == {"hand"} and set(got["config_hash"]) == {"cafe"}


def test_busy_shares_per_host():
    got = timeline.of(hand_made()).busy_shares("host")
    assert list(got.columns) == timeline.HOST_COLUMNS
    assert got[["launch", "host", "ranks", "rank_count", "cases"]].values.tolist() == [
        [1, "a", "0+2", 2, 4],
        [1, "b", "1", 1, 1],
        [2, "c", "0", 1, 2],
        [2, "?", "1", 1, 1],
    ]
    np.testing.assert_allclose(got["busy_s"], [2.7, 3.5, 1.5, 2.5], rtol=1e-12)
    np.testing.assert_allclose(got["busy_share"], [2.7 / (2 * 4), 3.5 / 4, 0.6, 1.0], rtol=1e-12)
    np.testing.assert_allclose(got["rank_share_min"], [0.0, 0.875, 0.6, 1.0], rtol=1e-12)
    np.testing.assert_allclose(got["rank_share_max"], [0.675, 0.875, 0.6, 1.0], rtol=1e-12)


def test_bars_merge_one_shards_cases_and_alternate_shades():
    got = timeline.of(hand_made()).bars
    assert got[["launch", "rank", "shard_id", "cases", "shade"]].values.tolist() == [
        [1, 0, 0, 1, 0],
        [1, 0, 0, 2, 0],
        [1, 0, 5, 1, 1],
        [1, 1, 1, 1, 0],
        [2, 0, 2, 1, 0],
        [2, 0, 3, 1, 1],
        [2, 1, 4, 1, 0],
    ]
    np.testing.assert_allclose(got["start_s"], [0, 2, 3.6, 0.5, 1, 2, 0], rtol=1e-12)
    np.testing.assert_allclose(got["end_s"], [1, 3.501, 3.8, 4, 2, 2.5, 2.5], rtol=1e-12)
    np.testing.assert_allclose(got["busy_s"], [1, 1.5, 0.2, 3.5, 1, 0.5, 2.5], rtol=1e-12)
    # a tolerance below the 0.001 s gap keeps the two cases apart
    assert len(timeline.of(hand_made(), fraction=1e-4).bars) == 8


def test_millions_of_cases_draw_as_a_few_bars(tmp_path):
    rng = np.random.default_rng(3)
    n = 1_000_000
    rank = np.repeat(np.arange(8), n // 8)
    wall = rng.exponential(1e-4, n)
    start = np.zeros(n)
    for r in range(8):
        m = rank == r
        start[m] = np.cumsum(np.concatenate([[0.0], wall[m][:-1] + 1e-6]))
    cases = pd.DataFrame(
        {
            "launch": 1,
            "rank": rank,
            "shard_id": np.arange(n) // 25_000,
            "start_s": start,
            "wall_s": wall,
            "config_hash": pd.Categorical(["x"] * n),
            "experiment": "big",
        }
    )
    cases.attrs["sources"] = []
    line = timeline.of(cases)
    assert len(line.bars) == 40  # one per shard: 25,000 cases each, gaps of 1 microsecond
    np.testing.assert_allclose(line.bars["busy_s"].sum(), wall.sum(), rtol=1e-9)
    assert line.busy_shares("host")["host"].tolist() == [UNKNOWN_HOST]  # no file names the hosts
    assert line.draw(tmp_path / "big.png").is_file()


# ---- the figure ----------------------------------------------------------------------------------


def labels(ticks) -> list[str]:
    return [t.get_text() for t in ticks]


def test_figure_panels_rows_and_labels(tmp_path, drawn):
    path = timeline.of(hand_made()).draw(tmp_path / "timeline.png")
    fig = drawn["timeline.png"]
    width, height = png_size(path)
    assert (width, height) == (1920, round(fig.get_figheight() * figures.DPI)) and height >= 3.2 * 300
    first, second = fig.axes
    assert labels(first.get_yticklabels()) == ["a\nranks 0+2", "b\nrank 1"]
    assert labels(second.get_yticklabels()) == ["c\nrank 0", "?\nrank 1"]
    assert first.get_ylim() == (2.5, -0.5) and second.get_ylim() == (1.5, -0.5)  # a row per rank
    assert labels(first.get_yticklabels(minor=True)) == ["rank 0: 68% busy", "rank 2: 0% busy", "rank 1: 88% busy"]
    assert labels(second.get_yticklabels(minor=True)) == ["rank 0: 60% busy", "rank 1: 100% busy"]
    (bars,) = first.collections
    assert len(bars.get_paths()) == 4  # rank 0: 3 bars (two cases merged), rank 1: 1
    faces = bars.get_facecolors()
    assert not np.allclose(faces[1], faces[2])  # shard 0, then shard 5: another shade
    assert np.allclose(faces[0], faces[1])  # the same shard
    assert not np.allclose(faces[0], faces[3])  # host a, host b: other colours
    assert [line.get_ydata()[0] for line in first.get_lines()] == [1.5]  # a line between hosts a and b
    assert "launch 1, 2026-01-01T00:00:00Z: 3 ranks on 2 hosts, 5 cases" in first.get_title()
    assert "engine busy 52% of 3 ranks x 4 s" in first.get_title()  # (2.7 + 3.5) / 12
    assert "2 ranks on 1 host (+ 1 of unknown host)" in second.get_title()
    assert first.get_xlim()[0] == 0 and first.get_xlim()[1] == pytest.approx(4 * 1.01)
    # the legend below the last panel's x label, inside the figure, over no axes
    renderer = fig.canvas.get_renderer()
    legend = second.get_legend().get_window_extent(renderer)
    assert not any(legend.overlaps(ax.get_window_extent(renderer)) for ax in fig.axes)
    assert legend.y1 <= second.xaxis.label.get_window_extent(renderer).y0
    assert legend.x0 >= 0 and legend.y0 >= 0 and legend.x1 <= fig.bbox.width
    # the title and tick labels of one panel do not overlap the next's
    assert first.xaxis.label.get_window_extent(renderer).y0 > second.title.get_window_extent(renderer).y1


def test_figure_draws_the_launches_with_the_most_engine_time(tmp_path, drawn):
    timeline.of(hand_made()).draw(tmp_path / "one.png", max_panels=1)
    (ax,) = drawn["one.png"].axes
    assert ax.get_title().startswith("launch 1,")  # 6.2 s of engine time against 4
    assert "1 of 2 launches drawn" in drawn["one.png"]._suptitle.get_text()


def test_figure_of_many_ranks_and_hosts(tmp_path, drawn):
    hosts = [f"node{h:02d}" for h in range(40) for _ in range(4)]
    rows = [(1, r, r, 0.0, 1.0 + r / 100) for r in range(len(hosts))]
    cases = pd.DataFrame(rows, columns=["launch", "rank", "shard_id", "start_s", "wall_s"])
    cases.attrs["sources"] = [
        Source(
            path=Path("r/results.h5"),
            attrs={},
            rows=len(cases),
            launches=pd.DataFrame(
                {"id": [1], "start_utc": [""], "hosts": [nqc_hosts(hosts)], "world_size": [len(hosts)]}
            ),
        )
    ]
    timeline.of(cases).draw(tmp_path / "many.svg")
    (ax,) = drawn["many.svg"].axes
    assert ax.get_ylim() == (159.5, -0.5)
    shown = labels(ax.get_yticklabels())
    assert shown[0] == "node00: 0-3" and 5 < len(shown) < 40  # one line each, every k-th host
    assert labels(ax.get_yticklabels(minor=True)) == []  # 160 ranks: busy shares in the tables only
    renderer = drawn["many.svg"].canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.get_yticklabels()]
    assert not any(a.overlaps(b) for a, b in zip(boxes, boxes[1:]))


def test_figure_formats_and_no_data(tmp_path):
    from test_figures import svg_texts

    for suffix in ("pdf", "svg"):
        path = timeline.of(hand_made()).draw(tmp_path / f"t.{suffix}")
        assert path.stat().st_size > 1000
    assert any("rank 1: 88% busy" in t for t in svg_texts(tmp_path / "t.svg"))
    assert png_size(timeline.of(hand_made()).draw(tmp_path / "screen.png", dpi=100))[0] == 640
    old = load_cases(write_result_file(tmp_path / "launch0.h5", synthetic_rows([10], [3], [1e-3])))  # launch 0
    assert not timeline.has_timeline(old)
    with pytest.raises(figures.NoData, match=r"no case records when it started in a known launch"):
        timeline.of(old).draw(tmp_path / "old.png")
    assert not (tmp_path / "old.png").exists()
    assert (
        timeline.of(old).busy_shares().empty
        and list(timeline.of(old).busy_shares("host").columns) == timeline.HOST_COLUMNS
    )


# ---- real runs: nqc run and mpirun -np 2 nqc run of configs/ci.json ------------------------------


def stored(run: Path) -> np.ndarray:
    with h5py.File(run / "results.h5") as f:
        return f["cases"][()]


def test_two_rank_run_busy_shares_equal_the_stored_rows(ci_runs):
    rows = stored(ci_runs[2])
    assert set(rows["rank"]) == {0, 1} and (rows["start_s"] >= 0).all()
    got = timeline.of(load_cases(ci_runs[2])).busy_shares("rank")
    span = float((rows["start_s"] + rows["wall_s"]).max())
    assert got["rank"].tolist() == [0, 1]
    for r in (0, 1):
        mine = rows[rows["rank"] == r]
        row = got[got["rank"] == r].iloc[0]
        assert row["cases"] == len(mine) and row["shards"] == len(set(mine["shard_id"]))
        assert row["busy_s"] == pytest.approx(float(mine["wall_s"].sum()), rel=1e-12)
        assert row["span_s"] == pytest.approx(span, rel=1e-12)
        assert row["busy_share"] == pytest.approx(float(mine["wall_s"].sum()) / span, rel=1e-12)
        assert row["last_end_s"] == pytest.approx(float((mine["start_s"] + mine["wall_s"]).max()), rel=1e-12)
    host = load_cases(ci_runs[2]).attrs["sources"][0].launches["hosts"].iloc[0]
    assert set(got["host"]) == {host.split(":")[0]} and host.endswith(":0-1")


@pytest.mark.filterwarnings("ignore:.*fewer than 5:analysis.load.AnalysisWarning")
def test_report_of_a_two_rank_run_has_the_timeline(ci_runs, tmp_path, drawn):
    out = tmp_path / "report"
    text = write_report([ci_runs[2]], out).read_text()
    section = text[text.index("## Timeline") : text.index("## Reproduce") if "## Reproduce" in text else None]
    assert "![timeline](figures/timeline.png)" in section
    assert "[timeline.csv](timeline.csv)" in section and "[timeline_by_host.csv](timeline_by_host.csv)" in section
    assert "- **launch 1**: 2 ranks on 1 host, 230 cases" in section
    assert "| launch   | host" in section and "Per rank (busy share" in section
    fig = drawn["timeline.png"]
    (ax,) = fig.axes
    assert ax.get_ylim() == (1.5, -0.5) and len(labels(ax.get_yticklabels())) == 1
    assert labels(ax.get_yticklabels())[0].endswith("\nranks 0-1")
    assert png_size(out / "figures" / "timeline.png") == (1920, round(fig.get_figheight() * 300))
    ranks = pd.read_csv(out / "timeline.csv")
    assert ranks["rank"].tolist() == [0, 1] and ranks["cases"].sum() == 230
    hosts = pd.read_csv(out / "timeline_by_host.csv")
    assert hosts["rank_count"].tolist() == [2] and hosts["ranks"].astype(str).tolist() == ["0-1"]
    assert hosts["busy_share"].iloc[0] == pytest.approx(ranks["busy_s"].sum() / (2 * ranks["span_s"].iloc[0]))


@pytest.mark.filterwarnings("ignore:.*fewer than 5:analysis.load.AnalysisWarning")
def test_report_of_a_one_rank_run_and_of_its_shards(ci_runs, tmp_path):
    text = write_report([ci_runs[1]], tmp_path / "one").read_text()
    assert "- **launch 1**: 1 rank on 1 host, 230 cases" in text
    assert (tmp_path / "one" / "figures" / "timeline.png").is_file()
    shards = tmp_path / "partial"
    shutil.copytree(ci_runs[2] / "shards", shards / "shards")
    with pytest.warns(AnalysisWarning, match="no results.h5"):
        cases = load_cases(shards)
    got = timeline.of(cases).busy_shares("rank")  # the hosts from the shard files' attributes
    merged = timeline.of(load_cases(ci_runs[2])).busy_shares("rank")
    assert got["host"].tolist() == merged["host"].tolist() and UNKNOWN_HOST not in got["host"].tolist()
    np.testing.assert_allclose(got["busy_s"], merged["busy_s"], rtol=1e-12)


@pytest.mark.filterwarnings("ignore:.*fewer than 5:analysis.load.AnalysisWarning")
def test_report_without_start_s_says_so_in_one_line(ci_runs, tmp_path):
    out = tmp_path / "old"
    write_report([ci_runs[1]], out)  # a report with a timeline first: the next one removes its files
    assert (out / "figures" / "timeline.png").is_file() and (out / "timeline_by_host.csv").is_file()
    with pytest.warns(AnalysisWarning):  # too few n for a fit
        unknown = write_result_file(out.parent / "launch0.h5", synthetic_rows([10, 20], [3, 4], [1e-3, 2e-3]))
        text = write_report([unknown], out).read_text()
    section = re.split(r"\n(?:## |<details>)", text[text.index("## Timeline") :])[0].strip().splitlines()
    assert section[1:] == ["", "No timeline: no case records when it started in a known launch (`start_s`, `launch`)."]
    assert not (out / "figures" / "timeline.png").exists() and not (out / "timeline.csv").exists()
    assert not (out / "timeline_by_host.csv").exists()


@pytest.mark.filterwarnings("ignore:.*fewer than 5:analysis.load.AnalysisWarning")
def test_comparison_report_has_a_panel_per_run(ci_runs, small_run, tmp_path, drawn):
    text = write_report([ci_runs[2], small_run], tmp_path / "cmp").read_text()
    assert "- **ci, launch 1**: 2 ranks" in text and "- **analysis-test, launch 1**: 1 rank" in text
    titles = [ax.get_title() for ax in drawn["timeline.png"].axes]
    assert len(titles) == 2 and titles[0].startswith("ci: launch 1") and titles[1].startswith("analysis-test: launch 1")
