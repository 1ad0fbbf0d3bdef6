"""Bad input, one test per kind of fault: one error line naming the file, the row/column and what
was expected, exit 1 -- never a traceback, never a wrong number with exit 0."""

from __future__ import annotations

import re
import resource
import shutil
import subprocess
from pathlib import Path

import h5py
import numpy as np
import pytest

from analysis import figures, randset
from analysis.cli import main
from analysis.errors import AnalysisError
from analysis.load import AnalysisWarning, load_cases
from analysis.report import ReportOptions, write_report
from conftest import analysis_cli, randset_trials, PYTHON, REPO, run_env


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
        analysis_cli("report", small_run, "-o", tmp_path / "out", "--randset", f"20:{bad}"),
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

    trials = randset_trials(nqc_bin, tmp_path / "trials.csv")
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
    with pytest.raises(AnalysisError) as error:
        load_cases(path)
    assert str(error.value).startswith(f"{path}: damaged (row 3 (case {case}): wall_s = "), str(error.value)
    done = subprocess.run([nqc_bin, "aggregate", path], capture_output=True, text=True, env=run_env())
    assert (done.returncode, done.stderr) == (1, f"nqc: error: {error.value}\n")


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
    done = analysis_cli("report", small_run, "-o", out, preexec_fn=small_file_limit)
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


# 6. Result files of different configs are never pooled by accident: nqc's rule (nqc rows, as
#    nqc aggregate): the command line groups them per run, and pools them with --allow-mixed
#    only when their engines and settings agree.


def test_different_configs_are_grouped_not_pooled(small_run, auto_run, capsys):
    done = analysis(capsys, "table", small_run, auto_run)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    rows = [line.split("|")[1:3] for line in done.stdout.splitlines() if re.match(r"\| (grigoryan|auto) ", line)]
    assert [(a.strip(), int(b)) for a, b in rows] == [
        (run, n) for run in ("grigoryan", "auto") for n in (10, 20, 50, 100, 300)
    ]
    one_error(
        analysis(capsys, "table", small_run, auto_run, "--allow-mixed"),
        f'{small_run} and {auto_run} are runs of other engines or settings (engine "grigoryan" and "auto"): '
        "one table would mix them; read each alone, or compare them with python3 -m analysis compare",
    )
    one_error(
        analysis(capsys, "table", small_run, auto_run, "--allow-mixed", "--by", "engine"),
        "--allow-mixed pools every case into one table: give it without --by",
    )


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
