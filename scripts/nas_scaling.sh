#!/usr/bin/env bash
# Predicted strong scaling of NAS kernels on two machines (docs/nas-scaling.md):
#   scripts/nas_scaling.sh [BUILD_DIR] [CLASS] [KERNELS...]
# Writes docs/img/nas-<kernel>-<machine>.png and prints the tables (Markdown) to stdout.
# Both machines use the analytic network backend (latency + bandwidth per hop) with
# analytic.nic_contention (messages queue at their NICs; links inside the network are not
# shared): NPB class B messages on Hopper's 64-byte packets would need hours of packet-level
# simulation at 256 ranks.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
cls=${2:-B}
shift $(($# > 2 ? 2 : $#)) || true
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(cg mg ft is)
mkdir -p "$here/docs/img"
for k in "${kernels[@]}"; do
  for machine in hopper nsim-ace-ib-256; do
    echo "### ${k^^} class $cls on $machine"
    echo
    echo '```'
    "$build/mgen" nas "$k" --class "$cls" --sweep-ranks 16,32,64,128,256 -c "$here/configs/$machine.toml" \
      --set network.backend=analytic --set analytic.nic_contention=true --plot "$here/docs/img/nas-$k-$machine.png" -q
    echo '```'
    echo
    echo "![${k} on ${machine}](img/nas-$k-$machine.png)"
    echo
  done
done
