"""analysis.figures: every figure is written, non-empty, and a PNG of 640 x 480 pixels."""

from __future__ import annotations

import matplotlib.image
import pytest

from analysis import figures, fit, randset
from analysis.load import load_cases
from analysis.table import table1
from conftest import png_size


@pytest.fixture(scope="module")
def data(small_run):
    cases = load_cases(small_run)
    tab = table1(cases)
    return cases, tab, fit.fits(tab, cases)


def check_png(path):
    assert path.is_file() and path.stat().st_size > 1000, path
    assert png_size(path) == figures.SIZE_PX == (640, 480)
    assert matplotlib.image.imread(str(path)).shape[:2] == (480, 640)


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
    for path in paths:
        check_png(path)
    assert paths[0].parent.name == "a"  # made the missing directory


def test_histogram_of_an_absent_n_is_an_error(data, tmp_path):
    cases, _, _ = data
    with pytest.raises(ValueError, match="no cases at n = 12345"):
        figures.time_histogram(cases, 12345, tmp_path / "x.png")


