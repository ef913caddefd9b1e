/* handles.c - datatypes and user-defined operations freed while requests still use them
 * (MPI-4.0 §5.1.9, §6.9.5: freeing marks the object for deallocation; pending operations
 * complete normally): a receive, a persistent receive, a non-blocking broadcast with a
 * derived type freed before the wait (and new types made meanwhile, which may reuse the freed
 * handle), and a non-blocking reduction whose user-defined operation is freed before the wait. */
#include "check.h"

enum { N = 8 };

static void sum_ints(void* in, void* inout, int* len, MPI_Datatype* t) {
  (void)t;
  for (int i = 0; i < *len; i++)
    ((int*)inout)[i] += ((int*)in)[i];
}

/* Every other int of 2N. */
static MPI_Datatype strided(void) {
  MPI_Datatype t;
  MPI_Type_vector(N, 1, 2, MPI_INT, &t);
  MPI_Type_commit(&t);
  return t;
}

/* A decoy: a new type of another layout, made while the freed one is still in use. */
static MPI_Datatype decoy(void) {
  MPI_Datatype t;
  MPI_Type_contiguous(3, MPI_CHAR, &t);
  MPI_Type_commit(&t);
  return t;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;
  const int to = (rank + 1) % size, from = (rank + size - 1) % size;

  /* a receive whose type is freed before the wait */
  {
    int out[N], in[2 * N];
    for (int i = 0; i < N; i++)
      out[i] = rank * 100 + i;
    for (int i = 0; i < 2 * N; i++)
      in[i] = -1;
    MPI_Datatype t = strided();
    MPI_Request r;
    MPI_Irecv(in, 1, t, from, 1, MPI_COMM_WORLD, &r);
    MPI_Type_free(&t);
    MPI_Datatype d = decoy();
    MPI_Send(out, N, MPI_INT, to, 1, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int i = 0; i < 2 * N; i++) {
      const int want = i % 2 ? -1 : from * 100 + i / 2;
      CHECK(in[i] == want, "receive: int %d is %d, expected %d", i, in[i], want);
      ck_int(&h, in[i]);
    }
    MPI_Type_free(&d);
  }

  /* a persistent receive started twice after its type was freed */
  {
    int in[2 * N];
    MPI_Datatype t = strided();
    MPI_Request r;
    MPI_Recv_init(in, 1, t, from, 2, MPI_COMM_WORLD, &r);
    MPI_Type_free(&t);
    MPI_Datatype d = decoy();
    for (int round = 0; round < 2; round++) {
      int out[N];
      for (int i = 0; i < N; i++)
        out[i] = rank * 1000 + round * 10 + i;
      for (int i = 0; i < 2 * N; i++)
        in[i] = -1;
      MPI_Start(&r);
      MPI_Send(out, N, MPI_INT, to, 2, MPI_COMM_WORLD);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      for (int i = 0; i < 2 * N; i++) {
        const int want = i % 2 ? -1 : from * 1000 + round * 10 + i / 2;
        CHECK(in[i] == want, "persistent receive round %d: int %d is %d, expected %d", round, i, in[i], want);
        ck_int(&h, in[i]);
      }
    }
    MPI_Request_free(&r);
    MPI_Type_free(&d);
  }

  /* a non-blocking broadcast with a freed type */
  {
    int buf[2 * N];
    for (int i = 0; i < 2 * N; i++)
      buf[i] = rank == 0 ? 7 * i : -1;
    MPI_Datatype t = strided();
    MPI_Request r;
    MPI_Ibcast(buf, 1, t, 0, MPI_COMM_WORLD, &r);
    MPI_Type_free(&t);
    MPI_Datatype d = decoy();
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int i = 0; i < 2 * N; i++) {
      const int want = i % 2 && rank != 0 ? -1 : 7 * i;
      CHECK(buf[i] == want, "broadcast: int %d is %d, expected %d", i, buf[i], want);
      ck_int(&h, buf[i]);
    }
    MPI_Type_free(&d);
  }

  /* a non-blocking reduction with a freed user-defined operation */
  {
    int in[N], out[N];
    for (int i = 0; i < N; i++)
      in[i] = rank + i;
    MPI_Op op;
    MPI_Op_create(sum_ints, 1, &op);
    MPI_Request r;
    MPI_Iallreduce(in, out, N, MPI_INT, op, MPI_COMM_WORLD, &r);
    MPI_Op_free(&op);
    CHECK(op == MPI_OP_NULL, "MPI_Op_free did not set MPI_OP_NULL");
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++) {
      const int want = size * (size - 1) / 2 + size * i;
      CHECK(out[i] == want, "reduction: element %d is %d, expected %d", i, out[i], want);
      ck_int(&h, out[i]);
    }
  }
  ck_finish(&h, "handles");
  MPI_Finalize();
  return 0;
}
