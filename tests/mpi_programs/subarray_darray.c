/* subarray_darray.c - MPI_Type_create_subarray and MPI_Type_create_darray (MPI-3.1 §4.1.12-13):
 * which elements they select (checked by packing a global array whose every element holds its
 * own index, against the ownership rules written out here), in C and Fortran order, BLOCK,
 * CYCLIC(k), NONE and MPI_DISTRIBUTE_DFLT_DARG, their extents and true bounds, a darray
 * scatter through MPI_Alltoallw-free point-to-point (every rank sends rank 0 its part), and
 * Type_get_envelope/contents of both. */
#include "check.h"

/* Does process coordinate `c` of `p` own global index `i` of `g` under distribution `d`? */
static int owns(int i, int g, int d, int darg, int p, int c) {
  if (d == MPI_DISTRIBUTE_NONE) return 1;
  if (d == MPI_DISTRIBUTE_BLOCK) {
    int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
    return i / b == c;
  }
  int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
  return (i / b) % p == c;
}

/* Packs one element of `t` over `global` (ints holding their own index) and checks the result
 * is exactly the indices `expect` lists, in order. */
static void check_selects(ck_t* h, MPI_Datatype t, const int* global, const int* expect, int n) {
  int size = 0;
  MPI_Type_size(t, &size);
  CHECK(size == n * (int)sizeof(int), "type size %d, expected %d ints", size, n);
  int* packed = (int*)malloc(sizeof(int) * (size_t)(n + 1));
  int pos = 0;
  MPI_Pack(global, 1, t, packed, (int)sizeof(int) * (n + 1), &pos, MPI_COMM_WORLD);
  CHECK(pos == size, "packed %d bytes", pos);
  for (int k = 0; k < n; k++)
    CHECK(packed[k] == expect[k], "element %d is %d, expected %d", k, packed[k], expect[k]);
  ck_ints(h, packed, n);
  free(packed);
}

static void check_bounds(ck_t* h, MPI_Datatype t, MPI_Aint lb, MPI_Aint extent, MPI_Aint tlb, MPI_Aint text) {
  MPI_Aint l, e, tl, te;
  MPI_Type_get_extent(t, &l, &e);
  MPI_Type_get_true_extent(t, &tl, &te);
  CHECK(l == lb && e == extent, "lb %ld extent %ld, expected %ld %ld", (long)l, (long)e, (long)lb, (long)extent);
  CHECK(tl == tlb && te == text, "true lb %ld extent %ld, expected %ld %ld", (long)tl, (long)te, (long)tlb, (long)text);
  ck_i64(h, l);
  ck_i64(h, e);
  ck_i64(h, tl);
  ck_i64(h, te);
}

/* 3-D subarrays in both orders. */
static void subarrays(ck_t* h) {
  enum { A = 5, B = 4, C = 6 };
  int global[A * B * C];
  for (int i = 0; i < A * B * C; i++)
    global[i] = i;
  const int sizes[3] = {A, B, C}, subsizes[3] = {2, 3, 4}, starts[3] = {1, 0, 2};
  for (int fortran = 0; fortran < 2; fortran++) {
    MPI_Datatype t;
    MPI_Type_create_subarray(3, sizes, subsizes, starts, fortran ? MPI_ORDER_FORTRAN : MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    int expect[2 * 3 * 4], n = 0;
    /* Memory order: C has the last dimension fastest, Fortran the first. */
    if (!fortran) {
      for (int a = 0; a < 2; a++)
        for (int b = 0; b < 3; b++)
          for (int c = 0; c < 4; c++)
            expect[n++] = ((starts[0] + a) * B + starts[1] + b) * C + starts[2] + c;
    } else {
      for (int c = 0; c < 4; c++)
        for (int b = 0; b < 3; b++)
          for (int a = 0; a < 2; a++)
            expect[n++] = ((starts[2] + c) * B + starts[1] + b) * A + starts[0] + a;
    }
    check_selects(h, t, global, expect, n);
    check_bounds(h, t, 0, (MPI_Aint)sizeof(global), (MPI_Aint)sizeof(int) * expect[0],
                 (MPI_Aint)sizeof(int) * (expect[n - 1] - expect[0] + 1));
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 3 * 3 + 2 && na == 0 && nd == 1, "envelope %d %d %d %d", ni, na, nd,
          comb);
    int ints[11];
    MPI_Aint addrs[1];
    MPI_Datatype types[1];
    MPI_Type_get_contents(t, 11, 0, 1, ints, addrs, types);
    CHECK(ints[0] == 3 && ints[1] == A && ints[4] == 2 && ints[7] == 1 &&
              ints[10] == (fortran ? MPI_ORDER_FORTRAN : MPI_ORDER_C),
          "contents");
    CHECK(types[0] == MPI_INT, "old type");
    ck_ints(h, ints, 11);
    MPI_Type_free(&t);
  }
  /* An empty subarray selects nothing and keeps the whole array's extent. */
  const int one[1] = {8}, zero[1] = {0}, at[1] = {3};
  MPI_Datatype e;
  MPI_Type_create_subarray(1, one, zero, at, MPI_ORDER_C, MPI_DOUBLE, &e);
  MPI_Type_commit(&e);
  MPI_Aint lb, ext;
  int sz;
  MPI_Type_get_extent(e, &lb, &ext);
  MPI_Type_size(e, &sz);
  CHECK(lb == 0 && ext == 8 * (MPI_Aint)sizeof(double) && sz == 0, "empty subarray lb %ld extent %ld size %d", (long)lb,
        (long)ext, sz);
  MPI_Type_free(&e);
}

/* One 2-D darray per (distribution pair, order) for this rank on a Dims_create grid. */
static void darrays(ck_t* h, int rank, int size) {
  enum { G0 = 13, G1 = 10 };
  int global[G0 * G1];
  for (int i = 0; i < G0 * G1; i++)
    global[i] = i;
  int psizes[2] = {0, 0};
  MPI_Dims_create(size, 2, psizes);
  const int coords[2] = {rank / psizes[1], rank % psizes[1]}; /* row-major, whatever the order */
  const int gsizes[2] = {G0, G1};
  struct {
    int dist[2], darg[2];
  } cases[] = {
      {{MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK}, {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}},
      {{MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC}, {MPI_DISTRIBUTE_DFLT_DARG, 2}},
      {{MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC}, {13, 3}},
      {{MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK}, {3, MPI_DISTRIBUTE_DFLT_DARG}},
  };
  for (int k = 0; k < (int)(sizeof cases / sizeof cases[0]); k++) {
    int dist[2] = {cases[k].dist[0], cases[k].dist[1]}, darg[2] = {cases[k].darg[0], cases[k].darg[1]};
    int ps[2] = {psizes[0], psizes[1]};
    /* A block of 13 covers the first dimension only on one process: use NONE there. */
    if (darg[0] == 13 && ps[0] != 1) darg[0] = (G0 + ps[0] - 1) / ps[0];
    for (int fortran = 0; fortran < 2; fortran++) {
      MPI_Datatype t;
      MPI_Type_create_darray(size, rank, 2, gsizes, dist, darg, ps, fortran ? MPI_ORDER_FORTRAN : MPI_ORDER_C, MPI_INT,
                             &t);
      MPI_Type_commit(&t);
      int expect[G0 * G1], n = 0;
      if (!fortran) {
        for (int i = 0; i < G0; i++)
          for (int j = 0; j < G1; j++)
            if (owns(i, G0, dist[0], darg[0], ps[0], coords[0]) && owns(j, G1, dist[1], darg[1], ps[1], coords[1]))
              expect[n++] = i * G1 + j;
      } else {
        for (int j = 0; j < G1; j++)
          for (int i = 0; i < G0; i++)
            if (owns(i, G0, dist[0], darg[0], ps[0], coords[0]) && owns(j, G1, dist[1], darg[1], ps[1], coords[1]))
              expect[n++] = j * G0 + i;
      }
      ck_int(h, n);
      check_selects(h, t, global, expect, n);
      MPI_Aint lb, ext;
      MPI_Type_get_extent(t, &lb, &ext);
      CHECK(lb == 0 && ext == (MPI_Aint)sizeof(global), "darray lb %ld extent %ld", (long)lb, (long)ext);
      int ni, na, nd, comb;
      MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
      CHECK(comb == MPI_COMBINER_DARRAY && ni == 4 * 2 + 4 && na == 0 && nd == 1, "envelope %d %d %d %d", ni, na, nd,
            comb);
      /* The parts of all ranks tile the array: rank 0 gathers them into place. */
      int* whole = rank == 0 ? (int*)calloc(G0 * G1, sizeof(int)) : NULL;
      int* mine = (int*)malloc(sizeof(int) * (size_t)(n + 1));
      int pos = 0;
      MPI_Pack(global, 1, t, mine, (int)sizeof(int) * (n + 1), &pos, MPI_COMM_WORLD);
      if (rank == 0) {
        for (int r = 0; r < size; r++) {
          MPI_Datatype rt;
          MPI_Type_create_darray(size, r, 2, gsizes, dist, darg, ps, fortran ? MPI_ORDER_FORTRAN : MPI_ORDER_C, MPI_INT,
                                 &rt);
          MPI_Type_commit(&rt);
          if (r == 0) {
            MPI_Sendrecv(mine, n, MPI_INT, 0, 7, whole, 1, rt, 0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE);
          } else {
            MPI_Recv(whole, 1, rt, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          }
          MPI_Type_free(&rt);
        }
        for (int i = 0; i < G0 * G1; i++)
          CHECK(whole[i] == i, "tiled element %d is %d", i, whole[i]);
        free(whole);
      } else {
        MPI_Send(mine, n, MPI_INT, 0, 7, MPI_COMM_WORLD);
      }
      free(mine);
      MPI_Type_free(&t);
    }
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;
  subarrays(&h);
  darrays(&h, rank, size);
  ck_finish(&h, "subarray_darray");
  MPI_Finalize();
  return 0;
}
