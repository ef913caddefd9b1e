#!/usr/bin/env bash
# Trace sets carry their run: `mgen record` writes the same run identifier (and world size) into
# every rank's file, so that files of two runs mixed in one directory are refused, naming the
# odd file and what differs, by `mgen replay` and `mgen trace` alike (exit 2); and the golden
# traces, recorded before the identifier existed (format version 1), still replay, with a note.
#   record_set_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
mgen=$build/mgen
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$src/tests/tools/expect.sh"

mpicc -std=c11 -O1 -Wno-stringop-overflow -o "$work/halo" "$src/examples/mpi/halo.c" -lm || exit 1
for run in a b; do
  if ! out=$(timeout 120 "$mgen" record -n 4 --out "$work/$run" -- "$work/halo" 24 10 2>&1); then
    echo "FAIL: mgen record -n 4 ($run): $out"
    exit 1
  fi
done
timeout 120 "$mgen" record -n 2 --out "$work/two" -- "$work/halo" 24 10 >/dev/null 2>&1 || {
  echo "FAIL: mgen record -n 2"
  exit 1
}

# One run: every file has the same identifier (32 hex digits), and two runs have different ones.
id_of() { "$mgen" trace dump "$1" | sed -n 's/^# .*, run \([0-9a-f]\{32\}\), recorded on .*/\1/p' | sort -u; }
ids_a=$(id_of "$work/a")
ids_b=$(id_of "$work/b")
if [[ $(wc -l <<<"$ids_a") == 1 && $(wc -l <<<"$ids_b") == 1 && -n $ids_a && $ids_a != "$ids_b" ]]; then
  echo "ok: one run id in all 4 files of a run ($ids_a), another in the next run ($ids_b)"
else
  echo "FAIL: run ids: a: '$ids_a', b: '$ids_b'"
  failures=$((failures + 1))
fi
expect 0 "predicted" -- "$mgen" replay "$work/a"

# Rank 2's file from run b among run a's: rank 2 is named, with both identifiers.
cp -r "$work/a" "$work/mixed"
cp "$work/b/rank-2.mgt" "$work/mixed/rank-2.mgt"
odd="$work/mixed/rank-2.mgt: rank 2: offset 96: from another run: run id $ids_b, the 3 other files of $work/mixed have run id $ids_a"
for cmd in replay "trace stats" "trace dump"; do
  expect 2 "^mgen: error: $odd" -- "$mgen" $cmd "$work/mixed"
done

# A 2-rank run's rank 0 among a 4-rank run's files: the stray file is blamed, not the good ones.
cp -r "$work/a" "$work/size"
cp "$work/two/rank-0.mgt" "$work/size/rank-0.mgt"
expect 2 "^mgen: error: $work/size/rank-0.mgt: rank 0: offset 96: from another run: run id [0-9a-f]{32} with 2 ranks, the 3 other files of $work/size have run id $ids_a with 4 ranks" -- "$mgen" replay "$work/size"

# An extra file of another run (rank 1 of the 2-rank run, renamed) and a missing rank.
cp -r "$work/a" "$work/extra"
cp "$work/two/rank-1.mgt" "$work/extra/rank-9.mgt"
expect 2 "$work/extra/rank-9.mgt: rank 1: offset 96: from another run: .* with 2 ranks, the 4 other files" -- \
  "$mgen" replay "$work/extra"
cp -r "$work/a" "$work/missing"
rm "$work/missing/rank-3.mgt"
expect 2 "^mgen: error: $work/missing: no trace of rank 3 \(the run had 4 ranks\): rank-3.mgt is missing" -- \
  "$mgen" replay "$work/missing"

# Version 1 traces (the golden set) still replay and read, with a one-line note.
expect 0 "mgen replay: note: .*halo4: trace format version 1 has no run identifier" -- \
  "$mgen" replay -q "$src/tests/golden/traces/halo4"
expect 0 "run id unknown \(format version 1\)" -- "$mgen" trace dump "$src/tests/golden/traces/halo4"
exit $((failures > 0))
