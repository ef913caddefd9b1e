#!/usr/bin/env bash
# The flow backend's pacing (flow.solve_pace, docs/network-model.md "Pacing") against solving
# every change at once: each case runs unpaced (--set flow.solve_pace=0ps) and paced (the
# defaults), alternating, REPEAT times; prints per case the median CPU seconds (user + system),
# the predicted time, solves and flows re-solved per message of both, and the prediction's
# change. Cases are mgen command lines (without the binary), one per line in CASES or the
# built-in list below.
# Usage: bench/flow/pacing.sh BUILD_DIR [REPEAT] [CASES_FILE]
set -euo pipefail
build=$1
repeat=${2:-1}
cases_file=${3:-}
mgen=$build/mgen
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$(cd "$(dirname "$0")/../.." && pwd)

cases=()
if [ -n "$cases_file" ]; then
  mapfile -t cases <"$cases_file"
else
  cases=(
    "nas ft --class A -n 64 --set network.backend=flow"
    "nas ft --class A -n 256 --set network.backend=flow"
    "nas is --class A -n 64 --set network.backend=flow"
    "nas is --class A -n 256 --set network.backend=flow"
    "nas mg --class A -n 256 --set network.backend=flow"
    "nas cg --class A -n 256 --set network.backend=flow"
  )
fi

for i in $(seq 1 "$repeat"); do
  for c in "${!cases[@]}"; do
    for mode in unpaced paced; do
      extra=()
      [ "$mode" = unpaced ] && extra=(--set flow.solve_pace=0ps)
      # The command word, then the options (before a program's own arguments).
      read -r -a words <<<"${cases[$c]}"
      /usr/bin/time -f "%U %S" -o "$work/$c-$mode-$i.time" \
        "$mgen" "${words[0]}" "${extra[@]}" -q --report "$work/$c-$mode-$i.json" "${words[@]:1}" >/dev/null 2>&1 ||
        echo "case $c ($mode) failed: ${cases[$c]}" >&2
    done
  done
done

python3 - "$work" "$repeat" "${cases[@]}" <<'PY'
import json, statistics, sys
work, repeat, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def cpu(c, m):
    v = []
    for i in range(1, repeat + 1):
        u, s = open(f"{work}/{c}-{m}-{i}.time").read().split()[-2:]
        v.append(float(u) + float(s))
    return statistics.median(v)
print("| case | unpaced CPU s | paced CPU s | speedup | unpaced predicted | paced predicted | change | flows re-solved per message (unpaced -> paced) | solves (unpaced -> paced) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for c, line in enumerate(cases):
    r = {m: json.load(open(f"{work}/{c}-{m}-1.json")) for m in ("unpaced", "paced")}
    t = {m: cpu(c, m) for m in r}
    p = {m: r[m]["predicted_ps"] for m in r}
    per = {m: r[m]["flows_resolved"] / max(1, r[m]["messages"]) for m in r}
    change = (p["paced"] - p["unpaced"]) / p["unpaced"] * 100
    print(f"| `{line}` | {t['unpaced']:.2f} | {t['paced']:.2f} | {t['unpaced'] / max(t['paced'], 1e-9):.1f}x "
          f"| {p['unpaced'] / 1e6:.3f} us | {p['paced'] / 1e6:.3f} us | {change:+.3f}% "
          f"| {per['unpaced']:.1f} -> {per['paced']:.1f} | {r['unpaced']['flow_solves']} -> {r['paced']['flow_solves']} |")
PY
