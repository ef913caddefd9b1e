#!/usr/bin/env bash
# Paraver output (--paraver PREFIX): the three files exist and the trace is consistent with the
# run: one communication record per message sent (from the JSON report), times ordered within
# each record, every rank's states tiling [0, its finish] without gaps or overlaps, every MPI
# call event closed, every event value named in the .pcf. On the Dimemas machine no message
# arrives sooner than the paper's T = L + S/B after it left.
# Usage: paraver_test.sh MGEN_BINARY SOURCE_DIR BUILD_DIR
set -euo pipefail
mgen=$1
src=$2
build=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$mgen" run -q -n 8 --paraver "$work/rr" --report "$work/rr.json" "$build/examples/random_ring" --bytes 100000 >/dev/null
# Ranks dealt round-robin over 4 nodes: Paraver's CPUs go node after node, not rank after rank.
"$mgen" run -q -n 8 --ppn 2 --placement round_robin --paraver "$work/rrobin" --report "$work/rrobin.json" \
  "$build/examples/random_ring" --bytes 100000 >/dev/null
"$mgen" nas cg --class S -n 4 -q -c "$src/configs/sgi-origin-dimemas.toml" --paraver "$work/cg" \
  --report "$work/cg.json" >/dev/null

python3 - "$work" <<'PY'
import json, re, sys
work = sys.argv[1]

def check(prefix, dimemas=None):
    report = json.load(open(f"{work}/{prefix}.json"))
    lines = open(f"{work}/{prefix}.prv").read().splitlines()
    m = re.match(r"#Paraver \(\d\d/\d\d/\d\d at \d\d:\d\d\):(\d+)_ns:(\d+)\(([\d,]+)\):1:(\d+)\(([\d:,]+)\)$", lines[0])
    assert m, lines[0]
    ranks = int(m.group(4))
    assert ranks == len(report["per_rank"]), (ranks, len(report["per_rank"]))
    cpus_per_node = [int(c) for c in m.group(3).split(",")]
    assert sum(cpus_per_node) == ranks
    node_of_task = [int(t.split(":")[1]) for t in m.group(5).split(",")]
    for task, r in enumerate(report["per_rank"]):
        assert node_of_task[task] == r["node"] + 1, (task, node_of_task[task], r["node"])
    node_of_cpu = [n + 1 for n, k in enumerate(cpus_per_node) for _ in range(k)]
    # Event records may repeat (two calls returning at one instant); states and messages may not.
    spans = [l for l in lines if l[0] in "13"]
    assert len(set(spans)) == len(spans), "a state or message record is written twice"
    comms, states, events = [], {}, {}
    last = -1
    for line in lines[1:]:
        f = [int(x) for x in line.split(":")]
        assert f[0] in (1, 2, 3), line
        t = f[5]
        assert t >= last, f"records out of time order at: {line}"
        last = t
        assert node_of_cpu[f[1] - 1] == node_of_task[f[3] - 1], f"CPU {f[1]} is not on task {f[3]}'s node: {line}"
        if f[0] == 3:
            assert node_of_cpu[f[7] - 1] == node_of_task[f[9] - 1], f"receiving CPU not on its task's node: {line}"
        if f[0] == 1:
            states.setdefault(f[3], []).append((f[5], f[6]))
        elif f[0] == 2:
            events.setdefault(f[3], []).append((f[5], f[7]))
        else:
            comms.append(f)
    sent = sum(r["messages"] for r in report["per_rank"])
    assert len(comms) == sent, (len(comms), sent)
    for c in comms:
        lsend, psend, lrecv, precv, size = c[5], c[6], c[11], c[12], c[13]
        assert lsend <= psend <= precv and lrecv <= precv, c
        if dimemas and c[1] != c[7]:  # a rank to itself copies through memory
            latency_ns, bytes_per_s = dimemas
            assert precv - psend >= latency_ns + size * 1e9 / bytes_per_s - 1, c
    for task, spans in states.items():
        spans.sort()
        assert spans[0][0] == 0, (task, spans[0])
        for (b0, e0), (b1, e1) in zip(spans, spans[1:]):
            assert e0 == b1 and b1 <= e1, (task, (b0, e0), (b1, e1))
        finish = round(report["per_rank"][task - 1]["finish_s"] * 1e9)
        assert abs(spans[-1][1] - finish) <= 1, (task, spans[-1], finish)
    names = set()
    in_pcf = False
    for line in open(f"{work}/{prefix}.pcf"):
        if line.startswith("VALUES"):
            in_pcf = True
        elif in_pcf and line.strip():
            names.add(int(line.split()[0]))
    for task, evs in events.items():
        open_call = None
        for t, v in evs:
            assert v in names, (task, v)
            if v:
                assert open_call is None, (task, t, v)
                open_call = v
            else:
                assert open_call is not None, (task, t)
                open_call = None
        assert open_call is None, task
    rows = open(f"{work}/{prefix}.row").read()
    assert f"LEVEL THREAD SIZE {ranks}" in rows
    print(f"ok: {prefix}: {len(comms)} messages, {sum(len(s) for s in states.values())} states, "
          f"{sum(len(e) for e in events.values())} events")

check("rr")
check("rrobin")
check("cg", dimemas=(25000, 87.5e6))
PY
