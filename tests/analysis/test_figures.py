"""analysis.figures: every figure is written, non-empty, a PNG of the stated size, or PDF or SVG; and
the figures are fit for a paper."""

from __future__ import annotations


import matplotlib.image
import numpy as np
import pandas as pd
import pytest

from analysis import figures, fit, paper, randset
from analysis.errors import AnalysisError
from analysis.load import load_cases
from analysis.table import table1
from conftest import png_size


@pytest.fixture(scope="module")
def data(small_run):
    cases = load_cases(small_run)
    tab = table1(cases)
    return cases, tab, fit.fits(tab, cases)


def check_png(path, size=figures.SIZE_PX):
    assert path.is_file() and path.stat().st_size > 1000, path
    assert png_size(path) == size
    assert matplotlib.image.imread(str(path)).shape[:2] == size[::-1]


def test_every_figure_is_a_png_of_the_stated_size(data, nqc_bin, tmp_path):
    cases, tab, fits = data
    run = randset.run(nqc_bin, 100, 500, tmp_path / "randset")
    paths = [
        figures.time_vs_n(tab, fits[0], tmp_path / "a" / "time_vs_n.png"),
        figures.time_vs_n(tab, None, tmp_path / "time_vs_n_no_fit.png"),
        figures.time_histogram(cases, 300, tmp_path / "fig10.png"),
        figures.time_histogram_by_backtracks(cases, 100, tmp_path / "fig11.png"),
        figures.time_histogram_by_backtracks(cases, 100, tmp_path / "fig11_k.png", k_range=(40, 90)),
        figures.no_backtrack_share(tab, tmp_path / "fig09.png"),
        figures.false_negative_share(tab, tmp_path / "fn.png"),
        figures.randset_histogram([run], tmp_path / "randset.png"),
    ]
    assert figures.SIZE_PX == (1920, 1440) and figures.TALL_PX == (1920, 2400)  # 300 dpi: print
    for path in paths:
        check_png(path, figures.TALL_PX if path.name == "randset.png" else figures.SIZE_PX)
    assert paths[0].parent.name == "a"  # made the missing directory


def test_histogram_of_an_absent_n_is_an_error(data, tmp_path):
    cases, _, _ = data
    with pytest.raises(ValueError, match="no cases at n = 12345"):
        figures.time_histogram(cases, 12345, tmp_path / "x.png")


# Figures for a paper: formats, print resolution, intervals, the paper's fit
# over its own n range, distinct reference lines, legends that hide no data, no file names.


def every_figure(data, runs, directory, suffix, dpi=figures.DPI):
    """Draws every figure of a one-run report (and randset) as `suffix` files in `directory`."""
    cases, tab, fits = data
    return [
        figures.time_vs_n(tab, fits[0], directory / f"time_vs_n.{suffix}", dpi=dpi),
        figures.time_histogram(cases, 300, directory / f"fig10.{suffix}", dpi=dpi),
        figures.time_histogram_by_backtracks(cases, 100, directory / f"fig11.{suffix}", dpi=dpi),
        figures.no_backtrack_share(tab, directory / f"fig09.{suffix}", dpi=dpi),
        figures.false_negative_share(tab, directory / f"fn.{suffix}", dpi=dpi),
        figures.randset_histogram(runs, directory / f"randset.{suffix}", dpi=dpi),
    ]


@pytest.fixture(scope="module")
def randset_runs(nqc_bin, tmp_path_factory):
    return [randset.run(nqc_bin, 100, 300, tmp_path_factory.mktemp("rs"))]


def test_pdf_svg_and_png_at_print_resolution(data, randset_runs, tmp_path):
    import xml.etree.ElementTree as ET

    for path in every_figure(data, randset_runs, tmp_path / "pdf", "pdf"):
        head = path.read_bytes()
        assert head.startswith(b"%PDF-") and b"/FontFile2" in head, path  # TrueType fonts embedded: text stays text
    for path in every_figure(data, randset_runs, tmp_path / "svg", "svg"):
        root = ET.parse(path).getroot()
        assert root.tag.endswith("svg") and any(e.tag.endswith("text") for e in root.iter()), path
    for path in every_figure(data, randset_runs, tmp_path / "print", "png", dpi=300):
        tall = path.name == "randset.png"
        assert png_size(path) == ((1920, 2400) if tall else (1920, 1440)), path
    with pytest.raises(AnalysisError, match=r"x.gif: figures are written as png, pdf, svg"):
        figures.no_backtrack_share(data[1], tmp_path / "x.gif")


def test_the_same_data_gives_the_same_file(data, tmp_path):
    for suffix in figures.FORMATS:
        a = figures.no_backtrack_share(data[1], tmp_path / f"a.{suffix}")
        b = figures.no_backtrack_share(data[1], tmp_path / f"b.{suffix}")
        assert a.read_bytes() == b.read_bytes(), suffix  # no creation dates, fixed SVG ids


def svg_texts(path) -> list[str]:
    import xml.etree.ElementTree as ET

    return ["".join(e.itertext()) for e in ET.parse(path).getroot().iter() if e.tag.endswith("text")]


def test_no_file_names_or_internal_references_in_the_figures(data, randset_runs, small_run, auto_run, tmp_path):
    from analysis import compare

    paths = every_figure(data, randset_runs, tmp_path, "svg")
    comp = compare.comparison(load_cases(small_run, auto_run, mixed="group"))
    paths += [figures.compare_time(comp, tmp_path / "ct.svg"), figures.compare_shares(comp, tmp_path / "cs.svg")]
    for path in paths:
        texts = svg_texts(path)
        assert texts, path
        for text in texts:
            for bad in ("000_", "../", "shared/", ".h5", ".md", str(small_run.parent), str(tmp_path), "pytest"):
                assert bad not in text, (path.name, text)


def test_legends_do_not_hide_data(data, randset_runs, small_run, auto_run, tmp_path, drawn):
    from analysis import compare

    every_figure(data, randset_runs, tmp_path, "png")
    comp = compare.comparison(load_cases(small_run, auto_run, mixed="group"))
    figures.compare_time(comp, tmp_path / "ct.png")
    figures.compare_shares(comp, tmp_path / "cs.png")
    assert len(drawn) == 8
    for name, fig in drawn.items():
        renderer = fig.canvas.get_renderer()
        boxes = [ax.get_window_extent(renderer) for ax in fig.axes]
        legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
        assert legends, name
        for legend in legends:
            box = legend.get_window_extent(renderer)
            assert not any(box.overlaps(b) for b in boxes), (name, box, boxes)
            assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= fig.bbox.width and box.y1 <= fig.bbox.height, name


def test_every_mean_and_share_has_its_interval(data, tmp_path, drawn):
    cases, tab, fits = data
    figures.time_vs_n(tab, fits[0], tmp_path / "t.png")
    figures.no_backtrack_share(tab, tmp_path / "s.png")
    figures.time_histogram(cases, 300, tmp_path / "h.png")
    ax = drawn["t.png"].axes[0]
    bars = {c.get_label(): c for c in ax.containers}
    assert set(bars) == {"mean, 95% CI", "t90mean (fastest 90%), 95% CI"}
    for label, c in bars.items():
        segments = c.lines[2][0].get_segments()  # one vertical bar per n
        assert len(segments) == len(tab), label
    mean_bars = bars["mean, 95% CI"].lines[2][0].get_segments()
    np.testing.assert_allclose([s[1][1] for s in mean_bars], tab["mean_s_hi"], rtol=1e-9)
    lows = np.array([s[0][1] for s in mean_bars])
    positive = tab["mean_s_lo"].to_numpy() > 0
    np.testing.assert_allclose(lows[positive], tab["mean_s_lo"][positive], rtol=1e-9)
    # an interval reaching 0 or below runs to the bottom of the log axis
    reaching = tab.assign(mean_s_lo=np.where(tab["n"] == 100, -1e-3, tab["mean_s_lo"]))
    figures.time_vs_n(reaching, fits[0], tmp_path / "t0.png")
    ax = drawn["t0.png"].axes[0]
    bars = {c.get_label(): c for c in ax.containers}["mean, 95% CI"].lines[2][0].get_segments()
    at_100 = bars[list(tab["n"]).index(100)]
    assert at_100[0][1] == pytest.approx(ax.get_ylim()[0]) and at_100[1][1] == pytest.approx(
        reaching.loc[reaching["n"] == 100, "mean_s_hi"].item()
    )
    ax = drawn["s.png"].axes[0]
    (share,) = ax.containers
    np.testing.assert_allclose([s[1][1] for s in share.lines[2][0].get_segments()], 100 * tab["bt0_hi"], rtol=1e-9)
    np.testing.assert_allclose([s[0][1] for s in share.lines[2][0].get_segments()], 100 * tab["bt0_lo"], rtol=1e-9)
    ax = drawn["h.png"].axes[0]
    assert any(p.get_label().startswith("mean's 95% CI ") for p in ax.patches)


def paper_line(fig):
    ax = fig.axes[0]
    return next((line for line in ax.get_lines() if line.get_label().startswith("paper's fit")), None)


def test_the_papers_fit_only_over_its_n_range(data, tmp_path, drawn):
    _, tab, fits = data
    figures.time_vs_n(tab, fits[0], tmp_path / "all.png")  # n = 10..300: the paper fitted n >= 50
    x = paper_line(drawn["all.png"]).get_xdata()
    assert min(x) == pytest.approx(paper.FIT_N_MIN) and max(x) == pytest.approx(300)
    figures.time_vs_n(tab[tab["n"] < 50], None, tmp_path / "small.png")
    assert paper_line(drawn["small.png"]) is None  # no n of ours in its range: not drawn
    ours = next(line for line in drawn["all.png"].axes[0].get_lines() if line.get_label().startswith("our fit"))
    assert min(ours.get_xdata()) >= fits[0].n_min and max(ours.get_xdata()) <= fits[0].n_max


def test_reference_lines_have_distinct_styles_and_stay_within_our_n(data, tmp_path, drawn):
    from matplotlib.colors import to_hex

    _, tab, _ = data  # n = 10..300
    wide = pd.concat([tab, tab.iloc[[-1]].assign(n=1000)], ignore_index=True)  # and 1000, within both floors
    figures.no_backtrack_share(wide, tmp_path / "s.png")
    figures.false_negative_share(wide, tmp_path / "f.png")
    figures.no_backtrack_share(tab, tmp_path / "s300.png")
    floors = [c for c in drawn["s300.png"].axes[0].collections if c.get_label().startswith("paper:")]
    assert [c.get_label() for c in floors] == ["paper: > 35% for n = 7..100000"]  # n = 320..22500: none of ours
    (segment,) = floors[0].get_segments()
    assert segment[:, 0].tolist() == [10, 300]  # drawn over our n only
    for name in ("s.png", "f.png"):
        ax = drawn[name].axes[0]
        refs = [c for c in ax.collections if c.get_label().startswith("paper:")]
        assert len(refs) == 2, name
        styles = {(to_hex(c.get_color()[0]), str(c.get_linestyle()[0])) for c in refs}
        assert len(styles) == len(refs), (name, styles)
        assert len({to_hex(c.get_color()[0]) for c in refs}) == len(refs)


def test_report_formats_and_resolution_on_the_command_line(small_run, tmp_path):
    from test_cli import analysis

    out = tmp_path / "vector"
    done = analysis("report", small_run, "-o", out, "--format", "pdf", "svg")
    assert done.returncode == 0, done.stderr
    made = sorted(p.name for p in (out / "figures").iterdir())
    assert made and all(p.endswith((".pdf", ".svg")) for p in made) and len(made) == 12, made  # 6 figures
    text = (out / "report.md").read_text()
    assert "![time_vs_n](figures/time_vs_n.svg)" in text and "[PDF](figures/time_vs_n.pdf)" in text
    out = tmp_path / "screen"
    done = analysis("report", small_run, "-o", out, "--dpi", 100)
    assert done.returncode == 0, done.stderr
    assert png_size(out / "figures" / "time_vs_n.png") == (640, 480)
    for args, message in [
        (["--dpi", "10"], "expected a resolution in dots per inch in 50..1200, got 10"),
        (["--format", "gif"], "invalid choice: 'gif'"),
    ]:
        done = analysis("report", small_run, "-o", tmp_path / "bad", *args)
        assert done.returncode == 1 and message in done.stderr, done.stderr
