/* topo.c - process topologies and attributes: MPI_Dims_create against grids MPICH 4.0.2 chose,
 * graph and distributed-graph communicators and their queries, neighbourhood collectives on
 * Cartesian grids (PROC_NULL slots left alone, periodic size-1/2 dimensions) and graphs,
 * attribute copy/delete callbacks (Comm_dup, Comm_free, MPI_COMM_SELF at MPI_Finalize, last set
 * first), the MPI-1 attribute names, predefined attributes and MPI_UNWEIGHTED. */
#include "check.h"

/* Grids MPI_Dims_create returned under MPICH 4.0.2: nnodes, ndims, dims in, dims out. */
static const int kDims[][10] = {
    {72, 2, 0, 0, 0, 0, 9, 8, 0, 0},        {360, 3, 0, 0, 0, 0, 10, 6, 6, 0},
    {360, 4, 0, 0, 0, 0, 6, 5, 4, 3},       {20, 4, 0, 0, 0, 0, 5, 2, 2, 1},
    {168, 4, 0, 0, 0, 0, 7, 4, 3, 2},       {360, 2, 0, 0, 0, 0, 20, 18, 0, 0},
    {72, 3, 0, 2, 0, 0, 6, 2, 6, 0},        {72, 3, 3, 0, 0, 0, 3, 6, 4, 0},
    {1000, 4, 0, 10, 0, 0, 5, 10, 5, 4},    {96, 4, 0, 0, 2, 0, 4, 4, 2, 3},
    {4096, 3, 0, 0, 0, 0, 16, 16, 16, 0},   {1001, 3, 0, 0, 0, 0, 13, 11, 7, 0},
    {30, 4, 0, 1, 0, 1, 6, 1, 5, 1},        {36, 2, 1, 0, 0, 0, 1, 36, 0, 0},
    {0, 1, 0, 0, 0, 0, 0, 0, 0, 0},         {0, 2, 3, 0, 0, 0, 3, 0, 0, 0},
    {0, 3, 2, 0, 1, 0, 2, 0, 1, 0},         {12, 2, 3, 4, 0, 0, 3, 4, 0, 0},
    {97, 2, 0, 0, 0, 0, 97, 1, 0, 0},       {64, 3, 0, 0, 0, 0, 4, 4, 4, 0},
};

static void dims_table(ck_t* h) {
  for (size_t i = 0; i < sizeof kDims / sizeof kDims[0]; ++i) {
    const int* row = kDims[i];
    int d[4] = {row[2], row[3], row[4], row[5]};
    CHECK_MPI(MPI_Dims_create(row[0], row[1], d));
    for (int k = 0; k < row[1]; ++k)
      CHECK(d[k] == row[6 + k], "Dims_create(%d, %d) dim %d = %d, MPICH %d", row[0], row[1], k, d[k], row[6 + k]);
    ck_ints(h, d, row[1]);
  }
  /* Errors: a set dimension that does not divide, a full grid of the wrong size, negatives. */
  int bad[][4] = {{12, 2, 0, 5}, {12, 2, 3, 5}, {7, 2, -1, 0}};
  for (int i = 0; i < 3; ++i) {
    int d[2] = {bad[i][2], bad[i][3]}, cls = -1;
    int rc = MPI_Dims_create(bad[i][0], bad[i][1], d);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_DIMS, "Dims_create error case %d: class %d", i, cls);
  }
  int d[2] = {0, 0}, cls = -1;
  MPI_Error_class(MPI_Dims_create(-1, 2, d), &cls);
  CHECK(cls == MPI_ERR_ARG, "Dims_create(-1): class %d", cls);
}

/* A ring as a graph: every node's neighbours are its predecessor and successor. */
static void graph(ck_t* h, int rank, int size) {
  int index[256], edges[512], e = 0;
  for (int i = 0; i < size; ++i) {
    if (size > 1) edges[e++] = (i + size - 1) % size;
    if (size > 2) edges[e++] = (i + 1) % size;
    index[i] = e;
  }
  MPI_Comm g;
  CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g));
  int status, nn, ne, cnt, nb[2] = {-1, -1};
  CHECK_MPI(MPI_Topo_test(g, &status));
  CHECK(status == MPI_GRAPH, "Topo_test %d", status);
  CHECK_MPI(MPI_Graphdims_get(g, &nn, &ne));
  CHECK(nn == size && ne == e, "Graphdims %d %d", nn, ne);
  CHECK_MPI(MPI_Graph_neighbors_count(g, rank, &cnt));
  CHECK_MPI(MPI_Graph_neighbors(g, rank, 2, nb));
  ck_int(h, cnt);
  ck_ints(h, nb, cnt);
  int idx2[256], edg2[512];
  CHECK_MPI(MPI_Graph_get(g, size, e, idx2, edg2));
  ck_ints(h, idx2, size);
  ck_ints(h, edg2, e);
  int newrank;
  CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &newrank));
  CHECK(newrank == rank, "Graph_map %d", newrank);
  /* Neighbour allgather on the ring: slot i holds neighbour i's rank. */
  int got[2] = {-1, -1}, mine = rank * 10;
  CHECK_MPI(MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, g));
  for (int i = 0; i < cnt; ++i)
    CHECK(got[i] == nb[i] * 10, "graph allgather slot %d = %d", i, got[i]);
  ck_ints(h, got, cnt);
  MPI_Comm_free(&g);
}

static void dist_graph(ck_t* h, int rank, int size) {
  /* Each rank names its edge to rank+1 and rank+2 (weights 1 and 2) with MPI_Dist_graph_create. */
  int src = rank, deg = size > 1 ? 2 : 0, dst[2] = {(rank + 1) % size, (rank + 2) % size}, w[2] = {1, 2};
  MPI_Comm dg;
  CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &deg, dst, w, MPI_INFO_NULL, 0, &dg));
  int status, in, out, weighted;
  CHECK_MPI(MPI_Topo_test(dg, &status));
  CHECK(status == MPI_DIST_GRAPH, "Topo_test %d", status);
  CHECK_MPI(MPI_Dist_graph_neighbors_count(dg, &in, &out, &weighted));
  CHECK(in == deg && out == deg && weighted, "counts %d %d %d", in, out, weighted);
  int s[2], sw[2], d[2], dw[2];
  CHECK_MPI(MPI_Dist_graph_neighbors(dg, in, s, sw, out, d, dw));
  int wsum = 0;
  for (int i = 0; i < in; ++i) wsum += sw[i] * 1000 + ((s[i] + size - rank) % size);
  ck_int(h, wsum);  /* order is the implementation's: hash an order-free digest */
  MPI_Comm_free(&dg);

  /* The adjacent form, unweighted: sources rank-1, destinations rank+1; alltoall along it. */
  int from = (rank + size - 1) % size, to = (rank + 1) % size;
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &from, MPI_UNWEIGHTED, 1, &to, MPI_UNWEIGHTED,
                                           MPI_INFO_NULL, 0, &dg));
  CHECK_MPI(MPI_Dist_graph_neighbors_count(dg, &in, &out, &weighted));
  CHECK(in == 1 && out == 1 && !weighted, "adjacent counts %d %d %d", in, out, weighted);
  int sendv = rank * 7 + 1, recvv = -1;
  CHECK_MPI(MPI_Neighbor_alltoall(&sendv, 1, MPI_INT, &recvv, 1, MPI_INT, dg));
  CHECK(recvv == from * 7 + 1, "dist alltoall got %d", recvv);
  ck_int(h, recvv);
  MPI_Comm_free(&dg);
}

/* A 2-D grid, periodic in the first dimension only: PROC_NULL neighbours keep their slot. */
static void cart_neighbors(ck_t* h, int rank, int size) {
  int dims[2] = {0, 0}, periods[2] = {1, 0};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm c;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c));
  int nb[4];
  for (int d = 0; d < 2; ++d) MPI_Cart_shift(c, d, 1, &nb[2 * d], &nb[2 * d + 1]);
  int in, out, weighted, cls = -1;
  MPI_Error_class(MPI_Dist_graph_neighbors_count(c, &in, &out, &weighted), &cls);
  CHECK(cls == MPI_ERR_TOPOLOGY, "Dist_graph_neighbors_count on a grid: class %d", cls);
  /* alltoall: block k goes towards slot k; it must arrive in the peer's opposite slot. */
  int sendb[4], recvb[4] = {-1, -1, -1, -1}, all[4] = {-1, -1, -1, -1};
  for (int k = 0; k < 4; ++k) sendb[k] = rank * 100 + k;
  CHECK_MPI(MPI_Neighbor_alltoall(sendb, 1, MPI_INT, recvb, 1, MPI_INT, c));
  CHECK_MPI(MPI_Neighbor_allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, c));
  for (int k = 0; k < 4; ++k) {
    if (nb[k] == MPI_PROC_NULL) {
      CHECK(recvb[k] == -1 && all[k] == -1, "PROC_NULL slot %d written", k);
    } else {
      CHECK(recvb[k] == nb[k] * 100 + (k ^ 1), "alltoall slot %d = %d", k, recvb[k]);
      CHECK(all[k] == nb[k], "allgather slot %d = %d", k, all[k]);
    }
  }
  ck_ints(h, recvb, 4);
  ck_ints(h, all, 4);
  /* v-form with displacements in reverse order. */
  int rc[4] = {1, 1, 1, 1}, rd[4] = {3, 2, 1, 0}, rv[4] = {-1, -1, -1, -1};
  CHECK_MPI(MPI_Neighbor_allgatherv(&rank, 1, MPI_INT, rv, rc, rd, MPI_INT, c));
  for (int k = 0; k < 4; ++k) CHECK(rv[3 - k] == all[k], "allgatherv slot %d", k);
  int sc[4] = {1, 1, 1, 1}, sd[4] = {0, 1, 2, 3}, rw[4] = {-1, -1, -1, -1};
  MPI_Aint sdw[4], rdw[4];
  MPI_Datatype ty[4] = {MPI_INT, MPI_INT, MPI_INT, MPI_INT};
  for (int k = 0; k < 4; ++k) sdw[k] = k * (MPI_Aint)sizeof(int), rdw[k] = (3 - k) * (MPI_Aint)sizeof(int);
  for (int k = 0; k < 4; ++k) rv[k] = -1;
  CHECK_MPI(MPI_Neighbor_alltoallv(sendb, sc, sd, MPI_INT, rv, rc, rd, MPI_INT, c));
  CHECK_MPI(MPI_Neighbor_alltoallw(sendb, sc, sdw, ty, rw, rc, rdw, ty, c));
  /* Where both neighbours of a dimension are the same rank (periodic, size 1 or 2) MPICH 4.0.2's
   * v and w forms fill the two slots in the other order than its MPI_Neighbor_alltoall: skip. */
  for (int k = 0; k < 4; ++k)
    if (nb[k] != nb[k ^ 1]) CHECK(rv[3 - k] == recvb[k] && rw[3 - k] == recvb[k], "alltoallv/w slot %d", k);
  int newrank;
  CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &newrank));
  CHECK(newrank == rank, "Cart_map %d", newrank);
  MPI_Comm_free(&c);
}

/* ---- attributes */

static int deleted[8], n_deleted;
static int copies;

static int copy_fn(MPI_Comm c, int key, void* extra, void* in, void* out, int* flag) {
  (void)c, (void)key, (void)extra;
  ++copies;
  *(void**)out = (char*)in + 1;
  *flag = 1;
  return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm c, int key, void* value, void* extra) {
  (void)c, (void)key, (void)extra;
  if (n_deleted < 8) deleted[n_deleted++] = (int)(intptr_t)value;
  return MPI_SUCCESS;
}

static void attributes(ck_t* h) {
  int k1, k2, k3, flag;
  void* v;
  CHECK_MPI(MPI_Comm_create_keyval(copy_fn, delete_fn, &k1, NULL));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, delete_fn, &k2, NULL));
  CHECK_MPI(MPI_Keyval_create(MPI_NULL_COPY_FN, delete_fn, &k3, NULL));
  MPI_Comm a, b;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  CHECK_MPI(MPI_Comm_set_attr(a, k1, (void*)(intptr_t)10));
  CHECK_MPI(MPI_Attr_put(a, k2, (void*)(intptr_t)20));
  CHECK_MPI(MPI_Attr_put(a, k3, (void*)(intptr_t)30));
  CHECK_MPI(MPI_Comm_dup(a, &b));
  CHECK(copies == 1, "copy callback ran %d times", copies);
  CHECK_MPI(MPI_Comm_get_attr(b, k1, &v, &flag));
  CHECK(flag && (intptr_t)v == 11, "k1 on the duplicate: %d %ld", flag, (long)(intptr_t)v);
  CHECK_MPI(MPI_Attr_get(b, k2, &v, &flag));
  CHECK(flag && (intptr_t)v == 20, "k2 on the duplicate");
  CHECK_MPI(MPI_Attr_get(b, k3, &v, &flag));
  CHECK(!flag, "MPI_NULL_COPY_FN attribute was copied");
  /* Replacing a value deletes the old one; MPI_Attr_delete deletes. */
  CHECK_MPI(MPI_Comm_set_attr(a, k1, (void*)(intptr_t)12));
  CHECK(n_deleted == 1 && deleted[0] == 10, "replace: %d deletes", n_deleted);
  CHECK_MPI(MPI_Attr_delete(a, k3));
  CHECK(n_deleted == 2 && deleted[1] == 30, "Attr_delete");
  /* A freed keyval keeps its callbacks for the attributes already set. */
  CHECK_MPI(MPI_Keyval_free(&k3));
  CHECK(k3 == MPI_KEYVAL_INVALID, "Keyval_free did not reset the key");
  MPI_Comm_free(&b);
  CHECK(n_deleted == 4, "Comm_free ran %d deletes", n_deleted);
  MPI_Comm_free(&a);
  CHECK(n_deleted == 6, "Comm_free ran %d deletes", n_deleted);
  ck_ints(h, deleted, n_deleted);
  /* Predefined attributes. */
  int* p;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag));
  CHECK(flag && *p >= 32767, "MPI_TAG_UB");
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &p, &flag));
  CHECK(flag, "MPI_WTIME_IS_GLOBAL");
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &p, &flag));
  CHECK(flag && *p >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE");
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &p, &flag));
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &p, &flag));
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &p, &flag));
  MPI_Comm_free_keyval(&k1);
  MPI_Comm_free_keyval(&k2);
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first, last set first. */
static int self_order[3], n_self;
static int self_delete(MPI_Comm c, int key, void* value, void* extra) {
  (void)c, (void)key, (void)extra;
  int fin = 0;
  MPI_Finalized(&fin);
  if (fin || n_self >= 3) return MPI_ERR_OTHER;
  self_order[n_self++] = (int)(intptr_t)value;
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;
  dims_table(&h);
  graph(&h, rank, size);
  dist_graph(&h, rank, size);
  cart_neighbors(&h, rank, size);
  attributes(&h);
  int keys[3];
  for (int i = 0; i < 3; ++i) {
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &keys[i], NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, keys[i], (void*)(intptr_t)(i + 1));
  }
  ck_finish(&h, "topo");
  MPI_Finalize();
  /* After MPI_Finalize: only this rank's own memory. */
  CHECK(n_self == 3 && self_order[0] == 3 && self_order[1] == 2 && self_order[2] == 1,
        "MPI_COMM_SELF delete order %d: %d %d %d", n_self, self_order[0], self_order[1], self_order[2]);
  return 0;
}
