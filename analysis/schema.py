"""result_schema.json (``nqc info --columns --json``), read once without h5py or pandas."""

import json
from pathlib import Path

#: The schema: columns, attributes, launch columns, versions and the largest board size.
SCHEMA = json.loads((Path(__file__).resolve().parent / "result_schema.json").read_text(encoding="utf-8"))
#: The largest board size (nqc's kMaxBoardSize).
N_MAX = SCHEMA["max_board_size"]
