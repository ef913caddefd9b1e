#!/usr/bin/env bash
# `mgen trace stats` reports the run's span per rank and for the slowest rank (span_s in its
# JSON, a "run" line in its text): from MPI_Init's return to MPI_Finalize's entry, which is what
# scripts/validate-host.sh compares with replay's prediction. span.c sleeps known times and
# prints the span it measured with MPI_Wtime; rank 0 also waits 300 ms in MPI_Init and 100 ms
# in MPI_Finalize for rank 1, which the span must leave out.
#   record_span_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
mgen=$build/mgen
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mpicc -std=c11 -O1 -o "$work/span" "$src/tests/record/span.c" || exit 1
if ! timeout 120 "$mgen" record -n 2 --out "$work/t" -- "$work/span" >"$work/out.txt" 2>&1; then
  echo "FAIL: mgen record -n 2 span: $(cat "$work/out.txt")"
  exit 1
fi
"$mgen" trace stats "$work/t" --report "$work/stats.json" >"$work/stats.txt" || {
  echo "FAIL: mgen trace stats"
  exit 1
}
grep -q "^run .* (MPI_Init's return to MPI_Finalize's entry, slowest rank)" "$work/stats.txt" || {
  echo "FAIL: no run line in trace stats: $(cat "$work/stats.txt")"
  exit 1
}
python3 - "$work/stats.json" "$work/out.txt" <<'PY'
import json, re, sys
stats = json.load(open(sys.argv[1]))
own = {int(r): float(s) for r, s in re.findall(r"^span (\d+) ([0-9.]+)$", open(sys.argv[2]).read(), re.M)}
fail = 0
def check(ok, what):
    global fail
    print(("ok: " if ok else "FAIL: ") + what)
    fail |= not ok
check(sorted(own) == [0, 1], f"both ranks printed their span: {own}")
ranks = {r["rank"]: r for r in stats["ranks"]}
for r in (0, 1):
    span = ranks[r]["span_s"]
    # The trace's span holds the program's [t0, t1] plus what lies between MPI_Init's return
    # and the first MPI_Wtime, and between the second and MPI_Finalize (a printf): microseconds.
    check(own[r] - 1e-4 <= span <= own[r] + 2e-2, f"rank {r}: span_s {span:.6f} s, MPI_Wtime span {own[r]:.6f} s")
# The waits are real (the test could fail if the span took them in) and are left out.
fns = ranks[0]["functions"]
check(fns["MPI_Init"]["in_call_s"] > 0.2, f"rank 0 waited {fns['MPI_Init']['in_call_s']:.3f} s in MPI_Init")
check(fns["MPI_Finalize"]["in_call_s"] > 0.05, f"rank 0 waited {fns['MPI_Finalize']['in_call_s']:.3f} s in MPI_Finalize")
check(stats["span_s"] == max(ranks[0]["span_s"], ranks[1]["span_s"]), f"span_s {stats['span_s']:.6f} s is the slowest rank's")
sys.exit(fail)
PY
