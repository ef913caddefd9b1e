/* null_buffers.c - a null buffer with a positive count is MPI_ERR_BUFFER (with
 * MPI_ERRORS_RETURN the call returns it and nothing is sent); a null buffer with count 0 is
 * legal; MPI_BOTTOM (the null pointer in MPICH) with a datatype of absolute addresses is legal
 * and moves the data at those addresses, in point-to-point and collectives. */
#include "check.h"

static void expect_buffer_error(int rc, const char* what) {
  int cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_BUFFER, "%s returned class %d, not MPI_ERR_BUFFER", what, cls);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  ck_t h = CK_INIT;
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;

  /* Every rank makes the same invalid calls: each fails locally, nothing is matched. */
  MPI_Request req;
  expect_buffer_error(MPI_Send(NULL, 1, MPI_INT, next, 0, MPI_COMM_WORLD), "MPI_Send");
  expect_buffer_error(MPI_Recv(NULL, 2, MPI_DOUBLE, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  expect_buffer_error(MPI_Isend(NULL, 3, MPI_CHAR, next, 0, MPI_COMM_WORLD, &req), "MPI_Isend");
  expect_buffer_error(MPI_Irecv(NULL, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, &req), "MPI_Irecv");
  expect_buffer_error(MPI_Send_init(NULL, 1, MPI_INT, next, 0, MPI_COMM_WORLD, &req), "MPI_Send_init");
  expect_buffer_error(MPI_Bcast(NULL, 4, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  int one = 1, out = 0;
  expect_buffer_error(MPI_Allreduce(NULL, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce send");
  expect_buffer_error(MPI_Allreduce(&one, NULL, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce recv");
  expect_buffer_error(MPI_Reduce(NULL, &out, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD), "MPI_Reduce send");
  MPI_Barrier(MPI_COMM_WORLD);

  /* Count 0 with a null buffer is legal. */
  CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_INT, next, 1, NULL, 0, MPI_INT, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Bcast(NULL, 0, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  /* Reduce: the receive buffer matters at the root only. */
  int sum = 0;
  CHECK_MPI(MPI_Reduce(&one, rank == 0 ? &sum : NULL, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
  if (rank == 0) CHECK(sum == size, "Reduce sum %d", sum);
  ck_int(&h, sum);

  /* MPI_BOTTOM with absolute addresses: a struct type naming an int and a double that are not
   * adjacent, sent around the ring and broadcast. */
  int ival = 1000 + rank;
  double dval = 0.5 * rank;
  int blocks[2] = {1, 1};
  MPI_Aint where[2];
  MPI_Get_address(&ival, &where[0]);
  MPI_Get_address(&dval, &where[1]);
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, abs_type;
  MPI_Type_create_struct(2, blocks, where, types, &abs_type);
  MPI_Type_commit(&abs_type);
  int rival = -1;
  double rdval = -1;
  MPI_Aint rwhere[2];
  MPI_Get_address(&rival, &rwhere[0]);
  MPI_Get_address(&rdval, &rwhere[1]);
  MPI_Datatype rabs_type;
  MPI_Type_create_struct(2, blocks, rwhere, types, &rabs_type);
  MPI_Type_commit(&rabs_type);
  CHECK_MPI(MPI_Sendrecv(MPI_BOTTOM, 1, abs_type, next, 2, MPI_BOTTOM, 1, rabs_type, prev, 2, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  CHECK(rival == 1000 + prev && rdval == 0.5 * prev, "MPI_BOTTOM ring: %d %g", rival, rdval);
  ck_int(&h, rival);
  ck_double(&h, rdval);
  if (rank != 0) {
    ival = -1;
    dval = -1;
  }
  CHECK_MPI(MPI_Bcast(MPI_BOTTOM, 1, abs_type, 0, MPI_COMM_WORLD));
  CHECK(ival == 1000 && dval == 0.0, "MPI_BOTTOM Bcast: %d %g", ival, dval);
  ck_int(&h, ival);
  MPI_Type_free(&abs_type);
  MPI_Type_free(&rabs_type);

  ck_finish(&h, "null_buffers");
  MPI_Finalize();
  return 0;
}
