#!/usr/bin/env bash
# Recorder overhead per MPI call and trace bytes per call (docs/PERFORMANCE.md):
#   bench/run_record_bench.sh [BUILD_DIR]
# Runs bench/record_overhead.c on 2 ranks under MPICH's mpiexec, plain and under
# `mgen record`, three times each, and prints the medians.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 -o "$work/bench" "$here/record_overhead.c"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for mode in plain recorded; do
  for i in 1 2 3; do
    if [[ $mode == plain ]]; then
      mpiexec -n 2 "$work/bench" >"$work/$mode.$i"
    else
      "$build/mgen" record -n 2 --out "$work/trace" -- "$work/bench" >"$work/$mode.$i" 2>/dev/null
    fi
  done
  for k in local_call_ns pingpong_call_ns; do
    v=$(cat "$work/$mode".* | awk -v k=$k '$1 == k {print $2}' | median)
    echo "$mode $k $v"
  done
done
records=$("$build/mgen" trace stats "$work/trace" | awk '$1 ~ /^[0-9]+$/ {n += $2} END {print n}')
bytes=$(cat "$work"/trace/*.mgt | wc -c)
echo "trace: $records records, $bytes bytes, $(awk -v b=$bytes -v r=$records 'BEGIN {printf "%.2f", b / r}') bytes per call"
