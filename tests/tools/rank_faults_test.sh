#!/usr/bin/env bash
# A rank whose program faults (SIGSEGV, SIGFPE, SIGILL, abort(), a failed assert, a double free,
# a stack overflow) ends the run with a report naming the rank, the signal, where and its last
# MPI call, exit status 4, and the JSON report marked "crashed"; SIGINT and SIGTERM stop a run
# cleanly (exit 130 and 143, report marked "interrupted"); a second SIGINT quits at once.
# Usage: rank_faults_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=expect.sh
source "$(dirname "$0")/expect.sh"
mgen=$build/mgen
"$build/mgen-cc" -O1 -o "$work/crash" "$src/tests/tools/programs/crash.c" || exit 1
crash=$work/crash
last="its last MPI call was MPI_Send, at simulated time [0-9.]+ us"

expect 4 "rank 2 was killed by SIGSEGV \(invalid memory access: address 0x0 is not mapped\) in main \(crash\); $last" -- "$mgen" run -n 4 "$crash" segv 2
expect 4 "rank 1 was killed by SIGFPE \(integer division by zero\) in main \(crash\); $last" -- "$mgen" run -n 4 "$crash" fpe 1
expect 4 "rank 3 was killed by SIGABRT \(abort\(\) called.*; $last" -- "$mgen" run -n 4 "$crash" abort 3
expect 4 "Assertion .zero == 1. failed.*rank 0 was killed by SIGABRT.*; $last" -- "$mgen" run -n 4 "$crash" assert 0
if "$build/mgen-cc" -show x.c | grep -q fsanitize; then
  # AddressSanitizer finds the double free itself, reports it and exits.
  expect 1 "attempting double-free" -- "$mgen" run -n 4 "$crash" double_free 1
else
  expect 4 "double free.*rank 1 was killed by SIGABRT.*; $last" -- "$mgen" run -n 4 "$crash" double_free 1
fi
expect 4 "rank 2 was killed by SIGILL \(illegal instruction at 0x[0-9a-f]+\) in main \(crash\); $last" -- "$mgen" run -n 4 "$crash" ill 2
# A user reduction run by a non-blocking collective faults on the rank's helper context.
expect 4 "rank [0-3] \(in a non-blocking collective's algorithm\) was killed by SIGSEGV .* in bad_op \(crash\); its last MPI call was MPI_Wait" -- "$mgen" run -n 4 "$crash" op 0
# The rank is named among many.
expect 4 "rank 1000 was killed by SIGSEGV" -- "$mgen" run -n 1024 --ppn 2 -q "$crash" segv 1000

# Stacks: a 4 MiB local array fits a recompiled program's default stack (8 MiB, as a process's);
# with 1 MiB it reaches the guard page; 1 GiB of recursion overflows the default.
expect 0 "rank 2: done" -- "$mgen" run -n 4 -q "$crash" stack 2
expect 4 "rank 2 overflowed its 1024 KiB stack in big_array \(crash\) \(SIGSEGV at 0x[0-9a-f]+\): a large local array or deep recursion; give it more with --stack, for example --stack 8MiB; $last" -- "$mgen" run -n 4 --stack 1MiB "$crash" stack 2
expect 4 "rank 1 overflowed its 8192 KiB stack in deep \(crash\).*--stack 32MiB" -- "$mgen" run -n 4 "$crash" recursion 1

# The JSON report is written, marked.
"$mgen" run -n 4 -q --report "$work/crash.json" "$crash" segv 2 >/dev/null 2>&1
expect 0 "crashed 11 False rank 2 was killed by SIGSEGV" -- python3 -c "import json; r = json.load(open('$work/crash.json')); print(r['status'], r['signal'], r['ok'], r['error'])"

# Memory: a job whose programs allocate more than the computer can give stops with a message
# (here 2,048 ranks of 1 MiB each against a limit of 256 MiB) instead of being killed by the kernel.
expect 3 "out of memory: the job holds [0-9.]+ GiB, past the 0.25 GiB this computer can give it \(MGEN_MEMORY_LIMIT\); stopped before the kernel's out-of-memory killer" -- env MGEN_MEMORY_LIMIT=256MiB "$mgen" run -n 2048 --ppn 4 -q "$crash" hog 0
# (A sanitizer build holds several times more: shadow memory, redzones, quarantine.)
roomy=4GiB
"$build/mgen-cc" -show x.c | grep -q fsanitize && roomy=16GiB
expect 0 "rank 0: done" -- env MGEN_MEMORY_LIMIT=$roomy "$mgen" run -n 2048 --ppn 4 -q "$crash" hog 0

# SIGINT and SIGTERM stop a run that goes on for ever (every rank in barriers), with a report.
# The signal goes once the ranks run (their first line is out), not after a fixed time: on a
# loaded machine a start-up can take longer than any such time, and a signal before the run
# has its handlers in ends the process as the signal's default would.
run_then_signal() {
  local sig=$1 i rc
  shift
  # Empty the output first: the wait below must not see the previous run's "rank 0: running"
  # before this run's redirection truncates the file (it then signalled a process that had not
  # started, under load on a fresh clone).
  : >"$work/signal.out"
  "$@" >"$work/signal.out" 2>&1 &
  local pid=$!
  # Up to 10 minutes: a CI host under load has taken more than 2 to start the run.
  for ((i = 0; i < 6000; i++)); do
    grep -q "rank 0: running" "$work/signal.out" && break
    sleep 0.1
  done
  kill -s "$sig" "$pid"
  wait "$pid"
  rc=$?
  cat "$work/signal.out"
  return $rc
}
for sig in INT TERM; do
  [[ $sig == INT ]] && code=130 || code=143
  rm -f "$work/int.json"
  expect $code "SIG$sig: stopping the run.*interrupted by SIG$sig at simulated time [0-9.]+ us, after [0-9]+ events; 0 of 4 ranks had finished" -- run_then_signal "$sig" "$mgen" run -n 4 -q --report "$work/int.json" "$crash" run 0
  expect 0 "interrupted $((code - 128)) False" -- python3 -c "import json; r = json.load(open('$work/int.json')); print(r['status'], r['signal'], r['ok'])"
done
# A rank spinning in its own code never returns to the simulator: the second SIGINT quits.
"$mgen" run -n 2 -q "$crash" spin 1 >"$work/spin.out" 2>&1 &
pid=$!
sleep 2
kill -INT $pid
sleep 1
kill -INT $pid
wait $pid
code=$?
if [[ $code == 130 ]] && grep -q "again to quit at once" "$work/spin.out"; then echo "ok: spin: two SIGINTs quit (130)"; else
  echo "FAIL: spin: exit $code, output:"; cat "$work/spin.out"; failures=$((failures + 1))
fi

echo "$failures failure(s)"
exit $((failures > 0))
