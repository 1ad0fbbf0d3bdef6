"""Result files of ``nqc run`` into one DataFrame, one row per case, read by nqc itself (``nqc rows``): the
``cases`` members plus source, config_hash, experiment, diags; attrs['sources'] a :class:`Source` per file."""

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

import numpy as np
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
#: The origin member and its values: only derived cases are known completable (Table 1, fits, false negatives).
ORIGIN = "origin"
DERIVED, INSTANCE_ORIGIN, CANONICAL = "derived", "instance", "canonical"
#: Origins sampling a phase transition, and the parameter kept in ``solution_id`` (f free rows, d diagonals).
SAMPLED = {"random": "free_rows", "excluded_diagonals": "diags"}
#: The member that holds a SAMPLED case's parameter.
SAMPLE_PARAM = "solution_id"
#: The compositions a canonical case stands for (its orbit under the board's symmetries).
ORBIT_SIZE = "orbit_size"
#: Members naming a case's composition (the same for two engines on one config).
COMPOSITION_KEYS = ("n", "k", "seed", "solution_id", "composition_id", INSTANCE)
#: Instance files that nqc reads as CSPLib prob079 (src/formats/csplib.cpp, is_param_file): by extension.
PARAM_SUFFIX = ".param"
#: The numpy type of each kind of column as nqc rows prints it (result_schema.json's types).
_DTYPES = {"uint64": "uint64", "int64": "int64", "uint32": "uint32", "int32": "int32", "float64": "float64"}


class AnalysisWarning(UserWarning):
    """Something the reader should know but that does not stop the analysis."""


@dataclass(frozen=True)
class Source:
    """One result file read: path, root attributes, rows, launches table (results.h5; else None) and config."""

    path: Path
    attrs: dict = field(hash=False)
    rows: int
    launches: pd.DataFrame | None = field(default=None, hash=False, compare=False)
    config: dict = field(default_factory=dict, hash=False, compare=False)


def nqc_executable() -> str:
    """$NQC_BIN, else ``nqc`` on PATH, else build/src/cli/nqc; AnalysisError when there is none."""
    repo_build = Path(__file__).resolve().parent.parent / "build" / "src" / "cli" / "nqc"
    for candidate in (os.environ.get("NQC_BIN"), shutil.which("nqc"), str(repo_build)):
        if candidate and os.access(candidate, os.X_OK) and not os.path.isdir(candidate):
            return candidate
    raise AnalysisError(
        "no nqc to read the result files: set NQC_BIN, put nqc on PATH, or build it (build/src/cli/nqc)"
    )


def run_nqc(*args, stdin: bytes | None = None) -> bytes:
    """Standard output of ``nqc ARGS...``; its warnings become AnalysisWarnings, its error an AnalysisError."""
    command = [nqc_executable(), *map(str, args)]
    try:
        done = subprocess.run(command, input=stdin, capture_output=True, check=False)
    except OSError as e:
        raise AnalysisError(f"{command[0]}: cannot run ({e.strerror})") from None
    lines = done.stderr.decode("utf-8", "replace").splitlines()
    for line in lines:
        if line.startswith("nqc: warning: "):
            warnings.warn(line.removeprefix("nqc: warning: "), AnalysisWarning, stacklevel=3)
    if done.returncode != 0:
        errors = [line.removeprefix("nqc: error: ") for line in lines if line.startswith("nqc: error: ")]
        raise AnalysisError(errors[-1] if errors else f"{command[0]} {args[0]}: exit {done.returncode}")
    return done.stdout


def _nqc_rows(paths: list[Path], pool: bool) -> tuple[pd.DataFrame, list[dict]]:
    """The rows (as text) and the sources of `paths` from ``nqc rows``."""
    with tempfile.TemporaryDirectory(prefix="nqc-rows-") as tmp:
        sources_file = Path(tmp) / "sources.json"
        stdout = run_nqc("rows", *paths, "--sources", sources_file, *(["--pool"] if pool else []))
        sources = json.loads(sources_file.read_text(encoding="utf-8"))
    text = {name: str for name in ("outcome", "false_negative", "engine", "limit", INSTANCE, SOURCE)}
    dtypes = {name: _DTYPES.get(c["type"], str) for name, c in COLUMNS.items()} | text
    rows = pd.read_csv(
        io.BytesIO(stdout), dtype=dtypes, na_filter=False, encoding="utf-8", float_precision="round_trip"
    )
    return rows, sources


def _source(entry: dict) -> Source:
    columns = [c["name"] for c in SCHEMA["launch_columns"]]
    launches = pd.DataFrame(entry["launches"], columns=columns) if "launches" in entry["attrs"] else None
    return Source(Path(entry["path"]), entry["attrs"], entry["rows"], launches, entry["config"])


def load_cases(*paths: str | Path | Iterable[str | Path], mixed: str = "group") -> pd.DataFrame:
    """The cases of `paths` (results directories or files) as one frame, its sources in attrs; `mixed` 'group' or
    'pool'. AnalysisError on bad input."""
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
    """rank -> host from a launch's ``hosts`` (``a:0-1,b:2+4``; a bare name is rank 0's; a text cut at HOSTS_BYTES
    loses its last entry); with `world_size`, every rank."""
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
    """Every rank of every launch named by the files (launches tables, or shard files' root attributes):
    config_hash, launch, rank, host, world_size, start_utc."""
    launches: dict[tuple[str, int], dict] = {}

    def note(config_hash: str, launch: int, world, start_utc, hosts: dict[int, str]) -> None:
        world = world if isinstance(world, int) else 0
        known = launches.setdefault((config_hash, launch), {"world_size": world, "start_utc": "", "hosts": {}})
        for rank, host in hosts.items():
            known["hosts"].setdefault(rank, host)
        known["start_utc"] = known["start_utc"] or str(start_utc)  # some ranks' files lack it
        known["world_size"] = known["world_size"] or world

    for source in cases.attrs.get("sources", []):
        config_hash, attrs = str(source.attrs.get("config_hash", "")), source.attrs
        for row in source.launches.itertuples() if source.launches is not None else ():
            world = max(int(row.world_size), 0)
            hosts = parse_hosts(str(row.hosts), world or None)
            note(config_hash, int(row.id), world, row.start_utc, {r: h for r, h in hosts.items() if h != UNKNOWN_HOST})
        if isinstance(attrs.get("launch"), int) and isinstance(attrs.get("rank"), int):  # a shard file
            hosts = {attrs["rank"]: str(attrs["hostname"])} if attrs.get("hostname") else {}
            note(config_hash, attrs["launch"], attrs.get("world_size", 0), attrs.get("start_utc", ""), hosts)
    columns = ["config_hash", "launch", "rank", "host", "world_size", "start_utc"]
    rows = [
        (config_hash, launch, rank, known["hosts"].get(rank, UNKNOWN_HOST), known["world_size"], known["start_utc"])
        for (config_hash, launch), known in sorted(launches.items())
        for rank in sorted(set(range(known["world_size"])) | set(known["hosts"]))
    ]
    return pd.DataFrame(rows, columns=columns)


def instance_cases(cases: pd.DataFrame) -> pd.Series:
    """True for the rows of instance runs (a file named in ``instance``), False for generated cases."""
    if INSTANCE not in cases.columns:
        return pd.Series(False, index=cases.index)
    return cases[INSTANCE].fillna("").astype(str).str.len() > 0


def origins(cases: pd.DataFrame) -> pd.Series:
    """The origin of each case (``origin``; a frame without it: instance or derived)."""
    if ORIGIN in cases.columns:
        return cases[ORIGIN].astype(str)
    return pd.Series(np.where(instance_cases(cases), INSTANCE_ORIGIN, DERIVED), index=cases.index)


def origin_cases(cases: pd.DataFrame, *names: str) -> pd.DataFrame:
    """The cases of `cases` whose origin is one of `names`."""
    return cases[origins(cases).isin(names).to_numpy()]


def derived_cases(cases: pd.DataFrame) -> pd.DataFrame:
    """The cases derived from solutions (each has a completion): those of Table 1 and the fits."""
    return origin_cases(cases, DERIVED)


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
