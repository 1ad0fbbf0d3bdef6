"""Where outputs land when their path is not a plain file, and standard output that cannot be
written: a symbolic link is followed (its target replaced whole, the link kept), a device or a
FIFO is written in place (never replaced by a regular file; a failed write there is one error
line naming it), a directory is refused; a full, closed or broken standard output is one error
line naming <stdout> (a broken pipe: a quiet exit 1), never a traceback."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis import output
from analysis.cli import main
from analysis.errors import AnalysisError
from conftest import PYTHON, REPO, run_env, synthetic_rows, write_result_file

#: The commands that take --csv, and the runs they read.
CSV_COMMANDS = [
    ("table", ["small"]),
    ("false-negatives", ["small"]),
    ("fit", ["small"]),
    ("compare", ["small", "auto"]),
    ("instances", ["instances"]),
]


@pytest.fixture()
def paths(small_run, auto_run, instance_runs):
    return {"small": small_run, "auto": auto_run, "instances": instance_runs["auto"]}


def run(capsys, *args) -> tuple[int, str, str]:
    """`python3 -m analysis ARGS` in this process: (exit code, stdout, stderr)."""
    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_error(code: int, err: str) -> str:
    assert code == 1 and "Traceback" not in err, (code, err)
    lines = err.splitlines()
    assert len(lines) == 1, err
    return lines[0]


def char_device(path: Path, minor: int) -> Path:
    """A character device node of the memory driver (major 1): minor 7 /dev/full, 3 /dev/null.
    The tests run as root (mknod); the real /dev/full is never written."""
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    return path


def is_char_device(path: Path, minor: int) -> bool:
    st = os.lstat(path)
    return stat.S_ISCHR(st.st_mode) and (os.major(st.st_rdev), os.minor(st.st_rdev)) == (1, minor)


def parts(*directories: Path) -> list[Path]:
    return [p for d in directories for p in d.glob(".*.part")]


@pytest.mark.parametrize("command, runs", CSV_COMMANDS)
def test_csv_through_a_symbolic_link_replaces_its_target(command, runs, paths, tmp_path, capsys):
    """The link stays, its target (in another directory) gets the CSV, written next to the target
    and renamed; --csv link.csv used to replace the link by a regular file."""
    args = [command, *(paths[r] for r in runs)]
    assert run(capsys, *args, "--csv", tmp_path / "plain.csv")[0] == 0
    expected = (tmp_path / "plain.csv").read_bytes()
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    (there / "target.csv").write_text("old\n")
    (here / "link.csv").symlink_to("../there/target.csv")
    (here / "dangling.csv").symlink_to("../there/new.csv")
    for link, target in ((here / "link.csv", there / "target.csv"), (here / "dangling.csv", there / "new.csv")):
        code, _, err = run(capsys, *args, "--csv", link)
        assert code == 0, err
        assert link.is_symlink() and os.readlink(link) == f"../there/{target.name}"
        assert target.read_bytes() == expected
    assert parts(here, there) == [] and sorted(p.name for p in here.iterdir()) == ["dangling.csv", "link.csv"]


def test_links_that_cannot_be_written_are_refused(small_run, tmp_path, capsys):
    (tmp_path / "loop1").symlink_to("loop2")
    (tmp_path / "loop2").symlink_to("loop1")
    (tmp_path / "dir").mkdir()
    (tmp_path / "to-dir").symlink_to("dir")
    (tmp_path / "to-nowhere").symlink_to("no/such/dir/t.csv")
    (tmp_path / "a-file").write_text("x")
    for name, reason in [
        ("loop1", "cannot write (Too many levels of symbolic links)"),
        ("a-file/t.csv", f"cannot write: {tmp_path / 'a-file'} is not a directory"),
        ("dir", "cannot write: is a directory"),
        ("to-dir", "cannot write: is a directory"),
        ("to-nowhere", f"cannot write: directory {tmp_path / 'no/such/dir'} does not exist"),
    ]:
        code, out, err = run(capsys, "table", small_run, "--csv", tmp_path / name)
        assert one_error(code, err) == f"nqc-analysis: error: {tmp_path / name}: {reason}"
        assert out == ""
    assert (tmp_path / "to-dir").is_symlink() and list((tmp_path / "dir").iterdir()) == []


@pytest.mark.parametrize("command, runs", CSV_COMMANDS)
def test_csv_to_a_full_device_is_one_error_and_the_device_stays(command, runs, paths, tmp_path, capsys):
    """--csv on a device node is written in place: /dev/full's ENOSPC is the error (it used to
    exit 0 with the device replaced by a regular file)."""
    full = char_device(tmp_path / "full", 7)
    code, out, err = run(capsys, command, *(paths[r] for r in runs), "--csv", full)
    assert one_error(code, err) == f"nqc-analysis: error: {full}: cannot write (No space left on device)"
    assert out == ""  # the CSV is written before anything is printed
    assert is_char_device(full, 7) and parts(tmp_path) == []
    null = char_device(tmp_path / "null", 3)
    code, out, err = run(capsys, command, *(paths[r] for r in runs), "--csv", null)
    assert code == 0 and out.startswith(("|", "\n|", "Instance")), (err, out[:200])
    assert is_char_device(null, 3) and parts(tmp_path) == []


def test_figures_and_text_to_devices(small_run, tmp_path):
    """Every writer of analysis.output (text, CSV, a figure) on a device, in place."""
    from analysis import figures

    full, null = char_device(tmp_path / "full.png", 7), char_device(tmp_path / "null.png", 3)
    fig, ax = figures._figure(dpi=50)
    ax.plot([1, 2], [1, 2])
    for write in (
        lambda p: output.write_text(p, "x\n"),
        lambda p: output.write_csv(pd.DataFrame({"a": [1]}), p),
        lambda p: figures._save(fig, p),
    ):
        with pytest.raises(AnalysisError) as err:
            write(full)
        assert str(err.value) == f"{full}: cannot write (No space left on device)"
        write(null)
        assert is_char_device(full, 7) and is_char_device(null, 3) and parts(tmp_path) == []


def reader(fifo: Path, limit: int | None = None) -> tuple[threading.Thread, list]:
    """A thread that opens `fifo` and reads it to its end (or `limit` bytes, then closes it)."""
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as f:
            got.append(f.read() if limit is None else f.read(limit))

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread, got


def unblock(fifo: Path, thread: threading.Thread) -> None:
    """Ends a reader that still waits for a writer (the command failed before opening `fifo`)."""
    thread.join(timeout=60)
    if thread.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(timeout=10)


def test_csv_to_a_fifo_is_written_in_place(small_run, tmp_path, capsys):
    assert run(capsys, "table", small_run, "--csv", tmp_path / "plain.csv")[0] == 0
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    thread, got = reader(fifo)
    try:
        code, out, err = run(capsys, "table", small_run, "--csv", fifo)
    finally:
        unblock(fifo, thread)
    assert code == 0, err
    assert got == [(tmp_path / "plain.csv").read_bytes()]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and parts(tmp_path) == []


@pytest.fixture(scope="module")
def big_file(tmp_path_factory) -> Path:
    """A result file of 3000 board sizes: Table 1 of about 0.5 MB, far more than a pipe holds (64 kB)."""
    n = np.arange(1, 3001)
    return write_result_file(
        tmp_path_factory.mktemp("big") / "big.h5", synthetic_rows(n, n // 2, np.full(len(n), 1e-3))
    )


def test_csv_to_a_fifo_whose_reader_goes_away(big_file, tmp_path, capsys):
    """The reader takes one byte and closes: EPIPE is the error line naming the FIFO."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    thread, got = reader(fifo, limit=1)
    try:
        code, out, err = run(capsys, "table", big_file, "--csv", fifo)
    finally:
        unblock(fifo, thread)
    assert one_error(code, err) == f"nqc-analysis: error: {fifo}: cannot write (Broken pipe)"
    assert got == [b"n"] and out == ""
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and parts(tmp_path) == []


def test_a_failed_write_keeps_the_old_file_and_the_link(tmp_path):
    """A regular file (or a link's target) is replaced whole or not at all."""
    old = tmp_path / "old.csv"
    old.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to("old.csv")

    def fails(tmp: Path) -> None:
        tmp.write_text("partial")
        raise OSError(28, "No space left on device")

    for path in (old, link):
        with pytest.raises(AnalysisError) as err:
            output.write_with(path, fails)
        assert str(err.value) == f"{path}: cannot write (No space left on device)"
        assert old.read_text() == "old\n" and link.is_symlink() and parts(tmp_path) == []
    assert output.write_text(link, "new\n") == link
    assert old.read_text() == "new\n" and link.is_symlink()
    assert not output.writes_in_place(old) and not output.writes_in_place(link)
    assert not output.writes_in_place(tmp_path / "new.csv")
    assert output.writes_in_place("/dev/stdout") and output.writes_in_place("/dev/fd/2")


def test_remove_leaves_links_and_devices(tmp_path):
    """output.remove (the outputs of a failed report) unlinks regular files only."""
    regular = tmp_path / "a.csv"
    regular.write_text("x")
    link = tmp_path / "link.csv"
    link.symlink_to("a.csv")
    null = char_device(tmp_path / "null", 3)
    output.remove([link, null, tmp_path / "gone.csv"])
    assert link.is_symlink() and is_char_device(null, 3) and regular.exists()
    output.remove([regular])
    assert not regular.exists()


# Standard output: every command, and argparse's --help and --version, in a child process (what
# happens at the interpreter's exit counts).


def analysis(*args, stdout, preexec_fn=None) -> subprocess.CompletedProcess:
    env = {**run_env(), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(REPO), "MPLBACKEND": "Agg"}
    return subprocess.run(
        [PYTHON, "-m", "analysis", *map(str, args)],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=env,
        timeout=120,
        preexec_fn=preexec_fn,
    )


STDOUT_COMMANDS = [
    ["--version"],
    ["--help"],
    ["table", "--help"],
    ["table", "{run}"],
    ["table", "{run}", "--csv", "-"],
    ["fit", "{run}"],
    ["report", "{run}", "-o", "{tmp}/report"],
]


def _args(args, small_run, tmp_path):
    return [a.format(run=small_run, tmp=tmp_path) for a in args]


@pytest.mark.parametrize("args", STDOUT_COMMANDS, ids=" ".join)
def test_full_standard_output_is_one_error_line(args, small_run, tmp_path):
    """`> /dev/full`: OSError errno 28 was a traceback (or "Exception ignored" at exit)."""
    full = char_device(tmp_path / "full", 7)
    with open(full, "w") as stdout:
        done = analysis(*_args(args, small_run, tmp_path), stdout=stdout)
    assert (done.returncode, done.stderr) == (
        1,
        "nqc-analysis: error: <stdout>: cannot write (No space left on " "device)\n",
    )


@pytest.mark.parametrize("args", STDOUT_COMMANDS[::2], ids=" ".join)
def test_closed_standard_output_is_one_error_line(args, small_run, tmp_path):
    """`>&-`: Python sets sys.stdout to None and print() dropped the table: exit 0, nothing said."""
    done = analysis(*_args(args, small_run, tmp_path), stdout=subprocess.DEVNULL, preexec_fn=lambda: os.close(1))
    assert (done.returncode, done.stderr) == (
        1,
        "nqc-analysis: error: <stdout>: cannot write (Bad file " "descriptor)\n",
    )


@pytest.mark.parametrize("args", STDOUT_COMMANDS[:5], ids=" ".join)
def test_broken_pipe_exits_1_quietly(args, small_run, tmp_path):
    """A pipe whose reader has gone (`| head` done): exit 1, nothing on stderr (--help and
    --version printed a BrokenPipeError traceback)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = analysis(*_args(args, small_run, tmp_path), stdout=write_end)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (1, "")


@pytest.mark.parametrize("csv", [[], ["--csv", "-"]], ids=["table", "csv"])
def test_reader_that_leaves_early_ends_the_command_quietly(big_file, csv):
    """`... table BIG | head -c1`: the reader takes one byte of 0.5 MB and closes."""
    env = {**run_env(), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [PYTHON, "-m", "analysis", "table", str(big_file), *csv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        env=env,
    )
    try:
        first = child.stdout.read(1)
        child.stdout.close()
        err = child.stderr.read()
        code = child.wait(timeout=120)
    finally:
        child.kill()
    assert first == (b"n" if csv else b"|")
    assert (code, err) == (1, b"")


@pytest.mark.parametrize("command, inputs", CSV_COMMANDS)
def test_an_output_that_is_an_input_is_refused_and_the_input_kept(capsys, paths, tmp_path, command, inputs):
    """``table RUN --csv RUN/results.h5`` replaced the result file it read: every command
    refuses an output that is one of its inputs (by any spelling or link), writing nothing."""
    copies = []
    for name in inputs:
        copy = tmp_path / name
        shutil.copytree(paths[name], copy)
        copies.append(copy)
    victim = copies[0] / "results.h5"
    before = victim.read_bytes()
    link = tmp_path / "link.csv"
    link.symlink_to(victim)
    for target in (victim, link):
        code, out, err = run(capsys, command, *copies, "--csv", target)
        assert one_error(code, err) == (
            f"nqc-analysis: error: {target}: a file of the run in {copies[0].resolve()} (its results; only nqc run "
            "writes it); choose another file"
        )
        assert victim.read_bytes() == before


def test_no_output_onto_a_runs_own_files(capsys, small_run, tmp_path):
    """nqc's rule, from its table (result_schema.json's run_files): no command but nqc run writes
    a run's results, shards, plan, config or launch records."""
    onto = tmp_path / "onto"
    shutil.copytree(small_run, onto)
    shard = sorted((onto / "shards").iterdir())[0].name
    launch = sorted((onto / "launches").iterdir())[0].name
    for file, what in [
        ("plan.json", "its plan"),
        ("config.json", "its config"),
        (f"shards/{shard}", "a shard file"),
        (f"launches/{launch}", "a launch record"),
    ]:
        code, out, err = run(capsys, "table", small_run, "--csv", onto / file)
        assert one_error(code, err) == (
            f"nqc-analysis: error: {onto / file}: a file of the run in {onto.resolve()} ({what}; only nqc run "
            "writes it); choose another file"
        )
    assert subprocess.run(["diff", "-r", str(small_run), str(onto)]).returncode == 0
