/* N MPI calls that do nothing, back to back: MPI_Comm_rank, MPI_Test on MPI_REQUEST_NULL or
 * MPI_Iprobe for a message never sent (argv[1]: rank, test, iprobe; argv[2]: N). Whatever
 * compute mgen charges a rank for this loop is mgen's own time leaking into the application's
 * (measured_compute_test.sh). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* what = argc > 1 ? argv[1] : "rank";
  const long n = argc > 2 ? atol(argv[2]) : 100000;
  int rank = 0, flag = 0;
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Status st;
  if (strcmp(what, "rank") == 0) {
    for (long i = 0; i < n; ++i) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  } else if (strcmp(what, "test") == 0) {
    for (long i = 0; i < n; ++i) MPI_Test(&req, &flag, &st);
  } else {
    for (long i = 0; i < n; ++i) MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, &st);
  }
  MPI_Finalize();
  return 0;
}
