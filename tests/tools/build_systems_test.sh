#!/usr/bin/env bash
# Real build systems take mgen-cc as their MPI compiler, and what they build runs under mgen:
#   - autotools: `./configure CC=mgen-cc` passes AC_PROG_CC (not a cross compile), links
#     MPI_Init and runs an MPI program (started by itself, a one-rank job); `make check` runs
#     the program by itself; `mgen run -n 4` runs the ring;
#   - CMake with find_package(MPI): FindMPI interrogates mgen-cc (-compile-info, -link-info) as
#     MPI_C_COMPILER (the program is then linked by plain cc, as a position-independent
#     executable), or uses mgen-cc as the C compiler; both rings run under `mgen run -n 4`;
#     the same with mgen-cxx for a C++ ring that prints with std::cout.
# The projects are copied from tests/tools/projects into a temporary directory.
# Usage: build_systems_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=expect.sh
source "$(dirname "$0")/expect.sh"
mgen=$build/mgen
projects=$src/tests/tools/projects
# What rank r of 4 prints: rank r-1's token, 10 (r-1) + 4, and its own first call count.
ring4="rank 0 of 4 got 34 \(calls 1\).*rank 1 of 4 got 4 \(calls 1\).*rank 2 of 4 got 14 \(calls 1\).*rank 3 of 4 got 24 \(calls 1\)"
ring4cxx="c\+\+ rank 0 of 4 got 34 c\+\+ rank 1 of 4 got 4 c\+\+ rank 2 of 4 got 14 c\+\+ rank 3 of 4 got 24"
sorted() { "$@" 2>&1 | sort; }

if command -v autoreconf >/dev/null && command -v automake >/dev/null; then
  cp -r "$projects/autotools_ring" "$work/auto" && cp "$projects/ring.c" "$work/auto/"
  (cd "$work/auto" && autoreconf -i >/dev/null 2>&1) || { echo "FAIL: autoreconf"; exit 1; }
  expect 0 "checking whether we are cross compiling\.\.\. no.*checking for MPI_Init\.\.\. yes.*for MPI 3 or later\.\.\. yes" \
    -- bash -c "cd '$work/auto' && ./configure CC='$build/mgen-cc'"
  expect 0 "mgen-cc" -- make -C "$work/auto"
  expect 0 "PASS: ring" -- make -C "$work/auto" check
  expect 0 "$ring4" -- sorted "$mgen" run -n 4 -q "$work/auto/ring"
else
  echo "skip: autotools (autoreconf, automake) not installed; scripts/setup-deps.sh installs them"
fi

if command -v cmake >/dev/null; then
  cp -r "$projects/cmake_ring" "$work/cmake" && cp "$projects/ring.c" "$work/cmake/"
  # MPI_C_COMPILER=mgen-cc: FindMPI's own parse of the wrapper finds MPICH's mpi.h and libmgen.
  # (Not in a sanitizer build: FindMPI keeps only -Wl, link flags, so the plain compiler's link
  # lacks the sanitizer runtime the instrumented libmgen_rank.a needs.)
  if grep -q '^sanitize=""' "$build/mgen-cc"; then
    expect 0 "Found MPI_C: .*version \"4\.0\"" -- cmake -S "$work/cmake" -B "$work/cmake/b1" -DMPI_C_COMPILER="$build/mgen-cc" \
      -DMPI_CXX_COMPILER="$build/mgen-cxx"
    expect 0 "includes=.*mpich.*libraries=.*libmgen_rank\.a;.*libmgen\.so" -- cat "$work/cmake/b1/mpi-found.txt"
    expect 0 "Built target ring" -- cmake --build "$work/cmake/b1"
    expect 0 "$ring4" -- sorted "$mgen" run -n 4 -q "$work/cmake/b1/ring"
    expect 0 "$ring4cxx" -- sorted "$mgen" run -n 4 -q "$work/cmake/b1/ring_cxx"
    expect 0 "rank 0 of 1 got 1 \(calls 1\)" -- "$work/cmake/b1/ring"
  else
    echo "skip: MPI_C_COMPILER=mgen-cc in a sanitizer build"
  fi
  # mgen-cc as the C compiler: FindMPI sees that it compiles MPI programs as it is.
  expect 0 "Check for working C compiler: .*mgen-cc.*Found MPI_C: .*mgen-cc" \
    -- env CC="$build/mgen-cc" CXX="$build/mgen-cxx" cmake -S "$work/cmake" -B "$work/cmake/b2"
  expect 0 "Built target ring" -- cmake --build "$work/cmake/b2"
  expect 0 "$ring4" -- sorted "$mgen" run -n 4 -q "$work/cmake/b2/ring"
  expect 0 "$ring4cxx" -- sorted "$mgen" run -n 4 -q "$work/cmake/b2/ring_cxx"
fi

# MPICH's wrapper queries: -compile-info compiles (no link flags), -link-info links.
expect 0 "^cc .*-I[^ ]*mpich.*-DMGEN_SIMULATED=1 [^ ]*-fPIC[^@]*$" -- "$build/mgen-cc" -compile-info
expect 1 "." -- bash -c "'$build/mgen-cc' -compile-info | grep -e -lmgen"
expect 0 "-shared .*libmgen_rank\.a .*-lmgen" -- "$build/mgen-cc" -link-info

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "build systems: all passed"
