#!/usr/bin/env bash
# End-to-end checks of the `mgen` command: exit codes, error messages, reports, determinism.
# Usage: cli_test.sh MGEN_BINARY SOURCE_DIR PROGRAM_DIR
set -uo pipefail
mgen=$1
src=$2
programs=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=expect.sh
source "$(dirname "$0")/expect.sh"

expect 0 "torus 8x8x8" -- "$mgen" info
expect 0 "diameter 24 router hops" -- "$mgen" info -c "$src/configs/hopper.toml"
expect 0 "fat tree, 2 levels" -- "$mgen" info -c "$src/configs/nsim-ace-ib.toml"
expect 0 "fat tree, 4 levels" -- "$mgen" info -c "$src/configs/nsim-ace-ib-256.toml"
expect 0 "routing +adaptive" -- "$mgen" info --set router.routing=adaptive --set router.vcs=3
expect 0 "router.switch_delay" -- "$mgen" info --keys
# The active collective selector's table: MPICH's by default, mgen's own on request (a long allreduce
# is then the ring, Rabenseifner under MPICH's); "ompi" prints Open MPI 4.1.6's fixed rules;
# an unknown selector is a configuration error.
expect 0 "selector \"mpich\"" -- "$mgen" info
expect 0 "selector \"mgen\".*allreduce +bytes > 2048.* -> ring" -- "$mgen" info --set collectives.selector=mgen
expect 0 "allreduce +bytes <= 8 +-> recursive_doubling.*count < pof2\(p\) +-> recursive_doubling +any +-> rabenseifner" -- "$mgen" info --set collectives.selector=mpich
expect 0 "allreduce +configured: binomial" -- "$mgen" info --set collectives.allreduce=binomial
expect 0 "selector \"ompi\".*allreduce .*p < 512, bytes < 4096: nonoverlapping.* -> nonoverlapping +p < 512: rabenseifner +-> rabenseifner" -- "$mgen" info --set collectives.selector=ompi
expect 0 "bcast +configured: chain" -- "$mgen" info --set collectives.selector=ompi --set collectives.bcast=chain
expect 2 "collectives.selector: unknown selector 'openmpi'" -- "$mgen" info --set collectives.selector=openmpi

printf '[topology]\nkind = "torus"\ndims = [4, 4\n' >"$work/broken.toml"
expect 2 "broken.toml:[0-9]+:[0-9]+:" -- "$mgen" info -c "$work/broken.toml"
printf '[router]\nrotuing = "dor"\n' >"$work/typo.toml"
expect 2 "typo.toml:2:1: router.rotuing: .*did you mean .routing." -- "$mgen" info -c "$work/typo.toml"
printf '[topology]\nkind = "fattree"\ndown = [4, 4]\nup = [4, 4]\n' >"$work/tree.toml"
expect 2 "tree.toml:4:[0-9]+: topology.up:" -- "$mgen" info -c "$work/tree.toml"
printf '[topology]\ndims = [4, 0, 4]\n' >"$work/zero.toml"
expect 2 "zero.toml:2:[0-9]+: topology.dims:" -- "$mgen" info -c "$work/zero.toml"
printf '[nic]\nlink_bandwidth = "4 parsecs"\n' >"$work/unit.toml"
expect 2 "unit.toml:2:[0-9]+: nic.link_bandwidth:" -- "$mgen" info -c "$work/unit.toml"
expect 2 "router.vcs.*2 VCs" -- "$mgen" info --set router.vcs=1
expect 2 "cannot open machine file" -- "$mgen" info -c "$work/missing.toml"
expect 2 "unknown traffic pattern 'tornado2'" -- "$mgen" traffic tornado2
expect 2 "power-of-two number of endpoints, not 6528" -- "$mgen" traffic transpose -c "$src/configs/hopper.toml"
expect 2 "offered load" -- "$mgen" traffic uniform --load -1
expect 2 "--sweep" -- "$mgen" traffic uniform --sweep 0.1:x:0.1
expect 106 "required" -- "$mgen" traffic
expect 106 "subcommand" -- "$mgen"

expect 0 "busiest: router" -- "$mgen" traffic neighbor --load 0.5 --measure 10us --links "$work/links.csv"
if python3 - "$work/links.csv" <<'PY'; then echo "ok: link CSV"; else failures=$((failures + 1)); fi
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 512 * 7 + 512, len(rows)  # 6 torus ports + 1 ejection per router, plus NIC links
# Neighbour traffic only uses +X links, NIC links and ejection links.
for r in rows:
    used = int(r["bytes"]) > 0
    expect_used = "+X" in r["link"] or "nic" in r["link"]
    assert used == expect_used, r
    assert 0.0 <= float(r["utilization"]) <= 1.0, r
PY

# mgen run: results, reports, timelines, and failures with their exit codes.
# Closed form on the default machine (200 ns MPI overheads; a 96-byte envelope packet takes
# 193.6 ns over 1 hop, 245.6 ns over 2, 297.6 ns over 3; ranks 0-3 on routers 0-3 of a ring of
# 8): the dissemination barrier (MPICH's choice) sends to rank + 1, then rank + 2. Rank 3,
# ready at 4 us, sends to rank 0 at 4.2 us (3 hops): rank 0 receives at 4.4976 us, leaves
# round 1 at 4.6976 us, sends to rank 2 at 4.8976 us (2 hops), which receives at 5.1432 us and
# returns at 5.3432 us.
expect 0 "predicted time +5.343 us" -- "$mgen" run -n 4 "$programs/compute"
expect 0 "arg 1: --flag.*arg 2: 7" -- "$mgen" run -n 2 "$programs/compute" --flag 7
expect 0 "2 rank\(s\) per node" -- "$mgen" run -n 8 --ppn 2 "$programs/compute.so"
expect 3 "deadlock: 2 of 3 ranks.*rank 0: MGEN_Recv from rank 1, tag 4, on MGEN_COMM_WORLD" -- "$mgen" run -n 3 "$programs/deadlock"
expect 3 "rank 0: MGEN_Send: MGEN_ERR_RANK: destination 2 is not a rank" -- "$mgen" run -n 2 "$programs/bad_peer"
# An MGEN program's non-zero return fails the run, naming the rank, as main's does.
expect 3 "rank 2 returned 7 from MGEN_Main" -- "$mgen" run -n 4 "$programs/status" 2 7
expect 0 "predicted time" -- "$mgen" run -n 4 "$programs/status" 2 0
expect 2 "program 'nowhere' not found" -- "$mgen" run -n 2 nowhere
expect 2 "need 1000 nodes; the machine .* has 512" -- "$mgen" run -n 1000 "$programs/compute"
expect 2 "collectives.barrier: unknown algorithm 'fast'" -- "$mgen" run -n 2 --set collectives.barrier=fast "$programs/compute"
printf '0\n0\n1 1\n' >"$work/map.txt"
expect 0 "predicted" -- "$mgen" run -n 4 --placement "$work/map.txt" "$programs/compute"
printf '0 x\n' >"$work/badmap.txt"
expect 2 "badmap.txt:1: 'x' is not a node number" -- "$mgen" run -n 2 --placement "$work/badmap.txt" "$programs/compute"
expect 0 "predicted" -- "$mgen" run -n 6 --report "$work/run.json" --timeline "$work/trace.json" "$programs/compute"
if python3 - "$work/run.json" "$work/trace.json" <<'PY'; then echo "ok: run report and timeline"; else failures=$((failures + 1)); fi
import json, sys
r = json.load(open(sys.argv[1]))
assert r["ok"] and r["ranks"] == 6, r
# Rank 5 computes 6 us, the others less; everybody leaves the barrier after the slowest arrives.
assert 6e-6 < r["predicted_time_s"] < 8e-6, r["predicted_time_s"]
per = {p["rank"]: p for p in r["per_rank"]}
assert abs(per[5]["compute_s"] - 6e-6) < 1e-15 and abs(per[0]["compute_s"] - 1e-6) < 1e-15, per
assert per[0]["wait_s"] > per[5]["wait_s"], per
assert r["events"] > 0 and r["wall_s"] > 0 and r["messages"] > 0
t = json.load(open(sys.argv[2]))
names = {e["name"] for e in t["traceEvents"] if e["ph"] == "X"}
assert {"MGEN_Comp", "MGEN_Barrier"} <= names, names
comp = [e for e in t["traceEvents"] if e.get("name") == "MGEN_Comp" and e["tid"] == 5]
assert abs(comp[0]["dur"] - 6.0) < 1e-9, comp
PY

# A run with a report, twice: identical predictions.
expect 0 "offered" -- "$mgen" traffic uniform --load 0.2 --measure 10us --report "$work/a.json"
expect 0 "offered" -- "$mgen" traffic uniform --load 0.2 --measure 10us --report "$work/b.json"
if python3 - "$work/a.json" "$work/b.json" <<'PY'; then echo "ok: reports identical and sane"; else failures=$((failures + 1)); fi
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for r in (a, b):
    for p in r["points"]:
        p.pop("wall_s")
assert a == b, "two runs differ"
p = a["points"][0]
assert abs(p["accepted"] - 0.2) < 0.03, p
assert p["completed"] == p["measured"] > 0, p
assert p["latency_p50_ns"] <= p["latency_p99_ns"] <= p["latency_max_ns"], p
PY
# NAS skeletons: bad input names the rule; a run prints NPB's summary; a sweep plots.
expect 2 "unknown NAS kernel 'xx'" -- "$mgen" nas xx --class S -n 4
expect 2 "--class: 'Q' is not one of" -- "$mgen" nas cg --class Q -n 4
expect 2 "CG needs a power-of-two number of processes \\(got 12\\)" -- "$mgen" nas cg --class S -n 12
expect 2 "needs -n" -- "$mgen" nas cg --class S
# --sample K: extrapolated from K and 2K iterations (tests/nas/sample_test.cpp checks the values).
expect 2 "--sample: must be a whole number from 1 to [0-9]+ \\(got 0\\)" -- "$mgen" nas lu --class S -n 4 --sample 0
expect 0 "10 of 50 timed iterations simulated.*extrapolated to 50 iterations.*Time extrapolated from 5 and 10" -- \
  "$mgen" nas lu --class S -n 4 --sample 5
expect 0 "sampled +no: ep runs 0 timed iterations" -- "$mgen" nas ep --class S -n 4 --sample 2
expect 0 "lu +[0-9.]+ +[0-9.]+ +[0-9.]+ +extrapolated from 3 and 6 iterations" -- "$mgen" nas all --class S -n 4 --sample 3
expect 0 " 2 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+% +extrapolated from 5 and 10 iterations" -- \
  "$mgen" nas lu --class S --sweep-ranks 1,2 --sample 5
expect 0 "sampled +no: lu runs 50 timed iterations, not more than 2 x 2000000000" -- \
  "$mgen" nas lu --class S -n 4 --sample 2000000000
"$mgen" nas lu --class S -n 4 --sample 5 -q --report "$work/sampled.json" &&
  "$mgen" nas ep --class S -n 4 --sample 2 -q --report "$work/whole.json" &&
  "$mgen" nas lu --class S -n 4 -q --report "$work/plain.json"
if python3 - "$work" <<'PY'; then echo "ok: --report sampled"; else failures=$((failures + 1)); fi
import json, sys
d = sys.argv[1]
s = json.load(open(d + "/sampled.json"))["sampled"]
assert s["extrapolated"] and s["iterations"] == 5 and s["iterations_2"] == 10 and s["npb_iterations"] == 50, s
assert 0 < s["time_s"] < s["time_2_s"], s
w = json.load(open(d + "/whole.json"))["sampled"]
assert w == {"extrapolated": False, "iterations": 2, "npb_iterations": 0}, w
assert json.load(open(d + "/plain.json"))["sampled"] is None
PY
# Without a terminal, long runs log a progress line (every MGEN_PROGRESS_INTERVAL seconds); -q silences it.
MGEN_PROGRESS_INTERVAL=0 expect 0 "progress: simulated [0-9.]+ [a-z]*s, 1048576 events, 0 ranks finished" -- \
  "$mgen" nas mg --class A -n 64
MGEN_PROGRESS_INTERVAL=0 "$mgen" nas mg --class A -n 16 -q 2>"$work/quiet.err" >/dev/null
[ ! -s "$work/quiet.err" ] || { echo "FAIL: -q printed progress: $(cat "$work/quiet.err")"; failures=$((failures + 1)); }
MGEN_PROGRESS_INTERVAL=soon expect 0 "ignoring MGEN_PROGRESS_INTERVAL='soon' \\(not a number of seconds" -- \
  "$mgen" nas lu --class S -n 4

# Dimemas backend, collective model, FMA transport, Paraver and validate: bad input is named.
printf '[dimemas_collectives]\nallreduce = "LOG 3MAX LOG MAX"\n' >"$work/dimrow.toml"
expect 2 "dimrow.toml:2:[0-9]+: dimemas_collectives.allreduce: unknown size '3MAX'" -- "$mgen" info -c "$work/dimrow.toml"
printf '[dimemas_collectives]\nbcast = "LOG MAX"\n' >"$work/dimrow2.toml"
expect 2 "dimrow2.toml:2:[0-9]+: dimemas_collectives.bcast: expected .MODEL_IN SIZE_IN MODEL_OUT SIZE_OUT." -- \
  "$mgen" info -c "$work/dimrow2.toml"
expect 2 "half-duplex links serve both directions" -- "$mgen" info --set network.backend=dimemas \
  --set dimemas.half_duplex=true --set dimemas.input_links=2
expect 2 "unknown model 'hybrid'" -- "$mgen" run -n 2 --set collectives.model=hybrid "$programs/compute"
expect 2 "unknown transport 'rdma'" -- "$mgen" info --set nic.transport=rdma
expect 2 "the dimemas backend has no packets" -- "$mgen" info --set nic.transport=fma --set network.backend=dimemas
printf '[analytic]\nnic_contention = "yes"\n' >"$work/contention.toml"
expect 2 "contention.toml:2:[0-9]+: analytic.nic_contention" -- "$mgen" info -c "$work/contention.toml"
expect 0 "backend +analytic, NIC contention" -- "$mgen" info --set network.backend=analytic --set analytic.nic_contention=true
expect 0 "\\(backend packet, chosen by auto: packet, or flow beyond 256 ranks on fat trees; analytic.nic_contention ignored\\)" \
  -- "$mgen" nas ep --class S -n 4 --set analytic.nic_contention=true
expect 0 "\\(backend flow, chosen by auto" -- "$mgen" nas mg --class S -n 512 --set 'topology.kind="fattree"' \
  --set 'topology.down=[32, 32]' --set 'topology.up=[32]'
expect 0 "\\(backend packet, chosen by auto" -- "$mgen" nas mg --class S -n 512
# The flow backend reports its sharing work, and says when dense small messages make it costly.
expect 0 "flow sharing +[0-9]+ max-min solves re-solved [0-9]+ flows \\([0-9.]+ per message\\)" \
  -- "$mgen" nas mg --class S -n 16 --set network.backend=flow
# On a torus it says that flows have no router buffers (the packet backend's FIFOs fill under
# dense exchanges: docs/validation.md, "Buffers"), naming the machine's buffer; on a fat tree not.
expect 0 "flows model no router buffers: .* this torus has 32 KiB" \
  -- "$mgen" nas mg --class S -n 16 --set network.backend=flow --set router.vc_buffer=32KiB
out=$("$mgen" nas mg --class S -n 16 --set network.backend=flow --set 'topology.kind="fattree"' \
  --set 'topology.down=[4, 4]' --set 'topology.up=[4]' 2>&1)
if grep -q "flow sharing" <<<"$out" && ! grep -q "router buffers" <<<"$out"; then
  echo "ok: no buffer note for flows on a fat tree"
else
  fail "flows on a fat tree: wanted the sharing line and no buffer note, got: $(head -c 600 <<<"$out")"
fi
# (Unpaced: pacing halves IS's re-solves, to about the advice's threshold.)
expect 0 "re-solves [0-9]+ flows per message here \\(dense small messages\\): the packet backend may be faster" \
  -- "$mgen" nas is --class A -n 64 --set network.backend=flow --set flow.solve_pace=0ps
expect 2 "flow.pace_share: must be from 0 to 0.1, got 0.5" -- "$mgen" info --set flow.pace_share=0.5
# Hopper's preset uses FMA puts; the analytic backend must still take it (README's NAS command).
expect 0 "backend analytic" -- "$mgen" nas ep --class S -n 4 -c "$src/configs/hopper.toml" --set network.backend=analytic
expect 0 "backend +dimemas.*L 25 us, B 87.5 MB/s, 16 buses" -- "$mgen" info -c "$src/configs/sgi-origin-dimemas.toml"
expect 1 "cannot write the Paraver trace" -- "$mgen" run -n 2 --paraver "$work/no/such/dir/x" "$programs/compute"
expect 2 "--only: no reproduction named 'ppt'" -- "$mgen" validate --only ppt
expect 0 "zipper +Leiden Zipper" -- "$mgen" validate --list
# A preset that no longer matches its paper makes validate fail, naming the check.
mkdir -p "$work/configs"
cp "$src"/configs/*.toml "$work/configs/"
sed -i 's/^pio_copy = "94.25ns"/pio_copy = "150ns"/' "$work/configs/thunderx2-cx4.toml"
expect 1 "modelled end-to-end latency .* FAIL" -- "$mgen" validate --only breaking-band --configs "$work/configs"
# The same change by --set on every machine a reproduction loads; a bad key is named.
expect 1 "every machine with --set host.pio_copy=150ns.*modelled end-to-end latency .* FAIL" -- \
  "$mgen" validate --only breaking-band --set host.pio_copy=150ns
expect 2 "--set: no machine key 'foo.bar'" -- "$mgen" validate --only flow --quick --set foo.bar=1
expect 0 "every machine with --set router.arbitration = age.*19 of 19 reproductions pass" -- \
  "$mgen" validate --only flow --quick --set "router.arbitration = age"
expect 0 "Mop/s total" -- "$mgen" nas cg --class S -n 4
expect 0 "efficiency.*4 .*16 " -- "$mgen" nas cg --class S --sweep-ranks 4,16 --plot "$work/cg.png"
if [ -s "$work/cg.png" ]; then echo "ok: sweep plot written"; else echo "FAIL: no sweep plot"; failures=$((failures + 1)); fi
# --partition-model / --partitions (issue 24): the table after a traffic point and after a job;
# the job's 16 ranks on 16 routers give 2 to 16 blocks; bad lists and other backends refused.
expect 0 "partition model +[0-9]+ events \(100.0% owned by a router\).* 2 +20 ns +[0-9]+ .* 4 +20 ns" -- \
  "$mgen" traffic uniform --load 0.1 --measure 2us --partitions 2,4
expect 0 "partition model .* 16 +[0-9]+ ns +[0-9]+ " -- "$mgen" nas mg --class S -n 16 --partition-model
expect 2 "--partitions: '1' is not a partition count from 2" -- "$mgen" nas mg --class S -n 16 --partitions 1
expect 2 "--partitions: 'x' is not a partition count" -- "$mgen" traffic uniform --partitions 2,x
# A count above the routers holding the job is named, not dropped; the flag comes before PROGRAM
# or the pattern without taking it.
expect 0 "64 more blocks than the 4 routers holding the job" -- "$mgen" nas mg --class S -n 4 --partitions 2,64
expect 0 "partition model .* 2 +20 ns" -- "$mgen" traffic --partition-model uniform --load 0.1 --measure 1us
expect 2 "partitioned packet network; this run's backend is flow" -- \
  "$mgen" nas mg --class S -n 16 --set network.backend=flow --partition-model
# traffic --threads (issue 24): the same point as one thread, and what cannot be partitioned.
one=$("$mgen" traffic uniform --load 0.2 --measure 3us | sed -n 3p | awk '{NF--; print}')
two=$("$mgen" traffic uniform --load 0.2 --measure 3us --threads 2 | sed -n 3p | awk '{NF--; print}')
if [ -n "$one" ] && [ "$one" = "$two" ]; then
  echo "ok: traffic --threads 2 predicts what one thread does"
else
  fail "traffic --threads 2 predicted '$two', one thread '$one'"
fi
expect 0 "2 partitions on 2 thread\(s\) x 1 process\(es\): [0-9]+ windows" -- "$mgen" traffic uniform --load 0.2 --measure 1us -j 2
expect 2 "the flow backend cannot be partitioned" -- \
  "$mgen" traffic uniform --measure 1us -j 2 --set network.backend=flow
expect 2 "cannot cut the network into 600 partitions: 512 router" -- "$mgen" traffic uniform --measure 1us -j 600
expect 2 "does not combine with threads" -- "$mgen" traffic uniform --measure 1us -j 2 --partition-model
expect 2 "1000 partitions, each a whole copy of the network of machine 'default' \(262144 routers.* needs about" -- \
  "$mgen" traffic uniform --set 'topology.dims=[64,64,64]' --measure 1us -j 1000
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
