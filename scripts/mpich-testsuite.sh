#!/usr/bin/env bash
# Runs MPICH's own test suite (test/mpi of an MPICH source tree, fetched by whoever runs it;
# nothing of it is in this repository) against mgen, or natively with MPICH's mpicc/mpiexec
# for the baseline, and writes a TSV of every run plus a Markdown summary. Not part of CI.
#
#   scripts/mpich-testsuite.sh MPICH_SOURCE_DIR [DIRS...]        mgen (build/mgen-cc, build/mgen run)
#   scripts/mpich-testsuite.sh --native MPICH_SOURCE_DIR [DIRS...]
#   scripts/mpich-testsuite.sh --compare NATIVE.tsv MGEN.tsv [--md OUT.md] [--failures OUT.tsv]
#
# DIRS default to coll pt2pt datatype comm group topo rma init attr errhan. Options: --build-dir,
# --work, --jobs, --timeout, --only REGEX, --tsv, --md; `--help` lists them. The logic is in
# scripts/mpich_testsuite.py; docs/mpi-coverage.md ("MPICH's test suite") has the latest tables.
set -euo pipefail
exec python3 "$(dirname "$0")/mpich_testsuite.py" "$@"
