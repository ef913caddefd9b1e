/* Reductions a recorded trace must replay (NPB FT sums double complex values; other codes sum
 * long doubles or look for a maximum with MPI_2DOUBLE_PRECISION): each kind, blocking and not,
 * as record_reductions_test.sh records it under MPICH and replays it under mgen. */
#include <complex.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double _Complex z[4] = {rank + 1.0 * I, 1, 2, 3}, zs[4];
  MPI_Allreduce(z, zs, 4, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(z, zs, 4, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce(z, zs, 4, MPI_C_DOUBLE_COMPLEX, MPI_PROD, 0, MPI_COMM_WORLD);
  float _Complex f[2] = {rank, 1}, fs[2];
  MPI_Allreduce(f, fs, 2, MPI_C_FLOAT_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
  long double _Complex lz = rank, lzs;
  MPI_Allreduce(&lz, &lzs, 1, MPI_C_LONG_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
  long double l[3] = {rank, 1, 2}, ls[3];
  MPI_Allreduce(l, ls, 3, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(l, ls, 3, MPI_LONG_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double p[2] = {rank * 1.5, rank}, ps[2];
  MPI_Allreduce(p, ps, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD);
  struct {
    double v;
    int i;
  } di = {-rank, rank}, dis;
  MPI_Allreduce(&di, &dis, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
  struct {
    long double v;
    int i;
  } ldi = {rank, rank}, ldis;
  MPI_Allreduce(&ldi, &ldis, 1, MPI_LONG_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  MPI_Request q;
  MPI_Iallreduce(z, zs, 4, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD, &q);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Scan(l, ls, 3, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int ok = creal(zs[0]) > 0 && ps[0] >= 0;
  if (rank == 0) printf("RESULT reductions %d\n", ok);
  MPI_Finalize();
  return 0;
}
