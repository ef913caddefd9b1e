#!/usr/bin/env bash
# Before/after comparison of two builds on the steady-state network benchmark, in one window:
# each network alternates between the builds. Saturation loads are those bench_network's own
# bisection found (bench/run_network_bench.sh --verbose), so both builds run the same traffic.
# Usage: bench/compare_network.sh BASE_BUILD NEW_BUILD [EVENTS]
set -euo pipefail
base=${1:?usage: compare_network.sh BASE_BUILD NEW_BUILD [EVENTS]}
new=${2:?usage: compare_network.sh BASE_BUILD NEW_BUILD [EVENTS]}
events=${3:-10000000}
run() {
  local label=$1 sat=$2
  shift 2
  for b in "$base" "$new"; do
    "$b/bench/bench_network" --label "$(basename "$b") $label" --saturation "$sat" --repeat 3 --events "$events" "$@"
  done
}
run "torus 4x4x4" 0.758 --set 'topology.dims=[4,4,4]'
run "torus 8x8x8" 0.539 --set 'topology.dims=[8,8,8]'
run "torus 16x16x16" 0.320 --set 'topology.dims=[16,16,16]'
run "torus 32x32x32" 0.156 --set 'topology.dims=[32,32,32]'
run "torus 32x32x64" 0.086 --set 'topology.dims=[32,32,64]'
run "torus 16^3 adaptive" 0.352 --set 'topology.dims=[16,16,16]' --set router.routing=adaptive --set router.vcs=4
run "fattree 8-ary 2-tree" 0.781 --set topology.kind=fattree --set 'topology.down=[8,8]' --set 'topology.up=[8]'
run "fattree 16-ary 3-tree" 0.711 --set topology.kind=fattree --set 'topology.down=[16,16,16]' \
  --set 'topology.up=[16,16]'
