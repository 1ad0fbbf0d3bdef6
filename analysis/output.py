"""Writing output files whole or not at all (a temporary file renamed), in place for devices, FIFOs and /proc; ``-``
is standard output. Directories, inputs and run files are refused."""

from __future__ import annotations

import errno
import os
import shutil
import stat
import sys
import tempfile
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Callable, Iterator

from analysis.errors import AnalysisError
from analysis.schema import SCHEMA

#: The formats a figure can be written in (the file's suffix names it).
FIGURE_FORMATS = ("png", "pdf", "svg")
#: The default resolution of PNG figures, in dots per inch: print resolution.
DPI = 300
#: The file name that means standard output (an output) or standard input (an input).
STD_STREAM = "-"
#: Standard output in messages, as nqc names it.
STDOUT = "<stdout>"
#: A results directory's own entries, which only ``nqc run`` writes (nqc's kRunFiles).
RUN_FILES = SCHEMA["run_files"]
#: Most symbolic links followed to find where a write lands (Linux's limit, ELOOP).
_MAX_LINKS = 40
#: The files read as inputs ((st_dev, st_ino)), which no output may replace.
_INPUTS: set[tuple[int, int]] = set()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: Mode of the files written (mkstemp makes 0600; outputs get the usual 0666 & ~umask).
_MODE = 0o666 & ~_umask()


def is_std_stream(path) -> bool:
    """True when `path` is the string ``"-"``; ``"./-"`` and any Path name a file."""
    return isinstance(path, str) and path == STD_STREAM


def text_stream(*outputs):
    """Where the text beside `outputs` goes: sys.stdout, or sys.stderr when one is ``"-"``."""
    return sys.stderr if any(is_std_stream(o) for o in outputs) else sys.stdout


def refuse_std_stream(option: str, path, what: str, reading: bool = False) -> None:
    """The AnalysisError "OPTION: '-' (standard output|input) cannot be WHAT" when `path` is ``"-"``."""
    if is_std_stream(path):
        raise AnalysisError(f"{option}: '-' (standard {'input' if reading else 'output'}) cannot be {what}")


def markdown(frame, colalign=None) -> str:
    """`frame` as a Markdown table, its cells as they are (no number parsing)."""
    return frame.to_markdown(index=False, disable_numparse=True, **({"colalign": colalign} if colalign else {}))


def ns_text(values) -> str:
    """Board sizes (or other whole numbers) as text: "8, 10, 20"."""
    return ", ".join(str(int(v)) for v in values)


def plural(count: int, word: str) -> str:
    """`count` and `word`, with an s unless count is 1: "1 rank", "2 ranks"."""
    return f"{count} {word}{'s' if count != 1 else ''}"


def ranges_text(values, to: str = "..", sep: str = ", ") -> str:
    """Whole numbers, sorted, as ranges: [1, 2, 3, 5] -> "1..3, 5" (`to` and `sep` the two separators)."""
    parts: list[list[int]] = []
    for v in sorted(int(v) for v in values):
        if parts and v == parts[-1][1] + 1:
            parts[-1][1] = v
        else:
            parts.append([v, v])
    return sep.join(str(a) if a == b else f"{a}{to}{b}" for a, b in parts)


def note_input(path: str | Path) -> None:
    """Records `path` (a file read as an input) so that :func:`replacing` refuses to write it."""
    try:
        st = os.stat(path)
    except OSError:
        return
    _INPUTS.add((st.st_dev, st.st_ino))


def run_file_refusal(path: Path) -> str:
    """Why only ``nqc run`` may write `path` (nqc's run_file_refusal), or '' for any other file."""
    for entry in RUN_FILES:
        named = path.parent if entry["folder"] else path
        run = named.parent
        if named.name == entry["name"] and any(f["marks_run"] and (run / f["name"]).exists() for f in RUN_FILES):
            return f"a file of the run in {run} ({entry['what']}; only nqc run writes it)"
    return ""


def _check_target(path: Path, name: Path) -> None:
    """An AnalysisError naming `name` when `path` cannot be a file this command writes."""
    why = run_file_refusal(Path(os.path.realpath(path)))
    if path.is_dir():
        why = "cannot write: is a directory"
    elif not path.parent.exists():
        why = f"cannot write: directory {path.parent} does not exist"
    elif not path.parent.is_dir():
        why = f"cannot write: {path.parent} is not a directory"
    elif why:
        why += "; choose another file"
    elif path.exists() and (os.stat(path).st_dev, os.stat(path).st_ino) in _INPUTS:
        why = "is an input of this command (a result file it reads); choose another file"
    if why:
        raise AnalysisError(f"{name}: {why}")


def _through_proc(path: Path) -> bool:
    """Whether `path`, its links followed one by one, passes through /proc (``/dev/stdout``)."""
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
    """Whether `path` exists and is no regular file or directory, or is reached through /proc."""
    if _through_proc(Path(path)):
        return True
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return False  # a new file, or a link to one (_check_target names a missing directory)
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
    """Creates directory `path` and its parents; an AnalysisError naming it when it cannot."""
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
    """``with replacing(path) as tmp``: tmp renamed onto `path` on success, removed otherwise."""
    path = Path(path)
    if writes_in_place(path):
        with _errors_name(path):
            yield path
        return
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    _check_target(target, path)
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


class StdoutClosed(Exception):
    """Standard output's reader went away (a broken pipe): the command line stops quietly."""


def stdout_error(error: OSError) -> Exception:
    """StdoutClosed for a broken pipe, else the AnalysisError "<stdout>: cannot write (REASON)"."""
    if isinstance(error, BrokenPipeError):
        return StdoutClosed()
    return AnalysisError(f"{STDOUT}: cannot write ({error.strerror or error})")


class CheckedStdout:
    """sys.stdout whose first failed write raises :func:`stdout_error`, then points fd 1 at /dev/null."""

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
            if self._fd is not None:
                with suppress(OSError):
                    null = os.open(os.devnull, os.O_WRONLY)
                    os.dup2(null, self._fd)
                    os.close(null)
            raise stdout_error(e) from None

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
    """``writer(tmp)`` under :func:`replacing`; for ``-`` the file is copied to standard output."""
    if not is_std_stream(path):
        with replacing(path) as tmp:
            writer(tmp)
        return Path(path)
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


def write_text(path: str | Path, text: str) -> Path:
    """Writes `text` (UTF-8) to `path` whole or not at all."""
    return write_with(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def write_csv(frame, path: str | Path) -> Path:
    """Every column of `frame` as CSV (no index, 9 significant digits), whole or not at all."""
    return write_with(path, lambda tmp: frame.to_csv(tmp, index=False, float_format="%.9g"))


def remove(paths) -> None:
    """Removes the regular files among `paths` (outputs of a failed run); links, devices and FIFOs are left."""
    for p in paths:
        with suppress(OSError):  # gone already, or already failing: the first error is the one to report
            if not Path(p).is_symlink() and stat.S_ISREG(os.stat(p).st_mode):
                Path(p).unlink()
