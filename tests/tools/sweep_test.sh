#!/usr/bin/env bash
# mgen sweep (issue 24, item 2):
#   - 16 configurations (4 x 4) give one CSV whose rows are the cross product in order (the
#     last key varying fastest), whose figures equal those of the same configuration run
#     directly (`mgen nas ... --set ... --report`), and which is the same byte for byte run one
#     at a time, two at a time, and over the 2 processes of an mpiexec launch;
#   - the swept keys change the prediction (rows differ where the machine differs);
#   - run and traffic sweeps (a row per offered load), --plot, --timing, --keep;
#   - a configuration that fails is a row with its status and message, and the sweep's exit
#     status is non-zero; bad sweeps are refused before anything runs.
# Usage: sweep_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
mgen=$build/mgen
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$src/tests/tools/expect.sh"
py=/usr/bin/python3
[ -x "$py" ] || py=python3

keys=(--set router.vc_buffer=4KiB,8KiB,16KiB,64KiB --set 'topology.dims=[4,4,4],[8,8,8],[4,4,8],[2,2,2]')
job=(nas mg --class S -n 8)
"$mgen" sweep "${keys[@]}" --jobs 1 --csv "$work/one.csv" -- "${job[@]}" 2>"$work/one.err" || fail "sweep --jobs 1: $(cat "$work/one.err")"
"$mgen" sweep "${keys[@]}" --jobs 2 --csv "$work/two.csv" "${job[@]}" 2>"$work/two.err" || fail "sweep --jobs 2: $(cat "$work/two.err")"
[ "$(wc -l <"$work/one.csv")" -eq 17 ] || fail "16 configurations and a header, got $(wc -l <"$work/one.csv") lines"
cmp -s "$work/one.csv" "$work/two.csv" || fail "one at a time and two at a time differ: $(diff "$work/one.csv" "$work/two.csv" | head -5)"
if command -v mpiexec >/dev/null; then
  timeout 300 mpiexec -n 2 "$mgen" sweep "${keys[@]}" --csv "$work/mpi.csv" -- "${job[@]}" </dev/null >"$work/mpi.out" 2>&1 ||
    fail "mpiexec -n 2 mgen sweep: $(tail -5 "$work/mpi.out")"
  cmp -s "$work/one.csv" "$work/mpi.csv" || fail "one process and two (mpiexec) differ: $(diff "$work/one.csv" "$work/mpi.csv" | head -5)"
  grep -q "in each of 2 processes" "$work/mpi.out" || fail "the mpiexec sweep did not run over 2 processes"
  echo "ok: mpiexec -n 2 sweep equals the one-process CSV"
fi

# The rows are the cross product, last key fastest, and their figures are what a direct run
# of that configuration reports.
"$src/tests/tools/sweep_check.py" "$work/one.csv" "$mgen" router.vc_buffer=4KiB,8KiB,16KiB,64KiB \
  'topology.dims=[4,4,4],[8,8,8],[4,4,8],[2,2,2]' -- "${job[@]}" || fail "rows against direct runs"

# A run sweep (a recompiled program) and a traffic sweep.
"$build/mgen-cc" -O1 -o "$work/cc" "$src/tests/tools/programs/call_counts.c"
expect 0 "config,network.backend,status,backend,.* 0,packet,ok,packet,.* 1,analytic,ok,analytic," -- \
  "$mgen" sweep --set network.backend=packet,analytic -- run -n 4 --ignore-compute "$work/cc"
expect 0 "config,router.vcs,status,offered,accepted,.* 0,2,ok,0.1,.* 0,2,ok,0.2,.* 1,4,ok,0.1,.* 1,4,ok,0.2," -- \
  "$mgen" sweep --set router.vcs=2,4 --plot "$work/traffic" -- traffic uniform --sweep 0.1,0.2 --measure 5us \
  --set 'topology.dims=[4,4,4]'
[ -s "$work/traffic.png" ] || fail "traffic sweep --plot wrote no PNG"
expect 0 "wall_s,cpu_s,error" -- "$mgen" sweep --timing --set router.vcs=2,4 --plot "$work/nas" --keep "$work/kept" -- \
  nas is --class S -n 4
[ -s "$work/nas.png" ] || fail "nas sweep --plot wrote no PNG"
[ -s "$work/kept/config-1.json" ] || fail "--keep kept no report"

# Runs that share the computer get a share of its memory (MGEN_MEMORY_SHARE: the memory
# estimate before a run and the stop before the out-of-memory killer): 2 at a time, 2 each;
# one at a time, none. A run that needs more than its share is refused with the share named.
cat >"$work/env.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* share = getenv("MGEN_MEMORY_SHARE");
  if (rank == 0) printf("share=%s\n", share ? share : "none");
  MPI_Finalize();
  return 0;
}
C
"$build/mgen-cc" -O1 -o "$work/env" "$work/env.c"
"$mgen" sweep --jobs 2 --keep "$work/share2" --set network.backend=packet,analytic -- run -n 2 "$work/env" >/dev/null 2>&1
grep -q "share=2" "$work/share2/config-0.out" || fail "2 at a time: no MGEN_MEMORY_SHARE=2 in the run ($(cat "$work/share2/config-0.out"))"
"$mgen" sweep --jobs 1 --keep "$work/share1" --set network.backend=packet,analytic -- run -n 2 "$work/env" >/dev/null 2>&1
grep -q "share=none" "$work/share1/config-0.out" || fail "1 at a time: a share was set ($(cat "$work/share1/config-0.out"))"
MGEN_MEMORY_SHARE=100000000 expect 2 "a 1/100000000 share \(MGEN_MEMORY_SHARE" -- "$mgen" nas is --class S -n 4

# A recorded MPICH run replayed on two machines: the rows equal direct replays.
if command -v mpicc >/dev/null && command -v mpiexec >/dev/null; then
  mpicc -O1 -o "$work/cc_mpich" "$src/tests/tools/programs/call_counts.c"
  "$mgen" record -n 4 --out "$work/trace" -- "$work/cc_mpich" >/dev/null 2>&1 || fail "record for the replay sweep"
  out=$("$mgen" sweep --set 'topology.dims=[4,4,4],[8,8,8]' -- replay "$work/trace" 2>/dev/null)
  for dims in '[4,4,4]' '[8,8,8]'; do
    direct=$("$mgen" replay "$work/trace" --set "topology.dims=$dims" --report - -q | "$py" -c 'import json,sys; print(json.load(sys.stdin)["predicted_ps"])')
    got=$("$py" -c 'import csv,sys; print([r["predicted_ps"] for r in csv.DictReader(sys.stdin) if r["topology.dims"] == sys.argv[1] and r["status"] == "ok"])' "$dims" <<<"$out")
    [ "$got" = "['$direct']" ] || fail "replay sweep on $dims: $got, the direct replay $direct ps: $out"
  done
  echo "ok: replay sweep rows equal direct replays"
fi

# --ranks sweeps -n: the rows equal direct runs at those sizes.
out=$("$mgen" sweep --ranks 4,16 --set network.backend=packet -- nas is --class S 2>/dev/null)
for n in 4 16; do
  direct=$("$mgen" nas is --class S -n "$n" --set network.backend=packet --report - -q | "$py" -c 'import json,sys; print(json.load(sys.stdin)["predicted_ps"])')
  grep -Eq "^[0-9]+,$n,packet,ok,packet,[0-9.e-]+,$direct," <<<"$out" || fail "--ranks $n: no row with the direct run's $direct ps: $out"
done
expect 2 "--ranks is swept and the command sets it too" -- "$mgen" sweep --ranks 4,16 -- nas is -n 4
expect 2 "traffic takes no -n" -- "$mgen" sweep --ranks 4,16 -- traffic uniform
expect 2 "--ranks: 'x' is not a rank count" -- "$mgen" sweep --ranks 4,x -- nas is

# Failures: a row each, and a non-zero exit status naming the configuration.
expect 2 "config 0 failed \(exit status 2\): .*router.vc_buffer.*cannot hold a whole" -- \
  "$mgen" sweep --keep "$work/fail1" --set router.vc_buffer=1KiB,16KiB -- nas is --class S -n 4
out=$("$mgen" sweep --keep "$work/fail2" --set router.vc_buffer=1KiB,16KiB -- nas is --class S -n 4 2>/dev/null)
grep -q "^0,1KiB,failed(2),.*cannot hold a whole" <<<"$out" || fail "no failed row: $out"
grep -q "^1,16KiB,ok,packet," <<<"$out" || fail "the good configuration is missing: $out"
if command -v mpiexec >/dev/null; then
  out=$(timeout 300 mpiexec -n 2 "$mgen" sweep --keep "$work/mpifail" --set router.vc_buffer=1KiB,16KiB -- \
    nas is --class S -n 4 </dev/null 2>/dev/null)
  rc=$?
  [ "$rc" -ne 0 ] || fail "mpiexec: a failed configuration left the exit status 0"
  grep -q "^0,1KiB,failed(2)," <<<"$out" || fail "mpiexec: no failed row: $out"
  grep -q "^1,16KiB,ok," <<<"$out" || fail "mpiexec: the good configuration is missing: $out"
  echo "ok: mpiexec -n 2 sweep with a failing configuration"
fi
# --timing: wall and CPU columns, for traffic from each point.
out=$("$mgen" sweep --timing --set router.vcs=2 -- traffic uniform --load 0.1 --measure 1us 2>/dev/null)
grep -Eq "^0,2,ok,0.1,.*,[0-9.e-]+,[0-9.]+,$" <<<"$out" || fail "traffic --timing row without wall_s: $out"

# SIGTERM stops the sweep and the runs it started: nothing of it is left running.
"$mgen" sweep --jobs 2 --keep "$work/term" --set router.vcs=2,4,6,8 -- traffic uniform --load 0.3 --measure 500us \
  --set 'topology.dims=[16,16,16]' >/dev/null 2>"$work/term.err" &
sweep_pid=$!
for _ in $(seq 50); do
  [ "$(pgrep -fc "$work/term/config-")" -ge 2 ] && break
  sleep 0.1
done
kill -TERM "$sweep_pid"
wait "$sweep_pid"
rc=$?
[ "$rc" -eq 143 ] || fail "a sweep stopped by SIGTERM exited $rc, not 143: $(cat "$work/term.err")"
sleep 0.2
if pgrep -f "$work/term/config-" >/dev/null; then
  fail "runs of a stopped sweep are still running: $(pgrep -af "$work/term/config-")"
  pkill -f "$work/term/config-"
else
  echo "ok: SIGTERM stops the sweep and its runs"
fi
grep -q "stopped by Terminated" "$work/term.err" || fail "no word of the stop: $(cat "$work/term.err")"

expect 2 "at least one KEY=V1,V2" -- "$mgen" sweep -- nas is
expect 2 "needs KEY=V1,V2" -- "$mgen" sweep --set router.vcs -- nas is
expect 2 "which command" -- "$mgen" sweep --set router.vcs=2,4
expect 2 "'info' cannot be swept; the command after -- must be run, nas, replay or traffic" -- \
  "$mgen" sweep --set router.vcs=2,4 -- info
expect 2 "unknown option --bogus" -- "$mgen" sweep --set router.vcs=2,4 --bogus nas is
expect 2 "drop --report" -- "$mgen" sweep --set router.vcs=2,4 -- nas is --report x.json
expect 2 "router.vcs is swept and also set" -- "$mgen" sweep --set router.vcs=2,4 -- nas is --set router.vcs=3
expect 2 "not 'all' nor --sweep-ranks" -- "$mgen" sweep --set router.vcs=2,4 -- nas all -n 4
expect 2 "swept twice" -- "$mgen" sweep --set router.vcs=2 --set router.vcs=4 -- nas is
expect 2 "an empty value" -- "$mgen" sweep --set router.vcs=2,,4 -- nas is
expect 2 "every configuration would write the same --links-csv file" -- \
  "$mgen" sweep --set router.vcs=2,4 -- run -n 2 --links-csv x.csv "$work/env"
expect 2 "every configuration would write the same --plot file" -- \
  "$mgen" sweep --set router.vcs=2,4 -- traffic uniform --plot x

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "sweep: all checks passed"
