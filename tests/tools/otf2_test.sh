#!/usr/bin/env bash
# OTF2 out and in (docs/otf2.md), checked against tools that are not mgen:
#  1. export: `mgen run --otf2` of a program with known sends and collectives (otf2_ring.c), read
#     back by otf2-print (otf2-tools): the events per location, peers, tags and sizes the program
#     passes, Score-P's collective byte counts, timestamps in order, each rank's last Leave at its
#     finish and the latest at the predicted time;
#  2. the same archive read by Python's otf2 bindings (python3-otf2);
#  3. import: an archive written independently with the Python bindings (write_scorep_like.py)
#     replays to the calls and sizes it holds (mgen's own export of the replay, read by
#     otf2-print) and to its computation, to the nanosecond;
#  4. round trip: the export of (1) replayed keeps every call per rank, the messages and bytes,
#     and the ranks' times up to the computation after MPI_Finalize; otf2_split.c's (split and
#     cartesian communicators) keeps every call and message;
#  5. what the import refuses (another communicator, a non-blocking collective, a truncated or
#     corrupt archive): a message naming the file, the rank and the event, exit 2.
# Parts 2 and 3 need /usr/bin/python3 with the otf2 module (scripts/setup-deps.sh installs it);
# without it they are skipped with a message.
# Usage: otf2_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
mgen=$build/mgen
here=$src/tests/tools
source "$here/expect.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v otf2-print >/dev/null || { echo "FAIL: otf2-print missing (otf2-tools; scripts/setup-deps.sh)"; exit 1; }
have_py=1
/usr/bin/python3 -c 'import otf2' 2>/dev/null || { have_py=0; echo "SKIP: /usr/bin/python3 has no otf2 module (python3-otf2): parts 2 and 3 are skipped"; }

# Picoseconds of otf2-print's lines, per location: kind, location, time, attributes.
expect 0 '' -- "$mgen" run -q -n 4 --otf2 "$work/run" --report "$work/run.json" "$build/tests/tools/otf2_ring.so"
otf2-print "$work/run/traces.otf2" >"$work/run.txt" 2>"$work/run.err" || { echo "FAIL: otf2-print"; failures=$((failures + 1)); }

check_print() {  # check_print PRINT_FILE REPORT_JSON MODE: the events of otf2_ring.c (or write_scorep_like.py)
  python3 - "$@" <<'PY'
import json, re, sys
text, report, mode = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3]
ranks = len(report["per_rank"])
ev = []
for line in text.splitlines():
    m = re.match(r"(\w+)\s+(\d+)\s+(\d+)\s*(.*)$", line)
    if m and m.group(1).isupper() and m.group(1) not in ("STRING",):
        ev.append((m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)))
assert ev, "no events printed"
per = {r: [e for e in ev if e[1] == r] for r in range(ranks)}
def field(attrs, name):
    return int(re.search(name + r": (\d+)", attrs).group(1))
for r, es in per.items():
    times = [e[2] for e in es]
    assert times == sorted(times), f"rank {r}: timestamps go back"
    assert es[-1][0] == "LEAVE", es[-1]
    if mode != "replay":
        assert es[-1][2] == report["per_rank"][r]["finish_ps"], (r, es[-1][2], report["per_rank"][r]["finish_ps"])
    kinds = [e[0] for e in es]
    count = {k: kinds.count(k) for k in set(kinds)}
    assert kinds.count("ENTER") == kinds.count("LEAVE"), r
    prev, nxt = (r - 1) % ranks, (r + 1) % ranks
    block = 1000 if mode == "run" else 1024
    sends = [e for e in es if e[0] == "MPI_SEND"]
    recvs = [e for e in es if e[0] == "MPI_RECV"]
    if mode == "run":  # otf2_ring.c's Sendrecv chain (tag 9): nothing to or from MPI_PROC_NULL
        chain_s = [e for e in sends if field(e[3], "Tag") == 9]
        chain_r = [e for e in recvs if field(e[3], "Tag") == 9]
        assert len(chain_s) == (1 if r < ranks - 1 else 0) and len(chain_r) == (1 if r > 0 else 0), (r, count)
        assert all(field(e[3], "Receiver") == r + 1 and field(e[3], "Length") == 500 for e in chain_s), chain_s
        assert all(field(e[3], "Sender") == r - 1 and field(e[3], "Length") == 500 for e in chain_r), chain_r
        sends = [e for e in sends if e not in chain_s]
        recvs = [e for e in recvs if e not in chain_r]
    assert len(sends) == 1 and len(recvs) == 1, (r, count)
    assert field(sends[0][3], "Receiver") == nxt and field(sends[0][3], "Length") == block * (r + 1), sends
    assert field(recvs[0][3], "Sender") == prev and field(recvs[0][3], "Length") == block * (prev + 1), recvs
    assert field(sends[0][3], "Tag") == (7 if mode == "run" else 5)
    big = 100000 if mode == "run" else 65536
    isends = [e for e in es if e[0] == "MPI_ISEND"]
    irecvs = [e for e in es if e[0] == "MPI_IRECV"]
    assert len(isends) == 1 and field(isends[0][3], "Length") == big and field(isends[0][3], "Receiver") == nxt, isends
    assert len(irecvs) == 1 and field(irecvs[0][3], "Length") == big and field(irecvs[0][3], "Sender") == prev, irecvs
    assert count.get("MPI_IRECV_REQUEST") == 1 and count.get("MPI_ISEND_COMPLETE") == 1, count
    ends = [e for e in es if e[0] == "MPI_COLLECTIVE_END"]
    ops = [re.search(r"Operation: (\w+)", e[3]).group(1) for e in ends]
    sizes = {op: (field(e[3], "Sent"), field(e[3], "Received")) for op, e in zip(ops, ends)}
    # Score-P's counts: an allreduce of b bytes sends and receives size x b; a Bcast's root sends
    # size x b, every rank receives b.
    if mode == "run":
        assert ops[:3] == ["ALLREDUCE", "BCAST", "BARRIER"], ops
        assert sizes["ALLREDUCE"] == (4 * 64, 4 * 64), sizes
        assert sizes["BCAST"] == ((4 * 400, 400) if r == 1 else (0, 400)), sizes
    else:
        assert ops[:2] == ["ALLREDUCE", "BARRIER"], ops
        assert sizes["ALLREDUCE"] == (4 * 64, 4 * 64), sizes
    assert sizes["BARRIER"] == (0, 0)
last = max(e[2] for e in ev if e[0] == "LEAVE")
if mode != "replay":
    assert last == report["predicted_ps"], (last, report["predicted_ps"])
print("ok: otf2-print shows every send, receive and collective with its peer and size;", len(ev), "events")
PY
}
if check_print "$work/run.txt" "$work/run.json" run; then :; else failures=$((failures + 1)); fi
[ -s "$work/run.err" ] && { echo "FAIL: otf2-print warned:"; cat "$work/run.err"; failures=$((failures + 1)); }

if [ $have_py = 1 ]; then
  # 2. Python's reader: every point-to-point event's size, per rank, and the definitions.
  if /usr/bin/python3 - "$work/run/traces.otf2" <<'PY'; then :; else failures=$((failures + 1)); fi
import sys
import otf2
from otf2.events import MpiSend, MpiIsend, MpiRecv, MpiIrecv, MpiCollectiveEnd, Enter, Leave
with otf2.reader.open(sys.argv[1]) as trace:
    assert trace.definitions.clock_properties.timer_resolution == 10**12
    names = sorted(r.name for r in trace.definitions.regions)
    for want in ("MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Waitall", "MPI_Allreduce", "MPI_Bcast",
                 "MPI_Barrier", "compute"):
        assert want in names, (want, names)
    assert [c.name for c in trace.definitions.comms] == ["MPI_COMM_WORLD"]
    sent, received, calls = {}, {}, {}
    for loc, e in trace.events:
        r = int(loc.group.name.split()[-1])
        if isinstance(e, (MpiSend, MpiIsend)):
            sent.setdefault(r, []).append((e.receiver, e.msg_tag, e.msg_length))
        elif isinstance(e, (MpiRecv, MpiIrecv)):
            received.setdefault(r, []).append((e.sender, e.msg_tag, e.msg_length))
        elif isinstance(e, Enter):
            calls.setdefault(r, []).append(e.region.name)
for r in range(4):
    nxt, prv = (r + 1) % 4, (r - 1) % 4
    up = [(r + 1, 9, 500)] if r < 3 else []
    down = [(r - 1, 9, 500)] if r > 0 else []
    assert sorted(sent[r]) == sorted([(nxt, 7, 1000 * (r + 1)), (nxt, 8, 100000)] + up), (r, sent[r])
    assert sorted(received[r]) == sorted([(prv, 7, 1000 * (prv + 1)), (prv, 8, 100000)] + down), (r, received[r])
    mpi = [c for c in calls[r] if c != "compute" and c not in ("MPI_Comm_rank", "MPI_Comm_size")]
    assert mpi == ["MPI_Init"] + (["MPI_Send", "MPI_Recv"] if r % 2 == 0 else ["MPI_Recv", "MPI_Send"]) + \
        ["MPI_Sendrecv", "MPI_Irecv", "MPI_Isend", "MPI_Waitall", "MPI_Allreduce", "MPI_Bcast", "MPI_Barrier", "MPI_Finalize"], mpi
print("ok: the Python bindings read the calls, peers, tags and sizes of every rank")
PY

  # 3. An archive written by the Python bindings replays to what it holds.
  /usr/bin/python3 "$here/otf2/write_scorep_like.py" "$work/sp" ring >"$work/sp.expect"
  expect 0 '' -- "$mgen" replay -q "$work/sp" --cpu-scale 1 --report "$work/sp.json" --otf2 "$work/spo"
  otf2-print "$work/spo/traces.otf2" >"$work/spo.txt" 2>/dev/null
  if check_print "$work/spo.txt" "$work/sp.json" replay; then :; else failures=$((failures + 1)); fi
  if python3 - "$work/sp.json" "$work/sp.expect" <<'PY'; then :; else failures=$((failures + 1)); fi
import json, sys
report, expect = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
got = [r["compute_ps"] for r in report["per_rank"]]
want = [ns * 1000 for ns in expect["compute_ns"]]
assert got == want, (got, want)
print("ok: the replay computes exactly the gaps the archive holds:", want)
PY
  # The anchor file itself is accepted too, and the call log --otf2 needs changes no prediction.
  expect 0 'predicted time' -- "$mgen" replay "$work/sp/traces.otf2" --cpu-scale 1 --report "$work/sp_plain.json"
  if python3 - "$work/sp.json" "$work/sp_plain.json" <<'PY'; then :; else failures=$((failures + 1)); fi
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["predicted_ps"] == b["predicted_ps"], (a["predicted_ps"], b["predicted_ps"])
assert [r["finish_ps"] for r in a["per_rank"]] == [r["finish_ps"] for r in b["per_rank"]]
print("ok: --otf2 changes no prediction:", a["predicted_ps"], "ps")
PY

  # Communicators made as Score-P writes them (a CREATE_HANDLE collective and CommCreate).
  /usr/bin/python3 "$here/otf2/write_scorep_like.py" "$work/sub" subcomm >/dev/null
  expect 0 '' -- "$mgen" replay -q "$work/sub" --cpu-scale 1 --otf2 "$work/subo"
  otf2-print "$work/subo/traces.otf2" >"$work/subo.txt" 2>/dev/null
  if python3 - "$work/subo.txt" <<'PY'; then :; else failures=$((failures + 1)); fi
import re, sys
text = open(sys.argv[1]).read()
sends = re.findall(r"MPI_SEND\s+(\d+)\s+\d+\s+Receiver: (\d+) \(\"rank (\d+)\".*Tag: 3, Length: (\d+)", text)
assert sorted(sends) == [("0", "1", "1", "777"), ("2", "1", "3", "777")], sends
reduces = re.findall(r"MPI_COLLECTIVE_END\s+(\d+)\s+\d+\s+Operation: ALLREDUCE, Communicator: \"communicator \d+\" <\d+>, Root: NONE, Sent: (\d+), Received: (\d+)", text)
assert sorted(reduces) == [(str(r), "64", "64") for r in range(4)], reduces
print("ok: a Score-P-like split replays: each half's send and its 2-rank allreduce")
PY

  # 5. Refused: a communicator made without CommCreate, a non-blocking collective.
  /usr/bin/python3 "$here/otf2/write_scorep_like.py" "$work/split" split >/dev/null
  expect 2 "mgen: error: $work/split/traces.otf2: rank 0 \(location 0\): event 6: MPI_Comm_split without its CREATE_HANDLE collective event" \
    -- "$mgen" replay -q "$work/split"
  /usr/bin/python3 "$here/otf2/write_scorep_like.py" "$work/comm" comm >/dev/null
  expect 2 "mgen: error: $work/comm/traces.otf2: rank 0 \(location 0\): event [0-9]+: communicator 'split half' is neither MPI_COMM_WORLD" \
    -- "$mgen" replay -q "$work/comm"
  /usr/bin/python3 "$here/otf2/write_scorep_like.py" "$work/nbc" nbc >/dev/null
  expect 2 "mgen: error: $work/nbc/traces.otf2: rank 0 \(location 0\): event [0-9]+: NonBlockingCollectiveRequest: non-blocking collectives are not supported" \
    -- "$mgen" replay -q "$work/nbc"
fi

# 4. Round trip: the runs' exports replayed (otf2_split.c: communicators made by MPI_Comm_split
# and MPI_Cart_create, which replay remakes by MPI_Comm_split; communicator names are numbers).
roundtrip() {  # roundtrip RUN.txt BACK.txt RUN.json BACK.json exact|remade
  python3 - "$@" <<'PY'
import json, re, sys
made = {"MPI_Comm_split", "MPI_Comm_dup", "MPI_Comm_create", "MPI_Cart_create"}
def calls(path):
    per, fin = {}, {}
    for line in open(path):
        m = re.match(r"(ENTER|LEAVE|MPI_\w+|COMM_CREATE)\s+(\d+)\s+(\d+)\s*(.*)$", line)
        if not m:
            continue
        kind, loc, t, attrs = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        if kind == "ENTER":
            name = re.search(r'Region: "(\w+)"', attrs).group(1)
            if name not in ("compute", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Comm_free"):
                per.setdefault(loc, []).append("(makes a communicator)" if name in made else name)
        elif kind.startswith("MPI_") or kind == "COMM_CREATE":
            attrs = re.sub(r'Request: \d+|\("[^"]*" <\d+>\)|"communicator \d+" <\d+>|"MPI_COMM_WORLD" <\d+>', "", attrs)
            per.setdefault(loc, []).append(kind + " " + attrs)
        if kind == "LEAVE" and "MPI_Finalize" in attrs:
            fin[loc] = t
    return per, fin
a, fa = calls(sys.argv[1])
b, fb = calls(sys.argv[2])
assert a == b, "\n".join(f"rank {r}:\n  {a.get(r)}\n  {b.get(r)}" for r in sorted(a) if a.get(r) != b.get(r))
ra, rb = json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
assert [r["messages"] for r in ra["per_rank"]] == [r["messages"] for r in rb["per_rank"]]
if sys.argv[5] == "remade":
    # Replay makes every communicator by MPI_Comm_split (as for mgen's own traces): its exchange
    # (an 8-byte-per-rank allgather) differs from MPI_Cart_create's, so bytes and times may too.
    print(f"ok: {sys.argv[1]}: the round trip keeps every call, peer, tag and size, and the messages")
    sys.exit(0)
assert [r["bytes"] for r in ra["per_rank"]] == [r["bytes"] for r in rb["per_rank"]]
# Computation travels in whole nanoseconds, which is what the run measured on the default machine
# (node.cpu_scale 1): each rank leaves MPI_Finalize at the same picosecond. (Computation after
# MPI_Finalize is not replayed, so the ranks' finish times may differ by that.)
assert fa == fb, (fa, fb)
print(f"ok: {sys.argv[1]}: the round trip keeps every call, peer, tag and size, and every rank's MPI_Finalize "
      "to the picosecond")
PY
}
expect 0 '' -- "$mgen" replay -q "$work/run" --cpu-scale 1 --report "$work/back.json" --otf2 "$work/back"
otf2-print "$work/back/traces.otf2" >"$work/back.txt" 2>/dev/null
if roundtrip "$work/run.txt" "$work/back.txt" "$work/run.json" "$work/back.json" exact; then :; else failures=$((failures + 1)); fi
expect 0 '' -- "$mgen" run -q -n 4 --otf2 "$work/splitrun" --report "$work/split.json" "$build/tests/tools/otf2_split.so"
expect 0 '' -- "$mgen" replay -q "$work/splitrun" --cpu-scale 1 --report "$work/split_back.json" --otf2 "$work/split_back"
otf2-print "$work/splitrun/traces.otf2" >"$work/split.txt" 2>/dev/null
otf2-print "$work/split_back/traces.otf2" >"$work/split_back.txt" 2>/dev/null
if roundtrip "$work/split.txt" "$work/split_back.txt" "$work/split.json" "$work/split_back.json" remade; then :; else
  failures=$((failures + 1))
fi
# The communicators as otf2-print shows them: the halves {0, 1} and {2, 3} and the line {0, 1},
# each sending within itself to its rank 1.
if python3 - "$work/split.txt" <<'PY'; then :; else failures=$((failures + 1)); fi
import re, sys
sends = re.findall(r"MPI_SEND\s+(\d+)\s+\d+\s+Receiver: (\d+) \(\"rank (\d+)\".*Tag: (\d+), Length: (\d+)", open(sys.argv[1]).read())
got = sorted((int(a), int(b), int(c), int(d), int(e)) for a, b, c, d, e in sends)
assert got == [(0, 1, 1, 3, 777), (0, 1, 1, 4, 555), (2, 1, 3, 3, 777)], got
print("ok: sends on split and cartesian communicators name the peer's rank in the communicator and in the world")
PY

# 5. Truncated and corrupt archives: a message with the file, a non-zero exit, never a signal.
cp -r "$work/run" "$work/cut"
truncate -s 100 "$work/cut/traces/1.evt"
expect 2 "mgen: error: $work/cut/traces.otf2: rank 1 \(location 1\): event [0-9]+: corrupt or truncated" \
  -- "$mgen" replay -q "$work/cut"
cp -r "$work/run" "$work/bad"
head -c 40 "$work/run/traces.otf2" >"$work/bad/traces.otf2"
expect 2 "^mgen: error: $work/bad/traces.otf2: cannot open as an OTF2 archive \(OTF2: " -- "$mgen" replay -q "$work/bad"
cp -r "$work/run" "$work/nodef"
printf 'garbage' >"$work/nodef/traces.def"
expect 2 "mgen: error: $work/nodef/traces.otf2: cannot read the global definitions \(traces.def\) \(OTF2: " \
  -- "$mgen" replay -q "$work/nodef"
cp -r "$work/run" "$work/noevt"
rm "$work/noevt/traces/2.evt"
expect 2 "^mgen: error: $work/noevt/traces.otf2: rank 2 \(location 2\): cannot read its events \(OTF2: .*2.evt" \
  -- "$mgen" replay -q "$work/noevt"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all OTF2 checks passed"
