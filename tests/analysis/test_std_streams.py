"""``-`` is standard output for every option of ``python3 -m analysis`` that writes a file, as
for nqc: the bytes on stdout equal the file written under a real name, the tables printed beside
it move to stderr unchanged, and no file named ``-`` appears; ``--randset N:-`` reads standard
input; a directory (report -o) or a result file cannot be ``-``."""

from __future__ import annotations

import subprocess

import pandas as pd
import pytest

from analysis import output, randset
from analysis.errors import AnalysisError
from conftest import PYTHON, REPO, randset_trials, run_env


def analysis(*args, cwd, stdin=None) -> subprocess.CompletedProcess:
    env = {**run_env(), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(REPO), "MPLBACKEND": "Agg"}
    return subprocess.run(
        [PYTHON, "-m", "analysis", *map(str, args)], capture_output=True, cwd=cwd, env=env, input=stdin, timeout=120
    )


def no_dash_files(root) -> list:
    return [str(p) for p in root.rglob("-")]


@pytest.mark.parametrize(
    "command, runs",
    [
        ("table", ["small"]),
        ("false-negatives", ["small"]),
        ("fit", ["small"]),
        ("compare", ["small", "auto"]),
        ("instances", ["instances"]),
    ],
)
def test_csv_to_standard_output(command, runs, small_run, auto_run, instance_runs, tmp_path):
    paths = {"small": small_run, "auto": auto_run, "instances": instance_runs["auto"]}
    args = [command, *(paths[r] for r in runs)]
    by_name = analysis(*args, "--csv", tmp_path / "named.csv", cwd=tmp_path)
    assert by_name.returncode == 0, by_name.stderr
    to_stdout = analysis(*args, "--csv", "-", cwd=tmp_path)
    assert to_stdout.returncode == 0, to_stdout.stderr
    assert to_stdout.stdout == (tmp_path / "named.csv").read_bytes()
    assert len(to_stdout.stdout.splitlines()) >= 2  # a header and rows
    # the tables go to stderr, as they went to stdout (the warnings of a command follow them)
    assert to_stdout.stderr.startswith(by_name.stdout), (to_stdout.stderr[:300], by_name.stdout[:300])
    assert no_dash_files(tmp_path) == []


def test_dot_slash_dash_names_a_file(small_run, tmp_path):
    done = analysis("table", small_run, "--csv", "./-", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "-").read_text().startswith("n,cases,mean_s")
    assert b"| n " in done.stdout or done.stdout.startswith(b"|")  # the table stays on stdout


def one_error(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 1, (done.returncode, done.stderr)
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and b"Traceback" not in done.stderr, done.stderr
    return lines[0]


def test_report_directory_and_result_paths_cannot_be_streams(small_run, tmp_path):
    assert one_error(analysis("report", small_run, "-o", "-", cwd=tmp_path)) == (
        "nqc-analysis: error: -o: '-' (standard output) cannot be the report's directory (report.md, figures/ and "
        "the CSVs); give a directory"
    )
    for command in ("table", "report"):  # one check for every command (analysis.cli._run)
        assert one_error(analysis(command, "-", cwd=tmp_path)) == (
            "nqc-analysis: error: PATH: '-' (standard input) cannot be a result file or results directory (they are "
            "read by name); give a path"
        ), command
    assert no_dash_files(tmp_path) == []


def test_randset_csv_from_standard_input(nqc_bin, tmp_path):
    trials = randset_trials(nqc_bin, tmp_path / "trials.csv")
    import sys

    saved = sys.stdin
    try:
        with open(trials, "rb") as f:
            sys.stdin = type("In", (), {"buffer": f})()
            from_stdin = randset.read_csv("-", 50)
    finally:
        sys.stdin = saved
    from_file = randset.read_csv(trials, 50)
    assert from_stdin.trials == from_file.trials == 200
    pd.testing.assert_frame_equal(from_stdin.per_trial, from_file.per_trial)
    assert str(from_stdin.trials_csv) == "<stdin>"
    assert randset.parse_spec("50:-") == (50, "-")
    assert randset.check_specs([(50, "-")]) == [(50, "-")]
    with pytest.raises(AnalysisError, match=r"^- given twice in --randset \(for n = 50 and n = 60\)"):
        randset.check_specs([(50, "-"), (60, "-")])


def test_randset_errors_from_standard_input_name_it(tmp_path):
    import io
    import sys

    saved = sys.stdin
    try:
        sys.stdin = type("In", (), {"buffer": io.BytesIO(b"trial,first_pass,dead_end_k\n0,99,99\n")})()
        with pytest.raises(AnalysisError) as raised:
            randset.read_csv("-", 50)
    finally:
        sys.stdin = saved
    assert str(raised.value).startswith("<stdin>: row 2, column first_pass: 99 is out of range")


def test_output_helpers(tmp_path, capsysbinary):
    assert output.is_std_stream("-") and not output.is_std_stream("./-") and not output.is_std_stream(tmp_path / "-")
    assert output.text_stream(None, "x.csv") is __import__("sys").stdout
    assert output.text_stream("x.csv", "-") is __import__("sys").stderr
    output.write_text("-", "héllo\n")
    output.write_csv(pd.DataFrame({"a": [1, 2]}), "-")
    assert capsysbinary.readouterr().out == "héllo\n".encode() + b"a\n1\n2\n"
    with pytest.raises(AnalysisError, match=r"^'-' \(standard output\) cannot be a directory; give a directory$"):
        output.make_dir("-")
    with pytest.raises(AnalysisError, match=r"^--x: '-' \(standard input\) cannot be a file here$"):
        output.refuse_std_stream("--x", "-", "a file here", reading=True)
