"""Result files of ``nqc run`` into one pandas DataFrame, one row per case.

A results directory DIR holds DIR/results.h5 (the merged file, written when the run
finished) and DIR/shards/shard-NNNNNN.h5 (one per shard; an unfinished run has only these).
Their layout is declared once, in nqc (src/experiment/case_row.hpp, result_schema.cpp), and
shipped beside this module as ``result_schema.json`` (``nqc info --columns --json``; a test
keeps them equal), which this module reads: :data:`SCHEMA` holds it, :data:`COLUMNS` maps
each member of ``cases`` to its type, description and (enums) values. In short: root
attributes (schema_version, nqc_version, git_revision, config, config_hash, plan_hash, ...;
integers such as ``launches`` stored as int64 since schema 2.0, text as variable-length strings
under ``text_checksum`` since 2.1), dataset ``cases`` (one
compound row per case), group ``failures``, and in results.h5 since 1.3 the dataset
``launches`` (one row per launch of ``nqc run`` on the directory: ``SCHEMA["launch_columns"]``),
which ``Source.launches`` holds.

This module reads every schema nqc wrote: 1.x and 2.x (:data:`SCHEMA_MAJORS`). Files are
checked before they are read (see :func:`read_file`): damage (nqc writes every file since
schema 1.2 in HDF5's newest format, whose metadata is checksummed, with Fletcher32 on every
dataset, and since 2.1 ``text_checksum`` over the text attributes, checked before they are read:
:func:`check_text_attributes`; a file of 1.0 or 1.1 is read in a child process first, as damage
in it can crash HDF5 1.10) is named as such; schema_version a string
"MAJOR.MINOR" of decimal digits as nqc accepts it, with a MAJOR of SCHEMA_MAJORS; text and
integer attributes of their types, ``config`` a JSON object (:func:`parse_config`); the needed members of
``cases`` present and of integer / number types; n in 1..2^31-1 and k in 0..n. Paths of
different configs are not pooled unless asked (:func:`load_cases`).

Columns of the DataFrame: every member of ``cases`` under its own name (times in seconds),
with ``outcome`` as a categorical of "solved" / "infeasible" / "gave_up", ``false_negative``
as bool, ``engine`` and ``limit`` as str (their enum names; files of schema 1.x stored the
names, and "" for no limit, read as "none") and byte strings decoded to str; plus ``source`` (the file a row came from),
``config_hash``, ``experiment`` (the config's name) and ``diags`` (instance runs: the
excluded diagonals a CSPLib .param case used, else missing). ``df.attrs["sources"]`` lists a
:class:`Source` per file read.

Instance runs (a config's ``instances``): the rows name their file in ``instance`` (empty for
generated cases, and in 1.0 files, which lack the member), its index in ``solution_id`` and,
for CSPLib .param files, the diagonals used in ``composition_id`` (0 for composition files);
:func:`instance_cases` and the ``diags`` column read them, so no other module needs to know
where they are stored.
"""

from __future__ import annotations

import json
import re
import signal
import stat
import subprocess
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import h5py
import numpy as np
import pandas as pd

import xxhash  # Debian's python3-xxhash: text_checksum

from analysis import output
from analysis.errors import AnalysisError

from analysis.schema import N_MAX, SCHEMA

#: Each member of ``cases``: {"type", "since", "description", and for enums "values": name -> code}.
COLUMNS = {c["name"]: c for c in SCHEMA["columns"]}
#: The schema major versions this analysis reads (any minor version of them).
SCHEMA_MAJORS = tuple(SCHEMA["readable_majors"])
#: The root attributes stored as integers (since schema 2.0; decimal strings before): read as int.
INTEGER_ATTRIBUTES = tuple(a["name"] for a in SCHEMA["attributes"] if a["type"] == "int64")
#: The root attributes stored as text (variable-length strings since 2.1, fixed-length in 1.2 to
#: 2.0): read as str, refused when present as another type.
STRING_ATTRIBUTES = tuple(a["name"] for a in SCHEMA["attributes"] if a["type"] == "string")
#: The attribute that checks the text attributes (since 2.1; see :func:`check_text_attributes`).
TEXT_CHECKSUM = next(a["name"] for a in SCHEMA["attributes"] if a["type"] == "checksum")
#: The most heap collections a text checksum may name (nqc's kMaxTextHeaps).
MAX_TEXT_HEAPS = 1024
#: "1.x and 2.x", as nqc words the majors it reads.
READABLE = (
    ", ".join(f"{m}.x" for m in SCHEMA_MAJORS[:-1])
    + (" and " if len(SCHEMA_MAJORS) > 1 else "")
    + f"{SCHEMA_MAJORS[-1]}.x"
)
#: Members of ``cases`` the analysis needs; others are optional and extra ones are kept.
REQUIRED_FIELDS = ("case_id", "n", "k", "outcome", "false_negative", "wall_s", "backtracks")
assert set(REQUIRED_FIELDS) <= set(COLUMNS), "result_schema.json lacks a column the analysis needs"
#: nqc::Outcome codes, used when the file's enum type has no names.
OUTCOME_NAMES = {code: name for name, code in sorted(COLUMNS["outcome"]["values"].items(), key=lambda kv: kv[1])}
#: Members stored as enums of names since schema 2.0 (24-byte strings before): read as str.
NAMED_MEMBERS = tuple(
    name for name, c in COLUMNS.items() if "values" in c and name not in ("outcome", "false_negative")
)
#: The name of "no limit" (schema 1.x stored an empty string).
NO_LIMIT = next(name for name, code in COLUMNS["limit"]["values"].items() if code == 0)
#: Columns load_cases adds to the members of ``cases``.
SOURCE, CONFIG_HASH, EXPERIMENT, DIAGS = "source", "config_hash", "experiment", "diags"
#: The member that names an instance run's file (schema 1.1 on; empty for generated cases).
INSTANCE = "instance"
#: The member that names the engine of a case (the config's engine; older files may lack it).
ENGINE = "engine"
#: Members that name the composition a case ran on: generated cases draw it from (seed, n,
#: solution_id, composition_id), instance runs read it from ``instance`` (with the diags in
#: composition_id). Two runs of one config with different engines have the same values.
COMPOSITION_KEYS = ("n", "k", "seed", "solution_id", "composition_id", INSTANCE)
#: Instance files that nqc reads as CSPLib prob079 (src/formats/csplib.cpp, is_param_file): by extension.
PARAM_SUFFIX = ".param"
#: What load_cases does with paths of different configs: refuse them, pool them (with a
#: warning: one table over both), or keep them apart for the caller to group (analysis.groups).
MIXED_MODES = ("refuse", "pool", "group")

_SHARD_FILE = re.compile(r"^shard-(\d{6,})\.h5$")


class AnalysisWarning(UserWarning):
    """Something the reader should know but that does not stop the analysis."""


@dataclass(frozen=True)
class Source:
    """One result file that was read: its path, root attributes (integers as int, text as str;
    ``text_checksum`` left out) and number of case rows."""

    path: Path
    attrs: dict = field(hash=False)
    rows: int
    #: The file's ``launches`` table (results.h5 of schema 1.3 on: one row per launch of
    #: ``nqc run`` that worked on the directory, strings decoded), else None.
    launches: pd.DataFrame | None = field(default=None, hash=False, compare=False)
    #: The resolved config stored in the file's ``config`` attribute, parsed (checked by
    #: :func:`parse_config`); an empty dict when the file has none.
    config: dict = field(default_factory=dict, hash=False, compare=False)


#: The root attribute that holds the run's resolved config, as JSON text.
CONFIG = "config"
#: The keys of the config that the analysis reads (experiment name, engine of files without an
#: ``engine`` member, the report's description): each a string when present, as nqc writes them.
CONFIG_TEXT_KEYS = ("name", "engine", "description")


def describe_json(value) -> str:
    """A JSON value as nqc's messages show it (describe_json_value, src/experiment/json_shape.cpp):
    ``[]``, ``an array of 3``, ``{}``, ``an object``, else its JSON text, cut to 40 characters."""
    if isinstance(value, list):
        return "[]" if not value else f"an array of {len(value)}"
    if isinstance(value, dict):
        return "{}" if not value else "an object"
    text = json.dumps(value, ensure_ascii=False)
    return text[:37] + "..." if len(text) > 40 else text


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def parse_config(text: str, path: Path) -> dict:
    """The ``config`` attribute `text` of result file `path` as a dict. Raises AnalysisError
    "FILE (config attribute): ..." as nqc words a bad config: "not valid JSON (REASON)" (NaN and
    Infinity included), "/: expected a JSON object, got []", or "/name: expected a string, got
    42" for a key of CONFIG_TEXT_KEYS that is not a string."""
    where = f"{path} ({CONFIG} attribute)"
    try:
        config = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise AnalysisError(f"{where}: not valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    except ValueError as e:
        raise AnalysisError(f"{where}: not valid JSON ({e})") from None
    except RecursionError:
        raise AnalysisError(f"{where}: not valid JSON (nested too deeply)") from None
    if not isinstance(config, dict):
        raise AnalysisError(f"{where}: /: expected a JSON object, got {describe_json(config)}")
    for key in CONFIG_TEXT_KEYS:
        if key in config and not isinstance(config[key], str):
            raise AnalysisError(f"{where}: /{key}: expected a string, got {describe_json(config[key])}")
    return config


def _attribute(name: str, value, path: Path):
    """A root attribute with its type: int for INTEGER_ATTRIBUTES (int64 since schema 2.0, a
    decimal string before; an AnalysisError "FILE: NAME is not an integer (got ...)" for
    anything else), str otherwise."""
    if name in INTEGER_ATTRIBUTES:
        if isinstance(value, (np.integer, int)) and not isinstance(value, (bool, np.bool_)):
            return int(value)
        if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iu":
            return int(value.reshape(-1)[0])
        if _is_string(value) and re.fullmatch(r"-?[0-9]{1,18}", _text(value)):
            return int(_text(value))
        raise AnalysisError(f"{path}: {name} is not an integer (got {_shown_value(value)})")
    return _text(value)


def _text(value) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray) and value.size == 1:
        return _text(value.reshape(-1)[0])
    return str(value)


#: "MAJOR.MINOR" as nqc writes and accepts it: ASCII decimal digits, at most 9 each, nothing else.
_SCHEMA_VERSION = re.compile(r"([0-9]{1,9})\.([0-9]{1,9})")


def _is_string(value) -> bool:
    """A string attribute as nqc reads one: an HDF5 string, scalar or of one element."""
    if isinstance(value, (str, bytes)):
        return True
    return (
        isinstance(value, np.ndarray)
        and value.size == 1
        and value.dtype.kind in "SUO"
        and isinstance(value.reshape(-1)[0], (str, bytes))
    )


def _shown_value(value) -> str:
    """An attribute's value for a message: one line, at most 40 characters (as nqc cuts them)."""
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(-1)[0]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.ndarray):
        text = " ".join(np.array2string(value, threshold=6, edgeitems=2, max_line_width=10**6).split())
    else:
        text = repr(value) if isinstance(value, (str, bytes)) else " ".join(str(value).split())
    return text[:37] + "..." if len(text) > 40 else text


def _schema_major(version: str, path: Path) -> int:
    """MAJOR of "MAJOR.MINOR", exactly as nqc accepts it (decimal digits only, no spaces)."""
    match = _SCHEMA_VERSION.fullmatch(version)
    if not match:
        raise AnalysisError(
            f"{path}: schema_version '{version}' is not MAJOR.MINOR (decimal digits), "
            f"this analysis reads {READABLE}"
        )
    return int(match.group(1))


def _member_kinds(column: dict) -> str:
    """The numpy kinds a member of ``cases`` may be read as, from its type in result_schema.json:
    integers "iu"; float64 "iuf"; bool "iub" (schema 1.x: uint8); enums "iu", the named ones
    (engine, limit) also "S" (schema 1.x stored their names); strings "SO"."""
    kind = column["type"]
    if kind.startswith("string"):
        return "SO"
    if kind.startswith("enum"):
        return "iuS" if column["name"] in NAMED_MEMBERS else "iu"
    return {"float64": "iuf", "bool": "iub"}.get(kind, "iu")


#: Each member of ``cases`` and the numpy kinds its HDF5 type may have (_member_kinds); the
#: board sizes are checked too: n in 1..N_MAX and k (queens of the composition) in 0..n.
_MEMBER_KINDS = {name: _member_kinds(column) for name, column in COLUMNS.items()}
#: What a set of kinds is called in the error.
_KIND_NAMES = {
    "iu": "an integer type",
    "iuf": "a number type",
    "iub": "an integer or bool type",
    "iuS": "an enum or (schema 1.x) a string type",
    "SO": "a string type",
}


def _check_members(cases: h5py.Dataset, path: Path) -> None:
    for name, kinds in _MEMBER_KINDS.items():
        if name in cases.dtype.names:
            dtype = cases.dtype[name]
            if dtype.subdtype is not None or dtype.kind not in kinds:
                raise AnalysisError(f"{path}: /cases member '{name}' has type {dtype}, expected {_KIND_NAMES[kinds]}")


def _check_sizes(data: np.ndarray, path: Path) -> None:
    """Rows as nqc writes them (a file that passes its checksums holds such rows; one of schema
    1.0 or 1.1 may not: damage read as zeros)."""
    n, k = data["n"], data["k"]
    bad = ~((n >= 1) & (n <= N_MAX))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise damaged(
            path,
            f"/cases row {row} (case_id {data['case_id'][row]}): n = {n[row]} is not a "
            f"board size, expected 1..{N_MAX}",
        )
    bad = (k < 0) | (k > n.astype(np.int64))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise damaged(
            path,
            f"/cases row {row} (case_id {data['case_id'][row]}): k = {k[row]} queens, " f"expected 0..n = 0..{n[row]}",
        )

    # The same checks as nqc's (src/experiment/results.cpp, plausible()).
    def first(bad: np.ndarray, what: str) -> None:
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise damaged(path, f"/cases row {row} (case_id {data['case_id'][row]}): {what(row)}")

    outcome = data["outcome"].astype(np.int64)
    known = (outcome >= 0) & (outcome <= 2)  # another code: named when the outcomes are decoded
    for name in ("wall_s", "cpu_s"):
        if name in data.dtype.names:
            t = data[name].astype(np.float64)
            first(~np.isfinite(t) | (t < 0), lambda r, t=t, name=name: f"{name} = {t[r]}, expected seconds >= 0")
    if "instance" not in data.dtype.names:
        instance = np.zeros(len(data), dtype=bool)
    elif data.dtype["instance"].kind == "S":
        instance = np.char.str_len(data["instance"]) > 0
    else:
        instance = np.array([len(v) > 0 for v in data["instance"]], dtype=bool)
    first(~instance & (outcome == 1), lambda r: "a generated case (derived from a solution) recorded infeasible")
    expected_fn = ~instance & (outcome == 2)
    fn = data["false_negative"].astype(np.int64)
    first(
        known & (fn != expected_fn),
        lambda r: f"false_negative = {fn[r]} for a{'n instance' if instance[r] else ' generated'} "
        f"case that {('solved', 'infeasible', 'gave_up')[outcome[r]]}, expected {int(expected_fn[r])}",
    )
    ids = data["case_id"]
    if len(ids) > 1:
        out_of_order = np.zeros(len(ids), dtype=bool)
        out_of_order[1:] = ids[1:] <= ids[:-1]
        first(
            out_of_order,
            lambda r: f"case ids are not ascending (case {ids[r - 1]} before it): a result file holds each case once, in order",
        )


def _column(values: np.ndarray, dtype: np.dtype):
    """One compound member as a DataFrame column: bytes decoded, sub-arrays as lists."""
    if values.ndim > 1:
        return list(values)
    if dtype.kind == "S":
        return np.char.decode(values, "utf-8", "replace").astype(object)
    if dtype.kind == "O":
        return np.array([_text(v) if isinstance(v, (bytes, np.bytes_)) else v for v in values], dtype=object)
    return values


def _outcomes(codes: np.ndarray, dtype: np.dtype, path: Path) -> pd.Categorical:
    mapping = h5py.check_enum_dtype(dtype)
    names = {int(v): k for k, v in mapping.items()} if mapping else dict(OUTCOME_NAMES)
    codes = np.asarray(codes).astype(np.int64)
    unknown = sorted(set(np.unique(codes).tolist()) - set(names))
    if unknown:
        raise AnalysisError(
            f"{path}: outcome code {unknown[0]} is not one of "
            + ", ".join(f"{c} {n}" for c, n in sorted(names.items()))
        )
    categories = list(OUTCOME_NAMES.values()) + sorted(set(names.values()) - set(OUTCOME_NAMES.values()))
    return pd.Categorical([names[c] for c in codes.tolist()], categories=categories)


def _names(values: np.ndarray, dtype: np.dtype, name: str, path: Path) -> np.ndarray:
    """An enum member (schema 2.0: engine, limit) as its names; a string one (1.x) decoded, an
    empty limit read as NO_LIMIT."""
    mapping = h5py.check_enum_dtype(dtype)
    if mapping is None:
        text = _column(values, dtype)
        if name == "limit":
            text = np.where(text == "", NO_LIMIT, text).astype(object)
        return text
    names = {int(v): k for k, v in mapping.items()}
    codes = np.asarray(values).astype(np.int64)
    unknown = sorted(set(np.unique(codes).tolist()) - set(names))
    if unknown:
        raise AnalysisError(f"{path}: {name} code {unknown[0]} is not one of its enum's values")
    lookup = np.array([names.get(c, "") for c in range(max(names) + 1)], dtype=object)
    return lookup[codes]


#: The HDF5 signature, at offset 0 or after a user block of 512, 1024, 2048, ... bytes.
_HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
_SHARD_OR_PARTIAL = re.compile(r"^(shard|partial)-(\d{6,})\.h5$")


def superblock_version(path: Path) -> int:
    """The HDF5 superblock version of a file (0, 1: no checksums, nqc before schema 1.2; 2, 3:
    every piece of metadata checksummed), or -1 when it has no HDF5 signature."""
    with open(path, "rb") as f:
        at = 0
        while True:
            f.seek(at)
            head = f.read(9)
            if len(head) < 9:
                return -1
            if head[:8] == _HDF5_SIGNATURE:
                return head[8]
            at = 512 if at == 0 else 2 * at


def damage_advice(path: Path) -> str:
    """What to do about a damaged file of a results directory, as nqc says it ("" for others)."""
    if path.parent.name == "shards" and _SHARD_OR_PARTIAL.match(path.name):
        return ": delete it and run the config again with --resume (its cases run again)"
    if path.name == "results.h5" and (path.parent / "shards").is_dir():
        return (
            f": delete it and rebuild it from the shard files: nqc run {path.parent / 'config.json'} "
            f"-o {path.parent} --resume"
        )
    return ""


def damaged(path: Path, detail: str) -> AnalysisError:
    """The error for a damaged result file, worded as nqc words it."""
    return AnalysisError(f"{path}: damaged ({detail}){damage_advice(path)}")


#: Reads what read_file reads, in a child process (for files without checksums).
_PROBE = """import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    dict(f.attrs.items())
    cases = f.get("cases")
    if cases is not None and cases.dtype.names is not None:
        cases[()]
"""
#: Why a file is read in a child process first (the end of the message when that child dies).
NO_CHECKSUMS = "a file of schema 1.0 or 1.1 has no checksums"
UNCHECKED_TEXT = f"its variable-length text attributes have no {TEXT_CHECKSUM}"


def _probe_seconds(path: Path) -> int:
    """The child's time limit, nqc's rule (isolated_seconds in src/formats/isolated.hpp): 5 s plus
    1 s per 8 MiB of the file (damaged metadata can make HDF5 1.10 loop for ever)."""
    return 5 + min(path.stat().st_size >> 23, 86400)


def _probe_in_child(path: Path, why: str = NO_CHECKSUMS) -> None:
    """A file of schema 1.0 or 1.1 (no checksums), or one whose text attributes cannot be
    checked (`why`), is read once in a child process first: damage in its metadata can crash
    HDF5 1.10 (and Python with it) or make it loop, which must be a message instead."""
    seconds = _probe_seconds(path)
    try:
        done = subprocess.run([sys.executable, "-c", _PROBE, str(path)], capture_output=True, timeout=seconds)
    except subprocess.TimeoutExpired:
        raise damaged(path, f"reading it did not end within {seconds} s; {why}") from None
    if done.returncode < 0:
        name = signal.Signals(-done.returncode).name
        raise damaged(path, f"reading it crashed the HDF5 library ({name}); {why}")


def _is_variable_string(f: h5py.File, name: str) -> bool:
    """Whether root attribute `name` is a variable-length string, from its type alone."""
    kind = f.attrs.get_id(name).get_type()
    return isinstance(kind, h5py.h5t.TypeStringID) and kind.is_variable_str()


def check_text_attributes(f: h5py.File, path: Path) -> str:
    """Checks the variable-length string root attributes of the open file `f` against
    ``text_checksum`` before any of their values is read (nqc's check, src/formats/hdf5_text.hpp):
    their values live in global heap collections, which HDF5 does not checksum and whose damage
    can crash HDF5 1.10. ``text_checksum`` holds 1 + 2N uint64: the XXH64 (seed 0) of the names
    of those attributes in byte order, each followed by a NUL byte, then of the bytes of each
    heap collection that holds their values; then each collection's offset in the file and size.

    Returns "none" (no such attribute), "passed", or "unchecked" (no ``text_checksum``: not a
    file nqc wrote so). Raises AnalysisError "FILE: damaged (the text attributes do not match
    text_checksum)..." when they differ, and for a ``text_checksum`` of another shape. XXH64 comes
    from the package xxhash (Debian's python3-xxhash)."""
    names = sorted((name for name in f.attrs if _is_variable_string(f, name)), key=lambda n: n.encode())
    if not names:
        return "none"
    if TEXT_CHECKSUM not in f.attrs:
        return "unchecked"
    kind = f.attrs.get_id(TEXT_CHECKSUM)
    count = int(np.prod(kind.shape)) if kind.shape else 1
    if (
        kind.dtype.kind != "u"
        or kind.dtype.itemsize != 8
        or len(kind.shape) > 1
        or not 1 <= count <= 1 + 2 * MAX_TEXT_HEAPS
    ):
        raise AnalysisError(
            f"{path}: attribute {TEXT_CHECKSUM} is not a 1-D array of at most " f"{1 + 2 * MAX_TEXT_HEAPS} uint64"
        )
    stored = np.atleast_1d(f.attrs[TEXT_CHECKSUM]).astype(np.uint64).tolist()
    if len(stored) % 2 == 0:
        raise AnalysisError(
            f"{path}: attribute {TEXT_CHECKSUM} holds {len(stored)} values, expected 1 + 2 per " "heap collection"
        )
    digest = xxhash.xxh64(seed=0)
    for name in names:
        digest.update(name.encode() + b"\0")
    end = path.stat().st_size
    named = 0  # collections do not overlap: all of them fit in the file
    with open(path, "rb") as raw:
        for offset, size in zip(stored[1::2], stored[2::2]):
            if offset > end or size > end - offset:
                raise damaged(
                    path, f"{TEXT_CHECKSUM} names bytes {offset}..{offset + size}, beyond the file's end " f"at {end}"
                )
            named += size
            if named > end:
                raise damaged(path, f"{TEXT_CHECKSUM} names {named} bytes or more, the file has {end}")
            raw.seek(offset)
            digest.update(raw.read(size))
    if digest.intdigest() != stored[0]:
        raise damaged(path, f"the text attributes do not match {TEXT_CHECKSUM}")
    return "passed"


def _file_kind(path: Path) -> str:
    """What a path that exists and is not a regular file is: "directory", "FIFO", ..."""
    mode = path.stat().st_mode
    for test, name in (
        (stat.S_ISDIR, "directory"),
        (stat.S_ISFIFO, "FIFO"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
        (stat.S_ISSOCK, "socket"),
    ):
        if test(mode):
            return name
    return "special file"


def _h5_reason(error: Exception) -> str:
    """h5py's "Unable to open file (truncated file: eof = 1, ...)" -> "truncated file"."""
    text = str(error)
    inner = re.search(r"\(([^()]*)", text)
    reason = inner.group(1) if inner else text
    return reason.split(":")[0].strip() or type(error).__name__


def read_file(path: str | Path) -> tuple[pd.DataFrame, Source]:
    """Reads the ``cases`` of one result file (shard or merged).

    Raises AnalysisError naming the file when it is missing, damaged ("FILE: damaged
    (REASON)", with what to do for a file of a results directory, as nqc says it: a failed
    checksum, text attributes that do not match ``text_checksum``, a truncated file, a lost
    HDF5 signature, or a crash of the HDF5 library on a file of schema 1.0 or 1.1, or on one
    whose variable-length text attributes have no ``text_checksum``, which are read in a
    child process first), not HDF5, not an nqc
    result file, has a schema_version that is not a string ("FILE: schema_version is not a
    string 'MAJOR.MINOR' (got 2.0)") or not MAJOR.MINOR, is of another schema major version
    ("FILE: schema version 3.0, this analysis reads 1.x and 2.x"), has a text attribute
    (STRING_ATTRIBUTES) that is not a string or an integer one (INTEGER_ATTRIBUTES) that is not
    an integer, a ``config`` that is not a JSON object (:func:`parse_config`), a ``launches``
    table without its members, lacks a needed member of ``cases`` or has one of the wrong type, or holds a
    case with n outside 1..2^31-1 or k outside 0..n (naming the row and case_id); a path that is
    not a regular file (a FIFO, a device) is refused before it is opened."""
    path = Path(path)
    if not path.exists():
        raise AnalysisError(f"{path}: no such file or directory")
    if not path.is_file():  # a FIFO would block the read, a device never end: HDF5 reads files
        raise AnalysisError(f"{path}: not a regular file (a {_file_kind(path)}), expected an HDF5 result file")
    try:
        version = superblock_version(path)
    except OSError as e:
        raise AnalysisError(f"{path}: cannot read ({e.strerror or e})") from None
    if version < 0:
        if damage_advice(path):
            raise damaged(path, "the HDF5 signature at its start is gone")
        raise AnalysisError(f"{path}: not a readable HDF5 file (no HDF5 signature)")
    if version < 2:
        _probe_in_child(path)
    output.note_input(path)
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise damaged(path, f"cannot open: {_h5_reason(e)}") from None
    with f:
        try:
            if version >= 2 and check_text_attributes(f, path) == "unchecked":
                _probe_in_child(path, UNCHECKED_TEXT)
            raw = {name: value for name, value in f.attrs.items() if name != TEXT_CHECKSUM}
        except (OSError, RuntimeError, KeyError, TypeError, ValueError) as e:
            raise damaged(path, f"cannot read the root attributes: {_h5_reason(e)}") from None
        if "schema_version" not in raw:
            raise AnalysisError(f"{path}: not an nqc result file (no schema_version attribute)")
        for name in STRING_ATTRIBUTES:
            if name in raw and not _is_string(raw[name]):
                expected = "a string 'MAJOR.MINOR'" if name == "schema_version" else "a string"
                raise AnalysisError(f"{path}: {name} is not {expected} (got {_shown_value(raw[name])})")
        attrs = {k: _attribute(k, v, path) for k, v in raw.items()}
        version = attrs["schema_version"]
        if _schema_major(version, path) not in SCHEMA_MAJORS:
            raise AnalysisError(f"{path}: schema version {version}, this analysis reads {READABLE}")
        config = parse_config(attrs[CONFIG], path) if CONFIG in attrs else {}
        # Not f.get("cases"): it returns None when the link is there but the object cannot be
        # opened (damage, found by bench/damage_campaign.py), which read as "no dataset".
        try:
            cases = f["cases"] if "cases" in f else None
        except (OSError, RuntimeError, KeyError, TypeError, ValueError) as e:
            raise damaged(path, f"cannot open /cases: {_h5_reason(e)}") from None
        if not isinstance(cases, h5py.Dataset) or cases.dtype.names is None:
            raise AnalysisError(f"{path}: no compound dataset 'cases'")
        if cases.ndim != 1:
            raise AnalysisError(f"{path}: /cases has shape {cases.shape}, expected one row per case (1-D)")
        missing = [name for name in REQUIRED_FIELDS if name not in cases.dtype.names]
        if missing:
            raise AnalysisError(f"{path}: /cases has no member '{missing[0]}' " f"(schema version {version})")
        _check_members(cases, path)
        try:
            data = cases[()]
        except (OSError, RuntimeError, KeyError, TypeError, ValueError) as e:
            raise damaged(path, f"cannot read /cases: {_h5_reason(e)}") from None
        launches = _launches(f, path)
    _check_sizes(data, path)
    columns = {}
    for name in data.dtype.names:
        member = data.dtype[name]
        if name == "outcome":
            columns[name] = _outcomes(data[name], member, path)
        elif name == "false_negative":
            columns[name] = data[name].astype(bool)
        elif name in NAMED_MEMBERS:
            columns[name] = _names(data[name], member, name, path)
        else:
            columns[name] = _column(data[name], member.base if member.subdtype else member)
    df = pd.DataFrame(columns, index=pd.RangeIndex(len(data)))
    df[SOURCE] = str(path)
    df[CONFIG_HASH] = attrs.get("config_hash", "")
    source = Source(path=path, attrs=attrs, rows=len(df), launches=launches, config=config)
    df[EXPERIMENT] = config.get("name", "")
    return df, source


#: Each member of ``launches`` and the numpy kinds its HDF5 type may have (as for ``cases``).
_LAUNCH_KINDS = {c["name"]: _member_kinds(c) for c in SCHEMA["launch_columns"]}


def _launches(f: h5py.File, path: Path) -> pd.DataFrame | None:
    """The ``launches`` table of an open result file (strings decoded), or None without one.
    Every member of ``SCHEMA["launch_columns"]`` must be there with a type of its kind (the
    report reads them): else an AnalysisError naming the file and the member."""
    if "launches" not in f:
        return None
    try:
        dataset = f["launches"]
    except (OSError, RuntimeError, KeyError, TypeError, ValueError) as e:
        raise damaged(path, f"cannot open /launches: {_h5_reason(e)}") from None
    if not isinstance(dataset, h5py.Dataset) or dataset.dtype.names is None or dataset.ndim != 1:
        raise AnalysisError(f"{path}: /launches is not a 1-D compound dataset (one row per launch)")
    for name, kinds in _LAUNCH_KINDS.items():
        if name not in dataset.dtype.names:
            raise AnalysisError(f"{path}: /launches has no member '{name}'")
        dtype = dataset.dtype[name]
        if dtype.subdtype is not None or dtype.kind not in kinds:
            raise AnalysisError(f"{path}: /launches member '{name}' has type {dtype}, expected {_KIND_NAMES[kinds]}")
    try:
        table = dataset[()]
    except (OSError, RuntimeError, KeyError, TypeError, ValueError) as e:
        raise damaged(path, f"cannot read /launches: {_h5_reason(e)}") from None
    columns = {name: _column(table[name], table.dtype[name]) for name in table.dtype.names}
    if "merged" in columns:
        columns["merged"] = np.asarray(columns["merged"]).astype(bool)
    return pd.DataFrame(columns)


#: The host of a rank that no result file names (see :func:`parse_hosts`).
UNKNOWN_HOST = "?"
#: The ``hosts`` of a launch record nqc could not read (src/experiment/launches.cpp): no host known.
DAMAGED_RECORD = "(record damaged)"
#: Bytes of the ``hosts`` member (a longer text is cut there: its last host may be cut short).
HOSTS_BYTES = int(
    re.search(r"(\d+) bytes", next(c["type"] for c in SCHEMA["launch_columns"] if c["name"] == "hosts")).group(1)
)
_RANK_RANGE = re.compile(r"([0-9]{1,9})(?:-([0-9]{1,9}))?")


def parse_hosts(text: str, world_size: int | None = None) -> dict[int, str]:
    """The host of each rank from a launch's ``hosts`` (the launches table), rank -> host.

    nqc writes it as every host with its ranks, hosts in the order of their first rank,
    ``HOST:RANKS,HOST:RANKS``, RANKS ranges joined by ``+``: ``nqc-h0:0-1,nqc-h1:2-3``,
    ``vm:0-2``, ``a:0+2,b:1+3`` (``launch_hosts`` in src/runner/runner.cpp; schema 2.2). Before
    that (schema 2.1 and older) it held the distinct host names alone, comma-separated in the
    order of their first rank (``a,b``); a 2.2 launch that was killed before its ranks met
    keeps its rank 0's host name alone. From a bare name only rank 0's host is known (the first
    name is rank 0's), from ``(record damaged)`` or "" nothing. A text of HOSTS_BYTES or more
    may have been cut: its last entry is not trusted. Malformed entries are skipped.

    With `world_size` (> 0), every rank 0..world_size-1 is in the result, those no entry
    names mapped to UNKNOWN_HOST ("?"), and named ranks outside that range are dropped;
    without it, only the ranks named. A rank named twice keeps its first host."""
    text = (text or "").strip()
    entries = [] if text in ("", DAMAGED_RECORD) else text.split(",")
    if len(text.encode()) >= HOSTS_BYTES - 1 and entries:
        entries = entries[:-1]  # cut at the member's size
    hosts: dict[int, str] = {}
    for i, entry in enumerate(entries):
        host, colon, ranks = entry.rpartition(":")
        if not colon:  # a bare name (schema 2.1 and older, or a killed launch): the first is rank 0's
            if i == 0 and entry.strip():
                hosts.setdefault(0, entry.strip())
            continue
        named: list[int] = []
        for part in ranks.split("+"):
            match = _RANK_RANGE.fullmatch(part.strip())
            if not match or not host.strip():
                named = []
                break
            lo = int(match.group(1))
            hi = int(match.group(2)) if match.group(2) is not None else lo
            if hi < lo or (world_size and lo >= world_size):
                named = []
                break
            named.extend(range(lo, (min(hi, world_size - 1) if world_size else hi) + 1))
        for rank in named:
            hosts.setdefault(rank, host.strip())
    if world_size and world_size > 0:
        return {rank: hosts.get(rank, UNKNOWN_HOST) for rank in range(world_size)}
    return dict(sorted(hosts.items()))


def launch_ranks(cases: pd.DataFrame) -> pd.DataFrame:
    """Every rank of every launch the result files under `cases` (``cases.attrs["sources"]``)
    name, one row each: ``config_hash``, ``launch`` (its id), ``rank``, ``host``,
    ``world_size`` (0 when unknown) and ``start_utc``.

    Merged files name them in their launches table (``hosts``, read by :func:`parse_hosts`);
    shard files, in their root attributes ``launch``, ``rank``, ``hostname``, ``world_size``
    and ``start_utc`` (the rank that wrote the file, so exact for every rank that wrote one).
    Ranks that neither names get host UNKNOWN_HOST ("?")."""
    launches: dict[tuple[str, int], dict] = {}
    for source in cases.attrs.get("sources", []):
        config_hash = str(source.attrs.get("config_hash", ""))
        if source.launches is not None:
            for row in source.launches.itertuples():
                key = (config_hash, int(row.id))
                world = max(int(row.world_size), 0)
                known = launches.setdefault(key, {"world_size": world, "start_utc": str(row.start_utc), "hosts": {}})
                for rank, host in parse_hosts(str(row.hosts), world or None).items():
                    if host != UNKNOWN_HOST:
                        known["hosts"].setdefault(rank, host)
                known["world_size"] = known["world_size"] or world
        attrs = source.attrs
        if isinstance(attrs.get("launch"), int) and isinstance(attrs.get("rank"), int):  # a shard file (1.3 on)
            key = (config_hash, attrs["launch"])
            world = attrs.get("world_size", 0)
            known = launches.setdefault(
                key,
                {
                    "world_size": world if isinstance(world, int) else 0,
                    "start_utc": str(attrs.get("start_utc", "")),
                    "hosts": {},
                },
            )
            if attrs.get("hostname"):
                known["hosts"].setdefault(attrs["rank"], str(attrs["hostname"]))
            known["start_utc"] = known["start_utc"] or str(attrs.get("start_utc", ""))  # some ranks' files lack it
            known["world_size"] = known["world_size"] or (world if isinstance(world, int) else 0)
    rows = []
    for (config_hash, launch), known in sorted(launches.items()):
        world = known["world_size"]
        for rank in sorted(set(range(world)) | set(known["hosts"])):
            rows.append(
                {
                    "config_hash": config_hash,
                    "launch": launch,
                    "rank": rank,
                    "host": known["hosts"].get(rank, UNKNOWN_HOST),
                    "world_size": world,
                    "start_utc": known["start_utc"],
                }
            )
    return pd.DataFrame(rows, columns=["config_hash", "launch", "rank", "host", "world_size", "start_utc"])


def result_files(path: str | Path) -> list[Path]:
    """The files that hold the results under a path.

    A file stands for itself; a directory for its results.h5, or, when the run has not
    finished (no results.h5), for its shard files DIR/shards/shard-NNNNNN.h5 (with a warning).
    """
    path = Path(path)
    if not path.exists():
        raise AnalysisError(f"{path}: no such file or directory")
    if not path.is_dir():
        return [path]
    merged = path / "results.h5"
    if merged.is_file():
        return [merged]
    shard_dir = path / "shards"
    shards = (
        sorted(p for p in shard_dir.glob("shard-*.h5") if _SHARD_FILE.match(p.name) and p.is_file())
        if shard_dir.is_dir()
        else []
    )
    if not shards:
        raise AnalysisError(f"{path}: no result files (expected {merged} or " f"{shard_dir}/shard-NNNNNN.h5)")
    warnings.warn(
        f"{path}: no results.h5 (unfinished run?): reading {len(shards)} shard files", AnalysisWarning, stacklevel=2
    )
    return shards


def load_cases(
    *paths: str | Path | Iterable[str | Path], allow_mixed: bool = False, mixed: str | None = None
) -> pd.DataFrame:
    """All cases under one or more paths (result files or results directories), one row each.

    Shard files of one directory must come from one config (same ``config_hash``). Paths of
    different configs: `mixed` "refuse" (the default; the error names both paths and hashes:
    pooled, their cases would mix two experiments in one table), "pool" (`allow_mixed`: with
    a warning) or "group" (the caller keeps them apart, see analysis.groups: no warning).
    Rows of one config that appear twice (the same ``case_id``, e.g. a merged file and one of
    its shard files both given) are counted once, with a warning. Raises AnalysisError when a
    path is missing, a directory holds no result files, a file is refused (see
    :func:`read_file`) or no case is found.
    """
    mixed = mixed or ("pool" if allow_mixed else "refuse")
    if mixed not in MIXED_MODES:
        raise ValueError(f"mixed={mixed!r}: expected one of {', '.join(MIXED_MODES)}")
    flat: list[Path] = []
    for p in paths:
        if isinstance(p, (str, Path)):
            flat.append(Path(p))
        else:
            flat.extend(Path(q) for q in p)
    if not flat:
        raise AnalysisError("no result files given")
    frames, sources = [], []
    configs: dict[str, Path] = {}  # config_hash -> the first path given that holds it
    for path in flat:
        files = result_files(path)
        hashes: dict[str, Path] = {}
        for file in files:
            df, source = read_file(file)
            frames.append(df.sort_values("case_id", kind="stable"))
            sources.append(source)
            h = source.attrs.get("config_hash", "")
            hashes.setdefault(h, file)
            if path.is_dir() and len(hashes) > 1:
                (h1, f1), (h2, f2) = list(hashes.items())[:2]
                raise AnalysisError(
                    f"{path}: shard files of different configs: {f1} has config_hash "
                    f"{h1 or '(none)'}, {f2} has {h2 or '(none)'}"
                )
            configs.setdefault(h, path)
            if len(configs) > 1 and mixed == "refuse":
                (h1, p1), (h2, p2) = list(configs.items())[:2]
                raise AnalysisError(
                    f"{p1} (config_hash {h1 or '(none)'}) and {p2} (config_hash {h2 or '(none)'}) "
                    "are different configs: their cases would be pooled in one table; give "
                    "them separately, or --allow-mixed to pool them"
                )
    if len(configs) > 1 and mixed == "pool":
        warnings.warn(
            f"pooling the cases of {len(configs)} different configs (--allow-mixed): "
            + ", ".join(f"{p} ({h or 'no config_hash'})" for h, p in configs.items()),
            AnalysisWarning,
            stacklevel=2,
        )
    cases = pd.concat(frames, ignore_index=True)
    if cases.empty:
        raise AnalysisError(", ".join(str(p) for p in flat) + ": no cases in the result files")
    duplicated = cases.duplicated([CONFIG_HASH, "case_id"], keep="first")
    if duplicated.any():
        warnings.warn(
            f"{int(duplicated.sum())} cases appear in more than one file of the same config: " "counted once",
            AnalysisWarning,
            stacklevel=2,
        )
        cases = cases[~duplicated].reset_index(drop=True)
    cases[DIAGS] = _diags(cases)
    for name in (SOURCE, CONFIG_HASH, EXPERIMENT):
        cases[name] = cases[name].astype("category")
    cases.attrs["sources"] = sources
    return cases


def instance_cases(cases: pd.DataFrame) -> pd.Series:
    """True for the rows of instance runs (a file named in ``instance``), False for generated cases."""
    if INSTANCE not in cases.columns:
        return pd.Series(False, index=cases.index)
    return cases[INSTANCE].fillna("").astype(str).str.len() > 0


def param_cases(cases: pd.DataFrame) -> pd.Series:
    """True for the rows of CSPLib prob079 .param files (their ``composition_id`` is the diags used)."""
    if INSTANCE not in cases.columns:
        return pd.Series(False, index=cases.index)
    return cases[INSTANCE].fillna("").astype(str).str.endswith(PARAM_SUFFIX)


def _diags(cases: pd.DataFrame) -> pd.Series:
    param = param_cases(cases)
    diags = pd.Series(pd.NA, index=cases.index, dtype="Int64")
    if param.any():
        diags[param] = cases.loc[param, "composition_id"].astype("int64")
    return diags
