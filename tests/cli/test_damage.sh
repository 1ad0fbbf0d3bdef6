#!/usr/bin/env bash
# Damaged files never crash nqc and never pass as good data: result files, shards,
# config.json and plan.json damaged by a bit flip, truncation or a zeroed block; a shard whose
# rows were cut; an instance set changed between launches; a file without checksums whose
# damage crashes HDF5 1.10; .param files with a BOM or CR line ends. Every damage gives one
# line naming the file as damaged and what to do, exit 1, and nothing else changes; following
# the advice completes the run with the rows of an undamaged one.
# Usage: test_damage.sh NQC PYTHON REPO
set -u
if [ $# -ne 3 ]; then
  echo "usage: $0 NQC PYTHON REPO" >&2
  exit 2
fi
NQC=$(readlink -f "$1")
PYTHON=$2
REPO=$(cd "$3" && pwd -P)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
CONFIG=$REPO/configs/ci.json

damage() { "$PYTHON" "$HERE/damage.py" "$@" >/dev/null; }
where() { "$PYTHON" "$HERE/damage.py" "$1" where "${@:2}"; }
analysis() { (cd "$REPO" && PYTHONDONTWRITEBYTECODE=1 "$PYTHON" -m analysis "$@"); }
# expect_stderr_match ERE DESC: the last run's stderr is one line matching ERE, besides the
# end-of-launch summary (which -q keeps) of a run that got as far as its merge.
expect_stderr_match() {
  local summary
  summary="$(log_line 0 info)summary: [0-9]+ cases run by this launch "
  if [ "$(grep -cvE "$summary" "$ERR_FILE")" -eq 1 ] && grep -vE "$summary" "$ERR_FILE" | grep -qE -- "$1" &&
    [ "$(grep -cE "$summary" "$ERR_FILE")" -le 1 ]; then ok "$2"
  else fail "$2" "expected stderr (one line, and perhaps the summary) matching: $1
$(last_run)"
  fi
}
ere() { printf '%s' "$1" | sed 's/[][\.*^$()+?{}|/]/\\&/g'; }  # a fixed string as an ERE
LOG=$(log_line 0 error)
# same_rows A B: the rows of two result files agree but for time and rank.
same_rows() {
  "$PYTHON" - "$1" "$2" <<'PY'
import os, sys, h5py, pandas as pd
a, b = (pd.DataFrame(h5py.File(f, "r")["cases"][()]).drop(columns=os.environ["NQC_RUN_DEPENDENT"].split(",")).sort_values("case_id")
        .reset_index(drop=True) for f in sys.argv[1:])
sys.exit(0 if len(a) == 230 and a.equals(b) else 1)
PY
}
# The directory's files but the launch records (DIR/launches: a launch that fails at the merge is
# recorded, with its exit status, as the provenance of the directory).
snapshot() { (cd "$1" && find . -type f -not -path './launches/*' -print0 | sort -z | xargs -0 sha256sum); }

run "$NQC" run "$CONFIG" -o "$TMP/ref" -q
expect_exit 0 "the reference run of configs/ci.json"
run "$NQC" aggregate "$TMP/ref"
cp "$OUT_FILE" "$TMP/ref.table"
check "this schema's files: superblock 3 (checksummed metadata), Fletcher32 on every dataset, text attributes variable-length under text_checksum" \
  "$PYTHON" -c '
import json, sys, h5py
version = json.load(open(sys.argv[1]))["schema_version"]
for name in sys.argv[2:]:
    with h5py.File(name, "r") as f:
        assert f.id.get_create_plist().get_version()[0] == 3, name
        assert f.attrs["schema_version"] == version, name
        sets = []
        f.visititems(lambda k, o: sets.append(o) if isinstance(o, h5py.Dataset) else None)
        assert sets and all(d.fletcher32 for d in sets), name
        kinds = {a: f.attrs.get_id(a).dtype for a in f.attrs}
        assert kinds.pop("text_checksum").kind == "u", (name, kinds)
        assert all(d.kind == "i" or h5py.check_string_dtype(d).length is None for d in kinds.values()), (name, kinds)
'  "$REPO/analysis/result_schema.json" "$TMP/ref/results.h5" "$TMP/ref/shards/shard-000003.h5"

# ---- a finished run: --resume and --part report it and change nothing -------------------------
every_file() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
before=$(every_file "$TMP/ref")
for how in "--resume" "--resume --repair" "--part 1/2"; do
  # shellcheck disable=SC2086
  run "$NQC" run "$CONFIG" -o "$TMP/ref" $how
  expect_exit 0 "a finished run, run $how"
  check "a finished run, run $how: says the run is finished" \
    grep -q "\[info\] $TMP/ref: the run of this config is finished ($TMP/ref/results.h5): nothing to do (--force starts it over)$" "$ERR_FILE"
  check "a finished run, run $how: no merge, no launch record (sha256 of every file unchanged)" \
    test "$(every_file "$TMP/ref")" = "$before"
done

# ---- results.h5 -----------------------------------------------------------------------------
fresh() { rm -rf "$TMP/$1" && cp -r "$TMP/ref" "$TMP/$1" && echo "$TMP/$1"; }
advice_rebuild() { echo ": delete it and rebuild it from the shard files: nqc run $1/config.json -o $1 --resume"; }
d=$(fresh meta)
damage "$d/results.h5" bit "$(where "$d/results.h5" metadata)" 2
before=$(snapshot "$d")
for cmd in "aggregate $d" "rerun $d --case 3" "export $d --case 3"; do
  # shellcheck disable=SC2086
  run "$NQC" $cmd
  expect_exit 1 "results.h5, one bit flipped in its root attributes: nqc $cmd"
  expect_stderr_match "^nqc: error: $(ere "$d/results.h5: damaged (cannot list the attributes of /: incorrect metadata checksum after all read attempts)$(advice_rebuild "$d")")\$" \
    "nqc ${cmd%% *}: one line naming results.h5 as damaged, with the way to rebuild it"
done
run analysis table "$d"
expect_exit 1 "results.h5, one bit flipped in its root attributes: python3 -m analysis table"
expect_stderr_match "^nqc-analysis: error: $(ere "$d/results.h5: damaged (cannot list the attributes of /: incorrect metadata checksum after all read attempts)$(advice_rebuild "$d")")\$" \
  "analysis table: nqc's line (nqc reads the files for it)"
check "nothing changed in the directory" test "$(snapshot "$d")" = "$before"
rm "$d/results.h5"
run "$NQC" run "$d/config.json" -o "$d" --resume -q
expect_exit 0 "the advice: delete results.h5 and rebuild it from the shards"
check "the rebuilt results.h5 holds the reference rows" same_rows "$TMP/ref/results.h5" "$d/results.h5"

d=$(fresh rows)
damage "$d/results.h5" bit "$(where "$d/results.h5" chunk)" 2
run "$NQC" aggregate "$d"
expect_exit 1 "results.h5, one bit flipped in its rows: aggregate"
expect_stderr_match "^nqc: error: $(ere "$d/results.h5: damaged (cannot read /cases: data error detected by Fletcher32 checksum)$(advice_rebuild "$d")")\$" \
  "a flipped bit in the rows is found by the checksum (before: every row read as zeros, exit 0)"
run analysis table "$d"
expect_stderr_match "^nqc-analysis: error: $(ere "$d/results.h5: damaged (cannot read /cases: data error detected by Fletcher32 checksum)")" \
  "analysis table: the same"
# What HDF5 says of a bit flipped in a chunk of /cases and in the metadata of /.
chunk_detail="cannot read /cases: data error detected by Fletcher32 checksum"
metadata_detail="cannot list the attributes of /: incorrect metadata checksum after all read attempts"
# run --resume on a damaged results.h5, in its rows or its metadata: one behaviour, refused with
# the remedy, nothing changed (before: rows damage was merged over silently, metadata refused).
for spot in chunk metadata; do
  d=$(fresh "resume-$spot")
  damage "$d/results.h5" bit "$(where "$d/results.h5" "$spot")" 2
  before=$(snapshot "$d")
  run "$NQC" run "$CONFIG" -o "$d" --resume -q
  expect_exit 1 "results.h5 damaged in its $spot: run --resume"
  case $spot in
    chunk) detail=$chunk_detail ;;
    metadata) detail=$metadata_detail ;;
  esac
  expect_stderr_match "${LOG}$(ere "$d/results.h5: damaged ($detail)$(advice_rebuild "$d")")\$" \
    "results.h5 damaged in its $spot: run --resume names it, with how to merge again from the shards"
  check "results.h5 damaged in its $spot: nothing changed" test "$(snapshot "$d")" = "$before"
  rm "$d/results.h5"
  run "$NQC" run "$CONFIG" -o "$d" --resume -q
  expect_exit 0 "results.h5 damaged in its $spot: the remedy (delete it, --resume)"
  check "results.h5 damaged in its $spot: merged again, the reference rows" same_rows "$TMP/ref/results.h5" "$d/results.h5"
done

# Text attributes (schema 2.1) keep their values in a global heap collection, which HDF5 does not
# checksum (and whose damage can crash HDF5 1.10): text_checksum finds a flipped byte there
# before HDF5 reads it.
d=$(fresh text)
damage "$d/results.h5" bit "$(where "$d/results.h5" text '"name":"ci"')" 0
before=$(snapshot "$d")
for cmd in "aggregate $d" "rerun $d --case 3" "export $d --case 3" "info $d"; do
  # shellcheck disable=SC2086
  run "$NQC" $cmd
  expect_exit 1 "results.h5, one bit flipped in the config attribute's value: nqc ${cmd%% *}"
  expect_stderr_match "^nqc: error: $(ere "$d/results.h5: damaged (the text attributes do not match text_checksum)$(advice_rebuild "$d")")\$" \
    "nqc ${cmd%% *}: the damaged text attribute named as damage, with the way to rebuild results.h5"
done
run analysis table "$d"
expect_stderr_match "^nqc-analysis: error: $(ere "$d/results.h5: damaged (the text attributes do not match text_checksum)$(advice_rebuild "$d")")\$" \
  "analysis table: the same line"
check "a damaged text attribute: nothing changed in the directory" test "$(snapshot "$d")" = "$before"

# Found by bench/damage_campaign.py: damage in /cases' object header (the link to it intact).
d=$(fresh header)
damage "$d/results.h5" bit "$(where "$d/results.h5" header)" 2
run "$NQC" aggregate "$d"
expect_stderr_match "^nqc: error: $(ere "$d/results.h5: damaged (cannot open dataset /cases: incorrect metadata checksum after all read attempts)$(advice_rebuild "$d")")\$" \
  "one bit flipped in /cases' object header: named as damaged"
run analysis table "$d"
expect_stderr_match "^nqc-analysis: error: $(ere "$d/results.h5: damaged (cannot open dataset /cases: incorrect metadata checksum after all read attempts)$(advice_rebuild "$d")")\$" \
  "analysis table: the same"

d=$(fresh truncated)
damage "$d/results.h5" truncate 6000
run "$NQC" aggregate "$d"
expect_exit 1 "results.h5 truncated: aggregate"
expect_stderr_match "^nqc: error: $(ere "$d/results.h5: damaged (cannot open: truncated file)")" "truncated: named as damaged"
d=$(fresh zeroed)
damage "$d/results.h5" zero 0 4096
run "$NQC" aggregate "$d"
expect_stderr_match "^nqc: error: $(ere "$d/results.h5: damaged (the HDF5 signature at its start is gone)")" \
  "its first 4 KiB zeroed: named as damaged"
d=$(fresh many-bits)
damage "$d/results.h5" bits 20 --seed 3
run "$NQC" aggregate "$d"
expect_exit 1 "results.h5 with 20 random bits flipped: aggregate"
expect_stderr_match "^nqc: error: $(ere "$d/results.h5: damaged (")" "20 flipped bits: named as damaged"

# ---- shard files: run --resume ------------------------------------------------------------
shard_advice=": delete it and run the config again with --resume (its cases run again)"
for kind in metadata chunk text; do
  d=$(fresh "shard-$kind")
  rm "$d/results.h5"
  s=$d/shards/shard-000003.h5
  if [ "$kind" = text ]; then damage "$s" bit "$(where "$s" text '"name":"ci"')" 0
  else damage "$s" bit "$(where "$s" "$kind")" 2; fi
  before=$(snapshot "$d")
  run "$NQC" run "$CONFIG" -o "$d" --resume -q
  expect_exit 1 "a shard with one bit flipped in its $kind: run --resume"
  case $kind in
    metadata) detail=$metadata_detail ;;
    chunk) detail=$chunk_detail ;;
    text) detail="the text attributes do not match text_checksum" ;;
  esac
  expect_stderr_match "${LOG}$(ere "$s: damaged ($detail)$shard_advice")\$" \
    "$kind damage: one line naming the shard as damaged, and the remedy (before: SIGSEGV, or 8 wrong rows merged)"
  check "$kind damage: nothing changed, no results.h5 written" test "$(snapshot "$d")" = "$before"
  if [ "$kind" = chunk ]; then
    check "$kind damage: the failed merge is recorded as a launch with exit status 1" \
      grep -q '"exit_status": 1' "$(find "$d/launches" -name 'launch-*.json' | sort | tail -n 1)"
  fi
  rm "$s"
  run "$NQC" run "$CONFIG" -o "$d" --resume -q
  expect_exit 0 "$kind damage: the remedy (delete the shard, --resume)"
  check "$kind damage: the reference rows after the remedy" same_rows "$TMP/ref/results.h5" "$d/results.h5"
done
d=$(fresh shard-many)
rm "$d/results.h5"
damage "$d/shards/shard-000007.h5" bits 20 --seed 5
run "$NQC" run "$CONFIG" -o "$d" --resume -q
expect_exit 1 "a shard with 20 random bits flipped: run --resume"
expect_stderr_match "${LOG}$(ere "$d/shards/shard-000007.h5: damaged (").*$(ere "$shard_advice")\$" "20 flipped bits in a shard: named, with the remedy"

d=$(fresh short)
rm "$d/results.h5"
"$PYTHON" -c 'import sys, h5py; f = h5py.File(sys.argv[1], "a"); f["cases"].resize((5,)); f.close()' "$d/shards/shard-000003.h5"
run "$NQC" run "$CONFIG" -o "$d" --resume
expect_exit 1 "a shard whose cases were cut from 10 rows to 5: run --resume"
expect_stderr_match "${LOG}$(ere "$d/shards/shard-000003.h5: holds 5 rows, shard 3 of the plan has 10 cases$shard_advice")\$" \
  "its rows are checked against the plan (before: done, 225 rows merged)"
check "the cut shard: no results.h5 written" test ! -e "$d/results.h5"
# The merge checks the rows too, not only the launch: a shard cut while the run goes on.
cp "$TMP/ref/shards/shard-000003.h5" "$d/shards/"
"$PYTHON" - "$d/shards/shard-000003.h5" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "a") as f:
    rows = f["cases"][()]
    rows["case_id"][9] = 99  # another case's id (still ascending), the count right
    f["cases"][...] = rows
PY
run "$NQC" run "$CONFIG" -o "$d" --resume -q
expect_exit 1 "a shard with another case's id in a row: run --resume"
expect_stderr_match "${LOG}$(ere "$d/shards/shard-000003.h5: row 9 has case_id 99, shard 3 of the plan has 59 there$shard_advice")\$" \
  "the merge checks each row's case id against the plan"

# ---- config.json and plan.json ----------------------------------------------------------------
hash=$("$PYTHON" -c 'import sys, h5py; print(h5py.File(sys.argv[1], "r").attrs["config_hash"])' "$TMP/ref/results.h5")
for how in "truncate 0" "zero 0 64" "bit 100 3"; do
  d=$(fresh "config-${how%% *}")
  rm "$d/results.h5"
  # shellcheck disable=SC2086
  damage "$d/config.json" $how
  before=$(snapshot "$d")
  run "$NQC" run "$CONFIG" -o "$d" --resume
  expect_exit 1 "config.json damaged ($how): run --resume"
  expect_stderr_match "${LOG}$(ere "$d/config.json: damaged (").*$(ere "); the 15 result files there carry this config's config_hash $hash: run again with --resume --repair to rewrite it from this config")\$" \
    "config.json ($how): diagnosed as damaged, with the recovery (before: 'holds results of another config')"
  check "config.json ($how): nothing changed" test "$(snapshot "$d")" = "$before"
  run "$NQC" run "$CONFIG" -o "$d" --resume --repair -q
  expect_exit 0 "config.json ($how): --resume --repair"
  check "config.json ($how): rewritten as it was" cmp -s "$d/config.json" "$TMP/ref/config.json"
done
d=$(fresh config-empty-dir)
rm -r "$d/shards" "$d/results.h5"
: >"$d/config.json"
run "$NQC" run "$CONFIG" -o "$d" -q
expect_exit 1 "an empty config.json and no results: run"
expect_stderr_match "${LOG}$(ere "$d/config.json: damaged (empty), and the directory holds no result files yet: choose another output directory, or run again with --repair to rewrite it from this config")\$" \
  "an empty config.json without results: damaged, not 'another config'"
d=$(fresh plan)
rm "$d/results.h5"
damage "$d/plan.json" bit 30 1
run "$NQC" run "$CONFIG" -o "$d" --resume
expect_exit 1 "plan.json with one bit flipped: run --resume"
expect_stderr_match "${LOG}$(ere "$d/plan.json: damaged (").*$(ere "); the 15 result files there agree with this launch's plan: run again with --resume --repair to rewrite it from this launch's plan")\$" \
  "plan.json damaged: named, with the recovery"
run "$NQC" run "$CONFIG" -o "$d" --resume --repair -q
expect_exit 0 "plan.json damaged: --resume --repair"
check "plan.json: rewritten as it was" cmp -s "$d/plan.json" "$TMP/ref/plan.json"

# ---- an instance set that changes between launches ----
inst=$TMP/inst
mkdir -p "$inst/set"
"$NQC" generate 12 --seed 3 -o "$inst/solution.txt"
for i in 1 2 3 4 5 6; do "$NQC" derive "$inst/solution.txt" -k 4 --seed "$i" -o "$inst/set/c$i.txt"; done
"$NQC" derive "$inst/solution.txt" -k 5 --seed 9 -o "$inst/a0.txt"
printf '{"name": "inst", "engine": "auto", "instances": {"files": ["set"]}, "shard_cases": 2}\n' >"$inst/inst.json"
run "$NQC" run "$inst/inst.json" -o "$inst/out" --part 0/2 -q
expect_exit 0 "instances: part 0/2 of a directory of 6 files"
pinned=$inst/out/plan.json
check "plan.json pins the 6 files with their sizes and hashes" \
  "$PYTHON" -c 'import sys, json; p = json.load(open(sys.argv[1])); assert len(p["instances"]) == 6 and all(len(f["xxh64"]) == 16 for f in p["instances"])' "$pinned"
cp "$inst/a0.txt" "$inst/set/"
before=$(snapshot "$inst/out")
run "$NQC" run "$inst/inst.json" -o "$inst/out" --resume
expect_exit 1 "instances: a file added to the directory, then --resume"
expect_log_error "$inst/out: the instance file $inst/set/a0.txt was added (6 files then, 7 now) since the run started; its 2 result files hold the cases of the plan pinned in $pinned: restore what changed, or run into another output directory" \
  "the added file is named and the run refused (before: done, two files twice and two not at all)"
check "a file added: nothing changed" test "$(snapshot "$inst/out")" = "$before"
rm "$inst/set/a0.txt"
old=$(stat -c %s "$inst/set/c3.txt")
echo "# edited" >>"$inst/set/c3.txt"
run "$NQC" run "$inst/inst.json" -o "$inst/out" --resume
expect_exit 1 "instances: a file edited, then --resume"
expect_stderr_match "${LOG}$(ere "$inst/out: the instance file $inst/set/c3.txt changed ($old bytes, xxh64 ")[0-9a-f]{16}$(ere " then; $((old + 9)) bytes, xxh64 ")[0-9a-f]{16}$(ere " now) since the run started")" \
  "the edited file is named"
mv "$inst/set/c2.txt" "$inst/c2.txt"
run "$NQC" run "$inst/inst.json" -o "$inst/out" --resume
expect_stderr_match "$(ere "the instance file $inst/set/c2.txt was removed (6 files then, 5 now)")" "a removed file is named"
mv "$inst/c2.txt" "$inst/set/"
sed -i '$ d' "$inst/set/c3.txt"
run "$NQC" run "$inst/inst.json" -o "$inst/out" --resume -q
expect_exit 0 "instances: the set restored, --resume"
check "each of the 6 files once, in file order" "$PYTHON" -c '
import sys, h5py
rows = h5py.File(sys.argv[1], "r")["cases"][()]
names = [r.decode().rsplit("/", 1)[1] for r in rows["instance"]]
assert names == [f"c{i}.txt" for i in range(1, 7)], names' "$inst/out/results.h5"
echo "# edited" >>"$inst/set/c5.txt"
run "$NQC" rerun "$inst/out" --case 4
expect_exit 1 "rerun of an instance case whose file was edited since the run"
expect_stderr_match "^nqc: error: $(ere "$inst/out/results.h5: the plan changed since the run (the instance file $inst/set/c5.txt changed (")" \
  "rerun refuses: it would build another case"
# A result file whose cases are of another case generation (its case_generation attribute):
# neither rerun nor export rebuilds a case of it (this nqc would build another one).
gen=$TMP/generation.h5
cp "$inst/out/results.h5" "$gen"
"$PYTHON" -c 'import sys, h5py, numpy; h5py.File(sys.argv[1], "a").attrs["case_generation"] = numpy.int64(2)' "$gen"
for sub in rerun export; do
  run "$NQC" "$sub" "$gen" --case 0
  expect_exit 1 "$sub of a file of case generation 2"
  expect_stderr_line "nqc: error: $gen: its cases are of generation 2 (case_generation), this nqc makes generation 1: a rebuilt case would not be the one stored" \
    "$sub: refused, the generation named"
done

# ---- a file in HDF5's original format (no checksums): refused before HDF5 reads it -------------
# Found by tests/fuzz: a damaged file of that format on which HDF5 1.10 loops for ever (others
# crash it); nqc never lets HDF5 read one.
old=$TMP/old.h5
cp "$REPO/tests/fuzz/failed/result_file/timeout-0e2ee225fad7a7b558102fc86daa2ff357519992" "$old"
run timeout 60 "$NQC" aggregate "$old"
expect_exit 1 "a file without checksums: aggregate"
expect_stderr_line "nqc: error: $old: not a result file of this nqc (HDF5 superblock version 0, without checksums)" \
  "refused at once, named"
run analysis table "$old"
expect_stderr_line "nqc-analysis: error: $old: not a result file of this nqc (HDF5 superblock version 0, without checksums)" \
  "analysis: the same message"

# ---- .param files: one text discipline ---------------------------------------------------------
printf '\xef\xbb\xbfn = 4\nnumdiags = 0\ndiags = []\n' >"$TMP/bom.param"
printf 'n = 4\rnumdiags = 0\rdiags = []' >"$TMP/cr.param"
printf 'n\t=\t4\r\nnumdiags = 0\r\ndiags = []\r\n' >"$TMP/crlf.param"
for f in bom cr crlf; do
  run "$NQC" count "$TMP/$f.param"
  expect_exit 0 "count $f.param"
  expect_stdout_line "completions: 2" "$f.param: completions: 2, as for the plain file"
done
printf '\xef\xbb\xbfn = 4\nnumdiags = 0\ndiags = []\n\xef\xbb\xbfx = \x1b[31m\n' >"$TMP/bad.param"
run "$NQC" count "$TMP/bad.param"
expect_stderr_line "nqc: error: $TMP/bad.param:4: expected 'n = ', 'numdiags = ' or 'diags = ', got '\\xef\\xbb\\xbfx = \\x1b[31m'" \
  "bytes that are not printable are shown as escapes"

summary
