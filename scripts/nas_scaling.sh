#!/usr/bin/env bash
# Predicted strong scaling of NAS kernels on two machines (docs/nas-scaling.md):
#   [BACKEND=flow|analytic] [SAMPLE=K] scripts/nas_scaling.sh [BUILD_DIR] [CLASS] [KERNELS...]
# Writes docs/img/nas-<kernel>-<machine>.png and prints the tables (Markdown) to stdout.
# BACKEND=flow (the default): max-min fair sharing of every link and NIC on the packet model's
# routes, so links inside the network are shared (docs/network-model.md). BACKEND=analytic:
# latency + bandwidth per hop with analytic.nic_contention (messages queue at their NICs; links
# inside the network are not shared), the backend of the first version of these curves. NPB
# class B messages on Hopper's 64-byte packets would need hours of packet-level simulation at
# 256 ranks. SAMPLE=K passes --sample K (extrapolate NPB's time from K and 2K iterations).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
cls=${2:-B}
shift $(($# > 2 ? 2 : $#)) || true
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(cg mg ft is)
backend=${BACKEND:-flow}
case $backend in
  flow) net=(--set network.backend=flow) ;;
  analytic) net=(--set network.backend=analytic --set analytic.nic_contention=true) ;;
  *) echo "nas_scaling.sh: BACKEND must be flow or analytic, not '$backend'" >&2; exit 2 ;;
esac
[ -z "${SAMPLE:-}" ] || net+=(--sample "$SAMPLE")
mkdir -p "$here/docs/img"
for k in "${kernels[@]}"; do
  for machine in hopper nsim-ace-ib-256; do
    echo "### ${k^^} class $cls on $machine"
    echo
    echo '```'
    "$build/mgen" nas "$k" --class "$cls" --sweep-ranks 16,32,64,128,256 -c "$here/configs/$machine.toml" \
      "${net[@]}" --plot "$here/docs/img/nas-$k-$machine.png" -q
    echo '```'
    echo
    echo "![${k} on ${machine}](img/nas-$k-$machine.png)"
    echo
  done
done
