#!/usr/bin/env bash
# `mgen whatif`: the Breaking Band breakdown of configs/thunderx2-cx4.toml against the paper's
# numbers (ICPP 2019, §4-§7), and its errors with their exit codes.
# Usage: whatif_test.sh MGEN_BINARY SOURCE_DIR
set -uo pipefail
mgen=$1
src=$2
preset="$src/configs/thunderx2-cx4.toml"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=expect.sh
source "$(dirname "$0")/expect.sh"

# The four models (§4.2 295.73, §4.3 1135.8, §6 264.97 and 1387.02 ns).
expect 0 "end-to-end latency \(§6\) +1387\.02 ns" -- "$mgen" whatif -c "$preset"
expect 0 "overall injection overhead \(§6, eq\. 2\) +264\.97 ns" -- "$mgen" whatif -c "$preset"
expect 0 "LLP latency \(§4\.3\) +1135\.80 ns" -- "$mgen" whatif -c "$preset"
expect 0 "LLP injection overhead \(§4\.2, eq\. 1\) +295\.73 ns" -- "$mgen" whatif -c "$preset"
# Fig. 15: the network is 27.60% of the latency; Table 1's LLP_post is 175.42 ns.
expect 0 "network +Network = Wire \+ Switch +382\.81 +27\.60%" -- "$mgen" whatif -c "$preset"
expect 0 "llp_post +LLP_post +175\.42" -- "$mgen" whatif -c "$preset"
# §7.2: the switch cut by 70% saves 5.45% of the latency (Fig. 17d); one row with --component.
expect 0 "switch .*\(5\.45%\)" -- "$mgen" whatif -c "$preset" --component switch --reductions 70
# §7.1: a 20% cut of the HLP saves 6.44% of the injection, of the LLP 13.33% (see
# tests/host/breakdown_test.cpp for why the model gives 6.45% and 13.31%).
expect 0 "HLP +1\.069 \(6\.45%\)" -- "$mgen" whatif -c "$preset" --component HLP --reductions 20
expect 0 "llp +1\.154 \(13\.31%\)" -- "$mgen" whatif -c "$preset" --component llp --reductions 20
# A 0% reduction is a speedup of 1.
expect 0 "pio_copy +1\.000 \(0\.00%\)" -- "$mgen" whatif -c "$preset" --component pio_copy --reductions 0
# A simulated what-if is the same setting through --set.
expect 0 "end-to-end latency \(§6\) +1309\.02 ns" -- "$mgen" whatif -c "$preset" --set host.switch=30ns

expect 2 "unknown host component 'warp'.*pio_copy" -- "$mgen" whatif -c "$preset" --component warp
expect 2 "has no \[host\] table" -- "$mgen" whatif
expect 2 "has no \[host\] table" -- "$mgen" whatif -c "$src/configs/hopper.toml"
expect 2 "--reductions: '120' is not a percentage" -- "$mgen" whatif -c "$preset" --reductions 10,120
expect 2 "--reductions: 'x' is not a percentage" -- "$mgen" whatif -c "$preset" --reductions x
expect 2 "host: a breakdown needs every component" -- "$mgen" whatif --set host.switch=30ns
printf '[host]\npio_copy = 94.25\n' >"$work/bad.toml"
expect 2 "bad.toml:2:12: host.pio_copy: expected a time string" -- "$mgen" whatif -c "$work/bad.toml"

if command -v gnuplot >/dev/null 2>&1; then
  expect 0 "plot: .*fig17-d\.png" -- "$mgen" whatif -c "$preset" --plot "$work/fig17"
  for panel in a b c d; do
    if [ -s "$work/fig17-$panel.png" ]; then echo "ok: fig17-$panel.png"; else
      echo "FAIL: no fig17-$panel.png"
      failures=$((failures + 1))
    fi
  done
  if ls "$work"/*.dat >/dev/null 2>&1; then echo "FAIL: plot data left behind"; failures=$((failures + 1)); fi
else
  echo "gnuplot not installed: plots not checked"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
