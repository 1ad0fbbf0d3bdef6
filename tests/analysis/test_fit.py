"""analysis.fit: known lines recovered exactly; statistics checked against numpy and scipy."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis import fit, paper
from analysis.errors import AnalysisError
from analysis.table import table1

N = np.array([50, 100, 200, 300, 500, 800, 1000, 3000, 5000, 10_000, 100_000, 1_000_000, 100_000_000])


def times(a: float, b: float, n=N) -> np.ndarray:
    """t in seconds with log10(1000 t) = a + b log10(n) exactly."""
    return 10.0 ** (a + b * np.log10(n)) / 1000.0


@pytest.mark.parametrize("a, b", [(paper.A, paper.B), (1.5, 1.0), (-3.25, 0.5)])
def test_exact_data_gives_back_slope_and_intercept(a, b):
    f = fit.fit_loglog(N, times(a, b))
    assert abs(f.a - a) < 1e-9 and abs(f.b - b) < 1e-9
    assert f.r2 == pytest.approx(1.0, abs=1e-12) and f.r == pytest.approx(1.0, abs=1e-12)
    assert np.abs(f.residuals["residual"]).max() < 1e-9
    assert f.points == len(N) and (f.n_min, f.n_max) == (50, 100_000_000)
    assert f.predict_s(1000) == pytest.approx(times(a, b, 1000), rel=1e-9)


def test_paper_line_predicts_its_published_times():
    assert paper.predicted_time_s(1000) == pytest.approx(0.052, abs=0.0005)
    assert paper.predicted_time_s(1e8) == pytest.approx(420, rel=0.01)


def test_noisy_fit_matches_numpy_and_scipy():
    rng = np.random.default_rng(7)
    x = np.log10(N)
    y = -0.6 + 0.8 * x + rng.normal(0, 0.05, size=N.size)
    f = fit.fit_loglog(N, 10**y / 1000)
    slope, intercept = np.polyfit(x, y, 1)
    assert f.b == pytest.approx(slope, abs=1e-9) and f.a == pytest.approx(intercept, abs=1e-9)
    ref = stats.linregress(x, y)
    q = stats.t.ppf(0.975, N.size - 2)
    assert f.b_ci == pytest.approx((ref.slope - q * ref.stderr, ref.slope + q * ref.stderr), abs=1e-9)
    assert f.a_ci == pytest.approx(
        (ref.intercept - q * ref.intercept_stderr, ref.intercept + q * ref.intercept_stderr), abs=1e-9
    )
    assert f.r == pytest.approx(ref.rvalue, abs=1e-12) and f.r2 == pytest.approx(ref.rvalue**2, abs=1e-12)
    assert f.b_ci[0] < 0.8 < f.b_ci[1] and f.a_ci[0] < -0.6 < f.a_ci[1]
    np.testing.assert_allclose(f.residuals["residual"], y - (intercept + slope * x), atol=1e-9)


def test_decreasing_time_gives_negative_r():
    f = fit.fit_loglog(N, times(2.0, -0.25))
    assert f.b == pytest.approx(-0.25, abs=1e-9) and f.r == pytest.approx(-1.0, abs=1e-12)


def synthetic_cases(a: float, b: float, per_queen_a: float, per_queen_b: float) -> pd.DataFrame:
    """Cases whose mean time per n follows (a, b) and whose time per placed queen follows
    (per_queen_a, per_queen_b) exactly: every case of one n has the same t / (n - k)."""
    rows = []
    for n in [10, 50, 100, 1000, 10_000]:
        q = times(per_queen_a, per_queen_b, n)
        ks = [1, n // 2, n - 1, n]  # k = n: no placed queen, left out of the per-queen fit
        for k in ks:
            rows.append(
                {
                    "n": n,
                    "k": k,
                    "wall_s": q * (n - k) if k < n else times(a, b, n),
                    "backtracks": 0,
                    "outcome": "solved",
                    "false_negative": False,
                }
            )
    return pd.DataFrame(rows)


def test_per_placed_queen_fit_recovers_its_line():
    cases = synthetic_cases(0.0, 1.0, -2.5, 0.125)
    fits = {f.quantity: f for f in fit.fits(table1(cases), cases, n_min=50)}
    for q in ("per_queen_mean_s", "per_queen_t90mean_s"):
        assert fits[q].a == pytest.approx(-2.5, abs=1e-9) and fits[q].b == pytest.approx(0.125, abs=1e-9)
        assert fits[q].points == 4 and fits[q].paper is None
    assert fits["mean_s"].paper == (paper.A, paper.B, paper.R)


def test_range_selects_points_and_too_few_is_an_error():
    tab = pd.DataFrame({"n": N, "mean_s": times(paper.A, paper.B), "t90mean_s": times(-1, 0.9)})
    f = fit.fits(tab, n_min=100, n_max=10_000)
    assert [x.quantity for x in f] == ["mean_s", "t90mean_s"]
    assert f[0].n_min == 100 and f[0].n_max == 10_000 and f[0].points == 9
    assert f[1].b == pytest.approx(0.9, abs=1e-9)
    with pytest.raises(AnalysisError, match=r"1 board size\(s\) in n = 100..100 .* widen --n-min/--n-max"):
        fit.fits(tab, n_min=100, n_max=100)


def test_two_points_fit_exactly_without_intervals():
    f = fit.fit_loglog([100, 1000], times(1.0, 0.5, np.array([100, 1000])))
    assert f.b == pytest.approx(0.5, abs=1e-9)
    assert all(math.isnan(v) for v in f.a_ci + f.b_ci)
    assert "n/a (2 points)" in fit.fits_table([f]).to_string()


def test_time_that_cannot_be_logged_is_an_error():
    with pytest.raises(AnalysisError, match=r"time 0.0 s at n = 100"):
        fit.fit_loglog([10, 100, 1000], [1e-3, 0.0, 1e-2])


def test_fits_table_puts_the_paper_beside_ours():
    f = fit.fit_loglog(N, times(-0.5, 0.75))
    shown = fit.fits_table([f])
    assert shown["fit"].tolist() == ["ours: mean time per case", "paper (Grigoryan 2019): mean time per case"]
    assert shown["a"].tolist() == ["-0.500000", "-0.628927"] and shown["b"].tolist() == ["0.750000", "0.781568"]
    row = fit.fits_csv([f]).iloc[0]
    assert row["paper_a"] == paper.A and row["b"] == pytest.approx(0.75, abs=1e-9)
