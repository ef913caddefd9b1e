#!/usr/bin/env bash
# The partitioned packet network (issue 24, item 1) against the serial run on this machine:
# one traffic run, serial, on T threads and over mpiexec -n 2, alternating, REPEAT times each;
# prints wall and CPU seconds (user + system, all processes) per run and the medians, and
# checks that every run's predictions equal the serial one's.
# Usage: bench/partition/run.sh BUILD_DIR [REPEAT] -- mgen-traffic-arguments...
#   e.g. bench/partition/run.sh build 3 -- uniform --load 0.15 --set 'topology.dims=[32,32,32]' --measure 5us
set -euo pipefail
build=$1
repeat=${2:-3}
shift 2
[ "${1:-}" = "--" ] && shift
mgen=$build/mgen
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
modes=("serial" "threads2" "mpiexec2")
run() {  # MODE I
  local cmd=("$mgen" traffic "$@")
  case $1 in
    serial) cmd=("$mgen" traffic "${args[@]}") ;;
    threads2) cmd=("$mgen" traffic "${args[@]}" --threads 2) ;;
    mpiexec2) cmd=(mpiexec -n 2 "$mgen" traffic "${args[@]}") ;;
  esac
  /usr/bin/time -f "%e %U %S" -o "$work/$1-$2.time" "${cmd[@]}" --report "$work/$1-$2.json" >/dev/null 2>&1
}
args=("$@")
for i in $(seq 1 "$repeat"); do
  for m in "${modes[@]}"; do run "$m" "$i"; done
done
python3 - "$work" "$repeat" "${modes[@]}" <<'PY'
import json, statistics, sys
work, repeat, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def preds(path):
    return [{k: v for k, v in p.items() if k not in ("wall_s", "events", "partitioned")}
            for p in json.load(open(path))["points"]]
ref = preds(f"{work}/serial-1.json")
print(f"{'mode':>10} {'wall s (runs)':>28} {'median':>8} {'cpu s median':>13} {'speedup':>8}  same predictions")
base = None
for m in modes:
    walls, cpus, same = [], [], True
    for i in range(1, repeat + 1):
        e, u, s = map(float, open(f"{work}/{m}-{i}.time").read().split()[-3:])
        walls.append(e); cpus.append(u + s)
        same = same and preds(f"{work}/{m}-{i}.json") == ref
    med = statistics.median(walls)
    base = base or med
    speedup = base / med if med > 0 else float("nan")  # runs below the clock's 10 ms
    print(f"{m:>10} {' '.join(f'{w:.2f}' for w in walls):>28} {med:8.2f} {statistics.median(cpus):13.2f} {speedup:8.2f}  {same}")
p = json.load(open(f"{work}/threads2-1.json"))["points"][0].get("partitioned", {})
print(f"windows {p.get('windows')}, partition 0 waited {p.get('sync_wall_s', 0):.2f} s (2 threads, run 1)")
PY
