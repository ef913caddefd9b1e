#!/usr/bin/env bash
# Records real MPICH runs of the C and Fortran example programs (examples/mpi) with
# `mgen record` and checks, against the programs' own counts (MPI_COUNTS_DIR):
#   - every rank's calls and bytes per MPI function in the trace equal the program's counts;
#   - the recorded program prints the same RESULT as without the recorder;
#   - replay finishes, is deterministic, and predicts a time of the same order as measured;
#   - a corrupt and a truncated trace are reported with file and offset (exit 2);
#   - a rank killed mid-run (SIGTERM, and SIGKILL after a second) leaves a readable trace.
#   record_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
mgen=$build/mgen
ex=$src/examples/mpi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
bad() {
  echo "FAIL: $*"
  fail=1
}

for p in halo cg transpose; do
  mpicc -std=c11 -O1 -Wall -Werror -Wno-stringop-overflow -o "$work/${p}_c" "$ex/$p.c" -lm
  mpif90 -O1 -J "$work" -o "$work/${p}_f" "$ex/mpi_counts.f90" "$ex/$p.f90"
done
mpicc -std=c11 -O1 -o "$work/dying" "$src/tests/record/dying.c"

# The trace's per-rank function table must equal the program's counts files.
compare_counts() { # stats.json counts_dir ranks
  python3 - "$@" <<'PY'
import json, sys, pathlib
stats, counts, n = json.load(open(sys.argv[1])), pathlib.Path(sys.argv[2]), int(sys.argv[3])
bad = 0
for r in range(n):
    want = {}
    for line in (counts / f"counts.{r}").read_text().split("\n"):
        if line.strip():
            name, calls, nbytes = line.split()
            want[name] = (int(calls), int(nbytes))
    got = {k: (v["calls"], v["bytes"]) for k, v in stats["ranks"][r]["functions"].items()}
    if got != want:
        bad += 1
        for k in sorted(set(got) | set(want)):
            if got.get(k) != want.get(k):
                print(f"  rank {r} {k}: trace {got.get(k)}, program {want.get(k)}")
sys.exit(1 if bad else 0)
PY
}

for prog in halo_c halo_f cg_c cg_f transpose_c transpose_f; do
  counts_at=(4)
  [[ $prog == halo_* || $prog == cg_* ]] && counts_at+=(8)
  for n in "${counts_at[@]}"; do
    tag=$prog.$n
    plain=$(timeout 120 mpiexec -n "$n" "$work/$prog" | grep '^RESULT' || true)
    mkdir -p "$work/counts.$tag"
    if ! out=$(MPI_COUNTS_DIR=$work/counts.$tag timeout 120 "$mgen" record -n "$n" --out "$work/trace.$tag" -- \
      "$work/$prog" 2>&1); then
      bad "mgen record -n $n $prog: $out"
      continue
    fi
    recorded=$(grep '^RESULT' <<<"$out" || true)
    [[ -n $plain && $plain == "$recorded" ]] || bad "$prog at $n: RESULT without recorder '$plain', with '$recorded'"
    "$mgen" trace stats "$work/trace.$tag" --report "$work/stats.$tag.json" >/dev/null
    if compare_counts "$work/stats.$tag.json" "$work/counts.$tag" "$n"; then
      echo "ok: $prog at $n ranks: trace calls and bytes equal the program's own counts, same RESULT"
    else
      bad "$prog at $n ranks: trace counts differ from the program's"
    fi
  done
done

# Replay: finishes, deterministic (bit-identical reports), and its prediction is of the order
# of the measured time on a machine with this host's parameters (the ratio is printed).
for tag in halo_c.4 cg_f.8 transpose_c.4; do
  if ! "$mgen" replay "$work/trace.$tag" -q --report "$work/r1.json" ||
    ! "$mgen" replay "$work/trace.$tag" -q --report "$work/r2.json"; then
    bad "replay of $tag failed"
    continue
  fi
  t1=$(python3 -c "import json;print(json.load(open('$work/r1.json'))['predicted_time_s'])")
  t2=$(python3 -c "import json;print(json.load(open('$work/r2.json'))['predicted_time_s'])")
  [[ $t1 == "$t2" ]] || bad "replay of $tag is not deterministic: $t1 vs $t2"
  echo "ok: replay of $tag: predicted $t1 s, twice the same"
done

# Prediction against measurement: a compute-heavy halo run on 2 ranks (one per core, so that
# MPICH's busy polling does not dominate), replayed with both ranks on one node.
"$mgen" record -n 2 --out "$work/trace.big" -- "$work/halo_c" 1000 100 >/dev/null 2>&1 || bad "recording halo 1000"
if "$mgen" replay "$work/trace.big" --ppn 2 -q --report "$work/big.json"; then
  ratio=$(python3 -c "import json;d=json.load(open('$work/big.json'));print(round(d['predicted_time_s']/d['recorded_run_s'],3))")
  echo "ok: halo 1000x1000, 100 iterations, 2 ranks: predicted / measured = $ratio"
  python3 -c "import sys; sys.exit(0 if 0.1 <= $ratio <= 10 else 1)" || bad "prediction not of the order of the measurement: ratio $ratio"
else
  bad "replay of the 2-rank halo failed"
fi

# Time shift (PPT §7): per-call recorded and simulated durations.
if "$mgen" replay "$work/trace.halo_c.4" --time-shift --durations "$work/d.csv" >"$work/ts.txt"; then
  rows=$(($(wc -l <"$work/d.csv") - 1))
  calls=$(python3 -c "import json;print(sum(r['calls'] for r in json.load(open('$work/stats.halo_c.4.json'))['ranks']))")
  [[ $rows == "$calls" ]] || bad "--durations has $rows rows for $calls recorded calls"
  grep -q "MPI_Waitall" "$work/ts.txt" || bad "--time-shift printed no per-call comparison"
  echo "ok: --time-shift compares $rows calls"
else
  bad "replay --time-shift failed"
fi

# Corrupt and truncated traces: a clear error naming the file and the offset, exit 2.
cp -r "$work/trace.halo_c.4" "$work/corrupt"
f=$work/corrupt/rank-2.mgt
size=$(stat -c %s "$f")
printf '\xff\xff\xff' | dd of="$f" bs=1 seek=$((size / 2)) conv=notrunc status=none
set +e
out=$("$mgen" trace stats "$work/corrupt" 2>&1)
rc=$?
set -e
if [[ $rc == 2 ]] && grep -q "rank-2.mgt: rank 2: offset [0-9]*: corrupt" <<<"$out"; then
  echo "ok: corrupt trace: $(tail -1 <<<"$out")"
else
  bad "corrupt trace: exit $rc: $out"
fi
cp -r "$work/trace.halo_c.4" "$work/truncated"
f=$work/truncated/rank-1.mgt
truncate -s $(($(stat -c %s "$f") - 7)) "$f"
for cmd in "trace stats" "trace dump" "replay"; do
  set +e
  out=$("$mgen" $cmd "$work/truncated" 2>&1)
  rc=$?
  set -e
  if [[ $rc == 2 ]] && grep -q "rank-1.mgt: rank 1: offset [0-9]*: truncated" <<<"$out"; then
    echo "ok: truncated trace, mgen $cmd: $(tail -1 <<<"$out")"
  else
    bad "truncated trace, mgen $cmd: exit $rc: $out"
  fi
done

# A rank killed mid-run leaves a readable trace up to that point (SIGTERM: the recorder's
# handler flushes; SIGKILL: what the once-a-second flush wrote).
for how in term kill; do
  set +e
  timeout 60 "$mgen" record -n 3 --out "$work/dying.$how" -- "$work/dying" 20 "$how" >/dev/null 2>&1
  set -e
  if ! "$mgen" trace stats "$work/dying.$how" --report "$work/dying.$how.json" >"$work/dying.$how.txt" 2>&1; then
    bad "killed rank ($how): traces unreadable: $(cat "$work/dying.$how.txt")"
    continue
  fi
  if python3 - "$work/dying.$how.json" <<'PY'; then
import json, sys
r1 = json.load(open(sys.argv[1]))["ranks"][1]
ok = not r1["complete"] and r1["functions"].get("MPI_Allreduce", {}).get("calls", 0) >= 21
sys.exit(0 if ok else 1)
PY
    echo "ok: rank 1 killed ($how): its trace is readable and holds its 20 iterations"
  else
    bad "killed rank ($how): rank 1's trace: $(cat "$work/dying.$how.txt")"
  fi
done
exit $fail
