/* comm_groups.c - MPI_Comm_create_group over many different subsets in one run (every subset
 * of up to 4 ranks in a fixed order, including {1} then {0,1}, which once got the same context
 * and deadlocked), each checked with a barrier and an allreduce; zero-dimensional Cartesian
 * grids: MPI_Cart_create with ndims 0 and MPI_Cart_sub keeping no dimension (rank 0 gets the
 * grid, the others MPI_COMM_NULL). */
#include "check.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const int span = size < 4 ? size : 4;
  for (int round = 0; round < 2; round++) {
    for (int mask = 1; mask < (1 << span); mask++) {
      int members[4], n = 0, mine = 0;
      for (int i = 0; i < span; i++) {
        if (mask & (1 << i)) {
          members[n++] = i;
          if (i == rank) mine = 1;
        }
      }
      MPI_Group g;
      MPI_Group_incl(world, n, members, &g);
      if (mine) {
        MPI_Comm c;
        MPI_Comm_create_group(MPI_COMM_WORLD, g, round, &c);
        MPI_Barrier(c);
        int sum = 0;
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
        int want = 0;
        for (int i = 0; i < n; i++)
          want += members[i];
        CHECK(sum == want, "mask %d: sum %d, want %d", mask, sum, want);
        ck_int(&h, sum);
        MPI_Comm_free(&c);
      }
      MPI_Group_free(&g);
    }
  }
  MPI_Group_free(&world);

  /* A zero-dimensional grid: one process. */
  MPI_Comm z = MPI_COMM_NULL;
  MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &z);
  CHECK((rank == 0) == (z != MPI_COMM_NULL), "0-dim Cart_create on rank %d", rank);
  if (z != MPI_COMM_NULL) {
    int n = -1, nd = -1, t = -1, r = -1;
    MPI_Comm_size(z, &n);
    MPI_Cartdim_get(z, &nd);
    MPI_Topo_test(z, &t);
    MPI_Cart_rank(z, NULL, &r);
    CHECK(n == 1 && nd == 0 && t == MPI_CART && r == 0, "0-dim grid: size %d ndims %d", n, nd);
    MPI_Comm zs = MPI_COMM_NULL;
    MPI_Cart_sub(z, NULL, &zs);
    CHECK(zs != MPI_COMM_NULL, "Cart_sub of a 0-dim grid");
    MPI_Cartdim_get(zs, &nd);
    CHECK(nd == 0, "Cart_sub of a 0-dim grid: ndims %d", nd);
    MPI_Comm_free(&zs);
    MPI_Comm_free(&z);
  }
  /* Cart_sub keeping no dimension of a 2-D grid. */
  int dims[2] = {0, 0}, periods[2] = {1, 0}, remain[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm grid, none;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
  MPI_Cart_sub(grid, remain, &none);
  CHECK((rank == 0) == (none != MPI_COMM_NULL), "all-false Cart_sub on rank %d", rank);
  if (none != MPI_COMM_NULL) {
    int n = -1, nd = -1, result = -1;
    MPI_Comm_size(none, &n);
    MPI_Cartdim_get(none, &nd);
    MPI_Comm_compare(MPI_COMM_SELF, none, &result);
    CHECK(n == 1 && nd == 0 && result == MPI_CONGRUENT, "all-false Cart_sub: size %d ndims %d cmp %d", n, nd, result);
    MPI_Comm_free(&none);
  }
  /* Keeping one dimension still gives rows. */
  remain[1] = 1;
  MPI_Comm row;
  MPI_Cart_sub(grid, remain, &row);
  int rn = -1;
  MPI_Comm_size(row, &rn);
  CHECK(rn == dims[1], "row size %d, want %d", rn, dims[1]);
  ck_int(&h, rn);
  MPI_Comm_free(&row);
  MPI_Comm_free(&grid);

  ck_int(&h, size);
  ck_finish(&h, "comm_groups");
  MPI_Finalize();
  return 0;
}
