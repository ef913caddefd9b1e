/* p2p_large_count.c - MPI-4's large-count point-to-point forms (the _c functions, counts as
 * MPI_Count), with ordinary counts.
 *
 * Around a ring (each rank sends to its right neighbour, itself on one rank): Send_c/Recv_c,
 * Ssend_c, Rsend_c (to a posted Irecv_c), Bsend_c with Buffer_attach_c/Buffer_detach_c,
 * Isend_c/Issend_c/Ibsend_c/Irsend_c, persistent Send_init_c/Ssend_init_c/Bsend_init_c/
 * Rsend_init_c with Recv_init_c, Sendrecv_c, Sendrecv_replace_c, Isendrecv_c,
 * Isendrecv_replace_c, Mprobe with Mrecv_c and Imrecv_c; Get_count_c and Get_elements_c on
 * what arrived, through a derived type too (a vector of 3 blocks of 2 ints).
 */
#include "check.h"

enum { N = 1000 };

static void fill(int* v, int n, int who, int salt) {
  for (int i = 0; i < n; i++)
    v[i] = who * 100000 + salt * 1000 + i;
}
static void expect(const int* v, int n, int who, int salt, const char* what) {
  for (int i = 0; i < n; i++)
    CHECK(v[i] == who * 100000 + salt * 1000 + i, "%s: element %d is %d", what, i, v[i]);
}
static void expect_count(const MPI_Status* st, MPI_Datatype t, MPI_Count want, const char* what) {
  MPI_Count c = -1, e = -1;
  MPI_Get_count_c(st, t, &c);
  CHECK(c == want, "%s: Get_count_c %lld, want %lld", what, (long long)c, (long long)want);
  MPI_Get_elements_c(st, t, &e);
  CHECK(e == want, "%s: Get_elements_c %lld, want %lld", what, (long long)e, (long long)want);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  ck_t h = CK_INIT;
  int* out = malloc(sizeof(int) * N);
  int* in = malloc(sizeof(int) * N);
  CHECK(out && in, "out of memory");
  MPI_Status st;
  const MPI_Count n = N;

  /* Blocking modes; Rsend_c goes to a receive posted before the barrier. */
  fill(out, N, rank, 1);
  MPI_Request rr, sr;
  MPI_Irecv_c(in, n, MPI_INT, prev, 1, MPI_COMM_WORLD, &rr);
  MPI_Isend_c(out, n, MPI_INT, next, 1, MPI_COMM_WORLD, &sr);
  MPI_Wait(&rr, &st);
  MPI_Wait(&sr, MPI_STATUS_IGNORE);
  expect(in, N, prev, 1, "Isend_c/Irecv_c");
  expect_count(&st, MPI_INT, n, "Irecv_c");
  ck_ints(&h, in, N);

  for (int mode = 0; mode < 4; mode++) {
    fill(out, N, rank, 10 + mode);
    MPI_Irecv_c(in, n, MPI_INT, prev, 10 + mode, MPI_COMM_WORLD, &rr);
    MPI_Barrier(MPI_COMM_WORLD); /* every receive is posted: Rsend_c is legal */
    if (mode == 2) {
      MPI_Count bsize = (MPI_Count)(sizeof(int) * N) + MPI_BSEND_OVERHEAD;
      void* b = malloc((size_t)bsize);
      MPI_Buffer_attach_c(b, bsize);
      MPI_Bsend_c(out, n, MPI_INT, next, 12, MPI_COMM_WORLD);
      void* back = NULL;
      MPI_Count got = 0;
      MPI_Wait(&rr, &st);
      MPI_Buffer_detach_c(&back, &got);
      CHECK(back == b && got == bsize, "Buffer_detach_c gave %p and %lld", back, (long long)got);
      free(b);
    } else {
      if (mode == 0) MPI_Send_c(out, n, MPI_INT, next, 10, MPI_COMM_WORLD);
      if (mode == 1) MPI_Ssend_c(out, n, MPI_INT, next, 11, MPI_COMM_WORLD);
      if (mode == 3) MPI_Rsend_c(out, n, MPI_INT, next, 13, MPI_COMM_WORLD);
      MPI_Wait(&rr, &st);
    }
    expect(in, N, prev, 10 + mode, "blocking send mode");
    expect_count(&st, MPI_INT, n, "blocking send mode");
    ck_ints(&h, in, N);
  }

  /* Blocking receive of what the non-blocking modes sent. */
  for (int mode = 0; mode < 4; mode++) {
    fill(out, N, rank, 20 + mode);
    void* b = NULL;
    if (mode == 2) {
      MPI_Count bsize = (MPI_Count)(sizeof(int) * N) + MPI_BSEND_OVERHEAD;
      b = malloc((size_t)bsize);
      MPI_Buffer_attach_c(b, bsize);
    }
    MPI_Irecv_c(in, n, MPI_INT, prev, 20 + mode, MPI_COMM_WORLD, &rr);
    MPI_Barrier(MPI_COMM_WORLD);
    if (mode == 0) MPI_Isend_c(out, n, MPI_INT, next, 20, MPI_COMM_WORLD, &sr);
    if (mode == 1) MPI_Issend_c(out, n, MPI_INT, next, 21, MPI_COMM_WORLD, &sr);
    if (mode == 2) MPI_Ibsend_c(out, n, MPI_INT, next, 22, MPI_COMM_WORLD, &sr);
    if (mode == 3) MPI_Irsend_c(out, n, MPI_INT, next, 23, MPI_COMM_WORLD, &sr);
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
    MPI_Wait(&rr, &st);
    expect(in, N, prev, 20 + mode, "non-blocking send mode");
    ck_ints(&h, in, N);
    if (b) {
      void* back = NULL;
      MPI_Count got = 0;
      MPI_Buffer_detach_c(&back, &got);
      free(b);
    }
  }

  /* Persistent: each mode started twice. */
  {
    MPI_Count bsize = (MPI_Count)(sizeof(int) * N) + MPI_BSEND_OVERHEAD;
    void* b = malloc((size_t)bsize);
    MPI_Buffer_attach_c(b, bsize);
    for (int mode = 0; mode < 4; mode++) {
      MPI_Request ps, pr;
      MPI_Recv_init_c(in, n, MPI_INT, prev, 30 + mode, MPI_COMM_WORLD, &pr);
      if (mode == 0) MPI_Send_init_c(out, n, MPI_INT, next, 30, MPI_COMM_WORLD, &ps);
      if (mode == 1) MPI_Ssend_init_c(out, n, MPI_INT, next, 31, MPI_COMM_WORLD, &ps);
      if (mode == 2) MPI_Bsend_init_c(out, n, MPI_INT, next, 32, MPI_COMM_WORLD, &ps);
      if (mode == 3) MPI_Rsend_init_c(out, n, MPI_INT, next, 33, MPI_COMM_WORLD, &ps);
      for (int round = 0; round < 2; round++) {
        fill(out, N, rank, 30 + mode + 4 * round);
        MPI_Start(&pr);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Start(&ps);
        MPI_Wait(&ps, MPI_STATUS_IGNORE);
        MPI_Wait(&pr, &st);
        expect(in, N, prev, 30 + mode + 4 * round, "persistent");
        expect_count(&st, MPI_INT, n, "persistent");
        ck_ints(&h, in, N);
        MPI_Barrier(MPI_COMM_WORLD); /* out is refilled only once every send is done */
      }
      MPI_Request_free(&ps);
      MPI_Request_free(&pr);
    }
    void* back = NULL;
    MPI_Count got = 0;
    MPI_Buffer_detach_c(&back, &got);
    free(b);
  }

  /* Send-receive forms. */
  fill(out, N, rank, 40);
  MPI_Sendrecv_c(out, n, MPI_INT, next, 40, in, n, MPI_INT, prev, 40, MPI_COMM_WORLD, &st);
  expect(in, N, prev, 40, "Sendrecv_c");
  expect_count(&st, MPI_INT, n, "Sendrecv_c");
  ck_ints(&h, in, N);
  fill(in, N, rank, 41);
  MPI_Sendrecv_replace_c(in, n, MPI_INT, next, 41, prev, 41, MPI_COMM_WORLD, &st);
  expect(in, N, prev, 41, "Sendrecv_replace_c");
  ck_ints(&h, in, N);
  fill(out, N, rank, 42);
  MPI_Isendrecv_c(out, n, MPI_INT, next, 42, in, n, MPI_INT, prev, 42, MPI_COMM_WORLD, &rr);
  MPI_Wait(&rr, &st);
  expect(in, N, prev, 42, "Isendrecv_c");
  ck_ints(&h, in, N);
  fill(in, N, rank, 43);
  MPI_Isendrecv_replace_c(in, n, MPI_INT, next, 43, prev, 43, MPI_COMM_WORLD, &rr);
  MPI_Wait(&rr, &st);
  expect(in, N, prev, 43, "Isendrecv_replace_c");
  ck_ints(&h, in, N);

  /* Matched probes; a derived type counts whole vectors and their ints. */
  MPI_Datatype vec;
  MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  fill(out, N, rank, 50);
  MPI_Isend_c(out, 60, MPI_INT, next, 50, MPI_COMM_WORLD, &sr);
  MPI_Message msg;
  MPI_Mprobe(prev, 50, MPI_COMM_WORLD, &msg, &st);
  MPI_Mrecv_c(in, 60, MPI_INT, &msg, &st);
  MPI_Wait(&sr, MPI_STATUS_IGNORE);
  expect(in, 60, prev, 50, "Mrecv_c");
  ck_ints(&h, in, 60);
  MPI_Isend_c(out, 15, MPI_INT, next, 51, MPI_COMM_WORLD, &sr); /* 2.5 vectors' worth */
  MPI_Mprobe(prev, 51, MPI_COMM_WORLD, &msg, &st);
  for (int i = 0; i < N; i++)
    in[i] = -1;
  MPI_Imrecv_c(in, 3, vec, &msg, &rr);
  MPI_Wait(&rr, &st);
  MPI_Wait(&sr, MPI_STATUS_IGNORE);
  MPI_Count c = 0, e = 0;
  MPI_Get_count_c(&st, vec, &c);
  MPI_Get_elements_c(&st, vec, &e);
  CHECK(c == MPI_UNDEFINED, "Get_count_c of 2.5 vectors: %lld", (long long)c);
  CHECK(e == 15, "Get_elements_c of 2.5 vectors: %lld", (long long)e);
  /* 15 ints land in blocks of 2 every 4: positions 0 1, 4 5, 8 9, then the next vector. */
  for (int k = 0; k < 15; k++) {
    const int pos = (k / 6) * 10 + ((k % 6) / 2) * 4 + k % 2; /* vector extent: 10 ints */
    CHECK(in[pos] == prev * 100000 + 50 * 1000 + k, "Imrecv_c into a vector: int %d at %d is %d", k, pos, in[pos]);
  }
  ck_i64(&h, (long long)e);
  MPI_Type_free(&vec);

  free(in);
  free(out);
  ck_finish(&h, "p2p_large_count");
  MPI_Finalize();
  return 0;
}
