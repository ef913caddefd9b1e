#!/usr/bin/env bash
# Builds mgen and runs the whole test suite (the command CI runs); then builds the engine and
# the network alone (-DMGEN_SIMCORE_ONLY=ON: no Boost, no MPI) and runs what that build tests.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh "$@"
build_dir=${MGEN_BUILD_DIR:-build}
ctest --test-dir "$build_dir" --output-on-failure --parallel "$(nproc)" --timeout 600
simcore_dir=${build_dir}-simcore
MGEN_BUILD_DIR=$simcore_dir ./scripts/build.sh -DMGEN_SIMCORE_ONLY=ON -DMGEN_BUILD_BENCH=OFF
ctest --test-dir "$simcore_dir" --output-on-failure --parallel "$(nproc)" --timeout 600
