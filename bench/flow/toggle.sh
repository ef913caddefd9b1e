#!/usr/bin/env bash
# One of the flow backend's speed-ups against the run without it: each case runs "off" (with
# --set KEY=VALUE, the setting that turns it off: flow.solve_pace=0ps for pacing,
# flow.mouse_bytes=0B for mice; docs/network-model.md) and "on" (the defaults), alternating,
# REPEAT times; prints per case the median CPU seconds (user + system), the predicted time,
# solves and flows re-solved per message of both, and the prediction's change. Cases are mgen
# command lines (without the binary), one per line in CASES or the built-in list below.
# Usage: bench/flow/toggle.sh BUILD_DIR KEY=VALUE [REPEAT] [CASES_FILE]
set -euo pipefail
build=$1
off=$2
repeat=${3:-1}
cases_file=${4:-}
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
    for mode in off on; do
      extra=()
      [ "$mode" = off ] && extra=(--set "$off")
      # The command word, then the options (before a program's own arguments).
      read -r -a words <<<"${cases[$c]}"
      /usr/bin/time -f "%U %S" -o "$work/$c-$mode-$i.time" \
        "$mgen" "${words[0]}" "${extra[@]}" -q --report "$work/$c-$mode-$i.json" "${words[@]:1}" >/dev/null 2>&1 ||
        echo "case $c ($mode) failed: ${cases[$c]}" >&2
    done
  done
done

python3 - "$work" "$repeat" "$off" "${cases[@]}" <<'PY'
import json, statistics, sys
work, repeat, off, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
def cpu(c, m):
    v = []
    for i in range(1, repeat + 1):
        u, s = open(f"{work}/{c}-{m}-{i}.time").read().split()[-2:]
        v.append(float(u) + float(s))
    return statistics.median(v)
print(f"| case | CPU s with {off} | CPU s by default | speedup | predicted with {off} | predicted by default | change | flows re-solved per message | solves |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for c, line in enumerate(cases):
    r = {m: json.load(open(f"{work}/{c}-{m}-1.json")) for m in ("off", "on")}
    t = {m: cpu(c, m) for m in r}
    p = {m: r[m]["predicted_ps"] for m in r}
    per = {m: r[m]["flows_resolved"] / max(1, r[m]["messages"]) for m in r}
    change = (p["on"] - p["off"]) / p["off"] * 100
    print(f"| `{line}` | {t['off']:.2f} | {t['on']:.2f} | {t['off'] / max(t['on'], 1e-9):.2f}x "
          f"| {p['off'] / 1e6:.3f} us | {p['on'] / 1e6:.3f} us | {change:+.3f}% "
          f"| {per['off']:.1f} -> {per['on']:.1f} | {r['off'].get('flow_solves', 0)} -> {r['on'].get('flow_solves', 0)} |")
PY
