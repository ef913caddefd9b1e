#!/usr/bin/env bash
# Configures and builds mgen into build/ (or $MGEN_BUILD_DIR). Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup-deps.sh
build_dir=${MGEN_BUILD_DIR:-build}
generator=()
[ -f "$build_dir/CMakeCache.txt" ] || { command -v ninja >/dev/null 2>&1 && generator=(-G Ninja); }
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE="${MGEN_BUILD_TYPE:-Release}" "$@" >/dev/null
cmake --build "$build_dir" --parallel "$(nproc)"
