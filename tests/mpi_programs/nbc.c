/* nbc.c - nonblocking collectives.
 *
 * Checks: Ibarrier (completed by a Test loop); Ibcast, Ireduce, Iallreduce, Igather, Igatherv,
 * Iscatter, Iallgather, Iallgatherv, Ialltoall, Ialltoallv, Ireduce_scatter_block, Iscan all
 * outstanding at once and completed with one Waitall; two NBCs completed with separate Waits in
 * opposite orders on even and odd ranks; NBCs on two communicators at once; completion of an
 * Iallreduce by a Test loop; point-to-point traffic (Sendrecv, Isend/Irecv with a wildcard
 * receive) while an Ialltoall is pending. Results are checked against closed forms.
 */
#include "check.h"

static int dv(int src, int dst, int k) {
  return src * 1009 + dst * 31 + k;
}

static void test_ibarrier(ck_t* h) {
  MPI_Request rq;
  int flag = 0;
  MPI_Ibarrier(MPI_COMM_WORLD, &rq);
  while (!flag)
    MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
  CHECK(rq == MPI_REQUEST_NULL, "Ibarrier request not freed");
  ck_int(h, flag); /* (how many polls it took depends on timing: not hashed) */
}

static void test_many_outstanding(ck_t* h, int rank, int size) {
  enum { NR = 12 };
  MPI_Request rq[NR];
  int n = 0;
  int root0 = 0, root1 = size - 1, root2 = size / 2;

  int bc[4];
  for (int k = 0; k < 4; k++)
    bc[k] = rank == root0 ? dv(root0, 0, k) : -1;
  MPI_Ibcast(bc, 4, MPI_INT, root0, MPI_COMM_WORLD, &rq[n++]);

  long long red_s[2] = {rank + 1, 2 * rank}, red_r[2] = {-1, -1};
  MPI_Ireduce(red_s, red_r, 2, MPI_LONG_LONG, MPI_SUM, root1, MPI_COMM_WORLD, &rq[n++]);

  double ar_s[2] = {rank * 0.5, -rank}, ar_r[2];
  MPI_Iallreduce(ar_s, ar_r, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &rq[n++]);

  int g_s[2] = {dv(rank, 1, 0), dv(rank, 1, 1)};
  int* g_r = malloc(sizeof(int) * 2 * (size_t)size);
  MPI_Igather(g_s, 2, MPI_INT, g_r, 2, MPI_INT, root2, MPI_COMM_WORLD, &rq[n++]);

  int* counts = malloc(sizeof(int) * (size_t)size);
  int* displs = malloc(sizeof(int) * (size_t)size);
  int tot = 0;
  for (int q = size - 1; q >= 0; q--) { /* reversed layout */
    counts[q] = q % 3 + 1;
    displs[q] = tot;
    tot += counts[q];
  }
  int gv_s[3];
  for (int k = 0; k < counts[rank]; k++)
    gv_s[k] = dv(rank, 2, k);
  int* gv_r = malloc(sizeof(int) * (size_t)tot);
  MPI_Igatherv(gv_s, counts[rank], MPI_INT, gv_r, counts, displs, MPI_INT, root0, MPI_COMM_WORLD, &rq[n++]);

  int* sc_s = malloc(sizeof(int) * 2 * (size_t)size);
  for (int q = 0; q < size; q++)
    sc_s[2 * q] = dv(root1, q, 0), sc_s[2 * q + 1] = dv(root1, q, 1);
  int sc_r[2] = {-1, -1};
  MPI_Iscatter(sc_s, 2, MPI_INT, sc_r, 2, MPI_INT, root1, MPI_COMM_WORLD, &rq[n++]);

  int ag_s = dv(rank, 3, 0);
  int* ag_r = malloc(sizeof(int) * (size_t)size);
  MPI_Iallgather(&ag_s, 1, MPI_INT, ag_r, 1, MPI_INT, MPI_COMM_WORLD, &rq[n++]);

  int agv_s[3];
  for (int k = 0; k < counts[rank]; k++)
    agv_s[k] = dv(rank, 4, k);
  int* agv_r = malloc(sizeof(int) * (size_t)tot);
  MPI_Iallgatherv(agv_s, counts[rank], MPI_INT, agv_r, counts, displs, MPI_INT, MPI_COMM_WORLD, &rq[n++]);

  int* a2a_s = malloc(sizeof(int) * (size_t)size);
  int* a2a_r = malloc(sizeof(int) * (size_t)size);
  for (int q = 0; q < size; q++)
    a2a_s[q] = dv(rank, q, 5);
  MPI_Ialltoall(a2a_s, 1, MPI_INT, a2a_r, 1, MPI_INT, MPI_COMM_WORLD, &rq[n++]);

  /* Ialltoallv: (i + j) % 2 + 1 ints from i to j */
  int* scn = malloc(sizeof(int) * (size_t)size);
  int* sdp = malloc(sizeof(int) * (size_t)size);
  int* rcn = malloc(sizeof(int) * (size_t)size);
  int* rdp = malloc(sizeof(int) * (size_t)size);
  int sp = 0, rp = 0;
  for (int q = 0; q < size; q++) {
    scn[q] = (rank + q) % 2 + 1;
    sdp[q] = sp;
    sp += scn[q];
    rcn[q] = (q + rank) % 2 + 1;
    rdp[q] = rp;
    rp += rcn[q];
  }
  int* v_s = malloc(sizeof(int) * (size_t)sp);
  int* v_r = malloc(sizeof(int) * (size_t)rp);
  for (int q = 0; q < size; q++)
    for (int k = 0; k < scn[q]; k++)
      v_s[sdp[q] + k] = dv(rank, q, 6 + k);
  MPI_Ialltoallv(v_s, scn, sdp, MPI_INT, v_r, rcn, rdp, MPI_INT, MPI_COMM_WORLD, &rq[n++]);

  int* rsb_s = malloc(sizeof(int) * (size_t)size);
  int rsb_r = -1;
  for (int q = 0; q < size; q++)
    rsb_s[q] = rank + q;
  MPI_Ireduce_scatter_block(rsb_s, &rsb_r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[n++]);

  int sc_in = rank + 1, sc_out = -1;
  MPI_Iscan(&sc_in, &sc_out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[n++]);

  CHECK(n == NR, "request count");
  MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);

  for (int k = 0; k < 4; k++)
    CHECK(bc[k] == dv(root0, 0, k), "Ibcast");
  ck_ints(h, bc, 4);
  if (rank == root1) {
    CHECK(red_r[0] == (long long)size * (size + 1) / 2 && red_r[1] == (long long)size * (size - 1), "Ireduce");
    ck_i64(h, red_r[0]);
    ck_i64(h, red_r[1]);
  }
  CHECK(ar_r[0] == (size - 1) * 0.5 && ar_r[1] == 0, "Iallreduce MAX");
  ck_doubles(h, ar_r, 2);
  if (rank == root2) {
    for (int q = 0; q < size; q++)
      CHECK(g_r[2 * q] == dv(q, 1, 0) && g_r[2 * q + 1] == dv(q, 1, 1), "Igather from %d", q);
    ck_ints(h, g_r, 2 * size);
  }
  if (rank == root0) {
    for (int q = 0; q < size; q++)
      for (int k = 0; k < counts[q]; k++)
        CHECK(gv_r[displs[q] + k] == dv(q, 2, k), "Igatherv");
    ck_ints(h, gv_r, tot);
  }
  CHECK(sc_r[0] == dv(root1, rank, 0) && sc_r[1] == dv(root1, rank, 1), "Iscatter");
  ck_ints(h, sc_r, 2);
  for (int q = 0; q < size; q++)
    CHECK(ag_r[q] == dv(q, 3, 0), "Iallgather from %d", q);
  ck_ints(h, ag_r, size);
  for (int q = 0; q < size; q++)
    for (int k = 0; k < counts[q]; k++)
      CHECK(agv_r[displs[q] + k] == dv(q, 4, k), "Iallgatherv");
  ck_ints(h, agv_r, tot);
  for (int q = 0; q < size; q++)
    CHECK(a2a_r[q] == dv(q, rank, 5), "Ialltoall from %d", q);
  ck_ints(h, a2a_r, size);
  for (int q = 0; q < size; q++)
    for (int k = 0; k < rcn[q]; k++)
      CHECK(v_r[rdp[q] + k] == dv(q, rank, 6 + k), "Ialltoallv");
  ck_ints(h, v_r, rp);
  CHECK(rsb_r == size * (size - 1) / 2 + size * rank, "Ireduce_scatter_block %d", rsb_r);
  ck_int(h, rsb_r);
  CHECK(sc_out == (rank + 1) * (rank + 2) / 2, "Iscan %d", sc_out);
  ck_int(h, sc_out);

  free(g_r);
  free(counts);
  free(displs);
  free(gv_r);
  free(sc_s);
  free(ag_r);
  free(agv_r);
  free(a2a_s);
  free(a2a_r);
  free(scn);
  free(sdp);
  free(rcn);
  free(rdp);
  free(v_s);
  free(v_r);
  free(rsb_s);
}

static void test_opposite_order(ck_t* h, int rank, int size) {
  MPI_Request a, b;
  int as = rank, ar = -1, bb[3];
  for (int k = 0; k < 3; k++)
    bb[k] = rank == size - 1 ? 70 + k : -1;
  MPI_Iallreduce(&as, &ar, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &a);
  MPI_Ibcast(bb, 3, MPI_INT, size - 1, MPI_COMM_WORLD, &b);
  if (rank % 2) {
    MPI_Wait(&b, MPI_STATUS_IGNORE);
    MPI_Wait(&a, MPI_STATUS_IGNORE);
  } else {
    MPI_Wait(&a, MPI_STATUS_IGNORE);
    MPI_Wait(&b, MPI_STATUS_IGNORE);
  }
  CHECK(ar == size * (size - 1) / 2, "opposite-order Iallreduce %d", ar);
  CHECK(bb[0] == 70 && bb[2] == 72, "opposite-order Ibcast");
  ck_int(h, ar);
  ck_ints(h, bb, 3);

  /* NBCs on two communicators at once, completed in reverse order of starting */
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int x = rank + 1, y = 2 * rank, rx = -1, ry = -1;
  MPI_Iallreduce(&x, &rx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &a);
  MPI_Iallreduce(&y, &ry, 1, MPI_INT, MPI_SUM, dup, &b);
  MPI_Wait(&b, MPI_STATUS_IGNORE);
  MPI_Wait(&a, MPI_STATUS_IGNORE);
  CHECK(rx == size && ry == size * (size - 1), "two communicators %d %d", rx, ry);
  ck_int(h, rx);
  ck_int(h, ry);
  MPI_Comm_free(&dup);
}

static void test_test_loop(ck_t* h, int rank, int size) {
  long long v[3] = {rank, rank * rank, 1}, r[3];
  MPI_Request rq;
  int flag = 0;
  MPI_Iallreduce(v, r, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD, &rq);
  while (!flag)
    MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
  long long n = size;
  CHECK(r[0] == n * (n - 1) / 2 && r[1] == (n - 1) * n * (2 * n - 1) / 6 && r[2] == n, "Test-loop Iallreduce");
  for (int k = 0; k < 3; k++)
    ck_i64(h, r[k]);
}

static void test_overlap(ck_t* h, int rank, int size) {
  int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  int* s = malloc(sizeof(int) * (size_t)size);
  int* r = malloc(sizeof(int) * (size_t)size);
  for (int q = 0; q < size; q++)
    s[q] = dv(rank, q, 9);
  /* a receive posted before the collective, matched by a send made while it is pending */
  int early = -1, late = rank * 3 + 1;
  MPI_Request pre, a2a, snd;
  MPI_Irecv(&early, 1, MPI_INT, MPI_ANY_SOURCE, 41, MPI_COMM_WORLD, &pre);
  MPI_Ialltoall(s, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD, &a2a);
  int sv = rank * 11, rv = -1;
  MPI_Sendrecv(&sv, 1, MPI_INT, next, 40, &rv, 1, MPI_INT, prev, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Isend(&late, 1, MPI_INT, next, 41, MPI_COMM_WORLD, &snd);
  MPI_Status st;
  MPI_Wait(&pre, &st);
  MPI_Wait(&snd, MPI_STATUS_IGNORE);
  MPI_Wait(&a2a, MPI_STATUS_IGNORE);
  CHECK(rv == prev * 11, "Sendrecv during Ialltoall");
  CHECK(early == prev * 3 + 1 && st.MPI_SOURCE == prev, "wildcard receive during Ialltoall");
  for (int q = 0; q < size; q++)
    CHECK(r[q] == dv(q, rank, 9), "overlapped Ialltoall");
  ck_int(h, rv);
  ck_int(h, early);
  ck_ints(h, r, size);
  free(s);
  free(r);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;
  test_ibarrier(&h);
  test_many_outstanding(&h, rank, size);
  test_opposite_order(&h, rank, size);
  test_test_loop(&h, rank, size);
  test_overlap(&h, rank, size);
  ck_finish(&h, "nbc");
  MPI_Finalize();
  return 0;
}
