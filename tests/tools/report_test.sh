#!/usr/bin/env bash
# Reports, link statistics and pictures (docs/report-format.md):
#   - every command's --report (run, replay, nas, traffic, trace stats, info) validates against
#     docs/report-schema.json, and a report missing a field does not;
#   - per-rank calls by function equal the program's own (tests/tools/programs/call_counts.c:
#     counted from its source), and equal what the PMPI recorder saw MPICH do in a real run
#     when the same program's trace is replayed;
#   - each rank's time inside its calls adds up to its communication plus waiting time, which
#     the MPI layer accounts for separately;
#   - --links-csv lists every link of the 8x8x8 torus (closed form: 512 x 6 + 2 x 512) and an
#     injection link's bytes are its packets' headers and envelopes plus the payload sent;
#   - --plot and traffic --plot write PNG pictures; --calls prints the tables.
# Usage: report_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
mgen=$build/mgen
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Debian's python3 has python3-jsonschema (scripts/setup-deps.sh installs it); a pyenv shim
# earlier on PATH may not.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if ! "$py" -c 'import jsonschema' 2>/dev/null; then
  echo "FAIL: $py cannot import jsonschema (Debian package python3-jsonschema; scripts/setup-deps.sh installs it)"
  exit 1
fi

"$build/mgen-cc" -O1 -o "$work/cc" "$src/tests/tools/programs/call_counts.c"
"$mgen" run -n 4 --ignore-compute --report "$work/run.json" --links-csv "$work/links.csv" --plot "$work/run" \
  --calls "$work/cc" >"$work/run.out"
grep -q "^rank 3 (node 3): 25 calls" "$work/run.out" || { echo "FAIL: --calls printed no table for rank 3"; exit 1; }

mpicc -O1 -o "$work/cc_mpich" "$src/tests/tools/programs/call_counts.c"
"$mgen" record -n 4 --out "$work/trace" -- "$work/cc_mpich" >/dev/null 2>&1
"$mgen" trace stats "$work/trace" --report "$work/stats.json" >/dev/null
"$mgen" replay -q "$work/trace" --report "$work/replay.json"
"$mgen" nas is --class S -n 4 -q --report "$work/nas.json"
"$mgen" nas is --class S -n 4 -q --set network.backend=flow --report "$work/nas_flow.json"
# Every solve paced (flow.pace_from = 0): the pacing counters.
"$mgen" nas is --class S -n 16 -q --set network.backend=flow --set flow.pace_from=0 --report "$work/nas_paced.json"
"$mgen" traffic uniform --load 0.2 --measure 5us --report "$work/traffic.json" --plot "$work/traffic" >/dev/null
"$mgen" info --report "$work/info.json" >/dev/null
"$mgen" nas mg --class S -n 16 -q --partitions 2,4 --report "$work/nas_pm.json"
"$mgen" traffic uniform --load 0.1 --measure 2us --partitions 2 --report "$work/traffic_pm.json" >/dev/null
"$mgen" traffic uniform --load 0.1 --measure 2us --threads 2 --report "$work/traffic_threads.json" >/dev/null
"$mgen" nas is --class S -n 4 -q --threads 2 --report "$work/nas_threads.json"

"$py" - "$work" "$src/docs/report-schema.json" <<'PY'
import csv, json, sys
import jsonschema

work, schema_path = sys.argv[1], sys.argv[2]
schema = json.load(open(schema_path))
validator = jsonschema.Draft202012Validator(schema)
fail = 0

def bad(msg):
    global fail
    print("FAIL:", msg)
    fail += 1

def ok(since, msg):  # an "ok" line only when no check failed since `since`
    if fail == since:
        print("ok:", msg)

reports = {}
for name in ["run", "replay", "nas", "nas_flow", "nas_paced", "traffic", "stats", "info", "nas_pm", "traffic_pm", "traffic_threads", "nas_threads"]:
    r = json.load(open(f"{work}/{name}.json"))
    reports[name] = r
    errors = sorted(validator.iter_errors(r), key=lambda e: list(e.path))
    for e in errors[:5]:
        bad(f"{name}.json: {'/'.join(map(str, e.path))}: {e.message[:200]}")
    if not errors:
        print(f"ok: {name}.json ({r['command']}) follows the schema")

# The flow backend's sharing work is in its reports, and only in theirs: IS sends between
# nodes, so there are solves, and every solve re-solves at least the flow that started it.
since = fail
f = reports["nas_flow"]
if not (f.get("flow_solves", 0) >= 1 and f.get("flows_resolved", 0) >= f.get("flow_solves", 0)):
    bad(f"nas_flow.json: flow_solves {f.get('flow_solves')}, flows_resolved {f.get('flows_resolved')}")
# IS's small exchanges (counts, reductions) are mice: timed without a solve, counted apart.
if not (1 <= f.get("flow_mice", 0) <= f.get("messages", 0)):
    bad(f"nas_flow.json: flow_mice {f.get('flow_mice')} of {f.get('messages')} messages")
if "flow_solves" in reports["nas"]:
    bad("nas.json (packet backend) carries flow_solves")
# Pacing: every solve is followed by a quiet time when pace_from is 0, and changes that waited
# waited some time; the default run of this small job paces nothing.
p = reports["nas_paced"]
if not (p.get("flow_paced_solves", 0) >= 1 and p.get("flow_paced_waits", 0) >= 1 and p.get("flow_paced_wait_s", 0) > 0):
    bad(f"nas_paced.json: flow_paced_solves {p.get('flow_paced_solves')}, waits {p.get('flow_paced_waits')}, "
        f"wait_s {p.get('flow_paced_wait_s')}")
if f.get("flow_paced_solves") != 0 or f.get("flow_paced_waits") != 0:
    bad(f"nas_flow.json: paced {f.get('flow_paced_solves')} solves, {f.get('flow_paced_waits')} waits (expected none)")
ok(since, "the flow backend's report counts its solves; the packet backend's has none")

# --partition-model's object: in those reports only, a row per count, within the bounds any
# partition obeys: the busiest blocks hold at least the mean and at most all events, so the
# work speedup lies between 1 and the number of blocks.
since = fail
pm = reports["nas_pm"].get("partition_model")
if pm is None or [r["partitions"] for r in pm["rows"]] != [2, 4] or pm["events"] != reports["nas_pm"]["events"]:
    bad(f"nas_pm.json: partition_model {pm}")
else:
    for r in pm["rows"]:
        if not (pm["events"] / r["partitions"] - 1e-6 <= r["critical_events"] <= pm["events"] + 1e-6):
            bad(f"nas_pm.json: the busiest blocks' {r['critical_events']} events are outside [mean, all]")
        if not (1 - 1e-9 <= r["work_speedup"] <= r["partitions"] + 1e-9) or not r["fits"]:
            bad(f"nas_pm.json: work speedup {r['work_speedup']} outside [1, {r['partitions']}] or row not fitting")
tp = reports["traffic_pm"]["points"][0].get("partition_model")
if tp is None or tp["rows"][0]["partitions"] != 2 or tp["network_events"] != tp["events"]:
    bad(f"traffic_pm.json: partition_model {tp}")
if "partition_model" in reports["nas"] or "partition_model" in reports["traffic"]["points"][0]:
    bad("a report without --partition-model carries partition_model")
ok(since, "--partition-model's object in job and traffic reports, and only there")
since = fail
tt = reports["traffic_threads"]["points"][0].get("partitioned")
if not tt or tt["partitions"] != 2 or tt["processes"] != 1 or tt["windows"] < 1:
    bad(f"traffic_threads.json: partitioned {tt}")
if "partitioned" in reports["traffic"]["points"][0]:
    bad("traffic.json: a serial run has a partitioned object")
nt = reports["nas_threads"].get("partitioned")
if not nt or nt["partitions"] != 2 or nt["processes"] != 1 or nt["windows"] < 1:
    bad(f"nas_threads.json: partitioned {nt}")
if "partitioned" in reports["nas"]:
    bad("nas.json: a serial run has a partitioned object")
if reports["nas_threads"]["predicted_ps"] != reports["nas"]["predicted_ps"]:
    bad("nas_threads.json: another prediction than the serial run's")
ok(since, "a partitioned traffic run's and job's object, and only there")

# The schema can fail: a job report without its per-function table, or with an unknown
# format version, is refused.
broken = json.loads(json.dumps(reports["run"]))
del broken["per_rank"][0]["functions"]
if validator.is_valid(broken):
    bad("a run report without per_rank[0].functions passed the schema")
broken = dict(reports["run"], format_version=2)
if validator.is_valid(broken):
    bad("a report of format version 2 passed the schema")

# call_counts.c, counted from its source: 5 ring rounds, 4 allreduces of one double.
mark = fail
want = {"MPI_Init": (1, 0), "MPI_Comm_rank": (1, 0), "MPI_Comm_size": (1, 0), "MPI_Barrier": (2, 0),
        "MPI_Isend": (5, 5000), "MPI_Recv": (5, 0), "MPI_Wait": (5, 0), "MPI_Allreduce": (4, None),
        "MPI_Finalize": (1, 0)}
run = reports["run"]
for k in run["per_rank"]:
    got = {f: (v["calls"], v["bytes"]) for f, v in k["functions"].items()}
    for f, (calls, nbytes) in want.items():
        if f not in got or got[f][0] != calls or (nbytes is not None and got[f][1] != nbytes):
            bad(f"run: rank {k['rank']}: {f}: got {got.get(f)}, want {calls} calls, {nbytes} bytes")
    if set(got) != set(want):
        bad(f"run: rank {k['rank']}: functions {sorted(got)} != {sorted(want)}")
    if k["calls"] != sum(c for c, _ in want.values()):
        bad(f"run: rank {k['rank']}: calls {k['calls']} != 25")
    # Recursive doubling on 4 ranks (MPICH's choice for 8 bytes): 2 messages of 8 B per call.
    if got.get("MPI_Allreduce", (0, 0))[1] != 4 * 2 * 8:
        bad(f"run: rank {k['rank']}: MPI_Allreduce bytes {got.get('MPI_Allreduce')}, want 64")
    inside = sum(v["time_ps"] for v in k["functions"].values())
    if inside != k["communication_ps"] + k["wait_ps"]:
        bad(f"run: rank {k['rank']}: time in calls {inside} ps != communication + waiting "
            f"{k['communication_ps'] + k['wait_ps']} ps")
tot = run["functions"]["MPI_Isend"]
if (tot["calls"], tot["bytes"], tot["ranks"]) != (20, 20000, 4):
    bad(f"run: functions.MPI_Isend {tot}")
ok(mark, "run's per-function tables equal call_counts.c's counts")
mark = fail

# Replay of the MPICH run: per rank, the same calls of every function the recorder saw.
stats, replay = reports["stats"], reports["replay"]
for s, k in zip(sorted(stats["ranks"], key=lambda r: r["rank"]), replay["per_rank"]):
    recorded = {f: v["calls"] for f, v in s["functions"].items()}
    replayed = {f: v["calls"] for f, v in k["functions"].items()}
    if recorded != replayed:
        bad(f"replay: rank {k['rank']}: calls {replayed} != recorded {recorded}")
    inside = sum(v["time_ps"] for v in k["functions"].values())
    if inside != k["communication_ps"] + k["wait_ps"]:
        bad(f"replay: rank {k['rank']}: time in calls {inside} ps != communication + waiting")
    for f, v in s["functions"].items():
        if f == "MPI_Isend" and k["functions"][f]["bytes"] != v["bytes"]:
            bad(f"replay: rank {k['rank']}: MPI_Isend bytes {k['functions'][f]['bytes']} != recorded {v['bytes']}")
ok(mark, "replay's per-function calls equal the recorded MPICH run's")
mark = fail

# NAS IS (an MGEN program): its calls are the facade's.
nas_fns = reports["nas"]["functions"]
if "MGEN_Alltoallv" not in nas_fns or nas_fns["MGEN_Alltoallv"]["ranks"] != 4:
    bad(f"nas: no MGEN_Alltoallv on 4 ranks in {sorted(nas_fns)}")

# Every link of the default 8x8x8 torus, once.
rows = list(csv.DictReader(open(f"{work}/links.csv")))
if len(rows) != 512 * 6 + 2 * 512:
    bad(f"links.csv: {len(rows)} links, want 4096")
nic0 = next(r for r in rows if r["link"] == "nic 0 -> router 0")
# Each packet carries a 32-byte header and a 64-byte MPI envelope; rank 0's payload is 5 x 1000
# B (the ring) and 4 x 2 x 8 B (the allreduces); barriers carry none.
packets, nbytes = int(nic0["packets"]), int(nic0["bytes"])
if packets < 5 + 8 or nbytes != packets * (32 + 64) + 5000 + 64:
    bad(f"links.csv: nic 0 -> router 0 carried {nbytes} bytes in {packets} packets")
busy = {l["link"]: l for l in run["links"]}
if abs(float(nic0["busy_s"]) - busy["nic 0 -> router 0"]["busy_s"]) > 1e-15:
    bad("links.csv and the report disagree on nic 0 -> router 0")
ok(mark, "links.csv lists every link; injection bytes follow the closed form")
sys.exit(1 if fail else 0)
PY

for png in run-ranks run-links traffic-latency; do
  f="$work/$png.png"
  if ! [ -s "$f" ] || [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" != 89504e470d0a1a0a ]; then
    echo "FAIL: $png.png is missing or not a PNG"
    exit 1
  fi
done
echo "ok: --plot wrote run-ranks.png, run-links.png; traffic --plot wrote traffic-latency.png"
