/* intercomm.c - collectives on intercommunicators and the communicator constructors of MPI-3.
 *
 * For every split of the world into a first group of k ranks and a second of size-k (k = 1,
 * size/2 and 2 where they differ: 1 vs 3, 2 vs 3, ...), on an intercommunicator between them:
 * every blocking collective and its non-blocking form, each rooted one with either group as
 * the root group (root = MPI_ROOT, the rest of the root group MPI_PROC_NULL with buffers that
 * must stay untouched), Gatherv/Scatterv/Allgatherv/Alltoallv with uneven counts,
 * Reduce_scatter(_block) with different counts on the two sides; then Comm_split (a color
 * only one side chooses gives MPI_COMM_NULL) and Comm_create on the intercommunicator,
 * Comm_dup and Comm_compare of intercommunicators. On MPI_COMM_WORLD: Comm_create_group
 * (only the members call it, twice with the same tag), Comm_idup, Comm_dup_with_info,
 * Comm_idup_with_info and Intercomm_create_from_groups (MPI-4.0), Comm_set_info/get_info. An invalid root gives
 * MPI_ERR_ROOT. Needs two ranks for the intercommunicator parts.
 */
#include "check.h"

#define NB_FORMS 2 /* 0: blocking, 1: non-blocking + MPI_Wait */

/* The value world rank w contributes at index i. */
static int val(int w, int i) {
  return w * 100 + i;
}

typedef struct {
  MPI_Comm ic;
  int first;      /* in the first group (world ranks 0..k-1) */
  int k, size;    /* first group size, world size */
  int lr, ls, rs; /* local rank, local size, remote size */
} Ic;

static int remote_world(const Ic* x, int j) {
  return x->first ? x->k + j : j;
}

static void wait_if(int nb, MPI_Request* r) {
  if (nb) MPI_Wait(r, MPI_STATUS_IGNORE);
}

/* Bcast, Gather(v), Scatter(v), Reduce with the first (root_first) or second group as root group. */
static void rooted(ck_t* h, const Ic* x, int root_first, int nb) {
  const int in_root_group = x->first == root_first;
  /* The root group's last rank; its rank 0 for the non-blocking forms (MPICH 4.0.2's MPI_Ibcast
   * on an intercommunicator delivers nothing from a root other than rank 0). */
  const int root_local = nb ? 0 : (root_first ? x->k : x->size - x->k) - 1;
  const int am_root = in_root_group && x->lr == root_local;
  const int root = in_root_group ? (am_root ? MPI_ROOT : MPI_PROC_NULL) : root_local;
  const int root_world = root_first ? root_local : x->k + root_local;
  MPI_Request rq = MPI_REQUEST_NULL;
  enum { N = 5 };
  int buf[N];
  /* Bcast: the root's data to every rank of the other group. */
  for (int i = 0; i < N; i++)
    buf[i] = am_root ? val(root_world, i) : -1;
  if (nb)
    MPI_Ibcast(buf, N, MPI_INT, root, x->ic, &rq);
  else
    MPI_Bcast(buf, N, MPI_INT, root, x->ic);
  wait_if(nb, &rq);
  for (int i = 0; i < N; i++) {
    const int want = in_root_group ? (am_root ? val(root_world, i) : -1) : val(root_world, i);
    CHECK(buf[i] == want, "bcast[%d] = %d want %d (nb %d, root group first %d, k %d)", i, buf[i], want, nb, root_first,
          x->k);
  }
  ck_ints(h, buf, N);

  /* Gather: 3 ints from each rank of the other group; Gatherv: remote j sends j+1 ints at
   * displacement 2j + j(j+1)/2 (gaps of 2). */
  const int rs = x->rs;
  int* all = malloc(sizeof(int) * (size_t)(3 * rs + 2 * rs + rs * (rs + 1) / 2 + 1));
  int* mine = malloc(sizeof(int) * (size_t)(x->ls + rs + 8));
  for (int i = 0; i < 3; i++)
    mine[i] = val(x->first ? x->lr : x->k + x->lr, i);
  const int total = 3 * rs + 2 * rs + rs * (rs + 1) / 2 + 1;
  for (int i = 0; i < total; i++)
    all[i] = -7;
  if (nb)
    MPI_Igather(mine, 3, MPI_INT, all, 3, MPI_INT, root, x->ic, &rq);
  else
    MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, root, x->ic);
  wait_if(nb, &rq);
  if (am_root) {
    for (int j = 0; j < rs; j++)
      for (int i = 0; i < 3; i++)
        CHECK(all[3 * j + i] == val(remote_world(x, j), i), "gather from %d [%d] = %d", j, i, all[3 * j + i]);
    ck_ints(h, all, 3 * rs);
  } else {
    for (int i = 0; i < total; i++)
      CHECK(all[i] == -7, "gather touched a non-root buffer");
  }
  int* counts = malloc(sizeof(int) * (size_t)rs);
  int* displs = malloc(sizeof(int) * (size_t)rs);
  for (int j = 0, d = 0; j < rs; j++) {
    counts[j] = j + 1;
    displs[j] = d;
    d += j + 1 + 2;
  }
  const int my_count = x->lr + 1;
  for (int i = 0; i < my_count; i++)
    mine[i] = val(x->first ? x->lr : x->k + x->lr, i + 10);
  for (int i = 0; i < total; i++)
    all[i] = -7;
  if (nb)
    MPI_Igatherv(mine, my_count, MPI_INT, all, counts, displs, MPI_INT, root, x->ic, &rq);
  else
    MPI_Gatherv(mine, my_count, MPI_INT, all, counts, displs, MPI_INT, root, x->ic);
  wait_if(nb, &rq);
  if (am_root) {
    for (int j = 0; j < rs; j++) {
      for (int i = 0; i < counts[j]; i++)
        CHECK(all[displs[j] + i] == val(remote_world(x, j), i + 10), "gatherv from %d [%d]", j, i);
      CHECK(all[displs[j] + counts[j]] == -7, "gatherv wrote into a gap");
    }
    ck_ints(h, all, total);
  }

  /* Scatter: 2 ints to each remote rank; Scatterv: the Gatherv layout the other way. */
  for (int j = 0; j < 2 * rs; j++)
    all[j] = am_root ? val(root_world, 1000 + j) : -7;
  mine[0] = mine[1] = -3;
  if (nb)
    MPI_Iscatter(all, 2, MPI_INT, mine, 2, MPI_INT, root, x->ic, &rq);
  else
    MPI_Scatter(all, 2, MPI_INT, mine, 2, MPI_INT, root, x->ic);
  wait_if(nb, &rq);
  for (int i = 0; i < 2; i++) {
    const int want = in_root_group ? -3 : val(root_world, 1000 + 2 * x->lr + i);
    CHECK(mine[i] == want, "scatter[%d] = %d want %d", i, mine[i], want);
  }
  ck_ints(h, mine, 2);
  for (int i = 0; i < total; i++)
    all[i] = am_root ? val(root_world, 2000 + i) : -7;
  for (int i = 0; i < x->ls + rs + 8; i++)
    mine[i] = -3;
  if (nb)
    MPI_Iscatterv(all, counts, displs, MPI_INT, mine, my_count, MPI_INT, root, x->ic, &rq);
  else
    MPI_Scatterv(all, counts, displs, MPI_INT, mine, my_count, MPI_INT, root, x->ic);
  wait_if(nb, &rq);
  if (!in_root_group) {
    int d = 0;
    for (int j = 0; j < x->lr; j++)
      d += j + 3;
    for (int i = 0; i < my_count; i++)
      CHECK(mine[i] == val(root_world, 2000 + d + i), "scatterv[%d] = %d", i, mine[i]);
    CHECK(mine[my_count] == -3, "scatterv wrote past the count");
    ck_ints(h, mine, my_count);
  } else {
    CHECK(mine[0] == -3, "scatterv touched a root-group buffer");
  }

  /* Reduce: the sum and the max over the other group, at the root. */
  int in[2], out[2] = {-5, -5};
  const int me_world = x->first ? x->lr : x->k + x->lr;
  in[0] = val(me_world, 1);
  in[1] = val(me_world, 2);
  if (nb)
    MPI_Ireduce(in, out, 2, MPI_INT, MPI_SUM, root, x->ic, &rq);
  else
    MPI_Reduce(in, out, 2, MPI_INT, MPI_SUM, root, x->ic);
  wait_if(nb, &rq);
  if (am_root) {
    int s0 = 0, s1 = 0;
    for (int j = 0; j < rs; j++) {
      s0 += val(remote_world(x, j), 1);
      s1 += val(remote_world(x, j), 2);
    }
    CHECK(out[0] == s0 && out[1] == s1, "reduce %d %d want %d %d", out[0], out[1], s0, s1);
    ck_ints(h, out, 2);
  } else {
    CHECK(out[0] == -5, "reduce touched a non-root buffer");
  }
  double dv = (double)me_world, dmax = -1;
  if (nb)
    MPI_Ireduce(&dv, &dmax, 1, MPI_DOUBLE, MPI_MAX, root, x->ic, &rq);
  else
    MPI_Reduce(&dv, &dmax, 1, MPI_DOUBLE, MPI_MAX, root, x->ic);
  wait_if(nb, &rq);
  if (am_root) {
    CHECK(dmax == (double)remote_world(x, rs - 1), "reduce max %g", dmax);
    ck_double(h, dmax);
  }
  free(all);
  free(mine);
  free(counts);
  free(displs);
}

/* Allgather(v), Alltoall(v), Allreduce, Reduce_scatter(_block), Barrier. */
static void exchanges(ck_t* h, const Ic* x, int nb) {
  const int rs = x->rs, ls = x->ls, me = x->first ? x->lr : x->k + x->lr;
  MPI_Request rq = MPI_REQUEST_NULL;
  int* r = malloc(sizeof(int) * (size_t)(4 * rs * (rs + ls) + 8));
  int* s = malloc(sizeof(int) * (size_t)(4 * rs * (rs + ls) + 8));
  int* rc = malloc(sizeof(int) * (size_t)(rs + ls));
  int* rd = malloc(sizeof(int) * (size_t)(rs + ls));
  int* sc = malloc(sizeof(int) * (size_t)(rs + ls));
  int* sd = malloc(sizeof(int) * (size_t)(rs + ls));

  /* Allgather: 2 ints from every remote rank, in remote rank order. */
  s[0] = val(me, 0);
  s[1] = val(me, 1);
  if (nb)
    MPI_Iallgather(s, 2, MPI_INT, r, 2, MPI_INT, x->ic, &rq);
  else
    MPI_Allgather(s, 2, MPI_INT, r, 2, MPI_INT, x->ic);
  wait_if(nb, &rq);
  for (int j = 0; j < rs; j++)
    CHECK(r[2 * j] == val(remote_world(x, j), 0) && r[2 * j + 1] == val(remote_world(x, j), 1), "allgather %d", j);
  ck_ints(h, r, 2 * rs);

  /* Allgatherv: remote j sends (j % 3) + 1 ints, stored in reverse order of ranks. */
  int d = 0;
  for (int j = rs - 1; j >= 0; j--) {
    rc[j] = j % 3 + 1;
    rd[j] = d;
    d += rc[j];
  }
  for (int i = 0; i < x->lr % 3 + 1; i++)
    s[i] = val(me, 20 + i);
  if (nb)
    MPI_Iallgatherv(s, x->lr % 3 + 1, MPI_INT, r, rc, rd, MPI_INT, x->ic, &rq);
  else
    MPI_Allgatherv(s, x->lr % 3 + 1, MPI_INT, r, rc, rd, MPI_INT, x->ic);
  wait_if(nb, &rq);
  for (int j = 0; j < rs; j++)
    for (int i = 0; i < rc[j]; i++)
      CHECK(r[rd[j] + i] == val(remote_world(x, j), 20 + i), "allgatherv %d [%d]", j, i);
  ck_ints(h, r, d);

  /* Alltoall: to remote j, me*1000 + j. */
  for (int j = 0; j < rs; j++)
    s[j] = me * 1000 + j;
  if (nb)
    MPI_Ialltoall(s, 1, MPI_INT, r, 1, MPI_INT, x->ic, &rq);
  else
    MPI_Alltoall(s, 1, MPI_INT, r, 1, MPI_INT, x->ic);
  wait_if(nb, &rq);
  for (int j = 0; j < rs; j++)
    CHECK(r[j] == remote_world(x, j) * 1000 + x->lr, "alltoall from %d: %d", j, r[j]);
  ck_ints(h, r, rs);

  /* Alltoallv: (sender local + receiver local) % 3 + 1 ints. */
  int ds = 0, dr = 0;
  for (int j = 0; j < rs; j++) {
    sc[j] = rc[j] = (x->lr + j) % 3 + 1;
    sd[j] = ds;
    rd[j] = dr + 1; /* a gap of one before each block */
    for (int i = 0; i < sc[j]; i++)
      s[ds + i] = me * 1000 + 10 * j + i;
    ds += sc[j];
    dr += rc[j] + 1;
  }
  for (int i = 0; i < dr; i++)
    r[i] = -9;
  if (nb)
    MPI_Ialltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, x->ic, &rq);
  else
    MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, x->ic);
  wait_if(nb, &rq);
  for (int j = 0; j < rs; j++) {
    CHECK(r[rd[j] - 1] == -9, "alltoallv wrote into a gap");
    for (int i = 0; i < rc[j]; i++)
      CHECK(r[rd[j] + i] == remote_world(x, j) * 1000 + 10 * x->lr + i, "alltoallv from %d [%d]", j, i);
  }
  ck_ints(h, r, dr);

  /* Allreduce: every rank gets the other group's sum. */
  long long lv = (long long)me * me + 1, lsum = 0, want = 0;
  if (nb)
    MPI_Iallreduce(&lv, &lsum, 1, MPI_LONG_LONG, MPI_SUM, x->ic, &rq);
  else
    MPI_Allreduce(&lv, &lsum, 1, MPI_LONG_LONG, MPI_SUM, x->ic);
  wait_if(nb, &rq);
  for (int j = 0; j < rs; j++)
    want += (long long)remote_world(x, j) * remote_world(x, j) + 1;
  CHECK(lsum == want, "allreduce %lld want %lld", lsum, want);
  ck_i64(h, lsum);

  /* Reduce_scatter: both sides reduce vectors of n = ls*rs; local rank i gets rs elements
   * (the remote side gets ls each): element e of world rank w's input is w + e. */
  const int n = ls * rs;
  for (int e = 0; e < n; e++)
    s[e] = me + e;
  for (int i = 0; i < ls; i++)
    rc[i] = rs;
  for (int i = 0; i < rs; i++)
    r[i] = -1;
  if (nb)
    MPI_Ireduce_scatter(s, r, rc, MPI_INT, MPI_SUM, x->ic, &rq);
  else
    MPI_Reduce_scatter(s, r, rc, MPI_INT, MPI_SUM, x->ic);
  wait_if(nb, &rq);
  for (int i = 0; i < rs; i++) {
    int w = 0;
    for (int j = 0; j < rs; j++)
      w += remote_world(x, j) + x->lr * rs + i;
    CHECK(r[i] == w, "reduce_scatter [%d] = %d want %d", i, r[i], w);
  }
  ck_ints(h, r, rs);
  for (int i = 0; i < rs; i++)
    r[i] = -1;
  if (nb)
    MPI_Ireduce_scatter_block(s, r, rs, MPI_INT, MPI_SUM, x->ic, &rq);
  else
    MPI_Reduce_scatter_block(s, r, rs, MPI_INT, MPI_SUM, x->ic);
  wait_if(nb, &rq);
  for (int i = 0; i < rs; i++) {
    int w = 0;
    for (int j = 0; j < rs; j++)
      w += remote_world(x, j) + x->lr * rs + i;
    CHECK(r[i] == w, "reduce_scatter_block [%d] = %d want %d", i, r[i], w);
  }
  ck_ints(h, r, rs);

  if (nb) {
    MPI_Ibarrier(x->ic, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
  } else {
    MPI_Barrier(x->ic);
  }
  free(r);
  free(s);
  free(rc);
  free(rd);
  free(sc);
  free(sd);
}

/* Sum of the world ranks of the remote group of `c`, by an Allreduce across it. */
static int remote_sum(MPI_Comm c, int me) {
  int s = 0;
  MPI_Allreduce(&me, &s, 1, MPI_INT, MPI_SUM, c);
  return s;
}

/* Comm_split, Comm_create, Comm_dup and Comm_compare on the intercommunicator. */
static void constructors(ck_t* h, const Ic* x) {
  const int me = x->first ? x->lr : x->k + x->lr;
  /* Split: color = local rank % 2, key = -local rank (reversed order). */
  MPI_Comm sp;
  const int color = x->lr % 2;
  MPI_Comm_split(x->ic, color, -x->lr, &sp);
  int lcount = 0, rcount = 0, rsum = 0;
  for (int i = 0; i < x->ls; i++)
    lcount += i % 2 == color;
  for (int j = 0; j < x->rs; j++)
    if (j % 2 == color) {
      rcount++;
      rsum += remote_world(x, j);
    }
  if (rcount == 0) {
    CHECK(sp == MPI_COMM_NULL, "split: a color only this side chose must give MPI_COMM_NULL");
  } else {
    int flag = 0, ls2, rs2, lr2;
    CHECK(sp != MPI_COMM_NULL, "split gave MPI_COMM_NULL");
    MPI_Comm_test_inter(sp, &flag);
    MPI_Comm_size(sp, &ls2);
    MPI_Comm_remote_size(sp, &rs2);
    MPI_Comm_rank(sp, &lr2);
    CHECK(flag && ls2 == lcount && rs2 == rcount, "split sizes %d %d want %d %d", ls2, rs2, lcount, rcount);
    CHECK(lr2 == (lcount - 1) - x->lr / 2, "split rank %d (reversed by key)", lr2);
    CHECK(remote_sum(sp, me) == rsum, "split: remote members");
    /* The remote group, in its new order: descending local ranks of that color. */
    int first_remote = -1;
    MPI_Group rg, wg;
    MPI_Comm_remote_group(sp, &rg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int zero = 0;
    MPI_Group_translate_ranks(rg, 1, &zero, wg, &first_remote);
    int top = -1;
    for (int j = 0; j < x->rs; j++)
      if (j % 2 == color) top = remote_world(x, j);
    CHECK(first_remote == top, "split: remote rank 0 is world %d want %d", first_remote, top);
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);
    ck_int(h, lr2);
    ck_int(h, rs2);
    /* Compare: a dup is congruent, the split (other members or order) is not. */
    MPI_Comm dup;
    int res;
    MPI_Comm_dup(sp, &dup);
    MPI_Comm_compare(sp, dup, &res);
    CHECK(res == MPI_CONGRUENT, "compare(split, dup) = %d", res);
    MPI_Comm_compare(sp, sp, &res);
    CHECK(res == MPI_IDENT, "compare(split, split) = %d", res);
    MPI_Comm_compare(sp, MPI_COMM_WORLD, &res);
    CHECK(res == MPI_UNEQUAL, "compare(intercomm, world) = %d", res);
    CHECK(remote_sum(dup, me) == rsum, "dup of a split intercommunicator");
    MPI_Comm_free(&dup);
    MPI_Comm_free(&sp);
  }
  /* Create: each side drops its local rank 0 (when it has more than one rank). */
  MPI_Group lg, sub;
  MPI_Comm_group(x->ic, &lg);
  const int zero = 0;
  if (x->ls > 1)
    MPI_Group_excl(lg, 1, &zero, &sub);
  else
    MPI_Group_incl(lg, 1, &zero, &sub);
  MPI_Comm cr;
  MPI_Comm_create(x->ic, sub, &cr);
  if (x->ls > 1 && x->lr == 0) {
    CHECK(cr == MPI_COMM_NULL, "create: a rank outside the group got a communicator");
  } else {
    int ls2, rs2, lr2, res;
    CHECK(cr != MPI_COMM_NULL, "create gave MPI_COMM_NULL");
    MPI_Comm_size(cr, &ls2);
    MPI_Comm_remote_size(cr, &rs2);
    MPI_Comm_rank(cr, &lr2);
    const int want_rs = x->rs > 1 ? x->rs - 1 : 1;
    CHECK(ls2 == (x->ls > 1 ? x->ls - 1 : 1) && rs2 == want_rs, "create sizes %d %d", ls2, rs2);
    CHECK(lr2 == (x->ls > 1 ? x->lr - 1 : 0), "create rank %d", lr2);
    int want = 0;
    for (int j = x->rs > 1 ? 1 : 0; j < x->rs; j++)
      want += remote_world(x, j);
    CHECK(remote_sum(cr, me) == want, "create: remote members");
    MPI_Comm_compare(cr, x->ic, &res);
    CHECK(res == (x->ls > 1 || x->rs > 1 ? MPI_UNEQUAL : MPI_CONGRUENT), "compare(create, parent) = %d", res);
    ck_int(h, res);
    MPI_Comm_free(&cr);
  }
  MPI_Group_free(&lg);
  MPI_Group_free(&sub);
}

static void test_intercomm(ck_t* h, int rank, int size, int k) {
  Ic x;
  x.k = k;
  x.size = size;
  x.first = rank < k;
  MPI_Comm local;
  MPI_Comm_split(MPI_COMM_WORLD, x.first, rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, x.first ? k : 0, 40 + k, &x.ic);
  MPI_Comm_free(&local);
  MPI_Comm_rank(x.ic, &x.lr);
  MPI_Comm_size(x.ic, &x.ls);
  MPI_Comm_remote_size(x.ic, &x.rs);
  CHECK(x.ls == (x.first ? k : size - k) && x.rs == size - x.ls, "intercomm sizes");
  for (int nb = 0; nb < NB_FORMS; nb++) {
    rooted(h, &x, 1, nb);
    rooted(h, &x, 0, nb);
    exchanges(h, &x, nb);
  }
  constructors(h, &x);
  /* The same two groups by MPI_Intercomm_create_from_groups (MPI-4.0): remote members. */
  MPI_Group wg, lg, rg;
  MPI_Comm fg;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  int range[1][3] = {{0, k - 1, 1}}, rest[1][3] = {{k, size - 1, 1}};
  MPI_Group_range_incl(wg, 1, x.first ? range : rest, &lg);
  MPI_Group_range_incl(wg, 1, x.first ? rest : range, &rg);
  MPI_Intercomm_create_from_groups(lg, 0, rg, 0, "intercomm.c", MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &fg);
  int want = 0;
  for (int j = 0; j < x.rs; j++)
    want += remote_world(&x, j);
  CHECK(remote_sum(fg, rank) == want, "from_groups: remote members");
  MPI_Comm_free(&fg);
  MPI_Group_free(&wg);
  MPI_Group_free(&lg);
  MPI_Group_free(&rg);
  /* A root that is neither MPI_ROOT, MPI_PROC_NULL nor a remote rank: MPI_ERR_ROOT, locally. */
  MPI_Comm_set_errhandler(x.ic, MPI_ERRORS_RETURN);
  int b = 0, cls = MPI_SUCCESS;
  const int rc = MPI_Bcast(&b, 1, MPI_INT, x.rs + 5, x.ic);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_ROOT, "bcast with root %d: error class %d", x.rs + 5, cls);
  MPI_Comm_free(&x.ic);
}

/* Comm_create_group, Comm_idup(_with_info), Comm_dup_with_info, Comm_set/get_info. */
static void test_new_comms(ck_t* h, int rank, int size) {
  MPI_Group wg, half;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  /* The even ranks and the odd ranks each make their own, concurrently, twice with one tag. */
  const int n = (size - (rank % 2) + 1) / 2;
  int* members = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++)
    members[i] = rank % 2 + 2 * i;
  MPI_Group_incl(wg, n, members, &half);
  MPI_Comm a, b;
  MPI_Comm_create_group(MPI_COMM_WORLD, half, 5, &a);
  MPI_Comm_create_group(MPI_COMM_WORLD, half, 5, &b);
  int sa = 0, sb = 0, ra, want = 0;
  for (int i = 0; i < n; i++)
    want += members[i];
  MPI_Comm_rank(a, &ra);
  CHECK(ra == rank / 2, "create_group rank %d", ra);
  /* Messages on the two must not mix: b's sum goes first. */
  MPI_Request q;
  MPI_Iallreduce(&rank, &sa, 1, MPI_INT, MPI_SUM, a, &q);
  MPI_Allreduce(&rank, &sb, 1, MPI_INT, MPI_SUM, b);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  CHECK(sa == want && sb == want, "create_group sums %d %d want %d", sa, sb, want);
  ck_int(h, sa);
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  MPI_Group_free(&half);
  MPI_Group_free(&wg);
  free(members);

  /* Idup: usable once the request completes. */
  MPI_Comm d1, d2, d3;
  MPI_Request r1;
  MPI_Comm_idup(MPI_COMM_WORLD, &d1, &r1);
  MPI_Wait(&r1, MPI_STATUS_IGNORE);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
  MPI_Comm_dup_with_info(d1, info, &d2);
  MPI_Comm_idup_with_info(d2, info, &d3, &r1);
  MPI_Wait(&r1, MPI_STATUS_IGNORE);
  MPI_Comm_set_info(d3, info);
  MPI_Info_free(&info);
  MPI_Info got;
  MPI_Comm_get_info(d3, &got);
  CHECK(got != MPI_INFO_NULL, "get_info returned MPI_INFO_NULL");
  MPI_Info_free(&got);
  int res, s = 0;
  MPI_Comm_compare(MPI_COMM_WORLD, d3, &res);
  CHECK(res == MPI_CONGRUENT, "compare(world, idup) = %d", res);
  MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_SUM, d3);
  CHECK(s == size * (size - 1) / 2, "allreduce on a duplicate: %d", s);
  ck_int(h, s);
  MPI_Comm_free(&d1);
  MPI_Comm_free(&d2);
  MPI_Comm_free(&d3);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;
  if (size >= 2) {
    int ks[3] = {1, size / 2, 2}, done[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
      if (ks[i] < 1 || ks[i] >= size) continue;
      int seen = 0;
      for (int j = 0; j < i; j++)
        seen |= done[j] && ks[j] == ks[i];
      if (seen) continue;
      done[i] = 1;
      test_intercomm(&h, rank, size, ks[i]);
    }
  }
  test_new_comms(&h, rank, size);
  ck_finish(&h, "intercomm");
  MPI_Finalize();
  return 0;
}
