#!/usr/bin/env bash
# Regenerates the load-latency curves of docs/traffic.md on the default 8x8x8 torus.
# Usage: scripts/docs/traffic_curves.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
mgen=${1:-build}/mgen
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {  # name, then mgen traffic arguments
  local name=$1
  shift
  "$mgen" traffic "$@" --sweep 0.05:1.0:0.05 --report "$out/$name.json" >/dev/null
  python3 - "$out/$name.json" >"$out/$name.dat" <<'PY'
import json, sys
for p in json.load(open(sys.argv[1]))["points"]:
    print(p["offered"], p["accepted"], p["latency_mean_ns"], p["latency_p99_ns"], int(p["saturated"]))
PY
}
run uniform_dor uniform
run uniform_hashed uniform --set router.routing=hashed
run uniform_adaptive uniform --set router.routing=adaptive --set router.vcs=4
run transpose_dor transpose
run transpose_adaptive transpose --set router.routing=adaptive --set router.vcs=4
run bitcomp_dor bitcomp
run neighbor_dor neighbor

gnuplot <<GP
set terminal pngcairo size 900,560 font ",11"
set output "docs/figures/traffic-8x8x8.png"
set title "8x8x8 torus (built-in machine): mean latency vs offered load"
set xlabel "offered load (fraction of injection bandwidth)"
set ylabel "mean message latency (ns)"
set logscale y
set key top left
set grid
plot "$out/uniform_dor.dat" u 1:3 w lp t "uniform, dor", \
     "$out/uniform_hashed.dat" u 1:3 w lp t "uniform, hashed", \
     "$out/uniform_adaptive.dat" u 1:3 w lp t "uniform, adaptive (4 VCs)", \
     "$out/transpose_dor.dat" u 1:3 w lp t "transpose, dor", \
     "$out/transpose_adaptive.dat" u 1:3 w lp t "transpose, adaptive", \
     "$out/bitcomp_dor.dat" u 1:3 w lp t "bit complement, dor", \
     "$out/neighbor_dor.dat" u 1:3 w lp t "neighbour, dor"
GP
for f in "$out"/*.dat; do
  echo "== $(basename "$f" .dat)"
  cat "$f"
done
