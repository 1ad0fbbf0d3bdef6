"""`python3 -m analysis`: the report end to end, and one-line errors with exit code 1."""

from __future__ import annotations

import os
import re
import subprocess
import time

import h5py
import pytest

from analysis import figures, timeline
from analysis.schema import SCHEMA
from conftest import PYTHON, REPO, png_size, run_env, synthetic_rows, write_result_file


def analysis(*args, cwd=REPO, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PYTHON, "-m", "analysis", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env or {**run_env(), "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=120,
    )


def test_report_writes_tables_fits_and_every_figure(small_run, nqc_bin, tmp_path):
    out = tmp_path / "report"
    done = analysis("report", small_run, "-o", out, "--nqc", nqc_bin, "--randset-n", 100, "--randset-trials", 1000)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"report: {out / 'report.md'}"
    text = (out / "report.md").read_text()
    for heading in (
        "## Table 1",
        "## Time regression",
        "## Compared with the paper",
        "## False negatives against the paper's bounds",
        "## False negatives and cases that gave up",
        "## Figures",
        "## Timeline",
        "## Reproduce",
    ):
        assert heading in text
    assert "-0.628927" in text and "0.781568" in text
    links = re.findall(r"!\[[^]]*\]\(([^)]+)\)", text)
    # no n = 1000 here: the histograms default to the n with the most cases (n = 100, 40 cases)
    assert sorted(links) == sorted(
        [
            "figures/time_vs_n.png",
            "figures/fig10_time_histogram_n100.png",
            "figures/fig11_time_by_backtracks_n100.png",
            "figures/fig09_no_backtrack_share.png",
            "figures/false_negative_share.png",
            "figures/randset.png",
            "figures/timeline.png",
        ]
    )
    for link in links:
        if link.endswith("timeline.png"):  # its height grows with the ranks: one rank, the least
            assert png_size(out / link) == (1920, round(timeline.MIN_HEIGHT_IN * figures.DPI))
            continue
        expected = figures.TALL_PX if link.endswith("randset.png") else figures.SIZE_PX  # two panels: taller
        assert (out / link).stat().st_size > 0 and png_size(out / link) == expected
    for name in (
        "table1.csv",
        "table1.md",
        "fits.csv",
        "residuals.csv",
        "randset-n100.csv",
        "randset-n100-trials.csv",
        "timeline.csv",
        "timeline_by_host.csv",
    ):
        assert (out / name).stat().st_size > 0, name
    assert "gave_up" in text  # the listed failures of the small run
    assert "[randset-n100-trials.csv](randset-n100-trials.csv), [randset-n100.csv](randset-n100.csv)" in text


def test_table_and_fit_print_to_stdout(small_run, tmp_path):
    done = analysis("table", small_run, "--csv", tmp_path / "t.csv")
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if re.match(r"\|\s+\d+ \|", line)]
    assert [int(r.split("|")[1]) for r in rows] == [10, 20, 50, 100, 300]
    assert (tmp_path / "t.csv").read_text().startswith("n,cases,mean_s")
    done = analysis("fit", small_run, "--n-min", 20)
    assert done.returncode == 0, done.stderr
    assert "paper (Grigoryan 2019): mean time per case" in done.stdout and "| 20..300 " in done.stdout
    assert "-0.628927" in done.stdout and "0.781568" in done.stdout


def test_false_negatives_beside_the_papers_bounds(small_run, tmp_path):
    done = analysis("false-negatives", small_run, "--csv", tmp_path / "fn.csv")
    assert done.returncode == 0, done.stderr
    with h5py.File(small_run / "results.h5") as f:
        rows = f["cases"][()]
    lines = [re.sub(" +", " ", line) for line in done.stdout.splitlines()]
    # one row per n, then one pooled row per claim of the paper
    for n, claim in [(10, "< 0.0001"), (20, "< 0.0001"), (50, "< 0.0001"), (100, "< 1e-05"), (300, "< 1e-05")]:
        fn = int(rows["false_negative"][rows["n"] == n].sum())
        cases = int((rows["n"] == n).sum())
        assert any(line.startswith(f"| {n} | {cases} | {fn} |") and f"| {claim} |" in line for line in lines), (
            n,
            done.stdout,
        )
    assert any(line.startswith("| 10..50 | ") for line in lines)
    assert any(line.startswith("| 100..300 | ") for line in lines)
    assert (tmp_path / "fn.csv").read_text().startswith("n,cases,false_negatives,share,lo,hi,paper,verdict")


def test_runs_from_elsewhere_with_pythonpath(tmp_path):
    done = analysis("--help", cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"})
    assert done.returncode == 0 and "report" in done.stdout


def expect_error(done: subprocess.CompletedProcess, *fragments: str) -> None:
    assert done.returncode == 1, (done.returncode, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("nqc-analysis: error: "), done.stderr
    assert "Traceback" not in done.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def test_missing_file(tmp_path):
    expect_error(analysis("report", tmp_path / "gone"), f"{tmp_path / 'gone'}: no such file or directory")
    expect_error(analysis("table", tmp_path / "gone.h5"), "gone.h5: no such file or directory")


def test_empty_results_directory(tmp_path):
    (tmp_path / "empty").mkdir()
    expect_error(analysis("report", tmp_path / "empty"), f"{tmp_path / 'empty'}: no result files")


def test_file_of_another_schema_version(tmp_path):
    path = write_result_file(tmp_path / "v3.h5", synthetic_rows([10], [3], [1e-3]), schema_version="3.1")
    version = SCHEMA["schema_version"]
    expect_error(
        analysis("fit", path),
        f"{path}: schema version 3.1, this nqc reads {version} only (read it with the nqc that wrote it)",
    )


@pytest.mark.parametrize(
    "args, fragment",
    [
        ([], "the following arguments are required"),
        (["report"], "the following arguments are required: PATH"),
        (
            ["report", "{run}", "--hist-n", "12345"],
            "--hist-n 12345: no cases at that n (the data has n = 10, 20, 50, 100, 300)",
        ),
        (["report", "{run}", "--hist-k", "9:3"], "expected 0 <= LO <= HI"),
        (["report", "{run}", "--randset", "nonsense"], "expected N:FILE"),
        (["fit", "{run}", "--n-min", "400"], "0 board size(s) in n = 400..max"),
    ],
)
def test_bad_options(small_run, tmp_path, args, fragment):
    expect_error(analysis(*[a.format(run=small_run) for a in args], cwd=REPO), fragment)


def test_help_shows_percent_signs_once(capsys):
    from analysis.cli import SUBCOMMANDS, main

    for command in SUBCOMMANDS:
        assert main([command, "--help"]) == 0
        text = capsys.readouterr().out
        assert "%%" not in text and ("95%" in text or "95" not in text), (command, text)
    assert main(["phase", "--help"]) == 0 and "exact (Clopper-Pearson) 95%" in capsys.readouterr().out


def test_sigterm_stops_the_command_and_its_nqc(tmp_path):
    # an nqc that reads for a long time (a plan that counts): SIGTERM ends both, one line, exit 1
    fake = tmp_path / "nqc"
    pid_file = tmp_path / "nqc.pid"
    fake.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 300\n")
    fake.chmod(0o755)
    (tmp_path / "results.h5").write_bytes(b"")
    command = subprocess.Popen(
        [PYTHON, "-m", "analysis", "table", str(tmp_path / "results.h5")],
        cwd=REPO,
        env={**run_env(), "NQC_BIN": str(fake), "PYTHONDONTWRITEBYTECODE": "1"},
        stderr=subprocess.PIPE,
        text=True,
    )
    for _ in range(600):  # until the fake nqc runs (its pid written)
        if pid_file.exists() and pid_file.read_text().strip():
            break
        time.sleep(0.1)
    child = int(pid_file.read_text())
    command.terminate()
    _, err = command.communicate(timeout=60)
    assert command.returncode == 1 and err.splitlines() == [
        "nqc-analysis: interrupted (SIGTERM or SIGINT): stopped, its nqc child too"
    ], err
    with pytest.raises(ProcessLookupError):  # killed and reaped by subprocess.run
        os.kill(child, 0)
