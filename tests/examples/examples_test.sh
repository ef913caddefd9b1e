#!/usr/bin/env bash
# Runs every example program at small scale and checks exit codes, the shape of the output,
# and numbers against independent truth: closed forms computed here by hand from the documented
# machine parameters, hardware bounds, and exact arithmetic.
# Usage: examples_test.sh MGEN_BINARY SOURCE_DIR
set -uo pipefail
mgen=$1
src=$2
ex="$(dirname "$mgen")/examples"
ib="$src/configs/nsim-ace-ib.toml"
failures=0

# expect CODE PATTERN -- command...: runs the command, checks its exit code and that the
# combined output matches the extended regex PATTERN (on some line).
expect() {
  local code=$1 pattern=$2
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$code" ] || ! grep -Eq -- "$pattern" <<<"$out"; then
    echo "FAIL: $* -> exit $rc (wanted $code), output:"
    sed 's/^/    /' <<<"$out" | head -30
    echo "    (wanted /$pattern/)"
    failures=$((failures + 1))
  else
    echo "ok: $*"
  fi
}

# run NAME -- command...: runs a command that must succeed and keeps its output in $out.
out=""
run() {
  local name=$1
  shift 2
  local rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "FAIL: $name: $* -> exit $rc, output:"
    sed 's/^/    /' <<<"$out" | head -30
    failures=$((failures + 1))
    return 1
  fi
  return 0
}

# field REGEX N: the N-th whitespace-separated field of the first line of $out matching REGEX.
field() {
  grep -E -m1 -- "$1" <<<"$out" | awk -v n="$2" '{ print $n }'
}

# near NAME GOT WANT TOLERANCE: |GOT - WANT| <= TOLERANCE.
near() {
  if awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && d <= t) }'; then
    echo "ok: $1: $2 (want $3 +- $4)"
  else
    echo "FAIL: $1: got '$2', want $3 +- $4"
    failures=$((failures + 1))
  fi
}

# within NAME GOT LO HI: LO <= GOT <= HI.
within() {
  if awk -v g="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(g != "" && g + 0 >= lo + 0 && g + 0 <= hi + 0) }'; then
    echo "ok: $1: $2 in [$3, $4]"
  else
    echo "FAIL: $1: got '$2', want it in [$3, $4]"
    failures=$((failures + 1))
  fi
}

# less NAME A B: A < B.
less() {
  if awk -v a="$2" -v b="$3" 'BEGIN { exit !(a != "" && b != "" && a + 0 < b + 0) }'; then
    echo "ok: $1: $2 < $3"
  else
    echo "FAIL: $1: want '$2' < '$3'"
    failures=$((failures + 1))
  fi
}

# ---- the built-in default machine, by hand ------------------------------------------------
# network/include/mgen/net/config.hpp and libmgen/config/include/mgen/mpi/config.hpp: 8x8x8 torus (x varies fastest
# in node numbers), links 10 GB/s, router link latency L = 20 ns, NIC link latency 50 ns,
# head pipeline t_head = RC 4 + VA 4 + SA 4 + ST 20 = 32 ns, 32-byte packet header, DMA
# 20 GB/s (never the bottleneck for one stream), send and receive overheads 200 ns each,
# 64-byte MPI envelope, no RDMA overhead. docs/network-model.md's closed form for one packet
# of w wire bytes over h router hops (h + 1 routers):
#   T(w, h) = 2 * 50 + h * 20 + (h + 1) * 32 + w / 10   ns
net() { awk -v w="$1" -v h="$2" 'BEGIN { printf "%.4f", 2 * 50 + h * 20 + (h + 1) * 32 + w / 10 }'; }
# An eager 0-byte message is one packet of 64 (envelope) + 32 (header) bytes; its one-way
# latency is send overhead + network + receive overhead.
lat_1hop=$(awk -v t="$(net 96 1)" 'BEGIN { printf "%.4f", (200 + t + 200) / 1000 }')  # us: 0.5936
lat_4hop=$(awk -v t="$(net 96 4)" 'BEGIN { printf "%.4f", (200 + t + 200) / 1000 }')  # us: 0.7496
# Long messages: 2048-byte payloads in 2080-byte packets on 10 GB/s links.
link_mbs=$(awk 'BEGIN { printf "%.2f", 10e9 * 2048 / 2080 / 1e6 }')  # 9846.15 MB/s

# ---- hello --------------------------------------------------------------------------------
expect 0 "hello from rank 3 of 4" -- "$mgen" run -n 4 "$ex/hello"
expect 0 "^4 rank\(s\): a barrier took [0-9.]+ us of simulated time" -- "$mgen" run -n 4 "$ex/hello"
if run hello17 -- "$mgen" run -n 17 -q "$ex/hello"; then
  if grep -q "hello from" <<<"$out" || ! grep -q "^17 rank(s)" <<<"$out"; then
    echo "FAIL: hello on 17 ranks should print only rank 0's summary"
    failures=$((failures + 1))
  else
    echo "ok: hello on 17 ranks prints only the summary"
  fi
fi
expect 0 "usage: mgen run -n N .* hello" -- "$mgen" run -n 2 "$ex/hello" --help
expect 3 "hello: error: unexpected argument 'world'" -- "$mgen" run -n 3 "$ex/hello" world

# Bad command lines: a message from rank 0, the usage, and a failed run (exit 3).
expect 3 "pingpong: error: unknown option '--bogus'" -- "$mgen" run -n 2 "$ex/pingpong" --bogus
expect 3 "usage: mgen run -n N .* pingpong" -- "$mgen" run -n 2 "$ex/pingpong" --bogus
expect 3 "option --max: 'lots' is not an integer" -- "$mgen" run -n 2 "$ex/pingpong" --max lots
expect 3 "option --iters needs a value" -- "$mgen" run -n 2 "$ex/random_ring" --iters
expect 3 "unexpected argument '7'" -- "$mgen" run -n 2 "$ex/barrier_rd_rdma" 7
expect 3 "needs at least 2 ranks, not 1" -- "$mgen" run -n 1 "$ex/pingpong"
expect 3 "needs at least 2 ranks, not 1" -- "$mgen" run -n 1 "$ex/random_ring_rdma"
expect 3 "must be two different ranks" -- "$mgen" run -n 2 "$ex/bibw" --rank-b 0
expect 3 "unknown collective 'allreduse'" -- "$mgen" run -n 2 "$ex/coll_latency" --colls allreduse
expect 0 "^  --complete-each " -- "$mgen" run -n 2 "$ex/barrier_ring_rdma" --help

# ---- pingpong and bibw --------------------------------------------------------------------
# Neighbouring nodes 0 and 1 (1 hop), and nodes 0 and 4 on an x ring of 8 (4 hops).
if run pingpong -- "$mgen" run -n 2 -q "$ex/pingpong" --max 0; then
  near "pingpong 0 B one-way latency, 1 hop (us)" "$(field '^ +0 ' 2)" "$lat_1hop" 0.00005
fi
if run pingpong -- "$mgen" run -n 8 -q "$ex/pingpong" --rank-b 4 --max 64; then
  near "pingpong 0 B one-way latency, 4 hops (us)" "$(field '^ +0 ' 2)" "$lat_4hop" 0.00005
  # Every extra byte costs one byte time on the link (0.1 ns) in each direction.
  near "pingpong 64 B one-way latency, 4 hops (us)" "$(field '^ +64 ' 2)" "$(awk -v l="$lat_4hop" 'BEGIN { print l + 0.0064 }')" 0.00005
  grep -Eq "^# pingpong: ranks 0 <-> 4 of 8" <<<"$out" && grep -Eq "^ +64 +[0-9.]+ +[0-9.]+$" <<<"$out" ||
    { echo "FAIL: pingpong table shape"; failures=$((failures + 1)); }
fi
if run pingpong -- "$mgen" run -n 2 -q "$ex/pingpong" --max 4M --iters 1 --iters-large 1 --warmup 0; then
  [ "$(grep -cE '^ +[0-9]+ +[0-9.]+ ' <<<"$out")" -eq 24 ] && echo "ok: pingpong prints 24 sizes (0, 1, ..., 4 MiB)" ||
    { echo "FAIL: pingpong should print 24 sizes"; failures=$((failures + 1)); }
  within "pingpong 4 MiB bandwidth (MB/s), link bound $link_mbs" "$(field '^ +4194304 ' 3)" \
    "$(awk -v b="$link_mbs" 'BEGIN { print 0.99 * b }')" "$link_mbs"
fi
if run bibw -- "$mgen" run -n 2 -q "$ex/bibw" --max 4M --iters 1 --iters-large 1 --warmup 0; then
  within "bibw 4 MiB bandwidth (MB/s), both links" "$(field '^ +4194304 ' 2)" \
    "$(awk -v b="$link_mbs" 'BEGIN { print 2 * 0.99 * b }')" "$(awk -v b="$link_mbs" 'BEGIN { print 2 * b }')"
  less "bibw grows with the message size" "$(field '^ +1024 ' 2)" "$(field '^ +65536 ' 2)"
fi

# ---- random ring ----------------------------------------------------------------------------
# NSIM-ACE machine (configs/nsim-ace-ib.toml), 4 ranks on 4 nodes of one switch: each rank's
# NIC reads the 2 x 2 MiB it sends from memory at the 2.8 GB/s DMA speed (the links carry
# 4 GB/s x 2048/2080 = 3.94 GB/s), so the bandwidth per process is at most 2.8 GB/s.
if run random_ring -- "$mgen" run -n 4 -q -c "$ib" "$ex/random_ring" --iters 2; then
  grep -Eq "^ring order: [0-3] [0-3] [0-3] [0-3]$" <<<"$out" && echo "ok: random_ring prints a ring order" ||
    { echo "FAIL: random_ring ring order"; failures=$((failures + 1)); }
  within "random_ring bandwidth per process (GB/s), DMA bound 2.8" "$(field '^bandwidth per process' 4)" 2.75 2.8
fi
if run random_ring_rdma -- "$mgen" run -n 4 -q -c "$ib" "$ex/random_ring_rdma" --iters 2; then
  within "random_ring_rdma bandwidth per process (GB/s), DMA bound 2.8" "$(field '^bandwidth per process' 4)" 2.75 2.8
fi
if run random_ring16 -- "$mgen" run -n 16 --ppn 2 -q -c "$ib" "$ex/random_ring_rdma" --iters 1; then
  # 16 processes on 8 nodes over two levels of switches: contention, well below the bound.
  within "random_ring_rdma at 16 ranks, 2 per node (GB/s)" "$(field '^bandwidth per process' 4)" 0.5 2.8
fi
# Real buffers: every byte checked, the same order from the same seed on every rank.
expect 0 "data check: ok, 98304 bytes checked per rank" -- "$mgen" run -n 5 "$ex/random_ring" --data --bytes 16K --iters 3
expect 0 "^ring order: (0 1|1 0)$" -- "$mgen" run -n 2 "$ex/random_ring" --data --bytes 1000 --iters 2
# Above the eager threshold the payload goes by rendezvous; the sender may reuse or free its
# buffer once its send has completed.
expect 0 "data check: ok, 600000 bytes checked per rank" -- "$mgen" run -n 3 "$ex/random_ring" --data --bytes 100000 --iters 3

# ---- barriers -------------------------------------------------------------------------------
# Two ranks on neighbouring nodes of the default machine: each puts 8 bytes (40 wire bytes,
# no envelope) into the other and polls; the barrier ends when its own put's acknowledgement
# (a 64-byte control message, 96 wire bytes) is back: T(40, 1) + T(96, 1).
barrier2=$(awk -v a="$(net 40 1)" -v b="$(net 96 1)" 'BEGIN { printf "%.4f", (a + b) / 1000 }')  # 0.3816 us
for b in barrier_ring_rdma barrier_rd_rdma; do
  if run "$b" -- "$mgen" run -n 2 -q "$ex/$b" --iters 5; then
    near "$b on 2 ranks: min barrier time (us)" "$(field '^barrier time' 4)" "$barrier2" 0.00005
  fi
done
if run ring16 -- "$mgen" run -n 16 --ppn 2 -q -c "$ib" "$ex/barrier_ring_rdma" --iters 20; then
  ring16=$(field '^barrier time' 4)
  grep -q "^barrier check: ok" <<<"$out" || { echo "FAIL: ring barrier check"; failures=$((failures + 1)); }
fi
if run rd16 -- "$mgen" run -n 16 --ppn 2 -q -c "$ib" "$ex/barrier_rd_rdma" --iters 20; then
  rd16=$(field '^barrier time' 4)
  grep -q "^barrier check: ok" <<<"$out" || { echo "FAIL: RD barrier check"; failures=$((failures + 1)); }
  grep -q "recursive doubling: 4 step(s) (p = 2^4 + 0)" <<<"$out" || { echo "FAIL: RD steps"; failures=$((failures + 1)); }
fi
less "16 ranks: the recursive-doubling barrier is faster than the ring (us)" "${rd16:-}" "${ring16:-}"
# Non-powers of two take the extra steps; every barrier must hold.
for n in 3 7 12; do
  expect 0 "^barrier check: ok" -- "$mgen" run -n $n -c "$ib" "$ex/barrier_rd_rdma" --iters 10
  expect 0 "^barrier check: ok" -- "$mgen" run -n $n "$ex/barrier_ring_rdma" --iters 10 --complete-each
done
expect 0 "p = 2\^3 \+ 4" -- "$mgen" run -n 12 "$ex/barrier_rd_rdma" --iters 2 --complete-each

# ---- Cannon ---------------------------------------------------------------------------------
# One rank: one 1000^3 block multiply at 10 GFLOP/s is 2e9 / 1e10 = 200 ms, and nothing else.
expect 0 "^time: 200\.000000 ms \(slowest rank\)" -- "$mgen" run -n 1 "$ex/cannon"
# Four ranks: two 500^3 multiplies (2 x 25 ms) plus three 2 MB shifts (~0.2 ms each at 10 GB/s).
if run cannon4 -- "$mgen" run -n 4 -q "$ex/cannon"; then
  within "cannon n=1000 on 4 ranks (ms)" "$(field '^time:' 2)" 50.6 51.5
  grep -q "computation 50.000000 ms per rank in 2 block multiplies" <<<"$out" ||
    { echo "FAIL: cannon computation"; failures=$((failures + 1)); }
fi
expect 0 "in 3 block multiplies" -- "$mgen" run -n 16 "$ex/cannon" --fig5
# The JSON report agrees: every rank computed exactly 2 x 25 ms, and the job lasts at least
# as long as the slowest rank's measured time.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if run cannon_report -- "$mgen" run -n 4 -q --report "$work/cannon.json" "$ex/cannon"; then
  if python3 - "$work/cannon.json" "$(field '^time:' 2)" <<'PY'; then echo "ok: cannon report"; else failures=$((failures + 1)); fi
import json, sys
r = json.load(open(sys.argv[1]))
slowest_ms = float(sys.argv[2])
assert r["ok"] and r["ranks"] == 4, r
for k in r["per_rank"]:
    assert abs(k["compute_s"] - 0.05) < 1e-12, k
assert r["predicted_time_s"] >= slowest_ms * 1e-3 - 1e-12, (r["predicted_time_s"], slowest_ms)
PY
fi
for n in 4 9 16; do
  expect 0 "^verify: ok, C = A B in all 1296 entries" -- "$mgen" run -n $n "$ex/cannon" --n 36 --verify
done
expect 0 "^verify: C differs from A B \(expected with --fig5" -- "$mgen" run -n 4 "$ex/cannon" --n 36 --verify --fig5
# Blocks of 120 x 120 doubles (115200 bytes) go by rendezvous.
expect 0 "^verify: ok, C = A B in all 57600 entries" -- "$mgen" run -n 4 "$ex/cannon" --n 240 --verify
expect 3 "cannon: error: needs a square number of ranks, not 8" -- "$mgen" run -n 8 "$ex/cannon"
expect 3 "is not a multiple of sqrt\(p\) = 3" -- "$mgen" run -n 9 "$ex/cannon" --n 100

# ---- collectives ----------------------------------------------------------------------------
# Collectives this mgen lacks are reported as not available (weak references); the others
# print a table of 9 sizes from 4 B to 1 KiB.
if run coll_latency -- "$mgen" run -n 6 -q "$ex/coll_latency" --max 1K --data; then
  ok=1
  grep -Eq "^ +- +[0-9.]+ +[0-9.]+ +[0-9.]+$" <<<"$out" || ok=0  # the barrier's line
  for c in bcast allgather allreduce reduce alltoall; do
    if grep -q "^# $c: not available" <<<"$out"; then
      echo "note: coll_latency: $c is not available in this mgen"
      continue
    fi
    rows=$(awk -v c="# $c" '$0 == c { on = 1; next } /^#/ && on && !/size/ { on = 0 } on && /^ +[0-9]+ / { n++ } END { print n + 0 }' <<<"$out")
    [ "$rows" -eq 9 ] || { echo "FAIL: coll_latency: $c has $rows sizes, not 9"; ok=0; }
  done
  grep -q "^data check: ok" <<<"$out" || ok=0
  if [ $ok -eq 1 ]; then echo "ok: coll_latency tables and data check"; else
    echo "FAIL: coll_latency output:"
    sed 's/^/    /' <<<"$out" | head -60
    failures=$((failures + 1))
  fi
fi
expect 0 "^# bcast" -- "$mgen" run -n 16 "$ex/coll_latency" --colls barrier,bcast --max 64K --iters 2

# ---- ring_put (NSIM-ACE's sample program) ---------------------------------------------------
# Each rank's put of 4 bytes (36 wire bytes) to its right neighbour, then the acknowledgement:
# on 2 ranks T(36, 1) + T(96, 1) = 187.6 + 193.6 ns.
expect 0 "predicted time +381.2 ns" -- "$mgen" run -n 2 "$ex/ring_put"

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
