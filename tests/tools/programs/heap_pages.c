#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* Touches 64 MiB of heap, then prints the environment's GLIBC_TUNABLES and how much of the
 * process's anonymous memory is in huge pages. */
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  size_t n = (size_t)64 << 20;
  char* p = malloc(n);
  memset(p, 1, n);
  long kb = -1;
  char line[256];
  FILE* f = fopen("/proc/self/smaps_rollup", "r");
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1) break;
  if (f) fclose(f);
  const char* t = getenv("GLIBC_TUNABLES");
  printf("tunables=%s huge_kb=%ld sum=%d\n", t ? t : "(unset)", kb, p[n - 1] + p[0]);
  free(p);
  MPI_Finalize();
  return 0;
}
