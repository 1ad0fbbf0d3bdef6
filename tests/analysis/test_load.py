"""analysis.load: result files, directories and unfinished runs into one DataFrame; refusals."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess

import h5py
import numpy as np
import pandas as pd
import pytest

from analysis.errors import AnalysisError
from analysis.load import COLUMNS, SCHEMA, AnalysisWarning, load_cases
from conftest import run_env

COMPARED = ["case_id", "n", "k", "outcome", "false_negative", "wall_s", "backtracks", "nodes", "engine"]


def test_directory_merged_file_and_shards_give_the_same_cases(small_run, shards_only):
    by_dir = load_cases(small_run)
    by_file = load_cases(small_run / "results.h5")
    with pytest.warns(AnalysisWarning, match="no results.h5"):
        by_shards = load_cases(shards_only)
    with h5py.File(small_run / "results.h5") as f:
        stored = f["cases"][()]
    assert len(by_dir) == len(stored) == 180
    for other in (by_file, by_shards):
        assert other[COMPARED].reset_index(drop=True).equals(by_dir[COMPARED].reset_index(drop=True))
    assert np.array_equal(by_dir["case_id"].to_numpy(), np.sort(stored["case_id"]))


def test_columns_are_decoded(small_run):
    cases = load_cases(small_run)
    assert set(cases["outcome"].astype(str)) <= {"solved", "infeasible", "gave_up"}
    assert cases["false_negative"].dtype == bool
    assert set(cases["engine"]) == {"grigoryan"}
    assert set(cases["limit"]) <= {"none", "max_nodes", "grigoryan_limits"}
    assert (cases["limit"] == "none").sum() == (cases["outcome"] != "gave_up").sum()
    assert set(cases["experiment"]) == {"analysis-test"}
    assert cases.attrs["sources"][0].attrs["schema_version"] == SCHEMA["schema_version"] == "2.3"
    assert cases.attrs["sources"][0].attrs["launches"] == 1
    launches = cases.attrs["sources"][0].launches
    assert list(launches.columns) == [c["name"] for c in SCHEMA["launch_columns"]]
    assert len(launches) == 1 and launches["merged"].all() and launches["exit_status"].eq(0).all()
    assert launches["nqc_version"].map(type).tolist() == [str]
    # gave_up and false negatives as stored: outcome code 2 <-> "gave_up"
    with h5py.File(small_run / "results.h5") as f:
        stored = f["cases"][()]
    order = np.argsort(stored["case_id"])
    assert np.array_equal(cases["outcome"].astype(str).to_numpy() == "gave_up", stored["outcome"][order] == 2)
    assert np.array_equal(cases["false_negative"].to_numpy(), stored["false_negative"][order])


def test_plain_h5py_reads_named_values_bools_and_typed_attributes(small_run):
    """docs/results.md's reading with h5py and pandas alone: enums named from the file's own types,
    false_negative a numpy bool."""
    with h5py.File(small_run / "results.h5") as f:
        cases = f["cases"]
        df = pd.DataFrame(cases[()])
        assert df["false_negative"].dtype == bool
        for column in ("outcome", "engine", "limit"):
            mapping = h5py.check_enum_dtype(cases.dtype[column])
            assert mapping == COLUMNS[column]["values"], column
            df[column] = df[column].map({v: k for k, v in mapping.items()})
        assert f["launches"].dtype["merged"] == bool
    assert set(df["engine"]) == {"grigoryan"}
    assert set(df["outcome"]) <= {"solved", "gave_up"} and "solved" in set(df["outcome"])
    assert list(df.columns) == [c for c in COLUMNS if c != "instance"]  # a generated run has no instance


#: What plain h5py 3.7 gives for each type of root attribute in result_schema.json.
H5PY_TYPES = {"string": str, "int64": np.int64, "checksum": np.ndarray}


def test_plain_h5py_gives_every_root_attribute_its_type(small_run):
    """Every root attribute of results.h5 and of a shard file, exactly as plain h5py reads it:
    text str (variable-length strings since 2.1), integers numpy.int64, text_checksum a uint64
    array; exactly the attributes result_schema.json declares for the file's kind. Strings inside
    datasets (the launches table, `instance`) stay bytes in h5py, variable-length or not."""
    declared = {a["name"]: a for a in SCHEMA["attributes"]}
    shard = sorted((small_run / "shards").glob("shard-*.h5"))[0]
    for path, kind in ((small_run / "results.h5", "merged"), (shard, "shard")):
        with h5py.File(path) as f:
            attrs = dict(f.attrs)
            launches = f["launches"][()] if kind == "merged" else None
        assert sorted(attrs) == sorted(n for n, a in declared.items() if a["files"] in ("all", kind)), path
        for name, value in attrs.items():
            assert type(value) is H5PY_TYPES[declared[name]["type"]], (path, name, type(value))
        assert attrs["schema_version"] == "2.3"
        assert json.loads(attrs["config"])["name"] == "analysis-test"
        assert re.fullmatch(r"[0-9a-f]{16}", attrs["config_hash"]) and re.fullmatch(r"[0-9a-f]{16}", attrs["plan_hash"])
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", attrs["end_utc"])
        assert attrs["case_generation"] == 1
        checksum = attrs["text_checksum"]
        assert checksum.dtype == np.uint64 and checksum.shape == (3,), checksum  # one heap collection
        if kind == "merged":
            assert attrs["launches"] == 1
            assert type(launches["nqc_version"][0]) is np.bytes_  # a string in a dataset: bytes
        else:
            assert (attrs["world_size"], attrs["rank"], attrs["launch"], attrs["shard_id"]) == (1, 0, 1, 0)
            assert attrs["hostname"] == socket.gethostname()


def test_flipped_byte_of_a_text_attribute_is_damage(small_run, nqc_bin, tmp_path):
    """A text attribute's bytes lie in a global heap collection, outside HDF5's checksums: one byte
    flipped there is found by text_checksum, in the loader and in nqc, with the same message."""
    copy = tmp_path / "run"
    shutil.copytree(small_run, copy)
    path = copy / "results.h5"
    data = bytearray(path.read_bytes())
    at = data.find(b'"name":"analysis-test"')
    assert at > 0 and data.find(b'"name":"analysis-test"', at + 1) < 0
    data[at + 10] ^= 0x01
    path.write_bytes(bytes(data))
    message = (
        f"{path}: damaged (the text attributes do not match text_checksum): delete it and rebuild it "
        f"from the shard files: nqc run {copy / 'config.json'} -o {copy} --resume"
    )
    with pytest.raises(AnalysisError) as error:
        load_cases(copy)
    assert str(error.value) == message
    done = subprocess.run(
        [str(nqc_bin), "aggregate", str(copy)], capture_output=True, text=True, env=run_env(), timeout=60
    )
    assert (done.returncode, done.stdout, done.stderr) == (1, "", f"nqc: error: {message}\n")


def test_a_config_given_twice_is_refused(small_run):
    """A results.h5 and one of its own shard files hold the same cases: nqc's rule refuses them."""
    shard = sorted((small_run / "shards").glob("shard-*.h5"))[0]
    with pytest.raises(AnalysisError, match=r"hold results of the same config .*: their cases would count twice"):
        load_cases(small_run / "results.h5", shard)


def test_runs_of_other_engines_are_grouped_or_refused_pooled(small_run, auto_run):
    grouped = load_cases(small_run, auto_run)
    assert grouped.groupby("experiment", observed=True).size().to_dict() == {
        "analysis-test": 180,
        "analysis-test-auto": 180,
    }
    with pytest.raises(
        AnalysisError, match=r"are runs of other engines or settings \(engine \"grigoryan\" and \"auto\""
    ):
        load_cases(small_run, auto_run, mixed="pool")


def test_unfinished_run_is_read_with_a_warning(shards_only):
    with pytest.warns(AnalysisWarning, match=r"the run is not finished \(no results.h5\)"):
        cases = load_cases(shards_only)
    assert len(cases) == 180 and cases["source"].nunique() == 9


def test_missing_path_is_refused(tmp_path):
    with pytest.raises(AnalysisError, match=r"nothing-here: no such file or directory"):
        load_cases(tmp_path / "nothing-here")


def test_empty_directory_is_refused(tmp_path):
    with pytest.raises(AnalysisError, match=r"no result files \(expected .*shards/\*.h5 or .*results.h5\)"):
        load_cases(tmp_path)


def test_not_hdf5_and_not_nqc_files_are_refused_as_nqc_words_it(small_run, tmp_path):
    text = tmp_path / "notes.h5"
    text.write_text("not HDF5\n")
    with pytest.raises(AnalysisError, match="notes.h5: not an HDF5 file$"):
        load_cases(text)
    copy = tmp_path / "future.h5"
    shutil.copy(small_run / "results.h5", copy)
    with h5py.File(copy, "a") as f:  # another layout: without text_checksum
        f.attrs["schema_version"] = "3.0"
        del f.attrs["text_checksum"]
    with pytest.raises(AnalysisError) as error:
        load_cases(copy)
    assert str(error.value) == f"{copy}: not a result file of this nqc (its text attributes have no text_checksum)"
