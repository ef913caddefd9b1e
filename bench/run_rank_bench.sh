#!/usr/bin/env bash
# Rank runtime sweep: ring Sendrecv on 1K to 100K ranks, packet and analytic networks.
# Usage: bench/run_rank_bench.sh [build-dir]   (results go to docs/PERFORMANCE.md by hand)
set -euo pipefail
bin=${1:-build}/bench/bench_ranks
for backend in analytic packet; do
  "$bin" -n 1024 --ppn 2 --iterations 100 --set network.backend=$backend
  "$bin" -n 10240 --iterations 100 --set 'topology.dims=[22,22,22]' --set network.backend=$backend
  "$bin" -n 102400 --ppn 4 --iterations 10 --set 'topology.dims=[32,32,25]' --set network.backend=$backend
done
