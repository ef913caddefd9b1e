#!/usr/bin/env bash
# The progress line: `mgen traffic` shows one (a log line per MGEN_PROGRESS_INTERVAL seconds when
# standard error is not a terminal), and on a terminal (run under script(1), so standard output
# and standard error are one pseudo-terminal) the program's output and traffic's table rows
# never share a row with it: each row the terminal shows starts with the output's own text.
# Usage: progress_line_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=expect.sh
source "$(dirname "$0")/expect.sh"
mgen=$build/mgen
"$build/mgen-cc" -O1 -o "$work/chatty" "$src/tests/tools/programs/chatty.c" || exit 1
traffic=("$mgen" traffic uniform --sweep 0.2,0.4 --measure 200us)

# Not a terminal: a log line (every call with an interval of 0).
expect 0 "progress: load 0.400: simulated [0-9.]+ us \(of at most 720 us\), 2097152 events, [0-9]+ s wall" \
  -- env MGEN_PROGRESS_INTERVAL=0 "${traffic[@]}"

# What a terminal shows on the rows containing PATTERN: the text after the last carriage return
# (erase-to-end-of-line sequences dropped). Every such row must start with PATTERN, and the
# progress line (TEXT) must have been drawn at least once.
rows_clean() {
  python3 - "$1" "$2" "$3" <<'PY'
import re, sys
data = open(sys.argv[1], 'rb').read().decode('utf-8', 'replace')
pattern, progress = sys.argv[2], sys.argv[3]
bad = []
rows = 0
for row in data.split('\n'):
    row = row.rstrip('\r')
    if pattern not in row:
        continue
    rows += 1
    shown = row.split('\r')[-1].replace('\x1b[K', '')
    if not shown.startswith(pattern):
        bad.append(repr(row))
drawn = progress in data
print(f"{rows} rows with {pattern!r}, {len(bad)} sharing a row; progress line drawn: {drawn}")
for b in bad[:5]:
    print("  shared:", b)
sys.exit(0 if rows > 0 and not bad and drawn else 1)
PY
}

if command -v script >/dev/null && command -v python3 >/dev/null; then
  script -qfec "$mgen run -n 2 $work/chatty 20000" /dev/null >"$work/run.tty" </dev/null
  expect 0 "20 rows with 'chatty line', 0 sharing a row; progress line drawn: True" \
    -- rows_clean "$work/run.tty" "chatty line" "ranks finished"
  script -qfec "${traffic[*]}" /dev/null >"$work/traffic.tty" </dev/null
  expect 0 "rows with '   0.', 0 sharing a row; progress line drawn: True" \
    -- rows_clean "$work/traffic.tty" "   0." "load 0.400: simulated"
  # Never wider than the terminal (a wrapped line would leave rows behind at each redraw): on a
  # 50-column terminal the flow backend's advice (about 77 columns) is cut to 49.
  script -qfec "stty cols 50; $mgen nas is --class A -n 64 --set network.backend=flow --set flow.solve_pace=0ps" /dev/null \
    >"$work/flow.tty" </dev/null
  expect 0 "drawn: yes, widest 49" -- python3 -c '
import sys
data = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
rows = [r.split("\x1b[K")[0] for r in data.replace("\n", "\r").split("\r") if "simulated" in r]
shown = "yes" if rows else "no"
print(f"drawn: {shown}, widest {max((len(r) for r in rows), default=0)}")' "$work/flow.tty"
else
  echo "script(1) or python3 missing: terminal checks skipped"
fi
exit $((failures > 0))
