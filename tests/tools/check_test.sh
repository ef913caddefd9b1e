#!/usr/bin/env bash
# mgen-cc --check tells the unsupported MPI functions that would stop a run from those a program
# merely carries, and reads objects and archives:
#   - a program whose main (through a static function) calls MPI_Comm_get_parent: flagged, exit 1;
#   - a program linking a helper object (and the same helper from an archive) whose other,
#     uncalled function refers to it: listed as referenced only, with that function, exit 0;
#   - the helper object and archive (no main): the function and who calls it, exit 1, as nm sees
#     the undefined symbol;
#   - a program calling only supported functions, a non-ELF file, a missing file.
# Usage: check_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=expect.sh
source "$(dirname "$0")/expect.sh"
cc=$build/mgen-cc
cd "$work" || exit 1

cat >uses.c <<'C'
#include <mpi.h>
static int spawned(void) { MPI_Comm parent; MPI_Comm_get_parent(&parent); return parent != MPI_COMM_NULL; }
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int r = argc > 5 ? spawned() : 0;
  MPI_Finalize();
  return r;
}
C
cat >helper.c <<'C'
#include <mpi.h>
int helper_spawned(void) { MPI_Comm parent; MPI_Comm_get_parent(&parent); return parent != MPI_COMM_NULL; }
int helper_rank(void) { int r; MPI_Comm_rank(MPI_COMM_WORLD, &r); return r; }
C
cat >links.c <<'C'
#include <mpi.h>
#include <stdio.h>
int helper_rank(void);
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  printf("rank %d\n", helper_rank());
  MPI_Finalize();
  return 0;
}
C
"$cc" -O2 uses.c -o uses && "$cc" -O2 -c helper.c -o helper.o && ar rcs libhelper.a helper.o &&
  "$cc" -O2 links.c helper.o -o links && "$cc" -O2 links.c -L. -lhelper -o links_a && "$cc" -O2 -c links.c ||
  exit 1
# nm, the outside view: the object leaves MPI_Comm_get_parent undefined.
expect 0 "U MPI_Comm_get_parent" -- nm helper.o

expect 1 "uses: uses 3 MPI functions; main can reach calls to these.*MPI_Comm_get_parent" -- "$cc" --check uses
for prog in links links_a; do
  expect 0 "$prog: uses 4 MPI functions; main reaches no call to a function mgen does not support.*referenced only by code main does not call directly.*MPI_Comm_get_parent \(called by helper_spawned\)" \
    -- "$cc" --check "$prog"
done
expect 1 "helper\.o: an object file \(no main\): uses 2 MPI functions.*MPI_Comm_get_parent \(called by helper_spawned\)" \
  -- "$cc" --check helper.o
expect 1 "libhelper\.a: an archive \(no main\): uses 2 MPI functions.*MPI_Comm_get_parent \(called by helper_spawned\)" \
  -- "$cc" --check libhelper.a
# An object holding main is read as a program.
expect 0 "links\.o: uses 2 MPI functions; mgen supports all of them" -- "$cc" --check links.o
expect 2 "helper\.c: not a program, object file or archive" -- "$cc" --check helper.c
expect 2 "nothing\.so: no such file" -- "$cc" --check nothing.so

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "check: all passed"
