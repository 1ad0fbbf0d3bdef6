"""Writing output files whole or not at all, and ``-`` as standard output.

Every file the analysis writes (PNG, CSV, Markdown, nqc randset's CSVs) is first written to a
hidden temporary name in its own directory and renamed over the target only when complete, so
a full disk or a lost permission never leaves a truncated file under the target's name. A
failure is an AnalysisError naming the target: "PATH: cannot write (No space left on device)".
A symbolic link is followed: the temporary file goes next to the file it names, which is
replaced (the link stays). A target that exists and is not a regular file (a character or
block device, a FIFO, a socket) or that is reached through /proc (``/dev/stdout``,
``/dev/fd/N``: a process's open file) is written in place, as a shell's ``>`` would; a failed
write there is the same AnalysisError. A directory is refused.

The target ``"-"`` is standard output, as for every option of nqc: the same bytes as the file
would hold (written to a temporary file first, then copied). The text a command prints beside
such an output goes to standard error (:func:`text_stream`). A directory cannot be ``-``
(:func:`make_dir` refuses it). Only the string ``"-"`` is a stream: ``"./-"`` and a Path name a
file (pathlib makes ``Path("./-")`` ``Path("-")``, so the command line keeps its strings).
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from analysis.errors import AnalysisError
from analysis.schema import SCHEMA


#: The formats a figure can be written in (analysis.figures; the file's suffix names it).
FIGURE_FORMATS = ("png", "pdf", "svg")
#: The default resolution of PNG figures, in dots per inch: print resolution.
DPI = 300


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: Mode of the files written (mkstemp makes 0600; outputs get the usual 0666 & ~umask).
_MODE = 0o666 & ~_umask()


#: The file name that means standard output (an output) or standard input (an input).
STD_STREAM = "-"


def is_std_stream(path) -> bool:
    """True when `path` is the string ``"-"`` (standard output or input); ``"./-"`` and any Path
    name a file."""
    return isinstance(path, str) and path == STD_STREAM


def text_stream(*outputs):
    """Where the text that accompanies `outputs` goes (a table, a summary): sys.stdout, or
    sys.stderr when one of them is ``"-"``."""
    return sys.stderr if any(is_std_stream(o) for o in outputs) else sys.stdout


def refuse_std_stream(option: str, path, what: str, reading: bool = False) -> None:
    """An AnalysisError "OPTION: '-' (standard output) cannot be WHAT" (standard input when
    `reading`) when `path` is ``"-"``; nothing otherwise."""
    if is_std_stream(path):
        raise AnalysisError(f"{option}: '-' (standard {'input' if reading else 'output'}) cannot be {what}")


def check_target(path: str | Path, name: str | Path | None = None) -> Path:
    """`path` as a Path, or an AnalysisError (naming `name`, default `path`) when it cannot be a
    file we write: it is a directory, or its directory does not exist or is not a directory."""
    path = Path(path)
    name = path if name is None else name
    if path.is_dir():
        raise AnalysisError(f"{name}: cannot write: is a directory")
    parent = path.parent
    if not parent.exists():
        raise AnalysisError(f"{name}: cannot write: directory {parent} does not exist")
    if not parent.is_dir():
        raise AnalysisError(f"{name}: cannot write: {parent} is not a directory")
    return path


#: The files this process has read as inputs ((st_dev, st_ino): links and spellings alike),
#: which no output may replace (``table RUN --csv RUN/results.h5`` destroyed its input).
_INPUTS: set[tuple[int, int]] = set()


def note_input(path: str | Path) -> None:
    """Records `path` (a file read as an input) so that :func:`replacing` refuses to write it."""
    try:
        st = os.stat(path)
    except OSError:
        return
    _INPUTS.add((st.st_dev, st.st_ino))


def _refuse_input(path: Path, name: str | Path) -> None:
    why = run_file_refusal(Path(os.path.realpath(path)))
    if why:
        raise AnalysisError(f"{name}: {why}; choose another file")
    try:
        st = os.stat(path)
    except OSError:
        return
    if (st.st_dev, st.st_ino) in _INPUTS:
        raise AnalysisError(f"{name}: is an input of this command (a result file it reads); choose another file")


#: A results directory's own entries, which only ``nqc run`` writes: nqc's table (kRunFiles,
#: src/experiment/results.hpp), as result_schema.json carries it.
RUN_FILES = SCHEMA["run_files"]


def run_file_refusal(path: Path) -> str:
    """nqc's rule (run_file_refusal, src/experiment/results.cpp) for a resolved output path: why
    no command but ``nqc run`` may write it ("a file of the run in DIR (its results; only nqc run
    writes it)"), or "" for any other file."""
    for entry in RUN_FILES:
        named = path.parent if entry["folder"] else path
        run = named.parent
        if named.name == entry["name"] and any(f["marks_run"] and (run / f["name"]).exists() for f in RUN_FILES):
            return f"a file of the run in {run} ({entry['what']}; only nqc run writes it)"
    return ""


#: Most symbolic links followed to find where a write lands (Linux's limit, ELOOP).
_MAX_LINKS = 40


def _through_proc(path: Path) -> bool:
    """Whether `path`, its directories' and its own symbolic links followed, passes through
    /proc: ``/dev/stdout`` (-> /proc/self/fd/1), ``/dev/fd/N``: an open file of a process,
    which is written where it points, in place."""
    p = os.path.abspath(path)
    for _ in range(_MAX_LINKS):
        parent = os.path.realpath(os.path.dirname(p))
        if parent == "/proc" or parent.startswith("/proc/"):
            return True
        p = os.path.join(parent, os.path.basename(p))
        if not os.path.islink(p):
            return False
        try:
            p = os.path.join(parent, os.readlink(p))
        except OSError:
            return False
    return False


def writes_in_place(path: str | Path) -> bool:
    """Whether :func:`replacing` writes `path` in place (no temporary file, no rename): it
    exists and, its links followed, is not a regular file or directory (a device, a FIFO, a
    socket), or it is reached through /proc (``/dev/stdout``). An AnalysisError naming it when
    its links cannot be followed (a loop)."""
    if _through_proc(Path(path)):
        return True
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return False  # a new file, or a link to one (check_target names a missing directory)
    except OSError as e:
        raise AnalysisError(f"{path}: cannot write ({e.strerror or e})") from None
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


@contextmanager
def _errors_name(path: Path) -> Iterator[None]:
    """An OSError in the block becomes the AnalysisError "PATH: cannot write (REASON)"."""
    try:
        yield
    except OSError as e:
        raise AnalysisError(f"{path}: cannot write ({e.strerror or e})") from None


def make_dir(path: str | Path) -> Path:
    """Creates directory `path` (and its parents); an AnalysisError naming it when it is a file
    or cannot be created, or is ``"-"``."""
    if is_std_stream(path):
        raise AnalysisError("'-' (standard output) cannot be a directory; give a directory")
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise AnalysisError(f"{path}: is not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise AnalysisError(f"{path}: cannot create the directory ({e.strerror or e})") from None
    return path


@contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """``with replacing(path) as tmp: write tmp`` -- tmp is a temporary file next to the file
    `path` names (its symbolic links followed), renamed onto that file when the block ends
    normally and removed otherwise. A target that exists and is not a regular file (a device,
    a FIFO: :func:`writes_in_place`) is yielded itself, written in place. An OSError while
    writing becomes an AnalysisError naming `path`; a directory, or a missing one, is refused
    (:func:`check_target`)."""
    path = Path(path)
    if writes_in_place(path):
        with _errors_name(path):
            yield path
        return
    target = check_target(os.path.realpath(path) if path.is_symlink() else path, path)
    _refuse_input(target, path)
    with _errors_name(path):
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        with _errors_name(path):
            yield tmp
            os.chmod(tmp, _MODE)
            os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()


#: Standard output in messages, as nqc names it.
STDOUT = "<stdout>"


class StdoutClosed(Exception):
    """Standard output's reader went away (a broken pipe: ``... | head``); the command line
    stops quietly (analysis.cli)."""


def stdout_error(error: OSError) -> Exception:
    """What a failed write to standard output raises: StdoutClosed for a broken pipe, else the
    AnalysisError "<stdout>: cannot write (REASON)"."""
    if isinstance(error, BrokenPipeError):
        return StdoutClosed()
    return AnalysisError(f"{STDOUT}: cannot write ({error.strerror or error})")


class CheckedStdout:
    """sys.stdout (or its ``buffer``) whose failed writes and flushes raise :func:`stdout_error`
    instead of an OSError; `stream` None is a standard output closed at start (Python then sets
    sys.stdout to None, and print() would drop its text without a word). After a failure, file
    descriptor 1 is pointed at /dev/null, so that Python's own flush at exit finds nothing to
    fail on ("Exception ignored ... BrokenPipeError"), and later writes are dropped: the
    failure is reported once."""

    def __init__(self, stream, fd: int | None = None, failed: list | None = None):
        self._stream = stream
        self._fd = fd if fd is not None else _fileno(stream)
        self._failed = failed if failed is not None else []  # shared with .buffer

    def _call(self, method: str, *args):
        if self._failed:
            return None
        try:
            if self._stream is None:
                raise OSError(errno.EBADF, os.strerror(errno.EBADF))
            return getattr(self._stream, method)(*args)
        except OSError as e:
            self._failed.append(e)
            self._silence()
            raise stdout_error(e) from None

    def _silence(self) -> None:
        if self._fd is None:
            return
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._fd)
            os.close(null)
        except OSError:
            pass

    def write(self, data):
        return self._call("write", data)

    def writelines(self, lines):
        return self._call("writelines", lines)

    def flush(self):
        return self._call("flush")

    @property
    def buffer(self):
        return CheckedStdout(None if self._stream is None else self._stream.buffer, self._fd, self._failed)

    def __getattr__(self, name):
        if self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


def _fileno(stream) -> int | None:
    try:
        return stream.fileno() if stream is not None else None
    except (OSError, ValueError, AttributeError):  # pytest's capture has none
        return None


def write_with(path: str | Path, writer: Callable[[Path], object]) -> Path:
    """Calls ``writer(tmp)`` under :func:`replacing`; returns `path`. For ``"-"``, writer's
    file is copied to standard output (byte for byte what a file would hold)."""
    if is_std_stream(path):
        with tempfile.TemporaryDirectory(prefix="nqc-analysis-") as directory:
            tmp = Path(directory) / "stdout"
            writer(tmp)
            try:
                sys.stdout.flush()
                with open(tmp, "rb") as f:
                    shutil.copyfileobj(f, sys.stdout.buffer)
                sys.stdout.buffer.flush()
            except OSError as e:  # outside the command line (which checks sys.stdout itself)
                raise stdout_error(e) from None
        return Path(path)
    with replacing(path) as tmp:
        writer(tmp)
    return Path(path)


def write_text(path: str | Path, text: str) -> Path:
    """Writes `text` (UTF-8) to `path` whole or not at all."""
    return write_with(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def write_csv(frame, path: str | Path, **to_csv) -> Path:
    """``frame.to_csv(path, **to_csv)`` whole or not at all."""
    return write_with(path, lambda tmp: frame.to_csv(tmp, **to_csv))


def remove(paths) -> None:
    """Removes the regular files among `paths` (outputs of a run that failed); a symbolic link,
    a device or a FIFO (written through or in place, see :func:`replacing`) is left alone."""
    for p in paths:
        try:
            if not Path(p).is_symlink() and stat.S_ISREG(os.stat(p).st_mode):
                Path(p).unlink()
        except OSError:
            pass  # gone already, or already failing: the first error is the one to report
