"""Writing output files whole or not at all.

Every file the analysis writes (PNG, CSV, Markdown, nqc randset's CSVs) is first written to a
hidden temporary name in its own directory and renamed over the target only when complete, so
a full disk or a lost permission never leaves a truncated file under the target's name. A
failure is an AnalysisError naming the target: "PATH: cannot write (No space left on device)".
"""

from __future__ import annotations

import os
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
    or cannot be created."""
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
    """Calls ``writer(tmp)`` under :func:`replacing`; returns `path`."""
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
