#!/bin/bash
# The aggregation job: merges the shards into results.h5 if no run did (array parts do not
# merge), writes the per-n table (table.txt, table.csv) and, when analysis/ is in the
# repository, the report (report/report.md). jobs/submit sets, before this part:
#   NQC, CONFIG, OUT   the nqc binary, the config and the results directory (absolute paths)
#   REPO               the repository (analysis/ runs from there)
#   PYTHON             the python3 with h5py and pandas for the report (NQC_PYTHON)
set -euo pipefail
if [[ ! -f $OUT/results.h5 ]]; then
  say "merging the shards: nqc run --resume (it runs any shard still missing itself)"
  "$NQC" run "$CONFIG" -o "$OUT" --resume
fi
say "table: $OUT/table.txt and table.csv"
"$NQC" aggregate "$OUT" --csv "$OUT/table.csv" >"$OUT/table.txt"
cat "$OUT/table.txt"
if [[ -f $REPO/analysis/__main__.py ]]; then
  if ! "$PYTHON" -c 'import h5py, pandas' 2>/dev/null; then
    say "error: $PYTHON cannot import h5py and pandas, which the report needs: set NQC_PYTHON to a python3 that has them (or a --setup line that provides one) and submit again with --aggregate-only"
    exit 1
  fi
  say "report: $PYTHON -m analysis report $OUT -o $OUT/report"
  (cd "$REPO" && "$PYTHON" -m analysis report "$OUT" -o "$OUT/report")
else
  say "no $REPO/analysis/__main__.py: the table is the report"
fi
say "done"
