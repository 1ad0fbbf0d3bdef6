"""The layout of result files as nqc declares it (``nqc info --columns --json`` wrote
result_schema.json beside this module): read here once, without h5py or pandas, for the loader
and the command line alike."""

import json
from pathlib import Path

#: The schema: columns, attributes, launch columns, versions and the largest board size.
SCHEMA = json.loads((Path(__file__).resolve().parent / "result_schema.json").read_text(encoding="utf-8"))
#: The largest board size (nqc's kMaxBoardSize).
N_MAX = SCHEMA["max_board_size"]
