"""Result files of ``nqc run`` into one pandas DataFrame, one row per case.

nqc reads them: ``nqc rows PATH... --sources FILE`` prints the rows as CSV and the files'
attributes, configs and launches tables as JSON. So every rule of the result files is nqc's
alone (src/experiment/results.cpp, aggregate.cpp): their layout (schema 2.2 only), the checks
of each row, the diagnosis of damage with what to do about it, and which paths may be read
together (:func:`load_cases`). Its one-line error is this module's AnalysisError, its
warnings (an unfinished run) AnalysisWarning. The columns are typed from the layout nqc
declares (``result_schema.json``, ``nqc info --columns --json``: :data:`COLUMNS`).

Columns of the DataFrame: every member of ``cases`` under its own name (times in seconds),
with ``outcome`` as a categorical of "solved" / "infeasible" / "gave_up", ``false_negative``
as bool, ``engine`` and ``limit`` as str (their enum names) and ``instance`` as str; plus
``source`` (the file a row came from), ``config_hash``, ``experiment`` (the config's name) and
``diags`` (instance runs: the excluded diagonals a CSPLib .param case used, else missing).
``df.attrs["sources"]`` lists a :class:`Source` per file read.

Instance runs (a config's ``instances``): the rows name their file in ``instance`` (empty for
generated cases), its index in ``solution_id`` and, for CSPLib .param files, the diagonals
used in ``composition_id`` (0 for composition files); :func:`instance_cases` and the ``diags``
column read them, so no other module needs to know where they are stored.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import pandas as pd

from analysis import output
from analysis.errors import AnalysisError
from analysis.schema import SCHEMA

#: Each member of ``cases``: {"type", "description", and for enums "values": name -> code}.
COLUMNS = {c["name"]: c for c in SCHEMA["columns"]}
#: nqc::Outcome's names, by code: the categories of ``outcome``.
OUTCOME_NAMES = [name for name, _ in sorted(COLUMNS["outcome"]["values"].items(), key=lambda kv: kv[1])]
#: Columns load_cases adds to the members of ``cases``.
SOURCE, CONFIG_HASH, EXPERIMENT, DIAGS = "source", "config_hash", "experiment", "diags"
#: The member that names an instance run's file (empty for generated cases).
INSTANCE = "instance"
#: The member that names the engine of a case.
ENGINE = "engine"
#: Members that name the composition a case ran on: generated cases draw it from (seed, n,
#: solution_id, composition_id), instance runs read it from ``instance`` (with the diags in
#: composition_id). Two runs of one config with different engines have the same values.
COMPOSITION_KEYS = ("n", "k", "seed", "solution_id", "composition_id", INSTANCE)
#: Instance files that nqc reads as CSPLib prob079 (src/formats/csplib.cpp, is_param_file): by extension.
PARAM_SUFFIX = ".param"
#: What load_cases does with paths of different configs: keep them apart for the caller to
#: group (analysis.groups), or pool them into one table (nqc's rule: only runs of one engine
#: and settings; ``nqc rows --pool``, as ``nqc aggregate``).
MIXED_MODES = ("group", "pool")
#: The numpy type of each kind of column as nqc rows prints it (result_schema.json's types).
_DTYPES = {"uint64": "uint64", "int64": "int64", "uint32": "uint32", "int32": "int32", "float64": "float64"}


class AnalysisWarning(UserWarning):
    """Something the reader should know but that does not stop the analysis."""


@dataclass(frozen=True)
class Source:
    """One result file that was read: its path, root attributes (integers as int, text as str)
    and number of case rows."""

    path: Path
    attrs: dict = field(hash=False)
    rows: int
    #: The file's ``launches`` table (results.h5: one row per launch of ``nqc run`` that worked
    #: on the directory), else None.
    launches: pd.DataFrame | None = field(default=None, hash=False, compare=False)
    #: The resolved config stored in the file's ``config`` attribute, parsed by nqc.
    config: dict = field(default_factory=dict, hash=False, compare=False)


def nqc_executable() -> str:
    """The nqc that reads result files: $NQC_BIN, else ``nqc`` on PATH, else the repository's
    build (build/src/cli/nqc). An AnalysisError when there is none."""
    repo_build = Path(__file__).resolve().parent.parent / "build" / "src" / "cli" / "nqc"
    for candidate in (os.environ.get("NQC_BIN"), shutil.which("nqc"), str(repo_build)):
        if candidate and os.access(candidate, os.X_OK) and not os.path.isdir(candidate):
            return candidate
    raise AnalysisError(
        "no nqc to read the result files: set NQC_BIN, put nqc on PATH, or build it (build/src/cli/nqc)"
    )


def _nqc_rows(paths: list[Path], pool: bool) -> tuple[pd.DataFrame, list[dict]]:
    """The rows (as text) and the sources of `paths` from ``nqc rows``; nqc's error as an
    AnalysisError, its warnings as AnalysisWarning."""
    with tempfile.TemporaryDirectory(prefix="nqc-rows-") as tmp:
        sources_file = Path(tmp) / "sources.json"
        command = [nqc_executable(), "rows", *map(str, paths), "--sources", str(sources_file)]
        try:
            done = subprocess.run(command + (["--pool"] if pool else []), capture_output=True, check=False)
        except OSError as e:
            raise AnalysisError(f"{command[0]}: cannot run ({e.strerror})") from None
        lines = done.stderr.decode("utf-8", "replace").splitlines()
        for line in lines:
            if line.startswith("nqc: warning: "):
                warnings.warn(line[len("nqc: warning: ") :], AnalysisWarning, stacklevel=3)
        if done.returncode != 0:
            errors = [line[len("nqc: error: ") :] for line in lines if line.startswith("nqc: error: ")]
            raise AnalysisError(errors[-1] if errors else f"{command[0]} rows: exit {done.returncode}")
        sources = json.loads(sources_file.read_text(encoding="utf-8"))
    text = {name: str for name in ("outcome", "false_negative", "engine", "limit", INSTANCE, SOURCE)}
    dtypes = {name: _DTYPES.get(c["type"], str) for name, c in COLUMNS.items()} | text
    rows = pd.read_csv(
        io.BytesIO(done.stdout), dtype=dtypes, na_filter=False, encoding="utf-8", float_precision="round_trip"
    )
    return rows, sources


def _source(entry: dict) -> Source:
    columns = [c["name"] for c in SCHEMA["launch_columns"]]
    launches = pd.DataFrame(entry["launches"], columns=columns) if "launches" in entry["attrs"] else None
    return Source(Path(entry["path"]), entry["attrs"], entry["rows"], launches, entry["config"])


def load_cases(*paths: str | Path | Iterable[str | Path], mixed: str = "group") -> pd.DataFrame:
    """All cases under one or more paths (result files or results directories), one row each.

    nqc reads them with every check (``nqc rows``). A path given twice, or two of one config,
    are refused (their cases would count twice). Paths of different configs: `mixed` "group"
    (the default: the caller keeps them apart by ``config_hash``, see analysis.groups) or
    "pool" (one table: nqc refuses runs of other engines or settings, as ``nqc aggregate``
    does). Raises AnalysisError with nqc's one line when a path is missing or refused, and when
    no case is found."""
    if mixed not in MIXED_MODES:
        raise ValueError(f"mixed={mixed!r}: expected one of {', '.join(MIXED_MODES)}")
    flat: list[Path] = []
    for p in paths:
        flat.extend([Path(p)] if isinstance(p, (str, Path)) else [Path(q) for q in p])
    if not flat:
        raise AnalysisError("no result files given")
    cases, entries = _nqc_rows(flat, mixed == "pool")
    if cases.empty:
        raise AnalysisError(", ".join(str(p) for p in flat) + ": no cases in the result files")
    sources = [_source(e) for e in entries]
    for source in sources:
        output.note_input(source.path)
    by_path = {str(s.path): s for s in sources}
    cases["outcome"] = pd.Categorical(cases["outcome"], categories=OUTCOME_NAMES)
    cases["false_negative"] = cases["false_negative"] == "TRUE"
    cases[CONFIG_HASH] = cases[SOURCE].map({p: str(s.attrs.get("config_hash", "")) for p, s in by_path.items()})
    cases[EXPERIMENT] = cases[SOURCE].map({p: str(s.config.get("name", "")) for p, s in by_path.items()})
    cases[DIAGS] = _diags(cases)
    for name in (SOURCE, CONFIG_HASH, EXPERIMENT):
        cases[name] = cases[name].astype("category")
    cases.attrs["sources"] = sources
    return cases


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
