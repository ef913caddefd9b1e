#!/usr/bin/env bash
# Builds mgen and runs the whole test suite (the command CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh "$@"
build_dir=${MGEN_BUILD_DIR:-build}
ctest --test-dir "$build_dir" --output-on-failure --parallel "$(nproc)" --timeout 600
