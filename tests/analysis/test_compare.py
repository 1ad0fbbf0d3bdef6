"""Comparisons are first-class: runs of different engines or configs are
grouped, not refused or pooled; --by COLUMN[:BINS]; the comparison per n with time ratios and
intervals; the comparison report and its figures, one line per run."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from analysis import compare, figures, groups, table
from analysis.errors import AnalysisError
from analysis.load import AnalysisWarning, load_cases
from analysis.report import write_report
from conftest import analysis_cli, SCHEMA_ENGINES, png_size, synthetic_rows, write_result_file


@pytest.fixture(scope="module")
def both(small_run, auto_run) -> pd.DataFrame:
    return load_cases(small_run, auto_run, mixed="group")


# Groups: runs by default, any column, bins.


def test_runs_are_labelled_by_engine_and_kept_in_the_order_given(both, small_run, auto_run):
    labels = groups.run_labels(both)
    assert list(labels.categories) == ["grigoryan", "auto"]
    assert (pd.Series(labels) == "grigoryan").sum() == (both["engine"] == "grigoryan").sum() == 180
    swapped = groups.run_labels(load_cases(auto_run, small_run, mixed="group"))
    assert list(swapped.categories) == ["auto", "grigoryan"]


def test_run_labels_fall_back_to_experiment_and_config_hash(tmp_path):
    rows = synthetic_rows([10, 20], [3, 4], [1e-3, 2e-3])
    a = write_result_file(tmp_path / "a.h5", rows, config_hash="aaaaaaaaaaaaaaaa")
    b = write_result_file(tmp_path / "b.h5", rows, config_hash="bbbbbbbbbbbbbbbb", config='{"name": "other"}')
    c = write_result_file(tmp_path / "c.h5", rows, config_hash="cccccccccccccccc")
    # same engine: the experiment names tell a and b apart
    assert list(groups.run_labels(load_cases(a, b, mixed="group")).categories) == ["synthetic", "other"]
    # same engine and name: the config hash does
    assert list(groups.run_labels(load_cases(a, c, mixed="group")).categories) == [
        "synthetic / grigoryan (aaaaaaaa)",
        "synthetic / grigoryan (cccccccc)",
    ]


def test_table_by_run_is_table1_of_each_run(both, small_run, auto_run):
    t = table.table_by(both)
    assert groups.label_columns(t) == ["run"]
    for label, path in [("grigoryan", small_run), ("auto", auto_run)]:
        alone = table.table1(load_cases(path))
        mine = t[t["run"] == label].drop(columns="run").reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, alone)
    # one run: Table 1 itself, no group column
    assert list(table.table_by(load_cases(small_run)).columns) == table.COLUMNS


@pytest.mark.parametrize(
    "spec, labels",
    [
        ("k:1,10,100", ["<= 0", "1..9", "10..99", ">= 100"]),
        ("k/n:0.5", ["< 0.5", ">= 0.5"]),
        ("engine", ["auto", "grigoryan"]),
        ("run", ["grigoryan", "auto"]),
    ],
)
def test_by_a_column_in_bins(both, spec, labels):
    keys = groups.group_frame(both, [groups.parse_by(spec)])
    column = spec.split(":")[0]
    assert list(keys[column].cat.categories) == [lab for lab in labels if lab in set(keys[column])]
    assert keys[column].notna().all()
    if column == "k":
        edges = [1, 10, 100]
        expected = np.searchsorted(edges, both["k"].to_numpy(), side="right")
        names = ["<= 0", "1..9", "10..99", ">= 100"]
        assert keys["k"].astype(str).tolist() == [names[i] for i in expected]


def test_quantile_bins_cover_every_case_in_ranges_of_about_equal_counts(both):
    keys = groups.group_frame(both, [groups.parse_by("k:4")])["k"]
    ranges = [
        tuple(int(v) for v in re.fullmatch(r"(\d+)(?:\.\.(\d+))?", lab).groups(default=lab.split("..")[0]))
        for lab in keys.cat.categories
    ]
    for (lo, hi), label in zip(ranges, keys.cat.categories):
        k = both["k"][keys == label]
        assert k.min() >= lo and k.max() <= hi
    assert ranges[0][0] == both["k"].min() and ranges[-1][1] == both["k"].max()
    counts = keys.value_counts()
    assert counts.min() > 0.1 * len(both) and counts.max() < 0.5 * len(both)


NOT_A_BY_NUMBER = "expected a number of bins or comma-separated bin edges (decimal numbers), e.g. k:4 or k:1,10,100"
NOT_ASCENDING = "the bin edges must be finite numbers in ascending order"


@pytest.mark.parametrize(
    "spec, message",
    [
        ("n", "--by n: the tables are per n already"),
        (":4", "--by ':4': expected COLUMN, COLUMN:BINS or COLUMN:EDGE,EDGE,..."),
        *(
            (
                f"k:{b}",
                f"--by k:{b}: expected 2..100 quantile bins, got {int(b)} (one bin edge is written with a decimal "
                f"point: k:{int(b)}.0)",
            )
            for b in ("-1", "+1", "1", "0", "-0", "101", "99999999999999999999")
        ),
        *(
            (f"k:{e}", f"--by k:{e}: {NOT_A_BY_NUMBER}")
            for e in ("", " 3", "3 ", "1_0", "0x10", "1,", ",1", "1,,2", "a,b", "1,inf", "nan", "1e", "--1")
        ),
        *((f"k:{e}", f"--by k:{e}: {NOT_ASCENDING}") for e in ("5,3", "1,1", "1e999", "-1e999,0", "0,1,1")),
    ],
)
def test_bad_by_specs(spec, message):
    """Every form of --by: a number of quantile bins (an integer: 2..100), or bin edges (decimal
    numbers, finite, strictly ascending); k:-1 made one bin '>= -1'."""
    with pytest.raises(AnalysisError) as err:
        groups.parse_by(spec)
    assert str(err.value) == message


@pytest.mark.parametrize(
    "spec, by",
    [
        ("k:2", groups.By("k", bins=2)),
        ("k:100", groups.By("k", bins=100)),
        ("k:+4", groups.By("k", bins=4)),
        ("k/n:0.5", groups.By("k/n", edges=(0.5,))),
        ("k:-1.0", groups.By("k", edges=(-1.0,))),
        ("k:1e3", groups.By("k", edges=(1000.0,))),
        ("k:-1,2,.5e1", groups.By("k", edges=(-1.0, 2.0, 5.0))),
        ("k:1,10,100", groups.By("k", edges=(1.0, 10.0, 100.0))),
        ("engine", groups.By("engine")),
    ],
)
def test_good_by_specs(spec, by):
    assert groups.parse_by(spec) == by


def test_bad_by_on_the_command_line(small_run, capsys):
    from analysis.cli import main

    for command in ("table", "compare", "report"):
        capsys.readouterr()
        assert main([command, str(small_run), "--by", "k:-1"]) == 1
        assert capsys.readouterr().err == (
            "nqc-analysis: error: argument --by: --by k:-1: expected 2..100 quantile bins, got -1 (one bin edge is "
            f"written with a decimal point: k:-1.0) (see nqc-analysis {command} --help)\n"
        )


def test_by_an_unknown_or_many_valued_column(both):
    with pytest.raises(AnalysisError, match=r"--by nosuch: no such column \(one of: .*engine.*k/n.*run"):
        groups.group_frame(both, [groups.parse_by("nosuch")])
    with pytest.raises(AnalysisError, match=r"--by k: \d+ distinct values; give bins, e.g. --by k:4"):
        groups.group_frame(both, [groups.parse_by("k")])


def test_by_a_column_that_pools_engines_warns(both):
    with pytest.warns(AnalysisWarning, match=r"pools the engines auto, grigoryan .*add --by run or --by engine"):
        t = table.table_by(both, [groups.parse_by("k:2")])
    assert groups.label_columns(t) == ["k"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = table.table_by(both, [groups.parse_by("run"), groups.parse_by("k:2")])
    assert groups.label_columns(t) == ["run", "k"] and set(t["run"]) == {"grigoryan", "auto"}


# The comparison: ratios with intervals.


def test_ratio_ci_of_exact_multiples_and_against_the_formula():
    rng = np.random.default_rng(1)
    x = rng.lognormal(0, 1, 50)
    assert compare.ratio_ci(x, 2 * x, paired=True) == pytest.approx((2.0, 2.0, 2.0))  # no spread in the ratio
    y = rng.lognormal(0.5, 1, 80)
    r, lo, hi = compare.ratio_ci(x, y, paired=False)
    vx, vy = x.var(ddof=1) / (x.size * x.mean() ** 2), y.var(ddof=1) / (y.size * y.mean() ** 2)
    df = (vx + vy) ** 2 / (vx**2 / (x.size - 1) + vy**2 / (y.size - 1))
    from scipy import stats

    half = stats.t.ppf(0.975, df) * np.sqrt(vx + vy)
    assert (r, lo, hi) == pytest.approx((y.mean() / x.mean(), r * np.exp(-half), r * np.exp(half)), rel=1e-12)
    assert all(np.isnan(v) for v in compare.ratio_ci(x[:1], y[:1], paired=False)[1:])


def test_ratio_ci_covers_the_true_ratio_about_95_percent_of_the_time():
    rng = np.random.default_rng(7)
    true = np.exp(0.7 + 0.5) / np.exp(0.5)  # lognormal means: exp(mu + sigma^2 / 2)
    hits_paired = hits = 0
    for _ in range(400):
        x = rng.lognormal(0, 1, 200)
        y = rng.lognormal(0.7, 1, 200)
        _, lo, hi = compare.ratio_ci(x, y, paired=False)
        hits += lo <= true <= hi
        z = x * np.exp(0.7) * rng.lognormal(0, 0.3, 200) / np.exp(0.045)  # correlated with x, mean ratio e^0.7
        _, lo, hi = compare.ratio_ci(x, z, paired=True)
        hits_paired += lo <= np.exp(0.7) <= hi
    assert 0.88 <= hits / 400 <= 0.99 and 0.88 <= hits_paired / 400 <= 0.99, (hits, hits_paired)


def test_comparison_pairs_the_same_compositions_of_two_engines(both):
    comp = compare.comparison(both)
    assert comp.attrs["baseline"] == "grigoryan" and comp.attrs["groups"] == ["grigoryan", "auto"]
    assert comp["n"].tolist() == [n for n in (10, 20, 50, 100, 300) for _ in range(2)]
    assert comp["run"].tolist() == ["grigoryan", "auto"] * 5
    base = comp[comp["run"] == "grigoryan"]
    assert (base["verdict"] == "baseline").all() and (base["ratio"] == 1).all()
    auto = comp[comp["run"] == "auto"].set_index("n")
    assert auto["paired"].all()  # one config's seed and sizes: the same compositions
    for n in (10, 20, 50, 100, 300):
        g = both[(both["engine"] == "grigoryan") & (both["n"] == n)]["wall_s"]
        a = both[(both["engine"] == "auto") & (both["n"] == n)]["wall_s"]
        assert auto.loc[n, "ratio"] == pytest.approx(a.mean() / g.mean(), rel=1e-12)
        assert auto.loc[n, "ratio_lo"] <= auto.loc[n, "ratio"] <= auto.loc[n, "ratio_hi"]
        expected = (
            "faster"
            if auto.loc[n, "ratio_hi"] < 1
            else "slower"
            if auto.loc[n, "ratio_lo"] > 1
            else "no clear difference"
        )
        assert auto.loc[n, "verdict"] == expected
        lo, hi = table.clopper_pearson(auto.loc[n, "false_negatives"], auto.loc[n, "cases"])
        assert (auto.loc[n, "false_negative_share_lo"], auto.loc[n, "false_negative_share_hi"]) == pytest.approx(
            (lo, hi)
        )
    other = compare.comparison(both, baseline="auto")
    assert other.attrs["baseline"] == "auto"
    assert other[other["run"] == "grigoryan"]["ratio"].to_numpy() == pytest.approx(
        1 / auto["ratio"].to_numpy(), rel=1e-12
    )


def test_comparison_needs_two_groups_and_a_known_baseline(small_run, both):
    with pytest.raises(
        AnalysisError, match=r"a comparison needs at least two groups; these cases form one \(grigoryan\)"
    ):
        compare.comparison(load_cases(small_run))
    with pytest.raises(AnalysisError, match=r"--baseline nosuch: no such group \(the groups: grigoryan, auto\)"):
        compare.comparison(both, baseline="nosuch")


def test_unpaired_when_the_compositions_differ(small_run, tmp_path):
    rows = synthetic_rows([10] * 4 + [20] * 4, [3] * 8, [1e-3, 2e-3, 3e-3, 4e-3] * 2)
    rows["engine"] = SCHEMA_ENGINES["minconflicts"]
    other = write_result_file(tmp_path / "other.h5", rows, config_hash="ffffffffffffffff")
    comp = compare.comparison(load_cases(small_run, other, mixed="group"))
    mine = comp[comp["run"] == "minconflicts"]
    assert mine["n"].tolist() == [10, 20] and not mine["paired"].any()
    assert comp[(comp["run"] == "grigoryan") & (comp["n"] == 300)]["verdict"].item() == "baseline"


# The command line and the comparison report.


def test_table_and_compare_on_the_command_line(small_run, auto_run, tmp_path):
    done = analysis_cli("table", small_run, auto_run)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    runs = [line.split("|")[1].strip() for line in done.stdout.splitlines() if re.match(r"\| (grigoryan|auto) ", line)]
    assert runs == ["grigoryan"] * 5 + ["auto"] * 5
    done = analysis_cli("compare", small_run, auto_run, "--csv", tmp_path / "c.csv")
    assert done.returncode == 0, done.stderr
    assert "mean time / grigoryan (95% CI)" in done.stdout and "paired" in done.stdout
    assert re.search(r"^- \*\*auto\*\* against \*\*grigoryan\*\*: ", done.stdout, re.M)
    csv = pd.read_csv(tmp_path / "c.csv")
    assert list(csv.columns) == ["run"] + compare.COLUMNS and len(csv) == 10
    done = analysis_cli("compare", small_run, auto_run, "--by", "engine", "--baseline", "auto")
    assert done.returncode == 0 and "mean time / auto (95% CI)" in done.stdout, done.stderr
    done = analysis_cli("compare", small_run)
    assert done.returncode == 1 and "a comparison needs at least two groups" in done.stderr
    done = analysis_cli("fit", small_run, auto_run, "--n-min", 10)
    assert done.returncode == 0 and "## grigoryan" in done.stdout and "## auto" in done.stdout, done.stderr


def test_comparison_report_with_one_line_per_run(small_run, auto_run, tmp_path, monkeypatch):
    drawn = {}
    save = figures._save

    def keep(fig, path, dpi=figures.DPI):
        drawn[path.name] = fig
        return save(fig, path, dpi)

    monkeypatch.setattr(figures, "_save", keep)
    out = tmp_path / "cmp"
    report = write_report([small_run, auto_run], out)
    text = report.read_text()
    for heading in (
        "# nqc comparison: analysis-test, analysis-test-auto",
        "## Summary",
        "## Side by side per n",
        "## False negatives against the paper's bounds",
        "## Time regression per group",
        "## Figures",
    ):
        assert heading in text, heading
    assert "| run       | cases   | engine    | experiment" in text
    assert (
        "![compare_time](figures/compare_time.png)" in text and "![compare_shares](figures/compare_shares.png)" in text
    )
    assert png_size(out / "figures" / "compare_time.png") == figures.TALL_PX
    for name in ("compare.csv", "table1.csv", "fits.csv"):
        assert (out / name).is_file(), name
    assert set(pd.read_csv(out / "table1.csv")["run"]) == {"grigoryan", "auto"}
    top, bottom = drawn["compare_time.png"].axes
    assert [c.get_label() for c in top.containers] == ["grigoryan (180 cases)", "auto (180 cases)"]
    assert [c.get_label() for c in bottom.containers] == ["auto / grigoryan"]
    top, bottom = drawn["compare_shares.png"].axes
    assert [c.get_label() for c in top.containers] == ["grigoryan", "auto"]
    assert not (out / "figures" / "time_vs_n.png").exists()  # the one-run figures are not drawn
