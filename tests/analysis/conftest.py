"""Fixtures: the nqc binary (NQC_BIN, set by ctest), a small run of it, synthetic result files."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

from analysis.schema import SCHEMA

#: Engine name -> code in the `engine` column.
SCHEMA_ENGINES = next(c["values"] for c in SCHEMA["columns"] if c["name"] == "engine")
#: Origin name -> code in the `origin` column.
SCHEMA_ORIGINS = next(c["values"] for c in SCHEMA["columns"] if c["name"] == "origin")

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

PYTHON = "/usr/bin/python3"

#: Open MPI refuses root without these (scripts/env.sh); harmless otherwise.
MPI_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
}

#: A small experiment of the paper's algorithm with a node limit low enough that some cases
#: give up (false negatives) and many backtrack: 180 cases, well under a second.
SMALL_CONFIG = {
    "name": "analysis-test",
    "seed": 11,
    "engine": "grigoryan",
    "sizes": [
        {"n": [10, 20, 50, 100], "solutions": 4, "compositions_per_solution": 10},
        {"n": 300, "solutions": 2, "compositions_per_solution": 10},
    ],
    "max_nodes": 300,
    "shard_cases": 20,
    "output": "unused",
}


@pytest.fixture(scope="session")
def nqc_bin() -> Path:
    """The nqc executable: $NQC_BIN (ctest sets it), else a build in the repository."""
    env = os.environ.get("NQC_BIN")
    if env:
        path = Path(env)
        assert path.is_file() and os.access(path, os.X_OK), f"NQC_BIN={env} is not an executable file"
        return path
    for candidate in (REPO / "build-ana/src/cli/nqc", REPO / "build/src/cli/nqc"):
        if candidate.is_file():
            return candidate
    pytest.skip("no nqc binary: set NQC_BIN (ctest does)")


def run_env() -> dict:
    return {**os.environ, **MPI_ENV}


def analysis_cli(*args, preexec_fn=None) -> subprocess.CompletedProcess:
    """``/usr/bin/python3 -m analysis ARGS`` from the repository root, its output captured."""
    return subprocess.run(
        [PYTHON, "-m", "analysis", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**run_env(), "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=120,
        preexec_fn=preexec_fn,
    )


@pytest.fixture()
def drawn(monkeypatch):
    """The Figure objects figures._save writes, by file name."""
    from analysis import figures

    figs = {}
    save = figures._save

    def keep(fig, path, dpi=figures.DPI):
        figs[Path(path).name] = fig
        return save(fig, path, dpi)

    monkeypatch.setattr(figures, "_save", keep)
    return figs


@pytest.fixture(scope="session")
def small_run(nqc_bin, tmp_path_factory) -> Path:
    """A results directory written by `nqc run` (serial) for SMALL_CONFIG."""
    out = run_config(nqc_bin, tmp_path_factory.mktemp("small-run"), SMALL_CONFIG)
    assert (out / "results.h5").is_file()
    return out


def randset_trials(nqc_bin: Path, path: Path) -> Path:
    """The per-trial CSV of `nqc randset 50 --trials 200`, written to `path`."""
    subprocess.run(
        [str(nqc_bin), "randset", "50", "--trials", "200", "--trials-csv", str(path)],
        check=True,
        capture_output=True,
        env=run_env(),
        timeout=60,
    )
    return path


def run_config(nqc_bin: Path, base: Path, config: dict) -> Path:
    """`nqc run` (serial) of `config` in `base`; returns the results directory."""
    path = base / f"{config['name']}.json"
    path.write_text(json.dumps(config))
    out = base / config["name"]
    done = subprocess.run(
        [str(nqc_bin), "run", str(path), "-o", str(out), "--quiet"],
        capture_output=True,
        text=True,
        env=run_env(),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="session")
def auto_run(nqc_bin, tmp_path_factory) -> Path:
    """SMALL_CONFIG run with the engine auto instead: the same compositions as small_run (same
    seed and sizes), another engine and name, so another config_hash."""
    return run_config(
        nqc_bin, tmp_path_factory.mktemp("auto-run"), {**SMALL_CONFIG, "name": "analysis-test-auto", "engine": "auto"}
    )


@pytest.fixture(scope="session")
def ci_runs(nqc_bin, tmp_path_factory) -> dict[int, Path]:
    """configs/ci.json (230 cases) run by `nqc run` on 1 rank and by `mpirun -np 2 nqc run` on 2
    (schema 2.2: each case's start_s), by number of ranks. Skips without mpirun."""
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        pytest.skip("no mpirun on PATH: the 2-rank run needs it")
    base = tmp_path_factory.mktemp("ci-runs")
    runs = {}
    for ranks, launcher in ((1, []), (2, [mpirun, "-np", "2"])):
        out = base / f"ci-{ranks}"
        done = subprocess.run(
            [*launcher, str(nqc_bin), "run", str(REPO / "configs/ci.json"), "-o", str(out), "--quiet"],
            capture_output=True,
            text=True,
            env=run_env(),
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert (out / "results.h5").is_file()
        runs[ranks] = out
    return runs


#: CSPLib prob079 instances (n = 10) taken from tests/data for the instance runs.
PARAM_FILES = [
    "diag-10-4-1.param",
    "diag-10-4-10.param",
    "diag-10-4-100.param",
    "diag-10-4-1000.param",
    "diag-10-4-101.param",
    "diag-10-4-102.param",
]


@pytest.fixture(scope="session")
def instance_runs(nqc_bin, tmp_path_factory) -> dict[str, Path]:
    """Instance runs of the same files with the engines auto and bitboard: six CSPLib .param
    files (n = 10) with diags 5 and 10, and a composition file without completion (n = 4)."""
    import tarfile

    base = tmp_path_factory.mktemp("instances")
    files = base / "files"
    files.mkdir()
    with tarfile.open(REPO / "tests/data/csplib-prob079/diag-10.tar.gz") as tar:
        for member in tar.getmembers():
            if Path(member.name).name in PARAM_FILES:
                member.name = Path(member.name).name
                tar.extract(member, files)
    assert sorted(p.name for p in files.iterdir()) == sorted(PARAM_FILES)
    (files / "corner4.txt").write_text("1 0 0 0\n")  # a queen in the corner of 4 x 4: no completion
    return {
        engine: run_config(
            nqc_bin,
            base,
            {
                "name": f"instances-{engine}",
                "seed": 3,
                "engine": engine,
                "instances": {"files": [str(files)], "diags": [5, 10]},
            },
        )
        for engine in ("auto", "bitboard")
    }


@pytest.fixture()
def shards_only(small_run, tmp_path) -> Path:
    """A copy of the small run's directory without results.h5, as an unfinished run leaves it."""
    target = tmp_path / "partial"
    shutil.copytree(small_run / "shards", target / "shards")
    return target


def write_result_file(path: Path, rows: np.ndarray, **attrs: str) -> Path:
    """A result file of this schema with `rows` as /cases and fixed-length string root
    attributes (no variable-length ones: nothing for text_checksum to cover), as nqc reads it."""
    attrs.setdefault("schema_version", SCHEMA["schema_version"])
    attrs.setdefault("config_hash", "0123456789abcdef")
    attrs.setdefault("config", json.dumps({"name": "synthetic", "engine": "grigoryan"}))
    with h5py.File(path, "w", libver="latest") as f:  # HDF5's newest format, as nqc writes it
        for key, value in attrs.items():
            text = value.encode()
            f.attrs.create(key, np.array(text, dtype=f"S{max(len(text), 1)}"))
        f.create_dataset("cases", data=rows)
        f.create_group("failures")
    return path


def _member_dtype(column: dict):
    """The numpy type of a member of ``cases`` from result_schema.json (enums with their names)."""
    kind = column["type"]
    if "values" in column:
        return h5py.enum_dtype(column["values"], basetype="i1" if kind == "enum int8" else "u1")
    if kind.startswith("string"):
        return f"S{kind.split()[1]}"
    return {"uint64": "<u8", "int64": "<i8", "uint32": "<u4", "int32": "<i4", "float64": "<f8"}[kind]


def synthetic_rows(n, k, wall_s, backtracks=None, outcome=None, false_negative=None, instance=None) -> np.ndarray:
    """Rows of the `cases` compound type with the given columns (ascending case ids, engine
    grigoryan, the rest zero: derived cases; ``instance`` only when given, its
    rows with a file of origin instance)."""
    columns = [c for c in SCHEMA["columns"] if c["name"] != "instance" or instance is not None]
    rows = np.zeros(len(n), dtype=[(c["name"], _member_dtype(c)) for c in columns])
    rows["case_id"] = np.arange(len(n))
    rows["n"], rows["k"], rows["wall_s"], rows["cpu_s"] = n, k, wall_s, wall_s
    rows["backtracks"] = 0 if backtracks is None else backtracks
    rows["outcome"] = 0 if outcome is None else outcome
    rows["false_negative"] = 0 if false_negative is None else false_negative
    rows["engine"] = SCHEMA_ENGINES["grigoryan"]
    if instance is not None:
        rows["instance"] = instance
        rows["origin"] = np.where(
            np.char.str_len(np.asarray(instance, dtype=bytes)) > 0,
            SCHEMA_ORIGINS["instance"],
            SCHEMA_ORIGINS["derived"],
        )
    return rows


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk; asserts the PNG signature."""
    data = Path(path).read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])
