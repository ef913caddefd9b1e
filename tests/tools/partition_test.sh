#!/usr/bin/env bash
# mgen traffic cut into partitions (issue 24, item 1): the JSON report of a serial run equals,
# in every prediction (all but the engine's event count, wall times and the partitioning's own
# figures), the report over 2 and 3 threads, over the 2 processes of an mpiexec launch, and
# over 2 processes of 2 threads each; on a torus with dimension-order routing, with router steps
# and FMA responses (long links), and on a fat tree with random up-ports. A launch whose
# network cannot be cut fails with the reason and no hang. validate and whatif under mpiexec are
# refused.
# Usage: partition_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
mgen=$build/mgen
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$src/tests/tools/expect.sh"
py=/usr/bin/python3
[ -x "$py" ] || py=python3

# Compares two traffic reports' points, leaving out what measures the run rather than the network.
same() {
  "$py" - "$1" "$2" <<'PY'
import json, sys
def points(path):
    out = []
    for p in json.load(open(path))["points"]:
        out.append({k: v for k, v in p.items() if k not in ("wall_s", "events", "partitioned")})
    return out
a, b = points(sys.argv[1]), points(sys.argv[2])
if a != b:
    for pa, pb in zip(a, b):
        for k in pa:
            if pa[k] != pb.get(k):
                print(f"{k}: {str(pa[k])[:60]} != {str(pb.get(k))[:60]}")
    sys.exit(1)
PY
}

cases=(
  "torus|uniform --sweep 0.1,0.4 --warmup 2us --measure 8us"
  "steps|uniform --load 0.3 --warmup 2us --measure 8us --set topology.dims=[4,4,4] --set topology.link_latency=600ns --set nic.link_latency=600ns --set nic.transport=fma"
  "fattree|transpose --load 0.4 --warmup 2us --measure 8us -c $src/configs/nsim-ace-ib.toml --set router.routing=random"
)
for c in "${cases[@]}"; do
  name=${c%%|*}
  read -r -a args <<<"${c#*|}"
  "$mgen" traffic "${args[@]}" --report "$work/$name-1.json" >"$work/$name-1.out" 2>&1 ||
    fail "$name, serial: $(tail -3 "$work/$name-1.out")"
  for t in 2 3; do
    "$mgen" traffic "${args[@]}" --threads $t --report "$work/$name-t$t.json" >"$work/$name-t$t.out" 2>&1 ||
      fail "$name, $t threads: $(tail -3 "$work/$name-t$t.out")"
    diffs=$(same "$work/$name-1.json" "$work/$name-t$t.json") || fail "$name: $t threads differ from one: $diffs"
  done
  if command -v mpiexec >/dev/null; then
    for t in 1 2; do
      timeout 300 mpiexec -n 2 "$mgen" traffic "${args[@]}" --threads $t --report "$work/$name-p2t$t.json" \
        </dev/null >"$work/$name-p2t$t.out" 2>&1 || fail "$name, 2 processes x $t threads: $(tail -3 "$work/$name-p2t$t.out")"
      diffs=$(same "$work/$name-1.json" "$work/$name-p2t$t.json") ||
        fail "$name: 2 processes x $t threads differ from one: $diffs"
      grep -q "$((2 * t)) partitions on $t thread(s) x 2 process(es)" "$work/$name-p2t$t.out" ||
        fail "$name: no partition line: $(head -5 "$work/$name-p2t$t.out")"
      [ "$(grep -c "^mgen traffic" "$work/$name-p2t$t.out")" -eq 1 ] || fail "$name: more than one process printed"
    done
  fi
  echo "ok: $name"
done

if command -v mpiexec >/dev/null; then
  # 600 partitions of 512 routers: every process refuses, and the launch ends with status 2.
  expect 2 "cannot cut the network into 600 partitions" -- timeout 120 mpiexec -n 2 "$mgen" traffic uniform \
    --measure 1us --threads 300
  # validate and whatif run their jobs whole: under an mpiexec of two each process would run them
  # again. Refused, said once, status 2. (Jobs over processes: partition_jobs_test.sh.)
  expect 2 "runs its jobs in one process" -- timeout 120 mpiexec -n 2 "$mgen" whatif
  # The refusing processes outlive mpiexec's forwarding of its stdin to the proxy (200 ms): exiting
  # at once let mpiexec die of SIGPIPE before forwarding the line, about 1 launch in 100 under
  # load (status 141, nothing said; tools/mgen/mpich.hpp, outlive_stdin_forwarding). So does a
  # process that fails on its command line, before any launch code runs.
  # launched_ms COMMAND...: runs it under mpiexec -n 2; its output in $out, its wall time in $took.
  launched_ms() {
    local start
    start=$(date +%s%N)
    out=$(timeout 120 mpiexec -n 2 "$@" 2>&1)
    took=$((($(date +%s%N) - start) / 1000000))
  }
  launched_ms "$mgen" whatif
  [ "$(grep -c "runs its jobs in one process" <<<"$out")" -eq 1 ] || fail "whatif under mpiexec: said it $(grep -c "runs its" <<<"$out") times"
  [ "$took" -ge 200 ] || fail "whatif under mpiexec: the launch ended after $took ms, before mpiexec had forwarded its stdin (200 ms)"
  launched_ms "$mgen" info --no-such-option
  grep -q "no-such-option" <<<"$out" || fail "a bad option under mpiexec: not said: $out"
  [ "$took" -ge 200 ] || fail "a bad option under mpiexec: the launch ended after $took ms, before mpiexec had forwarded its stdin (200 ms)"
fi
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
