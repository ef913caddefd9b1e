#!/usr/bin/env bash
# Jobs cut into partitions (issue 24, item 1): every golden case that runs a job on the packet
# backend (MGEN examples, NAS skeletons at class S, replays, every preset; tests/golden/cases.txt)
# and NAS kernels at class A on 64 ranks, on the default torus and on Hopper's (router steps,
# FMA responses), give on 2, 3 and 4 threads the serial run's JSON report in every field but the
# event count, the wall times and the partitioning's own figures; a matrix product whose blocks
# cross partitions is right. A deadlock across partitions,
# a failing rank and the refusals say what the serial run says, or why not.
# Usage: partition_jobs_test.sh BUILD_DIR SOURCE_DIR [quick]
set -uo pipefail
build=$1
src=$2
quick=${3:-}
mgen=$build/mgen
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$src/tests/tools/expect.sh"
py=/usr/bin/python3
[ -x "$py" ] || py=python3

# Compares two job reports, leaving out what measures the run rather than the job.
same() {
  "$py" - "$1" "$2" <<'PY'
import json, sys
skip = {"events", "partitioned", "events_per_second"}
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if k not in skip and "wall" not in k}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v
a, b = clean(json.load(open(sys.argv[1]))), clean(json.load(open(sys.argv[2])))
if a != b:
    def walk(x, y, path):
        if isinstance(x, dict) and isinstance(y, dict):
            for k in sorted(set(x) | set(y)):
                walk(x.get(k), y.get(k), path + "/" + k)
        elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            for i, (p, q) in enumerate(zip(x, y)):
                walk(p, q, f"{path}[{i}]")
        elif x != y:
            print(f"{path}: {str(x)[:50]} != {str(y)[:50]}")
    walk(a, b, "")
    sys.exit(1)
PY
}

# The recompiled examples the golden cases run (built with mgen-cc as a user would).
mpi=$work/mpi
mkdir -p "$mpi"
for p in halo cg transpose; do
  "$build/mgen-cc" -O1 -o "$mpi/$p" "$src/examples/mpi/$p.c" -lm || fail "mgen-cc examples/mpi/$p.c"
done

# name|args: the golden cases of jobs on the packet backend, then class A.
cases=()
while read -r name args; do
  [[ -z $name || $name == \#* ]] && continue
  [[ $args =~ ^(run|nas|replay) ]] || continue
  [[ $args == *network.backend=* || $args == *dimemas* ]] && continue
  args=${args//\{ex\}/$build/examples}
  args=${args//\{mpi\}/$mpi}
  args=${args//\{src\}/$src}
  cases+=("$name|$args")
done <"$src/tests/golden/cases.txt"
# The routings the golden jobs do not take: adaptive with oldest-first arbitration and hashed
# dimension order on the torus, random up-ports on a fat tree, a mesh.
cases+=("cg_adaptive|nas -q cg -n 16 --set router.routing=adaptive --set router.vcs=3 --set router.arbitration=age")
cases+=("mg_hashed|nas -q mg -n 16 --set router.routing=hashed")
cases+=("is_fattree_random|nas -q is -n 16 -c $src/configs/nsim-ace-ib-256.toml --set router.routing=random")
cases+=("ft_mesh|nas -q ft -n 16 --set topology.kind=mesh --set topology.dims=[4,4,2]")
# Real data in rendezvous messages between partitions (512 KiB blocks): C = A B on rank 0.
cases+=("cannon_verify|run -q -n 16 $build/examples/cannon --n 512 --verify")
if [ -z "$quick" ]; then
  cases+=("mg_a_64|nas -q mg --class A -n 64" "cg_a_64|nas -q cg --class A -n 64" "ft_a_64|nas -q ft --class A -n 64")
  cases+=("mg_a_64_hopper|nas -q mg --class A -n 64 -c $src/configs/hopper.toml")
fi

compared=0
for c in "${cases[@]}"; do
  name=${c%%|*}
  read -r -a argv <<<"${c#*|}"
  "$mgen" "${argv[0]}" --report "$work/$name-1.json" "${argv[@]:1}" >"$work/$name-1.out" 2>&1 ||
    { fail "$name, serial: $(tail -3 "$work/$name-1.out")"; continue; }
  for t in 2 3 4; do
    if ! "$mgen" "${argv[0]}" --threads $t --report "$work/$name-$t.json" "${argv[@]:1}" >"$work/$name-$t.out" 2>&1; then
      # Fewer loaded routers than partitions (2 ranks on 2 routers): refused with the reason.
      grep -q "router(s) carry the load" "$work/$name-$t.out" && continue
      fail "$name, $t threads: $(tail -3 "$work/$name-$t.out")"
      continue
    fi
    diffs=$(same "$work/$name-1.json" "$work/$name-$t.json") || fail "$name: $t threads differ from one: $diffs"
    compared=$((compared + 1))
  done
  echo "ok: $name"
done
for t in 2 4; do
  grep -q "verify: ok" "$work/cannon_verify-$t.out" || fail "cannon on $t threads: $(tail -3 "$work/cannon_verify-$t.out")"
done
echo "$compared partitioned runs compared with their serial runs"
[ "$compared" -ge 20 ] || fail "only $compared comparisons"

# The self-checking MPI programs (tests/mpi_programs) on 2 and 4 threads at 8 ranks: each
# checks its own results (OK) and prints the hash MPICH's run printed (expected_results.txt).
# RMA windows, whose members reach into each other's memory, stop with a message.
progs=$src/tests/mpi_programs
for p in p2p colls comms nbc intercomm comm_groups mprobe datatypes persistent_colls; do
  "$build/mgen-cc" -O1 -w -o "$work/$p" "$progs/$p.c" || { fail "mgen-cc $p.c"; continue; }
  want=$(awk -v p="$p" '$1 == p && $2 == 8 { print $3 }' "$progs/expected_results.txt")
  for t in 2 4; do
    out=$("$mgen" run -n 8 --threads $t --ignore-compute -q "$work/$p" 2>&1)
    got=$(awk '/^RESULT /{ print $3 }' <<<"$out")
    if ! grep -q '^OK' <<<"$out" || { [ -n "$want" ] && [ "$got" != "$want" ]; }; then
      fail "$p on 8 ranks, $t threads: $(head -3 <<<"$out") (RESULT $got, MPICH $want)"
    fi
  done
  echo "ok: $p on 2 and 4 threads${want:+, the hash MPICH printed}"
done
# Cancelling a send to another partition's rank (whether its receiver matched it is that
# partition's to know) stops the run too.
"$build/mgen-cc" -O1 -w -o "$work/p2p_cancel" "$progs/p2p_cancel.c"
expect 3 "rank [0-9]+: MPI_Cancel of a send to rank [0-9]+, which another partition runs" -- \
  env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$mgen" run -n 8 --threads 2 --ignore-compute -q \
  "$work/p2p_cancel"
"$build/mgen-cc" -O1 -w -o "$work/onesided" "$progs/onesided.c"
# (The program's own buffers, malloc'ed before the refused call, are never freed: not a leak of
# mgen's, so LeakSanitizer builds do not look for leaks in this run.)
expect 3 "rank [0-9]+: MPI RMA windows are not supported in a partitioned run" -- \
  env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$mgen" run -n 8 --threads 2 --ignore-compute -q \
  "$work/onesided"

# Over the processes of an mpiexec (MPICH), alone and with threads: the same reports. This host
# has two cores and MPICH polls while it waits, so more than two busy threads in all take a
# time slice per window: the runs over 4 processes, or 2 x 2, are short ones.
if command -v mpiexec >/dev/null; then
  launched=(
    "mg_s|2|1|nas -q mg -n 16"
    "ft_s|2|1|nas -q ft -n 16"
    "cannon_verify|2|1|run -q -n 16 $build/examples/cannon --n 512 --verify"
    "replay_halo|2|2|replay -q $src/tests/golden/traces/halo4"
    "nas_ep_packet|4|1|nas -q ep -n 4"
    "ex_barrier_ring_rdma|2|1|run -q -n 16 --ppn 2 -c $src/configs/nsim-ace-ib.toml $build/examples/barrier_ring_rdma --iters 20"
  )
  for c in "${launched[@]}"; do
    IFS='|' read -r name procs threads args <<<"$c"
    read -r -a argv <<<"$args"
    [ -f "$work/$name-1.json" ] || "$mgen" "${argv[0]}" --report "$work/$name-1.json" "${argv[@]:1}" >"$work/$name-1.out" 2>&1 ||
      { fail "$name, serial: $(tail -3 "$work/$name-1.out")"; continue; }
    timeout 300 mpiexec -n "$procs" "$mgen" "${argv[0]}" --threads "$threads" --report "$work/$name-p.json" "${argv[@]:1}" \
      </dev/null >"$work/$name-p.out" 2>&1 || { fail "$name, $procs processes x $threads: $(tail -3 "$work/$name-p.out")"; continue; }
    diffs=$(same "$work/$name-1.json" "$work/$name-p.json") ||
      fail "$name: $procs processes x $threads threads differ from one: $diffs"
    [[ $name != cannon_verify ]] || grep -q "verify: ok" "$work/$name-p.out" || fail "cannon over processes: not verified"
    echo "ok: $name over $procs processes x $threads threads"
  done
  # A deadlock across processes reads as serially; a failing rank and a refusal end the launch
  # with the serial run's status and message, said once.
  [ "$(timeout 120 mpiexec -n 2 "$mgen" run -n 2 "$build/tests/tools/deadlock.so" 2>&1)" == "$("$mgen" run -n 2 "$build/tests/tools/deadlock.so" 2>&1)" ] ||
    fail "the deadlock report over processes differs from the serial one"
  expect 3 "rank 0: MGEN_Send: MGEN_ERR_RANK" -- timeout 120 mpiexec -n 2 "$mgen" run -n 4 "$build/tests/tools/bad_peer.so"
  expect 2 "cannot write timelines, Paraver or OTF2 traces yet" -- timeout 120 mpiexec -n 2 "$mgen" nas ep -n 4 \
    --timeline "$work/t.json"
fi

# A deadlock between ranks of two partitions: the serial run's report, word for word.
expect 3 "deadlock: 2 of 2 ranks are blocked" -- "$mgen" run -n 2 --threads 2 "$build/tests/tools/deadlock.so"
[ "$("$mgen" run -n 2 --threads 2 "$build/tests/tools/deadlock.so" 2>&1)" == "$("$mgen" run -n 2 "$build/tests/tools/deadlock.so" 2>&1)" ] ||
  fail "the partitioned deadlock report differs from the serial one"
expect 3 "rank 0: MGEN_Send: MGEN_ERR_RANK" -- "$mgen" run -n 4 --threads 2 "$build/tests/tools/bad_peer.so"
# What cannot be partitioned says so.
expect 2 "the analytic backend cannot be partitioned" -- "$mgen" nas ep -n 4 --threads 2 --set network.backend=analytic
expect 2 "measures a serial run" -- "$mgen" nas ep -n 4 --threads 2 --partition-model
expect 2 "1 router\(s\) carry the load" -- "$mgen" nas ep -n 4 --ppn 4 --threads 2
expect 2 "--threads: .*1024" -- "$mgen" nas ep -n 4 --threads 2000
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
