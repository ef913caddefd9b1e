#!/usr/bin/env bash
# Network benchmark sweep: 64 to 64K nodes, tori and fat trees, uniform traffic at half of each
# network's saturation load (found by bench_network's bisection unless given), 20 M events
# timed after a 20 us warm-up. Results go to docs/PERFORMANCE.md by hand.
# Usage: bench/run_network_bench.sh [build-dir] [extra bench_network options...]
set -euo pipefail
bin=${1:-build}/bench/bench_network
shift || true
run() { "$bin" "$@"; }
run --label "torus 4x4x4" --set 'topology.dims=[4,4,4]' "$@"
run --label "torus 8x8x8" --set 'topology.dims=[8,8,8]' "$@"
run --label "torus 16x16x16" --set 'topology.dims=[16,16,16]' "$@"
run --label "torus 32x32x32" --set 'topology.dims=[32,32,32]' --sweep-measure 4us "$@"
run --label "torus 32x32x64" --set 'topology.dims=[32,32,64]' --sweep-measure 4us "$@"
run --label "torus 16x16x16 adaptive" --set 'topology.dims=[16,16,16]' --set router.routing=adaptive \
  --set router.vcs=4 "$@"
run --label "fattree 8-ary 2-tree" --set topology.kind=fattree --set 'topology.down=[8,8]' --set 'topology.up=[8]' "$@"
run --label "fattree 16-ary 3-tree" --set topology.kind=fattree --set 'topology.down=[16,16,16]' \
  --set 'topology.up=[16,16]' "$@"
run --label "fattree 32x32x64 3-level" --set topology.kind=fattree --set 'topology.down=[32,32,64]' \
  --set 'topology.up=[32,32]' --sweep-measure 4us "$@"
