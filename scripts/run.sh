#!/usr/bin/env bash
# Builds mgen and runs the main job on the built-in default machine: the machine summary, the
# HPCC random-ring benchmark as an MGEN program on 64 ranks, and a uniform-traffic load sweep
# up to saturation, with pictures of both in build/plots/. Extra arguments go to `mgen traffic`.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
build_dir=${MGEN_BUILD_DIR:-build}
"$build_dir/mgen" info
echo
mkdir -p "$build_dir/plots"
"$build_dir/mgen" run -n 64 --plot "$build_dir/plots/random_ring" "$build_dir/examples/random_ring"
echo
"$build_dir/mgen" traffic uniform --sweep 0.1:1.0:0.1 --plot "$build_dir/plots/uniform" "$@"
echo
echo "pictures: $build_dir/plots/random_ring-ranks.png, random_ring-links.png, uniform-latency.png"
