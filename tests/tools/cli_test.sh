#!/usr/bin/env bash
# End-to-end checks of the `mgen` command: exit codes, error messages, reports, determinism.
# Usage: cli_test.sh MGEN_BINARY SOURCE_DIR
set -uo pipefail
mgen=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# expect CODE PATTERN -- command...: runs the command, checks its exit code and that the
# combined output matches the extended regex PATTERN.
expect() {
  local code=$1 pattern=$2
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$code" ] || ! grep -Eq -- "$pattern" <<<"$out"; then
    echo "FAIL: $* -> exit $rc (wanted $code), output:"
    sed 's/^/    /' <<<"$out" | head -20
    echo "    (wanted /$pattern/)"
    failures=$((failures + 1))
  else
    echo "ok: $*"
  fi
}

expect 0 "torus 8x8x8" -- "$mgen" info
expect 0 "diameter 24 router hops" -- "$mgen" info -c "$src/configs/hopper.toml"
expect 0 "fat tree, 2 levels" -- "$mgen" info -c "$src/configs/nsim-ace-ib.toml"
expect 0 "fat tree, 4 levels" -- "$mgen" info -c "$src/configs/nsim-ace-ib-256.toml"
expect 0 "routing +adaptive" -- "$mgen" info --set router.routing=adaptive --set router.vcs=3
expect 0 "router.switch_delay" -- "$mgen" info --keys

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
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
