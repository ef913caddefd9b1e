#!/usr/bin/env bash
# Recompiled programs behave as processes: each rank parses its own options (getopt_long at 2
# to 64 ranks, as the OSU benchmarks do), runs its own atexit/on_exit handlers when it ends, and
# its exit status counts (a non-zero return from main or exit() fails the run, naming the rank,
# exit status 3). MPI calls before MPI_Init or after MPI_Finalize, and null buffers with a
# positive count, stop the run with an error naming the rank and the call (MPICH aborts too).
# Usage: rank_process_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=expect.sh
source "$(dirname "$0")/expect.sh"
mgen=$build/mgen

"$build/mgen-cc" -O1 -o "$work/osu_options" "$src/tests/tools/programs/osu_options.c" || exit 1
opts=(-m 64:4096 --iterations 50 -x 5 -f --valid rest)
want="options: min 64 max 4096 iterations 50 warmup 5 full 1 validation 1; the same on"
for n in 2 3 16 64; do
  expect 0 "$want $n ranks; next 'rest'" -- "$mgen" run -n "$n" -q "$work/osu_options" "${opts[@]}"
done
if command -v mpicc >/dev/null && command -v mpiexec >/dev/null; then
  mpicc -O1 -o "$work/osu_options.mpich" "$src/tests/tools/programs/osu_options.c"
  expect 0 "$want 2 ranks; next 'rest'" -- timeout 60 mpiexec -n 2 "$work/osu_options.mpich" "${opts[@]}"
fi

# Exit handlers run per rank when its main ends, last registered first; on_exit sees the status.
cat >"$work/handlers.c" <<'C'
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static int me = -1;
static void a(void) { printf("rank %d: handler a\n", me); }
static void b(int status, void* arg) { printf("rank %d: handler %s, status %d\n", me, (char*)arg, status); }
static void c(void) { printf("rank %d: handler c\n", me); }
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  atexit(a);
  on_exit(b, "b");
  atexit(c);
  MPI_Finalize();
  if (argc > 1 && me == atoi(argv[1])) exit(5);
  return 0;
}
C
"$build/mgen-cc" -o "$work/handlers" "$work/handlers.c" || exit 1
# (A rank's handlers run one after the other; the order of the ranks is the engine's.)
expect 0 "rank 1: handler c rank 1: handler b, status 0 rank 1: handler a" -- "$mgen" run -n 3 -q "$work/handlers"
n_lines=$("$mgen" run -n 64 -q "$work/handlers" | grep -c "handler")
if [[ $n_lines == 192 ]]; then echo "ok: 3 handlers on each of 64 ranks"; else
  echo "FAIL: $n_lines handler lines at 64 ranks, wanted 192"
  failures=$((failures + 1))
fi
# (stdout and stderr interleave in any order when both go to one pipe.)
expect 3 "rank 1: handler b, status 5" -- "$mgen" run -n 3 -q "$work/handlers" 1
expect 3 "rank 1 called exit\(5\)" -- "$mgen" run -n 3 -q "$work/handlers" 1

# Exit status from main's return value.
cat >"$work/ret.c" <<'C'
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  int me;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Finalize();
  return argc > 1 && me == atoi(argv[1]) ? 3 : 0;
}
C
"$build/mgen-cc" -o "$work/ret" "$work/ret.c" || exit 1
expect 0 "predicted time" -- "$mgen" run -n 4 "$work/ret"
expect 3 "rank 2 returned 3 from main" -- "$mgen" run -n 4 "$work/ret" 2

# MPI before MPI_Init, after MPI_Finalize; null buffers.
cat >"$work/order.c" <<'C'
#include <mpi.h>
#include <string.h>
int main(int argc, char** argv) {
  int x = 0, flag = 0;
  const char* what = argc > 1 ? argv[1] : "";
  MPI_Initialized(&flag); /* allowed before MPI_Init */
  if (!strcmp(what, "before")) MPI_Comm_rank(MPI_COMM_WORLD, &x);
  MPI_Init(&argc, &argv);
  if (!strcmp(what, "null")) MPI_Send(NULL, 4, MPI_INT, 0, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  MPI_Finalized(&flag); /* allowed after MPI_Finalize */
  if (!strcmp(what, "after")) MPI_Barrier(MPI_COMM_WORLD);
  if (!strcmp(what, "twice")) MPI_Finalize();
  return 0;
}
C
"$build/mgen-cc" -o "$work/order" "$work/order.c" || exit 1
expect 0 "predicted time" -- "$mgen" run -n 2 "$work/order"
expect 3 "rank 0: MPI_Comm_rank called before MPI_Init" -- "$mgen" run -n 2 "$work/order" before
expect 3 "rank 0: MPI_Barrier called after MPI_Finalize" -- "$mgen" run -n 2 "$work/order" after
expect 3 "rank 0: MPI_Finalize called after MPI_Finalize" -- "$mgen" run -n 2 "$work/order" twice
expect 3 "rank 0: MPI_Send: MPI_ERR_BUFFER.*null buffer pointer with count 4" -- "$mgen" run -n 2 "$work/order" null

# MPIEXEC_TIMEOUT (hydra's wall-clock limit) stops a program that spins on MPI_Wtime, as
# mpiexec would (MPICH's init/timeout); without it the same program ends when its loop does.
cat >"$work/spin.c" <<'C'
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const double until = atof(argv[1]), t0 = MPI_Wtime();
  while (MPI_Wtime() - t0 < until) {
  }
  MPI_Finalize();
  return 0;
}
C
"$build/mgen-cc" -O1 -o "$work/spin" "$work/spin.c" || exit 1
expect 124 "APPLICATION TIMED OUT.*MPIEXEC_TIMEOUT=1 s" -- env MPIEXEC_TIMEOUT=1 "$mgen" run -n 2 -q "$work/spin" 300
expect 0 "" -- env MPIEXEC_TIMEOUT=30 "$mgen" run -n 2 -q "$work/spin" 0.2

# Under --ignore-compute nothing moves a rank's clock between two reads of it; a read that finds
# the clock where the previous one left it costs mpi.wtime_overhead (20 ns), so a loop waiting
# for 1 us to pass (OSU's dummy compute) ends after 1000/20 reads. Reads around MPI calls cost
# nothing: the barrier between two reads is all they see.
cat >"$work/reads.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const double t0 = MPI_Wtime();
  while (MPI_Wtime() - t0 < 1.005e-6) ++n;
  MPI_Barrier(MPI_COMM_WORLD);
  const double b0 = MPI_Wtime();
  MPI_Barrier(MPI_COMM_WORLD);
  const double b1 = MPI_Wtime();
  MPI_Barrier(MPI_COMM_WORLD);
  const double b2 = MPI_Wtime();
  if (rank == 0) printf("reads %d; barriers %.0f ps, %.0f ps\n", n, (b1 - b0) * 1e12, (b2 - b1) * 1e12);
  MPI_Finalize();
  return 0;
}
C
"$build/mgen-cc" -O1 -o "$work/reads" "$work/reads.c" || exit 1
expect 0 "reads 50; barriers ([0-9]+) ps, \\1 ps" -- "$mgen" run -n 2 -q --ignore-compute "$work/reads"
expect 0 "reads 100;" -- "$mgen" run -n 2 -q --ignore-compute --set mpi.wtime_overhead=10ns "$work/reads"

# Started by itself, as configure scripts and users start mpicc's output, a program runs as a
# one-rank job (an MPICH singleton): its arguments, output and exit status pass through.
cat >"$work/alone.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("rank %d of %d, %d arguments:", rank, size, argc - 1);
  for (int i = 1; i < argc; ++i) printf(" [%s]", argv[i]);
  printf("\n");
  MPI_Finalize();
  return argc > 1 ? atoi(argv[1]) : 0;
}
C
"$build/mgen-cc" -o "$work/alone" "$work/alone.c" || exit 1
expect 0 "^rank 0 of 1, 0 arguments: ?$" -- "$work/alone"
expect 0 "rank 0 of 1, 3 arguments: \\[0\\] \\[two words\\] \\[\\]" -- "$work/alone" 0 "two words" ""
expect 3 "rank 0 of 1, 1 arguments: \\[7\\].*rank 0 returned 7 from main" -- "$work/alone" 7
PATH=$work:$PATH expect 0 "rank 0 of 1" -- alone  # found on PATH, not named by its path
expect 127 "built with mgen-cc.*/nonexistent/mgen cannot be started.*mgen run -n N" -- env MGEN_RUNNER=/nonexistent/mgen "$work/alone"
# A program without MPI (a configure probe) runs too.
printf 'int main(void) { return 0; }\n' >"$work/conftest.c"
"$build/mgen-cc" -o "$work/conftest" "$work/conftest.c" || exit 1
expect 0 "" -- "$work/conftest"

# The ranks' heap gets transparent huge pages where the kernel gives them on request (mode
# "madvise"): mgen restarts itself once with glibc.malloc.hugetlb=1, and programs still see
# the user's GLIBC_TUNABLES. MGEN_HUGEPAGES=0, or the user's own hugetlb setting, turns it off.
"$build/mgen-cc" -O1 -o "$work/heap_pages" "$src/tests/tools/programs/heap_pages.c" || exit 1
if "$build/mgen-cc" -show x.c | grep -q fsanitize; then
  echo "skipped: huge pages (a sanitizer build's allocator is not glibc's malloc)"
elif grep -q '\[madvise\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
  expect 0 "application heap: 2 MiB transparent huge pages" -- "$mgen" info
  expect 0 "tunables=\(unset\) huge_kb=[1-9][0-9]* " -- env -u GLIBC_TUNABLES "$mgen" run -n 1 -q "$work/heap_pages"
  expect 0 "tunables=glibc.malloc.check=0 huge_kb=[1-9][0-9]* " -- env GLIBC_TUNABLES=glibc.malloc.check=0 "$mgen" run -n 1 -q "$work/heap_pages"
  expect 0 "tunables=\(unset\) huge_kb=0 " -- env -u GLIBC_TUNABLES MGEN_HUGEPAGES=0 "$mgen" run -n 1 -q "$work/heap_pages"
  expect 0 "tunables=glibc.malloc.hugetlb=0 huge_kb=0 " -- env GLIBC_TUNABLES=glibc.malloc.hugetlb=0 "$mgen" run -n 1 -q "$work/heap_pages"
  expect 0 "application heap: 4 KiB pages \(MGEN_HUGEPAGES=0\)" -- env MGEN_HUGEPAGES=0 "$mgen" info
else
  echo "skipped: the kernel's transparent_hugepage mode is not madvise here"
  expect 0 "tunables=\(unset\) huge_kb=" -- env -u GLIBC_TUNABLES "$mgen" run -n 1 -q "$work/heap_pages"
fi

echo "$failures failure(s)"
exit $((failures > 0))
