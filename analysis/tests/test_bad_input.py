"""Bad input, one test per kind of fault: one error line naming the file, the row/column and what
was expected, exit 1 -- never a traceback, never a wrong number with exit 0."""

from __future__ import annotations

import re
import resource
import shutil
import subprocess
import warnings
from pathlib import Path

import h5py
import numpy as np
import pytest

from analysis import figures, randset
from analysis.cli import main
from analysis.errors import AnalysisError
from analysis.load import AnalysisWarning, load_cases
from analysis.report import ReportOptions, write_report
from conftest import PYTHON, REPO, run_env, synthetic_rows, write_result_file


class Done:
    """What a command did: exit code, standard output and error (as subprocess.CompletedProcess)."""

    def __init__(self, returncode: int, stdout: str, stderr: str):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def analysis(capsys, *args) -> Done:
    """`python3 -m analysis ARGS` in this process (cli.main, as __main__ runs it): a traceback
    would surface as the exception itself."""
    capsys.readouterr()
    try:
        code = main([str(a) for a in args])
    except SystemExit as e:  # argparse
        code = e.code
    out, err = capsys.readouterr()
    return Done(code, out, err)


def analysis_process(*args, preexec_fn=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PYTHON, "-m", "analysis", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**run_env(), "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=120,
        preexec_fn=preexec_fn,
    )


def one_error(done, *fragments: str) -> str:
    """The single error line of a failed command (exit 1, no traceback), checked for `fragments`."""
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("nqc-analysis: error: "), done.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def csv_error(tmp_path, text: str, n: int = 20) -> str:
    path = tmp_path / "in.csv"
    path.write_text(text)
    with pytest.raises(AnalysisError) as err:
        randset.read_csv(path, n)
    message = str(err.value)
    assert message.startswith(f"{path}: "), message
    return message[len(f"{path}: ") :]


# 1. The histogram CSV (k,count,share): every field of every row is checked.

HIST = "k,count,share\n"


@pytest.mark.parametrize(
    "body, message",
    [
        ("5,3,abc\n", "row 2, column share: 'abc' is not a number, expected count / total trials, a number in 0..1"),
        ("5,3,7.0\n", "row 2, column share: 7.0 is out of range, expected count / total trials, a number in 0..1"),
        ("5,3,nan\n", "row 2, column share: 'nan' is not a number"),
        ("5,3,1e999\n", "row 2, column share: '1e999' is not a finite number"),
        ("5,3,\n", "row 2, column share: empty, expected count / total trials"),
        ("7,9\n", "row 2: 2 fields '7,9', expected 3: k,count,share"),
        ("5,3,1.0\n7,9\n", "row 3: 2 fields '7,9', expected 3: k,count,share"),
        ("5,3,1,0\n", "row 2: 4 fields '5,3,1,0', expected 3: k,count,share"),
        # nqc once wrote the histogram over a per-trial CSV: the header of one, the rows of the other
        ("7,9\n1,6,9\n", "row 2: 2 fields '7,9', expected 3"),
        ("1,6,9\n", "row 2, column share: 9 is out of range"),
        ("5,3,0.5\n5,3,0.5\n", "row 3, column k: k = 5 repeats row 2, expected each k once"),
        ("5,1,0.25\n6,3,0.5\n", "row 3, column share: 0.5 is not count / total trials = 3 / 4 = 0.75 (within 1e-06)"),
        (
            "21,3,1\n",
            "row 2, column k: 21 is out of range, expected queens at the dead end, an integer in 0..n = 0..20 "
            "(wrong N in N:FILE?)",
        ),
        ("-1,3,1\n", "row 2, column k: -1 is out of range"),
        ("5.0,3,1\n", "row 2, column k: '5.0' is not a whole number"),
        (
            "5,0,0\n",
            "row 2, column count: 0 is out of range, expected trials that ended with k queens, an integer >= 1",
        ),
        ("5,1e1,1\n", "row 2, column count: '1e1' is not a whole number"),
        ("5,99999999999999999999999,1\n", "row 2, column count: 99999999999999999999999 does not fit a 64-bit integer"),
    ],
)
def test_every_histogram_field_is_checked(tmp_path, body, message):
    got = csv_error(tmp_path, HIST + body)
    assert got.startswith(message), got


def test_a_good_histogram_is_read_exactly(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text(HIST + "12,1,0.25\n14,2,0.5\n15,1,0.25\n")  # nqc's 6 significant digits are within 1e-6
    run = randset.read_csv(path, 20)
    assert run.trials == 4 and run.histogram["k"].tolist() == [12, 14, 15]
    assert run.mean_dead_end_share == pytest.approx((12 + 28 + 15) / 4 / 20)


def test_histogram_with_a_bad_share_on_the_command_line(small_run, tmp_path):
    bad = tmp_path / "hist.csv"
    bad.write_text(HIST + "5,3,abc\n")  # was a traceback (ValueError in figures.randset_histogram)
    one_error(
        analysis_process("report", small_run, "-o", tmp_path / "out", "--randset", f"20:{bad}"),
        f"{bad}: row 2, column share: 'abc' is not a number",
    )
    assert not (tmp_path / "out").exists()


# 2. The per-trial CSV: exact integers, checked before the ranges; first_pass >= 1; trials unique.

TRIALS = "trial,first_pass,dead_end_k\n"


@pytest.mark.parametrize(
    "body, message",
    [
        (
            "0,99999999999999999999999,10\n",
            "row 2, column first_pass: 99999999999999999999999 does not fit a 64-bit "
            "integer, expected queens placed by the first pass, an integer in 1..n = 1..20",
        ),
        (
            "0,NaN,10\n",
            "row 2, column first_pass: 'NaN' is not a whole number, expected queens placed by the first pass",
        ),
        ("0,1e1,10\n", "row 2, column first_pass: '1e1' is not a whole number"),
        ("0,10.0,10\n", "row 2, column first_pass: '10.0' is not a whole number"),
        (
            "0,0,10\n",
            "row 2, column first_pass: 0 is out of range, expected queens placed by the first pass, an integer "
            "in 1..n = 1..20 (the first pass on the empty board places at least one queen)",
        ),
        (
            "0,5,4\n",
            "row 2, column dead_end_k: 4 is out of range, expected queens at the dead end, an integer in "
            "first_pass..n = 5..20 (repeated passes never remove queens)",
        ),
        ("0,5,21\n", "row 2, column dead_end_k: 21 is out of range"),
        ("0,5,1e400\n", "row 2, column dead_end_k: '1e400' is not a whole number"),
        ("9223372036854775808,5,10\n", "row 2, column trial: 9223372036854775808 does not fit a 64-bit integer"),
        ("-1,5,10\n", "row 2, column trial: -1 is out of range, expected a trial number >= 0"),
        ("0,5,10\n1,5,10\n0,6,10\n", "row 4, column trial: trial 0 repeats row 2, expected each trial once"),
        ("0,5,\n", "row 2, column dead_end_k: empty"),
        ("0,5,10\n\n1,5,10\n", "row 3: a blank line, expected 3: trial,first_pass,dead_end_k"),
    ],
)
def test_every_trial_field_is_an_exact_integer_in_range(tmp_path, body, message):
    got = csv_error(tmp_path, TRIALS + body)
    assert got.startswith(message), got


def test_overflowing_trial_value_on_the_command_line_is_refused(small_run, tmp_path, capsys):
    # It used to wrap to a negative int64 and pass every check: exit 0 with a nonsense report.
    bad = tmp_path / "trials.csv"
    bad.write_text(TRIALS + "0,99999999999999999999999,10\n")
    one_error(
        analysis(capsys, "report", small_run, "-o", tmp_path / "out", "--randset", f"20:{bad}"),
        f"{bad}: row 2, column first_pass: 99999999999999999999999 does not fit a 64-bit integer",
    )


# 3. --randset N: bounded, and each n (and each file) once.


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--randset", "99999999999999999999999:{csv}"],
            "N = 99999999999999999999999 is not a board size, expected N:FILE with N in 1..2147483647",
        ),
        (["--randset", "2147483648:{csv}"], "N = 2147483648 is not a board size"),
        (["--randset", "20:{csv}", "--randset", "20:{other}"], "n = 20 given twice in --randset"),
        (["--randset", "20:{csv}", "--randset", "30:{csv}"], "given twice in --randset (for n = 20 and n = 30)"),
        (["--nqc", "{nqc}", "--randset-n", "10", "10"], "n = 10 given twice in --randset-n"),
        (["--randset-n", "99999999999999999999999"], "expected a board size in 1..2147483647"),
        (["--hist-n", "1e3"], "expected a board size, an integer in 1..2147483647, got '1e3'"),
    ],
)
def test_randset_n_is_a_bounded_board_size_given_once(small_run, nqc_bin, tmp_path, capsys, args, message):
    csv, other = tmp_path / "a.csv", tmp_path / "b.csv"
    for path in (csv, other):
        path.write_text(HIST + "5,1,1\n")
    args = [a.format(csv=csv, other=other, nqc=nqc_bin) for a in args]
    one_error(analysis(capsys, "report", small_run, "-o", tmp_path / "out", *args), message)
    assert not (tmp_path / "out").exists()
    assert randset.parse_spec("2147483647:x.csv") == (2147483647, Path("x.csv"))


def test_randset_csv_and_nqc_that_are_directories_say_so(small_run, tmp_path, capsys):
    """--randset 100:DIR said "DIR: no such file"; --nqc DIR "cannot run (Permission denied)"."""
    for args, message in [
        (
            ["--randset", f"100:{tmp_path}"],
            f"{tmp_path}: is a directory, expected a CSV of nqc randset (--trials-csv FILE or --csv FILE)",
        ),
        (["--randset", f"100:{tmp_path / 'none.csv'}"], f"{tmp_path / 'none.csv'}: no such file"),
        (["--nqc", str(tmp_path), "--randset-n", "10"], f"{tmp_path}: is a directory, expected the nqc executable"),
    ]:
        line = one_error(analysis(capsys, "report", small_run, "-o", tmp_path / "out", *args))
        assert line == f"nqc-analysis: error: {message}"
        assert not (tmp_path / "out").exists()


def test_randset_csv_from_a_fifo_is_read(nqc_bin, tmp_path):
    """A CSV that is not a regular file (a shell's <(nqc randset ...), a FIFO) is read as one."""
    import os
    import threading

    trials = tmp_path / "trials.csv"
    subprocess.run(
        [str(nqc_bin), "randset", "50", "--trials", "200", "--trials-csv", str(trials)],
        check=True,
        capture_output=True,
        env=run_env(),
        timeout=60,
    )
    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(trials.read_bytes()), daemon=True)
    writer.start()
    try:
        from_fifo = randset.read_csv(fifo, 50)
    finally:
        writer.join(timeout=30)
        if writer.is_alive():  # unblock it: a reader that opens and closes
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
    assert from_fifo.per_trial.equals(randset.read_csv(trials, 50).per_trial) and from_fifo.trials == 200


# 4. Times a log axis cannot show: the figure is left out with a warning and a note.


def with_times(small_run, tmp_path, name, change) -> Path:
    copy = tmp_path / name
    shutil.copy(small_run / "results.h5", copy)
    with h5py.File(copy, "a") as f:
        rows = f["cases"][()]
        change(rows)
        f["cases"][...] = rows
    return copy


@pytest.mark.parametrize("value", [np.nan, -1.0, np.inf, -np.inf])
def test_times_no_run_can_record_are_damage(small_run, tmp_path, value, nqc_bin):
    """NaN, negative or infinite seconds: no engine call takes them, so the file is damaged
    (the loader and nqc say the same); 0 s is a time (below the clock's resolution)."""

    def change(rows):
        rows["wall_s"][3] = value

    path = with_times(small_run, tmp_path, "times.h5", change)
    case = int(h5py.File(path, "r")["cases"]["case_id"][3])
    with pytest.raises(
        AnalysisError,
        match=re.escape(f"{path}: damaged (/cases row 3 (case_id {case}): wall_s = {value}, " "expected seconds >= 0)"),
    ):
        load_cases(path)
    done = subprocess.run([nqc_bin, "aggregate", path], capture_output=True, text=True, env=run_env())
    assert done.returncode == 1 and done.stderr.startswith(
        f"nqc: error: {path}: damaged (row 3 (case {case}): wall_s = "
    ), done.stderr


@pytest.mark.parametrize("value", [0.0])
def test_times_a_log_axis_cannot_show_skip_the_figure_with_a_note(small_run, tmp_path, value):
    def change(rows):
        rows["wall_s"][:] = value

    path = with_times(small_run, tmp_path, "times.h5", change)
    with pytest.warns(AnalysisWarning) as caught:
        report = write_report([path], tmp_path / "out", ReportOptions(hist_n=100))
    messages = [str(w.message) for w in caught]
    for name in ("time_vs_n.png", "fig10_time_histogram_n100.png", "fig11_time_by_backtracks_n100.png"):
        assert any(m.startswith(f"figure {name} not drawn: ") and str(path) in m for m in messages), messages
        assert not (tmp_path / "out" / "figures" / name).exists()
    text = report.read_text()
    assert (
        "**Not drawn: `figures/fig10_time_histogram_n100.png`** (all 40 times wall_s at n = 100 are 0, negative "
        f"or not finite in {path}: nothing to draw on a log axis)" in text
    )
    assert (tmp_path / "out" / "figures" / "fig09_no_backtrack_share.png").is_file()  # the others are drawn
    with pytest.raises(figures.NoData, match=r"at n = 100 .* in .*times.h5"):
        figures.time_histogram(load_cases(path), 100, tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_report_with_zero_times_on_the_command_line_warns_and_exits_0(small_run, tmp_path, capsys):
    def change(rows):
        rows["wall_s"][rows["n"] == 100] = 0.0
        rows["wall_s"][rows["n"] == 300] = 0.0

    path = with_times(small_run, tmp_path, "zero.h5", change)
    done = analysis(capsys, "report", path, "-o", tmp_path / "out", "--hist-n", 100)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    assert lines and all(line.startswith("nqc-analysis: warning: ") for line in lines), done.stderr
    assert any(
        "figure fig10_time_histogram_n100.png not drawn: all 40 times wall_s at n = 100" in line for line in lines
    )
    # time_vs_n is still drawn, without the n whose mean is 0; a partly bad n keeps its good times
    assert (tmp_path / "out" / "figures" / "time_vs_n.png").is_file()

    def some(rows):
        rows["wall_s"][np.flatnonzero(rows["n"] == 100)[:5]] = 0.0

    partly = with_times(small_run, tmp_path, "partly.h5", some)
    figures.time_histogram(load_cases(partly), 100, tmp_path / "partly.png")
    assert (tmp_path / "partly.png").is_file()


# 5. Outputs: errors name the file, nothing partial is left, nothing printed before an error.


def small_file_limit():
    resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024, 16 * 1024))  # a disk that fills at 16 kB a file


def test_a_failed_write_names_the_file_and_leaves_nothing_partial(small_run, tmp_path):
    out = tmp_path / "out"
    write_report([small_run], out)  # a report written before is removed, not left half replaced
    assert (out / "report.md").is_file()
    done = analysis_process("report", small_run, "-o", out, preexec_fn=small_file_limit)
    line = one_error(done, f"{out / 'figures' / 'time_vs_n.png'}: cannot write (File too large)")
    assert done.stdout == "", line
    assert not [p for p in out.rglob("*") if p.is_file()], list(out.rglob("*"))


def test_a_failed_write_in_process_leaves_no_partial_png(small_run, tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    def full_disk(self, fname, **kwargs):
        Path(fname).write_bytes(b"\x89PNG partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", full_disk)
    with pytest.raises(AnalysisError, match=r"figures/time_vs_n.png: cannot write \(No space left on device\)$"):
        write_report([small_run], tmp_path / "out")
    assert not (tmp_path / "out").exists()  # made by this call, emptied and removed


def test_output_paths_are_checked_and_named(small_run, tmp_path, capsys):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    one_error(analysis(capsys, "report", small_run, "-o", a_file), f"{a_file}: is not a directory")
    one_error(
        analysis(capsys, "report", small_run, "-o", a_file / "sub"), f"{a_file / 'sub'}: cannot create the directory"
    )
    for command in ("table", "fit"):
        missing = tmp_path / "nonexist" / "t.csv"
        done = analysis(capsys, command, small_run, "--csv", missing)
        one_error(done, f"{missing}: cannot write: directory {missing.parent} does not exist")
        assert done.stdout == ""  # nothing printed before the error
        one_error(analysis(capsys, command, small_run, "--csv", tmp_path), f"{tmp_path}: cannot write: is a directory")
    done = analysis(capsys, "table", small_run, "--csv", tmp_path / "t.csv")
    assert done.returncode == 0 and (tmp_path / "t.csv").read_text().startswith("n,cases,")
    assert not list(tmp_path.glob(".*.part"))


def test_a_time_column_the_files_lack_is_one_error_line(tmp_path, capsys):
    rows = synthetic_rows([10, 20], [3, 4], [1e-3, 2e-3])
    path = write_result_file(tmp_path / "no-cpu.h5", rows[[name for name in rows.dtype.names if name != "cpu_s"]])
    for command in ("table", "fit", "report"):  # table and fit raised KeyError: a traceback
        one_error(
            analysis(capsys, command, path, "--time", "cpu_s"),
            "no time column 'cpu_s' in the result files (--time cpu_s)",
        )
    assert not (tmp_path / "report").exists()


# 6. Result files of different configs are never pooled by accident: the library refuses them
#    unless told how (load_cases(mixed=...)); the command line groups them per run, and pools
#    them only with --allow-mixed (with a warning).


def test_different_configs_are_grouped_not_pooled(small_run, tmp_path, capsys):
    other = write_result_file(
        tmp_path / "other.h5", synthetic_rows([20, 20], [5, 6], [1e-3, 2e-3]), config_hash="ffffffffffffffff"
    )
    with h5py.File(small_run / "results.h5") as f:
        ours = f.attrs["config_hash"]  # a variable-length string since schema 2.1: str in h5py
    with pytest.raises(AnalysisError) as err:
        load_cases(small_run, other)
    assert str(err.value).startswith(
        f"{small_run} (config_hash {ours}) and {other} (config_hash ffffffffffffffff) " "are different configs"
    )
    with pytest.warns(AnalysisWarning, match="pooling the cases of 2 different configs"):
        pooled = load_cases(small_run, other, allow_mixed=True)
    assert len(pooled) == 182
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        grouped = load_cases(small_run, other, mixed="group")
    assert len(grouped) == 182
    # the command line: one block per run (labelled by experiment name: both are grigoryan)
    done = analysis(capsys, "table", small_run, other)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    rows = [
        line.split("|")[1:3] for line in done.stdout.splitlines() if re.match(r"\| (analysis-test|synthetic) ", line)
    ]
    assert [(a.strip(), int(b)) for a, b in rows] == [("analysis-test", n) for n in (10, 20, 50, 100, 300)] + [
        ("synthetic", 20)
    ]
    done = analysis(capsys, "table", small_run, other, "--allow-mixed")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("nqc-analysis: warning: pooling the cases of 2 "), done.stderr
    one_error(
        analysis(capsys, "table", small_run, other, "--allow-mixed", "--by", "engine"),
        "--allow-mixed pools every case into one table: give it without --by",
    )


# 7. schema_version: a string "MAJOR.MINOR" of decimal digits, exactly as nqc accepts it.


@pytest.mark.parametrize(
    "value, message",
    [
        (2.0, "schema_version is not a string 'MAJOR.MINOR' (got 2.0)"),
        (np.int32(1), "schema_version is not a string 'MAJOR.MINOR' (got 1)"),
        (np.array([1.0, 0.0]), "schema_version is not a string 'MAJOR.MINOR' (got [1. 0.])"),
        ("1.x", "schema_version '1.x' is not MAJOR.MINOR (decimal digits), this analysis reads 1.x and 2.x"),
        (" 1.0", "schema_version ' 1.0' is not MAJOR.MINOR"),
        ("1.0\n", "is not MAJOR.MINOR"),
        ("1", "schema_version '1' is not MAJOR.MINOR"),
        ("1.0.0", "schema_version '1.0.0' is not MAJOR.MINOR"),
        ("+1.0", "is not MAJOR.MINOR"),
        ("\u0661.\u0660", "is not MAJOR.MINOR"),  # Arabic-Indic digits: not decimal ASCII
        ("1.0000000000", "is not MAJOR.MINOR"),  # more than 9 digits, as nqc
        ("3.0", "schema version 3.0, this analysis reads 1.x and 2.x"),
    ],
)
def test_schema_version_is_a_string_major_minor(tmp_path, value, message):
    path = write_result_file(tmp_path / "v.h5", synthetic_rows([10], [3], [1e-3]))
    with h5py.File(path, "a") as f:
        f.attrs["schema_version"] = value
    with pytest.raises(AnalysisError) as err:
        load_cases(path)
    assert str(err.value).startswith(f"{path}: ") and message in str(err.value), str(err.value)


def test_string_attributes_as_nqc_reads_them(tmp_path):
    path = write_result_file(tmp_path / "v.h5", synthetic_rows([10], [3], [1e-3]))
    for value in (np.bytes_(b"1.1"), np.array([b"1.2"]), "01.0"):  # fixed-length, one-element array
        with h5py.File(path, "a") as f:
            f.attrs["schema_version"] = value
        assert len(load_cases(path)) == 1
    with h5py.File(path, "a") as f:
        f.attrs["config_hash"] = 12345
    with pytest.raises(AnalysisError, match=r"v.h5: config_hash is not a string \(got 12345\)"):
        load_cases(path)


# The cases' board sizes, which every figure puts on a log axis.


@pytest.mark.parametrize(
    "n, k, message",
    [
        ([10, 0], [3, 0], "/cases row 1 (case_id 1): n = 0 is not a board size, expected 1..2147483647"),
        ([10, -4], [3, 0], "n = -4 is not a board size"),
        ([10, 20], [3, 21], "/cases row 1 (case_id 1): k = 21 queens, expected 0..n = 0..20"),
        ([10, 20], [-1, 2], "/cases row 0 (case_id 0): k = -1 queens"),
    ],
)
def test_board_sizes_of_the_cases_are_checked(tmp_path, n, k, message):
    path = write_result_file(tmp_path / "sizes.h5", synthetic_rows(n, k, [1e-3, 1e-3]))
    with pytest.raises(AnalysisError) as err:
        load_cases(path)
    assert str(err.value).startswith(f"{path}: ") and message in str(err.value), str(err.value)
    rows = synthetic_rows([10], [3], [1e-3])
    floats = rows.astype([(name, "<f8" if name == "n" else rows.dtype[name]) for name in rows.dtype.names])
    with pytest.raises(AnalysisError, match="/cases member 'n' has type float64, expected an integer type"):
        load_cases(write_result_file(tmp_path / "float-n.h5", floats))


# The kinds a member may have come from result_schema.json's types: every member is checked.
@pytest.mark.parametrize(
    "name, dtype, expected",
    [
        ("nodes", "<f8", "an integer type"),
        ("rank", "S4", "an integer type"),
        ("wall_s", "S8", "a number type"),
        ("false_negative", "<f8", "an integer or bool type"),
        ("engine", "<f8", "an enum or (schema 1.x) a string type"),
        ("limit", "<f4", "an enum or (schema 1.x) a string type"),
    ],
)
def test_every_member_type_is_checked_from_the_schema(tmp_path, name, dtype, expected):
    rows = synthetic_rows([10], [3], [1e-3])
    changed = np.zeros(len(rows), dtype=[(f, dtype if f == name else rows.dtype[f]) for f in rows.dtype.names])
    for f in rows.dtype.names:
        if f != name:
            changed[f] = rows[f]
    path = write_result_file(tmp_path / f"{name}.h5", changed)
    with pytest.raises(AnalysisError) as err:
        load_cases(path)
    assert str(err.value) == f"{path}: /cases member '{name}' has type {np.dtype(dtype)}, expected {expected}"


# 8. What the root attributes hold: the config is a JSON object whose names are strings, the
#    integer attributes are integers, the launches table has its members. Never a crash.

BAD_CONFIGS = [
    ("null", "/: expected a JSON object, got null"),
    ("[]", "/: expected a JSON object, got []"),
    ('"hello"', '/: expected a JSON object, got "hello"'),
    ("42", "/: expected a JSON object, got 42"),
    ("[1, 2, 3]", "/: expected a JSON object, got an array of 3"),
    ('{"name": 42}', "/name: expected a string, got 42"),
    ('{"name": "x", "engine": null}', "/engine: expected a string, got null"),
    ('{"description": {"a": 1}}', "/description: expected a string, got an object"),
    ('{"name": "' + "x" * 50 + '", "engine": ["' + "y" * 50 + '"]}', "/engine: expected a string, got an array of 1"),
    ("{", "not valid JSON (Expecting property name enclosed in double quotes at line 1 column 2)"),
    ("", "not valid JSON (Expecting value at line 1 column 1)"),
    ('{"name": "x"} {}', "not valid JSON (Extra data at line 1 column 15)"),
    ('{"name": NaN}', "not valid JSON (NaN is not JSON)"),
    ('{"seed": -Infinity}', "not valid JSON (-Infinity is not JSON)"),
    ("[" * 100000 + "]" * 100000, "not valid JSON (nested too deeply)"),
]


@pytest.mark.parametrize("text, message", BAD_CONFIGS, ids=[m for _, m in BAD_CONFIGS])
def test_config_attribute_is_a_json_object(tmp_path, text, message):
    """The config attribute (valid JSON but no object made `table` crash with AttributeError)."""
    path = write_result_file(tmp_path / "c.h5", synthetic_rows([10], [3], [1e-3]), config=text)
    with pytest.raises(AnalysisError) as err:
        load_cases(path)
    assert str(err.value) == f"{path} (config attribute): {message}"


@pytest.mark.parametrize("command", ["table", "fit", "report"])
def test_config_that_is_no_object_on_the_command_line(tmp_path, capsys, command):
    path = write_result_file(tmp_path / "c.h5", synthetic_rows([10, 20], [3, 4], [1e-3, 2e-3]), config="[]")
    line = one_error(analysis(capsys, command, path))
    assert line == f"nqc-analysis: error: {path} (config attribute): /: expected a JSON object, got []"
    assert not (tmp_path / "report").exists()


def test_config_of_a_schema_2_0_file(tmp_path):
    """tests/data's 2.0 file: fixed-length text attributes, no text_checksum."""
    path = tmp_path / "results.h5"
    shutil.copy(REPO / "tests/data/schema-2.0-results.h5", path)
    with h5py.File(path, "a") as f:
        f.attrs.create("config", np.array(b'"hello"', dtype="S7"))
    with pytest.raises(AnalysisError) as err:
        load_cases(path)
    assert str(err.value) == f'{path} (config attribute): /: expected a JSON object, got "hello"'


def rewrite_config_in_place(path: Path, text: str) -> None:
    """Overwrites the config attribute of a schema 2.1 file (a variable-length string in a global
    heap collection) with `text`, padded with spaces to its length, and recomputes text_checksum
    the way the loader checks it (load.check_text_attributes): the file is then a good one."""
    import xxhash
    from analysis import load

    with h5py.File(path) as f:
        old = f.attrs["config"].encode()
        names = sorted((n for n in f.attrs if load._is_variable_string(f, n)), key=str.encode)
        stored = f.attrs["text_checksum"].tolist()
    assert len(text.encode()) <= len(old)
    data = bytearray(path.read_bytes())
    at = data.find(old)
    assert at > 0 and data.find(old, at + 1) < 0
    data[at : at + len(old)] = text.encode().ljust(len(old))
    path.write_bytes(bytes(data))
    digest = xxhash.xxh64(seed=0)
    for name in names:
        digest.update(name.encode() + b"\0")
    for offset, size in zip(stored[1::2], stored[2::2]):
        digest.update(bytes(data[offset : offset + size]))
    with h5py.File(path, "a") as f:  # in place: the heap collections stay where they are
        f.attrs.modify("text_checksum", np.array([digest.intdigest(), *stored[1:]], dtype=np.uint64))
    with h5py.File(path) as f:
        assert load.check_text_attributes(f, path) == "passed"


@pytest.mark.parametrize("text, got", [("[]", "[]"), ("null", "null"), ('"hello"', '"hello"'), ("42", "42")])
def test_config_of_a_schema_2_1_file_as_nqc_words_it(small_run, nqc_bin, tmp_path, text, got):
    """A file nqc wrote, its config replaced and text_checksum recomputed: the loader and nqc
    (rerun reads the config) refuse it with the same line."""
    copy = tmp_path / "run"
    shutil.copytree(small_run, copy)
    path = copy / "results.h5"
    rewrite_config_in_place(path, text)
    message = f"{path} (config attribute): /: expected a JSON object, got {got}"
    with pytest.raises(AnalysisError) as err:
        load_cases(copy)
    assert str(err.value) == message
    done = subprocess.run(
        [str(nqc_bin), "rerun", str(copy), "--case", "0"], capture_output=True, text=True, env=run_env(), timeout=60
    )
    assert (done.returncode, done.stderr) == (1, f"nqc: error: {message}\n")


@pytest.mark.parametrize(
    "value, got",
    [
        (np.float64(3.5), "3.5"),
        ("four", "'four'"),
        ("", "''"),
        (np.bool_(True), "True"),
        (np.arange(100), "[ 0 1 ... 98 99]"),
        ("9" * 60, "'" + "9" * 36 + "..."),
    ],
)
def test_integer_attributes_are_integers(tmp_path, value, got):
    """world_size (int64 since schema 2.0, a decimal string before) holding anything else."""
    path = write_result_file(tmp_path / "i.h5", synthetic_rows([10], [3], [1e-3]), world_size="4")
    assert load_cases(path).attrs["sources"][0].attrs["world_size"] == 4
    with h5py.File(path, "a") as f:
        f.attrs["world_size"] = value
    with pytest.raises(AnalysisError) as err:
        load_cases(path)
    assert str(err.value) == f"{path}: world_size is not an integer (got {got})"


def test_launches_table_has_its_members(small_run, tmp_path, capsys):
    """The report reads every member of results.h5's launches table."""
    copy = tmp_path / "run"
    shutil.copytree(small_run, copy)
    path = copy / "results.h5"
    with h5py.File(path, "a") as f:
        table = f["launches"][()]
    from numpy.lib import recfunctions

    for change, message in [
        (
            lambda f: f.create_dataset("launches", data=np.arange(3)),
            "/launches is not a 1-D compound dataset (one row per launch)",
        ),
        (
            lambda f: f.create_dataset("launches", data=recfunctions.drop_fields(table, "parts", usemask=False)),
            "/launches has no member 'parts'",
        ),
        (
            lambda f: f.create_dataset(
                "launches",
                data=table.astype([(n, "S8" if n == "world_size" else table.dtype[n]) for n in table.dtype.names]),
            ),
            "/launches member 'world_size' has type |S8, expected an integer type",
        ),
    ]:
        with h5py.File(path, "a") as f:
            del f["launches"]
            change(f)
        line = one_error(analysis(capsys, "report", copy, "-o", tmp_path / "out"))
        assert line == f"nqc-analysis: error: {path}: {message}"


@pytest.mark.parametrize("shape", [(2, 2), ()])
def test_cases_is_one_row_per_case(tmp_path, shape):
    """A /cases of another shape was a TypeError ("unhashable type: 'list'")."""
    rows = synthetic_rows([10, 20, 30, 40], [3, 4, 5, 6], [1e-3] * 4)
    path = write_result_file(tmp_path / "shape.h5", rows.reshape(shape) if shape else rows[0].reshape(()))
    with pytest.raises(AnalysisError) as err:
        load_cases(path)
    assert str(err.value) == f"{path}: /cases has shape {shape}, expected one row per case (1-D)"


def test_a_python_without_the_stack_says_so_in_one_line():
    """``python3 -m analysis`` under a Python without numpy/h5py (a pyenv one on PATH; here
    Debian's with -S, no site packages): one line naming the interpreter, exit 1."""
    r = subprocess.run([PYTHON, "-S", "-m", "analysis", "--version"], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr == (
        f"nqc-analysis: error: {PYTHON} has no module numpy: use Debian's /usr/bin/python3 "
        "(apt install python3-h5py python3-pandas python3-statsmodels python3-matplotlib)\n"
    )
