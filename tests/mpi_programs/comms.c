/* comms.c - communicators, groups, Cartesian topologies, intercommunicators.
 *
 * Checks: Comm_dup (traffic on the dup does not mix with the parent), Comm_split (several
 * colours, keys reversing the order, MPI_UNDEFINED), Comm_create from a group, Comm_split_type
 * (MPI_COMM_TYPE_SHARED), Comm_compare (IDENT, CONGRUENT, SIMILAR, UNEQUAL), Comm_free; groups:
 * Comm_group, Group_size/rank, Group_incl/excl/range_incl, Group_union/intersection/difference,
 * Group_translate_ranks, Group_compare, Group_free; Cartesian: Dims_create, Cart_create
 * (periodic and not, fewer ranks than the communicator), Cart_coords, Cart_rank, Cart_shift,
 * Cart_sub, Cart_get, Cartdim_get, Topo_test; a halo exchange on the grid; Comm_get_attr
 * (MPI_TAG_UB, then a message with that tag); collectives on sub-communicators;
 * Intercomm_create + Send/Recv across it + Comm_remote_size + Intercomm_merge (size >= 2).
 */
#include "check.h"

static void test_dup_compare(ck_t* h, int rank, int size) {
  int next = (rank + 1) % size, prev = (rank - 1 + size) % size, res;
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res);
  CHECK(res == MPI_IDENT, "compare world world %d", res);
  MPI_Comm_compare(MPI_COMM_WORLD, dup, &res);
  CHECK(res == MPI_CONGRUENT, "compare world dup %d", res);

  /* same source, same tag, different communicators: each receive gets its own message even
   * though the dup message was sent first */
  int a = rank * 10 + 1, b = rank * 10 + 2, ra = -1, rb = -1;
  MPI_Request rq[2];
  MPI_Isend(&b, 1, MPI_INT, next, 5, dup, &rq[0]);
  MPI_Isend(&a, 1, MPI_INT, next, 5, MPI_COMM_WORLD, &rq[1]);
  MPI_Recv(&ra, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Recv(&rb, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, MPI_STATUS_IGNORE);
  MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
  CHECK(ra == prev * 10 + 1 && rb == prev * 10 + 2, "dup isolation %d %d", ra, rb);
  ck_int(h, ra);
  ck_int(h, rb);

  MPI_Comm same, rev;
  MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &same);
  MPI_Comm_split(MPI_COMM_WORLD, 7, size - rank, &rev);
  MPI_Comm_compare(MPI_COMM_WORLD, same, &res);
  CHECK(res == MPI_CONGRUENT, "compare world split-same %d", res);
  MPI_Comm_compare(MPI_COMM_WORLD, rev, &res);
  CHECK(res == (size > 1 ? MPI_SIMILAR : MPI_CONGRUENT), "compare world reversed %d", res);
  int rr;
  MPI_Comm_rank(rev, &rr);
  CHECK(rr == size - 1 - rank, "reversed rank %d", rr);
  ck_int(h, rr);

  MPI_Comm_free(&dup);
  MPI_Comm_free(&same);
  MPI_Comm_free(&rev);
  CHECK(dup == MPI_COMM_NULL && same == MPI_COMM_NULL && rev == MPI_COMM_NULL, "Comm_free");
}

static int split_color(int r) {
  return r % 5 == 4 ? MPI_UNDEFINED : r % 3;
}

static void test_split(ck_t* h, int rank, int size) {
  int color = split_color(rank);
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &sub); /* key reverses the order */
  if (color == MPI_UNDEFINED) {
    CHECK(sub == MPI_COMM_NULL, "MPI_UNDEFINED colour gave a communicator");
    ck_int(h, -1);
    return;
  }
  /* expected: members are the ranks with my colour, highest world rank first */
  int n = 0, myidx = 0;
  long long sum = 0;
  int first = -1; /* member with sub rank 0 */
  for (int q = size - 1; q >= 0; q--)
    if (split_color(q) == color) {
      if (q == rank) myidx = n;
      if (first < 0) first = q;
      sum += q;
      n++;
    }
  int sr, ss, res;
  MPI_Comm_rank(sub, &sr);
  MPI_Comm_size(sub, &ss);
  CHECK(sr == myidx && ss == n, "split rank %d size %d want %d %d", sr, ss, myidx, n);
  MPI_Comm_compare(sub, MPI_COMM_WORLD, &res);
  CHECK(res == (n == size ? MPI_CONGRUENT : MPI_UNEQUAL), "compare sub world %d", res);

  /* collectives on the sub-communicator */
  long long me = rank, tot = 0;
  MPI_Allreduce(&me, &tot, 1, MPI_LONG_LONG, MPI_SUM, sub);
  CHECK(tot == sum, "sub Allreduce %lld want %lld", tot, sum);
  int b = sr == 0 ? rank : -1;
  MPI_Bcast(&b, 1, MPI_INT, 0, sub);
  CHECK(b == first, "sub Bcast %d want %d", b, first);
  int* all = malloc(sizeof(int) * (size_t)n);
  MPI_Gather(&rank, 1, MPI_INT, all, 1, MPI_INT, n - 1, sub);
  if (sr == n - 1) {
    int k = 0;
    for (int q = size - 1; q >= 0; q--)
      if (split_color(q) == color) CHECK(all[k++] == q, "sub Gather order");
    ck_ints(h, all, n);
  }
  free(all);
  ck_int(h, sr);
  ck_int(h, ss);
  ck_i64(h, tot);
  MPI_Comm_free(&sub);
}

static void test_groups(ck_t* h, int rank, int size) {
  MPI_Group wg, evens, odds, rev, un, in, diff;
  int gs, gr, res;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Group_size(wg, &gs);
  MPI_Group_rank(wg, &gr);
  CHECK(gs == size && gr == rank, "world group size %d rank %d", gs, gr);

  int ne = (size + 1) / 2, no = size / 2;
  int range[1][3] = {{0, size - 1, 2}};
  MPI_Group_range_incl(wg, 1, range, &evens);
  int* list = malloc(sizeof(int) * (size_t)size);
  for (int k = 0; k < ne; k++)
    list[k] = 2 * k;
  MPI_Group_excl(wg, ne, list, &odds); /* empty on one rank */
  for (int k = 0; k < size; k++)
    list[k] = size - 1 - k;
  MPI_Group_incl(wg, size, list, &rev);

  MPI_Group_size(evens, &gs);
  MPI_Group_rank(evens, &gr);
  CHECK(gs == ne && gr == (rank % 2 ? MPI_UNDEFINED : rank / 2), "evens size %d rank %d", gs, gr);
  MPI_Group_size(odds, &gs);
  MPI_Group_rank(odds, &gr);
  CHECK(gs == no && gr == (rank % 2 ? rank / 2 : MPI_UNDEFINED), "odds size %d rank %d", gs, gr);
  MPI_Group_rank(rev, &gr);
  CHECK(gr == size - 1 - rank, "reversed group rank %d", gr);

  MPI_Group_compare(wg, wg, &res);
  CHECK(res == MPI_IDENT, "group compare ident %d", res);
  MPI_Group_compare(wg, rev, &res);
  CHECK(res == (size > 1 ? MPI_SIMILAR : MPI_IDENT), "group compare reversed %d", res);
  MPI_Group_compare(wg, evens, &res);
  CHECK(res == (size > 1 ? MPI_UNEQUAL : MPI_IDENT), "group compare evens %d", res);

  /* union: the first group's members in order, then the second's that are new */
  MPI_Group_union(odds, evens, &un);
  MPI_Group_size(un, &gs);
  CHECK(gs == size, "union size %d", gs);
  int* idx = malloc(sizeof(int) * (size_t)size);
  int* out = malloc(sizeof(int) * (size_t)size);
  for (int k = 0; k < size; k++)
    idx[k] = k;
  MPI_Group_translate_ranks(un, size, idx, wg, out);
  for (int k = 0; k < size; k++) {
    int want = k < no ? 2 * k + 1 : 2 * (k - no);
    CHECK(out[k] == want, "union order: %d -> %d want %d", k, out[k], want);
  }
  ck_ints(h, out, size);

  /* intersection keeps the order of the first group: evens, descending */
  MPI_Group_intersection(rev, evens, &in);
  MPI_Group_size(in, &gs);
  CHECK(gs == ne, "intersection size %d", gs);
  MPI_Group_translate_ranks(in, ne, idx, wg, out);
  for (int k = 0; k < ne; k++) {
    int want = (size - 1) - ((size - 1) % 2) - 2 * k;
    CHECK(out[k] == want, "intersection order: %d -> %d want %d", k, out[k], want);
  }
  ck_ints(h, out, ne);

  MPI_Group_difference(wg, evens, &diff);
  MPI_Group_compare(diff, odds, &res);
  CHECK(res == MPI_IDENT, "difference vs odds %d", res);

  /* world ranks translated into the evens group */
  MPI_Group_translate_ranks(wg, size, idx, evens, out);
  for (int k = 0; k < size; k++)
    CHECK(out[k] == (k % 2 ? MPI_UNDEFINED : k / 2), "translate %d -> %d", k, out[k]);
  ck_ints(h, out, size);

  /* Comm_create: evens get a communicator, odds MPI_COMM_NULL (collective over world) */
  MPI_Comm ce, cr;
  MPI_Comm_create(MPI_COMM_WORLD, evens, &ce);
  if (rank % 2) {
    CHECK(ce == MPI_COMM_NULL, "Comm_create gave a non-member a communicator");
  } else {
    int r, s, sum = 0;
    MPI_Comm_rank(ce, &r);
    MPI_Comm_size(ce, &s);
    CHECK(r == rank / 2 && s == ne, "Comm_create rank %d size %d", r, s);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, ce);
    CHECK(sum == ne * (ne - 1), "evens sum %d", sum); /* sum of 0,2,..,2(ne-1) */
    ck_int(h, sum);
    MPI_Comm_free(&ce);
  }
  MPI_Comm_create(MPI_COMM_WORLD, rev, &cr);
  {
    int r;
    MPI_Comm_rank(cr, &r);
    CHECK(r == size - 1 - rank, "Comm_create reversed rank %d", r);
    int v = rank, w = -1; /* new rank 0 (world rank size-1) broadcasts */
    MPI_Bcast(r == 0 ? &v : &w, 1, MPI_INT, 0, cr);
    if (r != 0) CHECK(w == size - 1, "reversed Bcast %d", w);
    MPI_Comm_free(&cr);
  }

  MPI_Group* gps[] = {&wg, &evens, &odds, &rev, &un, &in, &diff};
  for (int k = 0; k < 7; k++) {
    MPI_Group_free(gps[k]);
    CHECK(*gps[k] == MPI_GROUP_NULL, "Group_free");
  }
  free(list);
  free(idx);
  free(out);
}

static void test_split_type(int rank, int size) {
  /* The grouping into nodes is implementation- and machine-specific: check consistency only,
   * and hash nothing. */
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  CHECK(node != MPI_COMM_NULL, "split_type gave MPI_COMM_NULL");
  int nr, ns;
  MPI_Comm_rank(node, &nr);
  MPI_Comm_size(node, &ns);
  CHECK(ns >= 1 && ns <= size && nr < ns, "node rank %d size %d", nr, ns);
  int* w = malloc(sizeof(int) * (size_t)ns);
  MPI_Allgather(&rank, 1, MPI_INT, w, 1, MPI_INT, node);
  CHECK(w[nr] == rank, "node allgather");
  for (int k = 1; k < ns; k++)
    CHECK(w[k] > w[k - 1], "node members not in world order");
  free(w);
  MPI_Comm_free(&node);
}

/* the most balanced 2-D factorisation, larger dimension first */
static void balanced2(int n, int* d) {
  int best = 1;
  for (int f = 1; f * f <= n; f++)
    if (n % f == 0) best = f;
  d[0] = n / best;
  d[1] = best;
}

static void test_cart(ck_t* h, int rank, int size) {
  int dims[2] = {0, 0}, want[2];
  MPI_Dims_create(size, 2, dims);
  balanced2(size, want);
  CHECK(dims[0] == want[0] && dims[1] == want[1], "Dims_create %dx%d want %dx%d", dims[0], dims[1], want[0], want[1]);
  ck_ints(h, dims, 2);
  if (size % 2 == 0) {
    int d2[2] = {0, 2};
    MPI_Dims_create(size, 2, d2);
    CHECK(d2[0] == size / 2 && d2[1] == 2, "Dims_create with a fixed dimension");
  }
  int d3[3] = {0, 0, 0};
  MPI_Dims_create(size, 3, d3);
  CHECK(d3[0] * d3[1] * d3[2] == size && d3[0] >= d3[1] && d3[1] >= d3[2], "Dims_create 3-D");

  int periods[2] = {1, 0}; /* dimension 0 periodic, dimension 1 not */
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  int status, nd, cr;
  MPI_Topo_test(cart, &status);
  CHECK(status == MPI_CART, "Topo_test cart %d", status);
  MPI_Topo_test(MPI_COMM_WORLD, &status);
  CHECK(status == MPI_UNDEFINED, "Topo_test world %d", status);
  MPI_Cartdim_get(cart, &nd);
  CHECK(nd == 2, "Cartdim_get %d", nd);
  MPI_Comm_rank(cart, &cr);
  CHECK(cr == rank, "cart rank without reorder %d", cr);

  int gd[2], gp[2], gc[2], c[2];
  MPI_Cart_get(cart, 2, gd, gp, gc);
  int c0 = rank / dims[1], c1 = rank % dims[1]; /* row-major */
  CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0, "Cart_get");
  CHECK(gc[0] == c0 && gc[1] == c1, "Cart_get coords (%d,%d)", gc[0], gc[1]);
  for (int q = 0; q < size; q++) {
    int r;
    MPI_Cart_coords(cart, q, 2, c);
    CHECK(c[0] == q / dims[1] && c[1] == q % dims[1], "Cart_coords of %d", q);
    MPI_Cart_rank(cart, c, &r);
    CHECK(r == q, "Cart_rank of (%d,%d)", c[0], c[1]);
  }
  c[0] = -1; /* periodic dimension wraps */
  c[1] = c1;
  int wrapped;
  MPI_Cart_rank(cart, c, &wrapped);
  CHECK(wrapped == (dims[0] - 1) * dims[1] + c1, "Cart_rank wrap %d", wrapped);

  /* shifts and a halo exchange of 1000*c0 + c1 with all four neighbours */
  int src0, dst0, src1, dst1;
  MPI_Cart_shift(cart, 0, 1, &src0, &dst0);
  MPI_Cart_shift(cart, 1, 1, &src1, &dst1);
  CHECK(src0 == ((c0 - 1 + dims[0]) % dims[0]) * dims[1] + c1, "shift 0 source");
  CHECK(dst0 == ((c0 + 1) % dims[0]) * dims[1] + c1, "shift 0 dest");
  CHECK(src1 == (c1 > 0 ? rank - 1 : MPI_PROC_NULL), "shift 1 source %d", src1);
  CHECK(dst1 == (c1 < dims[1] - 1 ? rank + 1 : MPI_PROC_NULL), "shift 1 dest %d", dst1);
  int mine = 1000 * c0 + c1, halo[4] = {-1, -1, -1, -1};
  MPI_Sendrecv(&mine, 1, MPI_INT, dst0, 1, &halo[0], 1, MPI_INT, src0, 1, cart, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&mine, 1, MPI_INT, src0, 2, &halo[1], 1, MPI_INT, dst0, 2, cart, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&mine, 1, MPI_INT, dst1, 3, &halo[2], 1, MPI_INT, src1, 3, cart, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&mine, 1, MPI_INT, src1, 4, &halo[3], 1, MPI_INT, dst1, 4, cart, MPI_STATUS_IGNORE);
  int up = (c0 - 1 + dims[0]) % dims[0], down = (c0 + 1) % dims[0];
  CHECK(halo[0] == 1000 * up + c1 && halo[1] == 1000 * down + c1, "halo dim 0");
  CHECK(halo[2] == (c1 > 0 ? 1000 * c0 + c1 - 1 : -1), "halo left %d", halo[2]);
  CHECK(halo[3] == (c1 < dims[1] - 1 ? 1000 * c0 + c1 + 1 : -1), "halo right %d", halo[3]);
  ck_ints(h, halo, 4);

  /* Cart_sub: rows (dimension 1 kept) and columns (dimension 0 kept) */
  int keep_row[2] = {0, 1}, keep_col[2] = {1, 0};
  MPI_Comm row, col;
  MPI_Cart_sub(cart, keep_row, &row);
  MPI_Cart_sub(cart, keep_col, &col);
  int rr, rs, cs, ccr;
  MPI_Comm_rank(row, &rr);
  MPI_Comm_size(row, &rs);
  MPI_Comm_rank(col, &ccr);
  MPI_Comm_size(col, &cs);
  CHECK(rr == c1 && rs == dims[1] && ccr == c0 && cs == dims[0], "Cart_sub ranks");
  MPI_Topo_test(row, &status);
  MPI_Cartdim_get(row, &nd);
  CHECK(status == MPI_CART && nd == 1, "Cart_sub topology");
  int rsum, csum;
  MPI_Allreduce(&rank, &rsum, 1, MPI_INT, MPI_SUM, row);
  MPI_Allreduce(&rank, &csum, 1, MPI_INT, MPI_SUM, col);
  CHECK(rsum == c0 * dims[1] * dims[1] + dims[1] * (dims[1] - 1) / 2, "row sum %d", rsum);
  CHECK(csum == dims[1] * dims[0] * (dims[0] - 1) / 2 + dims[0] * c1, "column sum %d", csum);
  ck_int(h, rsum);
  ck_int(h, csum);
  MPI_Comm_free(&row);
  MPI_Comm_free(&col);
  MPI_Comm_free(&cart);

  /* a periodic 1-D ring on all ranks but the last: the last gets MPI_COMM_NULL */
  if (size >= 2) {
    int n1 = size - 1, p1 = 1;
    MPI_Comm ring;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &n1, &p1, 0, &ring);
    if (rank == size - 1) {
      CHECK(ring == MPI_COMM_NULL, "rank outside the grid got a communicator");
    } else {
      int s, d, v = -1;
      MPI_Cart_shift(ring, 0, 2, &s, &d);
      CHECK(s == (rank - 2 + 2 * n1) % n1 && d == (rank + 2) % n1, "ring shift by 2");
      MPI_Sendrecv(&rank, 1, MPI_INT, d, 9, &v, 1, MPI_INT, s, 9, ring, MPI_STATUS_IGNORE);
      CHECK(v == s, "ring exchange");
      ck_int(h, v);
      MPI_Comm_free(&ring);
    }
  }
}

static void test_tag_ub(ck_t* h, int rank) {
  int* ub = NULL;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  CHECK(flag && ub != NULL && *ub >= 32767, "MPI_TAG_UB");
  /* a message with the largest tag, to self */
  int v = rank + 5, w = -1;
  MPI_Status st;
  MPI_Request rq;
  MPI_Isend(&v, 1, MPI_INT, rank, *ub, MPI_COMM_WORLD, &rq);
  MPI_Recv(&w, 1, MPI_INT, rank, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  CHECK(w == rank + 5 && st.MPI_TAG == *ub, "message with tag MPI_TAG_UB");
  ck_int(h, w); /* the value of MPI_TAG_UB itself is implementation-specific */
}

static void test_intercomm(ck_t* h, int rank, int size) {
  if (size < 2) return;
  int color = rank % 2; /* evens and odds */
  MPI_Comm local, inter, merged;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
  /* local leaders are world ranks 0 (evens) and 1 (odds) */
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 77, &inter);
  int flag, ls, rs, lr;
  MPI_Comm_test_inter(inter, &flag);
  MPI_Comm_size(inter, &ls);
  MPI_Comm_remote_size(inter, &rs);
  MPI_Comm_rank(inter, &lr);
  int ne = (size + 1) / 2, no = size / 2;
  CHECK(flag, "Comm_test_inter");
  CHECK(ls == (color ? no : ne) && rs == (color ? ne : no), "intercomm sizes %d %d", ls, rs);
  CHECK(lr == rank / 2, "intercomm rank %d", lr);

  /* local rank i exchanges with remote rank i */
  int v = -1;
  MPI_Request rq = MPI_REQUEST_NULL;
  if (lr < rs) MPI_Isend(&rank, 1, MPI_INT, lr, 8, inter, &rq);
  if (lr < rs) {
    MPI_Status st;
    MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 8, inter, &st);
    CHECK(st.MPI_SOURCE == lr && v == 2 * lr + (1 - color), "intercomm message %d from %d", v, st.MPI_SOURCE);
  }
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  ck_int(h, v);

  /* merge: evens (high = 0) first */
  MPI_Intercomm_merge(inter, color, &merged);
  int mr, ms, sum = 0;
  MPI_Comm_rank(merged, &mr);
  MPI_Comm_size(merged, &ms);
  CHECK(ms == size && mr == (color ? ne + rank / 2 : rank / 2), "merged rank %d", mr);
  MPI_Comm_test_inter(merged, &flag);
  CHECK(!flag, "merged communicator is an intercommunicator");
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, merged);
  CHECK(sum == size * (size - 1) / 2, "merged Allreduce %d", sum);
  ck_int(h, mr);
  ck_int(h, sum);
  MPI_Comm_free(&merged);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;
  test_dup_compare(&h, rank, size);
  test_split(&h, rank, size);
  test_groups(&h, rank, size);
  test_split_type(rank, size);
  test_cart(&h, rank, size);
  test_tag_ub(&h, rank);
  test_intercomm(&h, rank, size);
  ck_finish(&h, "comms");
  MPI_Finalize();
  return 0;
}
