#!/usr/bin/env bash
# Side-by-side benchmark of mgen and SimGrid SMPI on the same programs and the same platform
# (a 2-level full-bisection fat tree, 10 GB/s and 1 us links). See README.md beside this file.
#
#   bench/sidebyside/run.sh [BUILD_DIR] [options]
#
# Not part of CI or ctest. Runs every simulator process under /usr/bin/time and `timeout`.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bench/sidebyside/run.sh [BUILD_DIR] [options]

  BUILD_DIR             mgen build directory with mgen and mgen-cc (default: build)
  --ranks "P ..."       rank counts (default: "64 256 1024 4096")
  --programs "C ..."    cases among halo2d allreduce_small allreduce_large alltoall pingpong
                        (default: all five)
  --quick               about a tenth of the iterations, for trying the script out
  --colls pinned|native pinned (default): the same algorithm in both simulators; native:
                        each simulator's own selection
  --eager BYTES         largest eager message in both simulators (default: 16384, mgen's
                        default); above it mgen uses rendezvous (RTS/CTS) and SimGrid's
                        sender waits for the receiver
  --sg-model M          SimGrid network model: CM02 (default: no correction factors, the
                        nominal links) or SMPI (SMPI's calibrated factors)
  --no-simgrid          mgen only (also the case when smpicc/smpirun are not installed)
  --no-analytic         skip the extra run on mgen's analytic backend
  --timeout SECONDS     per simulator run (default: 3600)
  --out FILE            also write the Markdown tables to FILE
  --work DIR            where binaries, platforms and logs go (default: a new /tmp/sbs.XXXXXX)
  -h, --help            this text
EOF
}

here=$(cd "$(dirname "$0")" && pwd)
build=""
ranks="64 256 1024 4096"
programs="halo2d allreduce_small allreduce_large alltoall pingpong"
quick=0
colls=pinned
sg_model=CM02
eager=16384
use_simgrid=1
use_analytic=1
limit=3600
out=""
work=""
while [ $# -gt 0 ]; do
  case "$1" in
    --ranks) ranks=$2; shift 2 ;;
    --programs) programs=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --colls) colls=$2; shift 2 ;;
    --sg-model) sg_model=$2; shift 2 ;;
    --eager) eager=$2; shift 2 ;;
    --no-simgrid) use_simgrid=0; shift ;;
    --no-analytic) use_analytic=0; shift ;;
    --timeout) limit=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *)
      [ -z "$build" ] || { echo "run.sh: two build directories given ($build, $1)" >&2; exit 2; }
      build=$1; shift ;;
  esac
done
build=$(cd "${build:-build}" && pwd)
case "$colls" in pinned | native) ;; *) echo "run.sh: --colls must be pinned or native" >&2; exit 2 ;; esac
case "$sg_model" in CM02 | SMPI) ;; *) echo "run.sh: --sg-model must be CM02 or SMPI" >&2; exit 2 ;; esac
for p in $programs; do
  case "$p" in halo2d | allreduce_small | allreduce_large | alltoall | pingpong) ;;
    *) echo "run.sh: unknown program '$p'" >&2; exit 2 ;;
  esac
done
[[ "$eager" =~ ^[0-9]+$ ]] || { echo "run.sh: --eager takes a number of bytes" >&2; exit 2; }
for p in $ranks; do
  [[ "$p" =~ ^[0-9]+$ ]] && [ "$p" -ge 2 ] || { echo "run.sh: bad rank count '$p'" >&2; exit 2; }
done
for tool in mgen mgen-cc; do
  [ -x "$build/$tool" ] || { echo "run.sh: $build/$tool not found; build mgen first (scripts/build.sh)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "run.sh: /usr/bin/time is needed (apt-get install time)" >&2; exit 1; }
if [ "$use_simgrid" -eq 1 ] && ! { command -v smpicc && command -v smpirun; } >/dev/null 2>&1; then
  echo "run.sh: smpicc/smpirun not found (apt-get install libsimgrid-dev); SimGrid columns skipped" >&2
  use_simgrid=0
fi
[ -n "$work" ] || work=$(mktemp -d /tmp/sbs.XXXXXX)
mkdir -p "$work/bin" "$work/platform" "$work/log"
echo "run.sh: binaries, platforms and logs in $work" >&2

# --- The cases: program, its arguments, and the collective algorithms to pin -----------------

# Iterations: full, then --quick.
iterations() {
  local full=$1 few=$2
  if [ "$quick" -eq 1 ]; then echo "$few"; else echo "$full"; fi
}

# Sets case_prog, case_args, case_mgen_colls (--set arguments) and case_sg_colls (--cfg ones).
# Pinned algorithms are the same algorithm in both simulators: recursive doubling for the
# short allreduce (SimGrid rdb), Rabenseifner's reduce-scatter + allgather for the long one
# (SimGrid rab_rdb), the pairwise exchange for alltoall (SimGrid pair: XOR partners, powers of
# two only; ring, the rank +- i partners mgen uses on other sizes), and the dissemination
# barrier before the timed loop (SimGrid ompi_bruck). $2 is the rank count.
describe_case() {
  local p=${2:-2}
  case_mgen_colls=(--set collectives.barrier=dissemination)
  case_sg_colls=(--cfg=smpi/barrier:ompi_bruck)
  case "$1" in
    halo2d)
      case_prog=halo2d; case_args=(-i "$(iterations 100 10)" -s 64K) ;;
    allreduce_small)
      case_prog=allreduce; case_args=(-i "$(iterations 100 10)" -s 64)
      case_mgen_colls+=(--set collectives.allreduce=recursive_doubling)
      case_sg_colls+=(--cfg=smpi/allreduce:rdb) ;;
    allreduce_large)
      case_prog=allreduce; case_args=(-i "$(iterations 10 2)" -s 1M)
      case_mgen_colls+=(--set collectives.allreduce=rabenseifner)
      case_sg_colls+=(--cfg=smpi/allreduce:rab_rdb) ;;
    alltoall)
      case_prog=alltoall; case_args=(-i "$(iterations 10 2)" -s 4K)
      case_mgen_colls+=(--set collectives.alltoall=pairwise)
      if [ $((p & (p - 1))) -eq 0 ]; then
        case_sg_colls+=(--cfg=smpi/alltoall:pair)
      else
        case_sg_colls+=(--cfg=smpi/alltoall:ring)
      fi ;;
    pingpong)
      case_prog=pingpong; case_args=(-i "$(iterations 10 2)" -m 4M -f 2) ;;
  esac
  if [ "$colls" = native ]; then
    case_mgen_colls=()
    case_sg_colls=()
  fi
}

# Application buffers of all ranks together, in bytes (what both simulators must hold), plus
# a rough 256 KiB per rank for the simulator's own state. Cases that would not fit in the
# memory available are skipped rather than left to the OOM killer.
case_bytes() {
  local p=$2 per_rank
  case "$1" in
    halo2d) per_rank=$((8 * 65536)) ;;
    allreduce_small) per_rank=4096 ;;
    allreduce_large) per_rank=$((3 * 1048576)) ;;
    alltoall) per_rank=$((2 * p * 4096)) ;;
    pingpong) per_rank=$((2 * 4194304 / p + 1)) ;; # two ranks hold 4 MiB
  esac
  echo $(((per_rank + 262144) * p))
}

mem_available() {
  awk '/^MemAvailable:/ { printf "%.0f\n", $2 * 1024 }' /proc/meminfo
}

# --- Building ---------------------------------------------------------------------------------

needed_progs=()
for c in $programs; do
  describe_case "$c"
  [[ " ${needed_progs[*]} " == *" $case_prog "* ]] || needed_progs+=("$case_prog")
done
for prog in "${needed_progs[@]}"; do
  "$build/mgen-cc" -O2 -o "$work/bin/${prog}_mgen" "$here/$prog.c"
  if [ "$use_simgrid" -eq 1 ]; then
    smpicc -O2 -o "$work/bin/${prog}_smpi" "$here/$prog.c"
  fi
done

# --- Platforms --------------------------------------------------------------------------------

# The smallest k with k * k >= P: k leaf switches of k nodes, k spines, every leaf linked once
# to every spine (full bisection). Ranks take nodes 0..P-1, one per node.
radix() {
  local p=$1 k=1
  while [ $((k * k)) -lt "$p" ]; do k=$((k + 1)); done
  echo "$k"
}

write_mgen_platform() {
  local k=$1 file=$2 eager=$3
  cat >"$file" <<EOF
# Generated by bench/sidebyside/run.sh: the platform of SimGrid's
# <cluster topology="FAT_TREE" topo_parameters="2;$k,$k;1,$k;1,1" bw="10GBps" lat="1us">.
[machine]
name = "sbs-fattree-$k"
description = "side-by-side benchmark: 2-level fat tree of $k x $k nodes, 10 GB/s and 1 us links"

[network]
backend = "packet"

[topology]
kind = "fattree"
down = [$k, $k]
up = [$k]
link_bandwidth = "10GB/s"
link_latency = "1us"

# SimGrid's switches take no time; so do these. The VC buffers cover the credit round trip
# of a 1 us link (2 us x 10 GB/s = 20 KB), which the default 16 KiB would not.
[router]
routing_delay = "0ns"
vc_alloc_delay = "0ns"
switch_alloc_delay = "0ns"
switch_delay = "0ns"
vc_buffer = "64KiB"

[nic]
link_bandwidth = "10GB/s"
link_latency = "1us"

# SimGrid's smpi/os, or, ois are 0 by default; the eager limit matches
# --cfg=smpi/send-is-detached-thresh and smpi/async-small-thresh ($((eager + 1)): "size < $((eager + 1))").
[mpi]
eager_threshold = "${eager}B"
send_overhead = "0ns"
recv_overhead = "0ns"
poll_overhead = "0ns"

[node]
procs_per_node = 1
EOF
}

write_sg_platform() {
  local k=$1 file=$2
  cat >"$file" <<EOF
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- Generated by bench/sidebyside/run.sh: 2-level full-bisection fat tree of $k x $k nodes. -->
<platform version="4.1">
  <cluster id="fattree" prefix="node-" suffix="" radical="0-$((k * k - 1))" speed="1Gf"
           bw="10GBps" lat="1us" topology="FAT_TREE" topo_parameters="2;$k,$k;1,$k;1,1"
           sharing_policy="SPLITDUPLEX"/>
</platform>
EOF
}

# --- Running ----------------------------------------------------------------------------------

# Runs "$@" under timeout and /usr/bin/time; sets run_status (ok, TIMEOUT, FAIL(rc), NORESULT,
# CHECK-FAILED), run_wall, run_cpu, run_rss_mib and run_pred from the program's result line.
measure() {
  local log=$1
  shift
  local times="$log.time" rc=0
  timeout --kill-after=30 "$limit" /usr/bin/time -f '%e %U %S %M' -o "$times" "$@" >"$log.out" 2>"$log.err" || rc=$?
  run_wall=- run_cpu=- run_rss_mib=- run_pred=-
  if [ -s "$times" ] && tail -n 1 "$times" | grep -Eq '^[0-9.]+ [0-9.]+ [0-9.]+ [0-9]+$'; then
    read -r run_wall run_cpu_user run_cpu_sys run_rss_kib < <(tail -n 1 "$times")
    run_cpu=$(awk -v u="$run_cpu_user" -v s="$run_cpu_sys" 'BEGIN { printf "%.2f", u + s }')
    run_rss_mib=$(awk -v k="$run_rss_kib" 'BEGIN { printf "%.0f", k / 1024 }')
  fi
  local line
  line=$(grep -E '^sbs ' "$log.out" | tail -n 1 || true)
  [ -z "$line" ] || run_pred=$(sed -E 's/.* time_s=([^ ]+).*/\1/' <<<"$line")
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    run_status=TIMEOUT
  elif [ "$rc" -ne 0 ]; then
    run_status="FAIL($rc)"
  elif [ -z "$line" ]; then
    run_status=NORESULT
  elif ! grep -q 'check=ok' <<<"$line"; then
    run_status=CHECK-FAILED
  else
    run_status=ok
  fi
  if [ "$run_status" != ok ]; then
    failures+=("$run_status: $* (log: $log.out, $log.err)")
    echo "run.sh: $run_status: $*" >&2
    sed -n '1,15p' "$log.err" | sed 's/^/    /' >&2
  fi
}

ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN {
    num = "^[0-9.]+([eE][-+]?[0-9]+)?$"
    if (a !~ num || b !~ num || b + 0 == 0) { print "-"; exit }
    printf "%.3g", a / b }'
}

seconds() {
  awk -v t="$1" 'BEGIN { if (t ~ /^[0-9.]+([eE][-+]?[0-9]+)?$/) printf "%.4g", t; else print t }'
}

failures=()
rows=()
pingpong_logs=()
sg_common=(
  --cfg=smpi/simulate-computation:no
  --cfg=network/model:"$sg_model"
  --cfg=network/crosstraffic:0
  --cfg=smpi/send-is-detached-thresh:$((eager + 1))
  --cfg=smpi/async-small-thresh:$((eager + 1))
  --cfg=smpi/host-speed:1Gf
  --log=root.thres:warning
)

for p in $ranks; do
  k=$(radix "$p")
  mgen_platform="$work/platform/fattree-$k.toml"
  sg_platform="$work/platform/fattree-$k.xml"
  hostfile="$work/platform/hosts-$p.txt"
  write_mgen_platform "$k" "$mgen_platform" "$eager"
  write_sg_platform "$k" "$sg_platform"
  seq 0 $((p - 1)) | sed 's/^/node-/' >"$hostfile"
  for c in $programs; do
    describe_case "$c" "$p"
    need=$(case_bytes "$c" "$p")
    avail=$(mem_available)
    if [ "$need" -gt $((avail * 7 / 10)) ]; then
      msg="SKIP: $c at $p ranks needs ~$((need >> 20)) MiB, $((avail >> 20)) MiB available"
      echo "run.sh: $msg" >&2
      failures+=("$msg")
      rows+=("| $c | $p | skipped (memory) | | | | | | | | | | | |")
      continue
    fi
    echo "run.sh: $c, $p ranks (fat tree k=$k)" >&2
    log="$work/log/$c-$p"

    measure "$log.mgen" "$build/mgen" run -n "$p" --ppn 1 --ignore-compute -c "$mgen_platform" \
      "${case_mgen_colls[@]}" "$work/bin/${case_prog}_mgen" "${case_args[@]}"
    m_status=$run_status m_wall=$run_wall m_cpu=$run_cpu m_rss=$run_rss_mib m_pred=$run_pred

    # The analytic backend with its one shared resource, the NICs: no contention inside the
    # network, but one node's messages take turns at its NIC, as they share its link in SimGrid.
    a_cpu=- a_pred=-
    if [ "$use_analytic" -eq 1 ]; then
      measure "$log.analytic" "$build/mgen" run -n "$p" --ppn 1 --ignore-compute -c "$mgen_platform" \
        --set network.backend=analytic --set analytic.nic_contention=true "${case_mgen_colls[@]}" "$work/bin/${case_prog}_mgen" "${case_args[@]}"
      a_cpu=$run_cpu a_pred=$run_pred
      [ "$run_status" = ok ] || a_pred=$run_status
    fi

    s_wall=- s_cpu=- s_rss=- s_pred=- s_status=-
    if [ "$use_simgrid" -eq 1 ]; then
      # The privatized copies of the program go to $TMPDIR (smpirun's -tmpdir option takes one
      # word too few in SimGrid 3.32: its directory is then run as the program).
      measure "$log.simgrid" env TMPDIR="$work" smpirun -np "$p" -platform "$sg_platform" -hostfile "$hostfile" \
        "${sg_common[@]}" "${case_sg_colls[@]}" "$work/bin/${case_prog}_smpi" "${case_args[@]}"
      s_status=$run_status s_wall=$run_wall s_cpu=$run_cpu s_rss=$run_rss_mib s_pred=$run_pred
    fi

    [ "$m_status" = ok ] || m_pred=$m_status
    [ "$s_status" = ok ] || [ "$s_status" = - ] || s_pred=$s_status
    rows+=("| $c | $p | $m_wall | $m_cpu | $m_rss | $(seconds "$m_pred") | $a_cpu | $(seconds "$a_pred") \
| $s_wall | $s_cpu | $s_rss | $(seconds "$s_pred") | $(ratio "$s_cpu" "$m_cpu") | $(ratio "$m_pred" "$s_pred") |")
    [ "$c" != pingpong ] || [ ${#pingpong_logs[@]} -gt 0 ] || pingpong_logs+=("$p:$log")
  done
done

# --- Report -----------------------------------------------------------------------------------

report() {
  echo "## mgen vs SimGrid SMPI, $(date -u +%Y-%m-%d)"
  echo
  echo "Platform: 2-level full-bisection fat tree (k x k nodes, k = ceil(sqrt(P))), 10 GB/s and 1 us"
  echo "links, one rank per node, computation ignored. mgen $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'),"
  echo "packet backend (analytic with NIC contention as an extra column); SimGrid $(smpirun -version 2>/dev/null | head -n 1 || echo 'not run'),"
  echo "network model $sg_model; collectives $colls; eager up to $eager B. Wall and CPU (user + sys) in seconds, RSS in MiB;"
  echo "predicted = the program's own MPI_Wtime() time, slowest rank. Host: $(nproc) cores, $(uname -r)."
  echo
  echo "| program | ranks | mgen wall | mgen CPU | mgen RSS | mgen predicted | analytic CPU | analytic predicted \
| SimGrid wall | SimGrid CPU | SimGrid RSS | SimGrid predicted | CPU SimGrid/mgen | predicted mgen/SimGrid |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${rows[@]}"
  local entry p log logs f
  for entry in "${pingpong_logs[@]}"; do
    p=${entry%%:*}
    log=${entry#*:}
    echo
    echo "### pingpong at $p ranks: half round-trip time per size (us)"
    echo
    echo "| bytes | mgen | analytic | SimGrid | mgen/SimGrid |"
    echo "|---:|---:|---:|---:|---:|"
    # One column per simulator that wrote its log.
    logs=()
    for f in "$log".{mgen,analytic,simgrid}.out; do
      [ ! -f "$f" ] || logs+=("$f")
    done
    awk '
      /^sbs-pingpong / {
        col = FILENAME ~ /[.]mgen[.]out$/ ? 1 : FILENAME ~ /[.]analytic[.]out$/ ? 2 : 3
        for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        t[col, v["bytes"]] = v["half_rtt_s"] * 1e6
        if (!(v["bytes"] in seen)) { seen[v["bytes"]] = 1; order[++n] = v["bytes"] }
      }
      function cell(c, b) { return ((c, b) in t) ? sprintf("%.3f", t[c, b]) : "-" }
      END {
        for (i = 1; i <= n; i++) {
          b = order[i]
          r = ((1, b) in t && (3, b) in t && t[3, b] > 0) ? sprintf("%.3f", t[1, b] / t[3, b]) : "-"
          printf "| %s | %s | %s | %s | %s |\n", b, cell(1, b), cell(2, b), cell(3, b), r
        }
      }' "${logs[@]}"
  done
  if [ ${#failures[@]} -gt 0 ]; then
    echo
    echo "Problems:"
    echo
    printf -- '- %s\n' "${failures[@]}"
  fi
}

if [ -n "$out" ]; then
  report | tee "$out"
else
  report
fi
