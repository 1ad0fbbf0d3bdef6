"""Whether two result files of one config hold the same cases, and their engine seconds.

    /usr/bin/python3 bench/same_rows.py A.h5 B.h5

Compares the rows of `cases` (sorted by case_id) in every column the two files share but those
nqc declares run-dependent (when and where a case ran: result_schema.json's "run_dependent") and
the plan's layout (shard_id, which the shard sizing decides), with `engine` and `limit` as names
whatever the schema stored them as (1.x: strings, "" for none; 2.x: enums). Prints one line per file (schema, rows, sum of cpu_s and wall_s of
the engine calls) and "same rows in N columns" or the columns that differ; exits 1 when they
differ. Used by bench/versions.sh to show that a change keeps behaviour.
"""
import json
import sys
from pathlib import Path

import h5py
import numpy as np
import pandas as pd

SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "analysis" / "result_schema.json").read_text())
MACHINE = {c["name"] for c in SCHEMA["columns"] if c.get("run_dependent")} | {"shard_id", "instance"}


def rows(path):
    with h5py.File(path, "r") as f:
        cases = f["cases"]
        df = pd.DataFrame(cases[()])
        version = f.attrs["schema_version"]
        for col in ("engine", "limit"):
            names = h5py.check_enum_dtype(cases.dtype[col])
            if names:
                by_code = {v: k for k, v in names.items()}
                df[col] = [by_code[int(x)] for x in df[col]]
            else:
                df[col] = [x.decode("ascii") or "none" for x in df[col]]
    df["false_negative"] = df["false_negative"].astype(int)
    version = version.decode() if isinstance(version, bytes) else str(version)
    return version, df.sort_values("case_id").reset_index(drop=True)


def main(a_path, b_path):
    (va, a), (vb, b) = rows(a_path), rows(b_path)
    for path, v, df in ((a_path, va, a), (b_path, vb, b)):
        print(
            f"{path}: schema {v}, {len(df)} rows, engine cpu_s {df.cpu_s.sum():.3f} s, wall_s {df.wall_s.sum():.3f} s"
        )
    if len(a) != len(b):
        print(f"different row counts: {len(a)} and {len(b)}")
        return 1
    cols = [c for c in a.columns if c in b.columns and c not in MACHINE]
    differ = [c for c in cols if not np.array_equal(np.asarray(a[c]), np.asarray(b[c]))]
    print(f"same rows in {len(cols)} columns ({', '.join(cols)})" if not differ else f"rows differ in {differ}")
    return 1 if differ else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
