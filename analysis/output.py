"""Writing output files whole or not at all, and ``-`` as standard output.

Every file the analysis writes (PNG, CSV, Markdown, nqc randset's CSVs) is first written to a
hidden temporary name in its own directory and renamed over the target only when complete, so
a full disk or a lost permission never leaves a truncated file under the target's name. A
failure is an AnalysisError naming the target: "PATH: cannot write (No space left on device)".

The target ``"-"`` is standard output, as for every option of nqc: the same bytes as the file
would hold (written to a temporary file first, then copied). The text a command prints beside
such an output goes to standard error (:func:`text_stream`). A directory cannot be ``-``
(:func:`make_dir` refuses it). Only the string ``"-"`` is a stream: ``"./-"`` and a Path name a
file (pathlib makes ``Path("./-")`` ``Path("-")``, so the command line keeps its strings).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from analysis.errors import AnalysisError


#: The formats a figure can be written in (analysis.figures; the file's suffix names it).
FIGURE_FORMATS = ("png", "pdf", "svg")
#: The default resolution of PNG figures, in dots per inch: print resolution (issue 16 item 6).
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


def check_target(path: str | Path) -> Path:
    """`path` as a Path, or an AnalysisError when it cannot be a file we write: it is a
    directory, or its directory does not exist or is not a directory."""
    path = Path(path)
    if path.is_dir():
        raise AnalysisError(f"{path}: cannot write: is a directory")
    parent = path.parent
    if not parent.exists():
        raise AnalysisError(f"{path}: cannot write: directory {parent} does not exist")
    if not parent.is_dir():
        raise AnalysisError(f"{path}: cannot write: {parent} is not a directory")
    return path


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
    """``with replacing(path) as tmp: write tmp`` -- tmp is a temporary file next to `path`,
    renamed to `path` when the block ends normally and removed otherwise. An OSError while
    writing becomes an AnalysisError naming `path`."""
    path = check_target(path)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    except OSError as e:
        raise AnalysisError(f"{path}: cannot write ({e.strerror or e})") from None
    os.close(fd)
    tmp = Path(name)
    try:
        try:
            yield tmp
            os.chmod(tmp, _MODE)
            os.replace(tmp, path)
        except OSError as e:
            raise AnalysisError(f"{path}: cannot write ({e.strerror or e})") from None
    finally:
        if tmp.exists():
            tmp.unlink()


def write_with(path: str | Path, writer: Callable[[Path], object]) -> Path:
    """Calls ``writer(tmp)`` under :func:`replacing`; returns `path`. For ``"-"``, writer's
    file is copied to standard output (byte for byte what a file would hold)."""
    if is_std_stream(path):
        with tempfile.TemporaryDirectory(prefix="nqc-analysis-") as directory:
            tmp = Path(directory) / "stdout"
            writer(tmp)
            sys.stdout.flush()
            with open(tmp, "rb") as f:
                shutil.copyfileobj(f, sys.stdout.buffer)
            sys.stdout.buffer.flush()
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
    """Removes the files among `paths` that exist (outputs of a run that failed)."""
    for p in paths:
        try:
            Path(p).unlink()
        except FileNotFoundError:
            pass
        except OSError:
            pass  # already failing: the first error is the one to report
