#!/usr/bin/env bash
# mgen calibrate end to end, without measuring this computer: a ping-pong curve made here from
# known parameters (mgen's protocol rules in closed form, docs/calibration.md) is fitted; the
# machine file written loads; mgen, running the benchmark program on that file, reproduces the
# curve within 5%; and calibrate without MPICH, or with a file that is not benchmark output,
# says what is wrong (exit 2).
# Usage: calibrate_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=expect.sh
source "$(dirname "$0")/expect.sh"
mgen=$build/mgen

# Truth: send 150 ns, receive 120 ns, copy latency 200 ns, 64-byte envelope, 8 GB/s up to the
# 16 KiB eager threshold and for 32 KiB, 12 GB/s from 64 KiB, 6 GB/s from 512 KiB.
python3 - "$work/synthetic.txt" <<'EOF'
import sys
os_, or_, lat, env, eager = 0.150, 0.120, 0.200, 64.0, 16384
def rate(n):
    return 6e9 if n >= 524288 else 12e9 if n >= 65536 else 8e9
def oneway(b):
    if b <= eager:
        return os_ + or_ + lat + (b + env) / rate(b + env) * 1e6
    return os_ + or_ + 3 * lat + 2 * env / 8e9 * 1e6 + b / rate(b) * 1e6
with open(sys.argv[1], "w") as f:
    f.write("mpiexec: a launcher's line before the results\ncalib 1 2\n")
    f.write("overhead wtime 0.03 0.03 0.03 5 0.03\noverhead iprobe 0.05 0.05 0.05 5 0.05\n")
    f.write("overhead isend 0.15 0.15 0.15 5 0.15\noverhead irecv 0.05 0.05 0.05 5 0.05\n")
    b = 1
    while b <= 1 << 20:
        t = oneway(b)
        f.write(f"pingpong {b} {t * 1.01:.6f} {t:.6f} {t * 1.02:.6f} 5 {t:.6f}\n")
        b *= 2
    f.write("compute gflops 5 5 5 5 5\ncompute stream 9000 9000 9000 5 9000\nend\n")
EOF

expect 0 "wrote $work/host.toml.*ping-pong within [0-4]\.[0-9]%" -- \
  "$mgen" calibrate --from "$work/synthetic.txt" --out "$work/host.toml" --table "$work/check.tsv" \
  --max-bytes 262144 --batch-seconds 0.0002
expect 0 "2 ranks per node|procs_per_node|node" -- "$mgen" info -c "$work/host.toml"
# The fitted values (the file's keys) are the truth's.
expect 0 'memory_latency = "200\.0ns".*memory_bandwidth = "8GB/s".*"64KiB", "12GB/s".*"512KiB", "6GB/s".*eager_threshold = "16KiB".*send_overhead = "150\.0ns".*recv_overhead = "120\.0ns"' -- cat "$work/host.toml"
# Every ping-pong size of the simulated run (1 B to 256 KiB) within 5% of the curve.
expect 0 "^19 0 ?$" -- awk -F'\t' '$1 == "pingpong_us" { n++; if ($5 > 0.05 || $5 < -0.05) bad++ } END { print n, bad + 0 }' "$work/check.tsv"

# A known eager threshold (--eager-threshold) is used instead of the knee (no check needed).
expect 0 'eager_threshold = "8KiB"' -- sh -c "'$mgen' calibrate --from '$work/synthetic.txt' --out '$work/e.toml' \
  --eager-threshold 8KiB --no-check >/dev/null && cat '$work/e.toml'"
expect 2 "eager-threshold" -- "$mgen" calibrate --from "$work/synthetic.txt" --out "$work/e.toml" --eager-threshold 0

# Streaming: a made-up stream whose time per message is not the ping-pong's copy time (0.3 us
# plus 10 GB/s for eager sizes, 1 us plus 12 GB/s beyond) is reproduced within 5% at every
# size once calibrate has fitted node.copy_gap_by_size against its own runs; ping-pong too
# (sizes up to 32 KiB, short batches: four runs of mgen under sanitizers).
python3 - "$work/synthetic.txt" "$work/streamed.txt" <<'EOF'
import sys
lines = open(sys.argv[1]).read().splitlines()
out = [l for l in lines if l != "end"]
b = 1
while b <= 32768:
    t = (0.3 + b / 10e9 * 1e6) if b <= 16384 else (1.0 + b / 12e9 * 1e6)  # us per message
    mbps = b / t
    out.append(f"stream {b} {mbps:.6f} {mbps:.6f} {mbps:.6f} 5 {mbps:.6f}")
    b *= 2
open(sys.argv[2], "w").write("\n".join(out) + "\nend\n")
EOF
expect 0 "streams: [0-9]+ per-message gaps" -- \
  "$mgen" calibrate --from "$work/streamed.txt" --out "$work/s.toml" --table "$work/s.tsv" \
  --max-bytes 32768 --batch-seconds 0.0001
expect 0 "^16 0 16 0 ?$" -- awk -F'\t' '$1 == "stream_MBps" { n++; if ($5 > 0.05 || $5 < -0.05) bad++ }
  $1 == "pingpong_us" { p++; if ($5 > 0.05 || $5 < -0.05) pbad++ } END { print n, bad + 0, p, pbad + 0 }' "$work/s.tsv"
expect 0 "copy_gap_by_size = \[\[65, " -- cat "$work/s.toml"

# What is missing, said once, exit 2.
expect 2 "cannot find nompicc.*apt-get install mpich" -- \
  "$mgen" calibrate --mpicc nompicc --out "$work/x.toml"
expect 2 "cannot find .*nompiexec" -- "$mgen" calibrate --mpiexec /nonexistent/nompiexec --out "$work/x.toml"
printf 'hello\n' >"$work/junk.txt"
expect 2 "junk.txt: no 'calib' header" -- "$mgen" calibrate --from "$work/junk.txt" --out "$work/x.toml"
printf 'calib 1 2\npingpong 8 0.5 0.5 0.5 5\n' >"$work/short.txt"
expect 2 "short.txt: the benchmark output ends before its 'end' line" -- \
  "$mgen" calibrate --from "$work/short.txt" --out "$work/x.toml"

[ "$failures" -eq 0 ] || {
  echo "$failures failure(s)"
  exit 1
}
echo "calibrate: all passed"
