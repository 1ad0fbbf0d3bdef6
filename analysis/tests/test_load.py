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
from conftest import REPO, run_env, synthetic_rows, write_result_file

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
    assert cases.attrs["sources"][0].attrs["schema_version"] == SCHEMA["schema_version"] == "2.2"
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
        assert attrs["schema_version"] == "2.2"
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


def test_text_attributes_without_checksum_are_read_in_a_child(tmp_path):
    """Variable-length text attributes without text_checksum (a file nqc did not write so) are read
    after a child process has read them, as a file without checksums is."""
    path = write_result_file(tmp_path / "vlen.h5", synthetic_rows([10], [3], [1e-3]), schema_version="2.0")
    with h5py.File(path, "a") as f:
        f.attrs["note"] = "written by h5py"  # a str: variable-length
    cases = load_cases(path)
    assert cases.attrs["sources"][0].attrs["note"] == "written by h5py"
    with h5py.File(path, "a") as f:
        f.attrs["text_checksum"] = np.array([1, 2], dtype=np.uint64)
    with pytest.raises(AnalysisError) as error:
        load_cases(path)
    assert str(error.value) == f"{path}: attribute text_checksum holds 2 values, expected 1 + 2 per heap collection"
    with h5py.File(path, "a") as f:
        f.attrs["text_checksum"] = np.int64(5)
    with pytest.raises(AnalysisError) as error:
        load_cases(path)
    assert str(error.value) == f"{path}: attribute text_checksum is not a 1-D array of at most 2049 uint64"
    with h5py.File(path, "a") as f:
        f.attrs["text_checksum"] = np.array([1], dtype=np.uint64)
    with pytest.raises(AnalysisError) as error:
        load_cases(path)
    assert str(error.value) == f"{path}: damaged (the text attributes do not match text_checksum)"
    with h5py.File(path, "a") as f:
        f.attrs["text_checksum"] = np.array([1, 10**9, 5], dtype=np.uint64)
    with pytest.raises(AnalysisError) as error:
        load_cases(path)
    size = path.stat().st_size
    assert str(error.value) == (
        f"{path}: damaged (text_checksum names bytes 1000000000..1000000005, beyond the " f"file's end at {size})"
    )
    with h5py.File(path, "a") as f:
        f.attrs["text_checksum"] = np.array([1, 0, 1, 0, 1], dtype=np.uint64)
    size = path.stat().st_size
    with h5py.File(path, "a") as f:
        f.attrs.modify("text_checksum", np.array([1, 0, size, 0, size], dtype=np.uint64))  # in place
    assert path.stat().st_size == size
    with pytest.raises(AnalysisError) as error:
        load_cases(path)
    assert str(error.value) == f"{path}: damaged (text_checksum names {2 * size} bytes or more, the file has {size})"


@pytest.mark.parametrize("name, rows", [("schema-2.0-results.h5", 4), ("schema-2.0-shard.h5", 2)])
def test_schema_2_0_files_read(name, rows):
    """Files of schema 2.0 (text attributes fixed-length strings, no text_checksum; tests/data)."""
    cases = load_cases(REPO / "tests/data" / name)
    attrs = cases.attrs["sources"][0].attrs
    assert len(cases) == rows and attrs["schema_version"] == "2.0" and attrs["config_hash"] == "edbe19a21ebe088d"
    assert list(cases["n"]) == [8, 8, 10, 10][-rows:] and list(cases["k"]) == [4, 5, 1, 4][-rows:]
    assert set(cases["engine"]) == {"auto"} and set(cases["limit"]) == {"none"}
    assert attrs.get("launches", attrs.get("world_size")) == 1


def test_schema_1_files_read_as_schema_2(tmp_path):
    """engine and limit stored as names (1.x) come out as in 2.0 files: str, an empty limit "none";
    integer attributes stored as text read as int."""
    rows = synthetic_rows([10, 10], [3, 4], [1e-3, 2e-3], outcome=[0, 2], false_negative=[0, 1])
    rows["limit"] = [b"", b"max_nodes"]
    path = write_result_file(tmp_path / "v13.h5", rows, schema_version="1.3", launches="2", world_size="4")
    cases = load_cases(path)
    assert list(cases["limit"]) == ["none", "max_nodes"]
    assert list(cases["engine"]) == ["grigoryan"] * 2
    assert cases["false_negative"].tolist() == [False, True]
    attrs = cases.attrs["sources"][0].attrs
    assert (attrs["launches"], attrs["world_size"], attrs["schema_version"]) == (2, 4, "1.3")


def test_a_case_given_twice_counts_once(small_run):
    shard = sorted((small_run / "shards").glob("shard-*.h5"))[0]
    with pytest.warns(AnalysisWarning, match="counted once"):
        cases = load_cases(small_run / "results.h5", shard)
    assert len(cases) == 180
    assert cases["case_id"].is_unique


def test_missing_path_is_refused(tmp_path):
    with pytest.raises(AnalysisError, match=r"nothing-here: no such file or directory"):
        load_cases(tmp_path / "nothing-here")


def test_empty_directory_is_refused(tmp_path):
    with pytest.raises(AnalysisError, match=r"no result files \(expected .*results.h5 or .*shard-NNNNNN.h5\)"):
        load_cases(tmp_path)


def test_other_schema_major_is_refused_naming_file_and_versions(small_run, tmp_path):
    copy = tmp_path / "future.h5"
    shutil.copy(small_run / "results.h5", copy)
    with h5py.File(copy, "a") as f:  # a file of another version: without this nqc's text_checksum
        f.attrs["schema_version"] = "3.0"
        del f.attrs["text_checksum"]
    with pytest.raises(AnalysisError) as error:
        load_cases(copy)
    assert str(error.value) == f"{copy}: schema version 3.0, this analysis reads 1.x and 2.x"


def test_later_minor_version_with_new_members_is_read(tmp_path):
    instance = h5py.string_dtype()
    rows = synthetic_rows(
        [10, 10, 20],
        [3, 4, 5],
        [1e-3, 2e-3, 3e-3],
        extra={
            "instance": (instance, [b"a.param", b"b.param", b"c.txt"]),
            "depth": ("<f4", [1.5, 2.5, 3.5]),
            "tag": ("S8", [b"x", b"y", b"z"]),
        },
    )
    path = write_result_file(tmp_path / "v11.h5", rows, schema_version="1.1")
    cases = load_cases(path)
    assert list(cases["instance"]) == ["a.param", "b.param", "c.txt"]
    assert list(cases["tag"]) == ["x", "y", "z"]
    assert cases["depth"].tolist() == [1.5, 2.5, 3.5]
    assert list(cases["engine"]) == ["grigoryan"] * 3


def test_shards_of_different_configs_in_one_directory_are_refused(tmp_path):
    shards = tmp_path / "mixed" / "shards"
    shards.mkdir(parents=True)
    rows = synthetic_rows([10], [3], [1e-3])
    write_result_file(shards / "shard-000000.h5", rows, config_hash="aaaaaaaaaaaaaaaa")
    write_result_file(shards / "shard-000001.h5", rows, config_hash="bbbbbbbbbbbbbbbb")
    with pytest.raises(
        AnalysisError, match="shard files of different configs: .*aaaaaaaaaaaaaaaa.*bbbbbbbbbbbbbbbb"
    ), pytest.warns(AnalysisWarning):
        load_cases(tmp_path / "mixed")


def test_not_hdf5_and_not_nqc_files_are_refused(tmp_path):
    text = tmp_path / "notes.h5"
    text.write_text("not HDF5\n")
    with pytest.raises(AnalysisError, match="notes.h5: not a readable HDF5 file"):
        load_cases(text)
    bare = tmp_path / "bare.h5"
    with h5py.File(bare, "w") as f:
        f["cases"] = np.zeros(3)
    with pytest.raises(AnalysisError, match="bare.h5: not an nqc result file"):
        load_cases(bare)


def test_missing_member_and_unknown_outcome_are_refused(tmp_path):
    rows = synthetic_rows([10, 10], [3, 4], [1e-3, 2e-3])
    no_k = rows[[name for name in rows.dtype.names if name != "k"]]
    with pytest.raises(AnalysisError, match="/cases has no member 'k'"):
        load_cases(write_result_file(tmp_path / "no-k.h5", no_k))
    plain = rows.astype([(name, "i1" if name == "outcome" else rows.dtype[name]) for name in rows.dtype.names])
    plain["outcome"] = [0, 7]
    with pytest.raises(AnalysisError, match="outcome code 7"):
        load_cases(write_result_file(tmp_path / "bad-outcome.h5", plain))


def test_empty_file_is_refused(tmp_path):
    path = write_result_file(tmp_path / "empty.h5", synthetic_rows([], [], []))
    with pytest.raises(AnalysisError, match="no cases"):
        load_cases(path)
