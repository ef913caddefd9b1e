/* type_contents.c - what a datatype remembers and how it converts:
 * MPI_Type_get_envelope/get_contents for every constructor (the recorded arguments; derived
 * members come back as new handles that must be freed, predefined ones as themselves),
 * MPI_Pack_external/Unpack_external/Pack_external_size ("external32": big-endian, fixed sizes,
 * checked byte by byte), MPI_Type_match_size, MPI-1's MPI_Type_hindexed/hvector/struct,
 * renaming predefined types, and null buffers with a type of size 0. */
#include "check.h"

static void envelope(MPI_Datatype t, int ni, int na, int nd, int comb) {
  int a, b, c, d;
  MPI_Type_get_envelope(t, &a, &b, &c, &d);
  CHECK(a == ni && b == na && c == nd && d == comb, "envelope %d %d %d %d, expected %d %d %d %d", a, b, c, d, ni, na,
        nd, comb);
}

/* The contents as (ints, addrs, types); derived member handles are freed after checking
 * their combiner. */
static void contents(ck_t* h, MPI_Datatype t, int ni, const int* ints, int na, const MPI_Aint* addrs, int nd,
                     const MPI_Datatype* types, const int* member_combiner) {
  int gi[32];
  MPI_Aint ga[32];
  MPI_Datatype gt[8];
  MPI_Type_get_contents(t, 32, 32, 8, gi, ga, gt);
  for (int k = 0; k < ni; k++)
    CHECK(gi[k] == ints[k], "int %d is %d, expected %d", k, gi[k], ints[k]);
  for (int k = 0; k < na; k++)
    CHECK(ga[k] == addrs[k], "address %d is %ld, expected %ld", k, (long)ga[k], (long)addrs[k]);
  for (int k = 0; k < nd; k++) {
    if (member_combiner[k] == MPI_COMBINER_NAMED) {
      CHECK(gt[k] == types[k], "datatype %d is not the predefined one given", k);
    } else {
      int a, b, c, d;
      MPI_Type_get_envelope(gt[k], &a, &b, &c, &d);
      CHECK(d == member_combiner[k], "member %d has combiner %d, expected %d", k, d, member_combiner[k]);
      int s1, s2;
      MPI_Type_size(gt[k], &s1);
      MPI_Type_size(types[k], &s2);
      CHECK(s1 == s2, "member %d has size %d, expected %d", k, s1, s2);
      ck_int(h, s1);
      MPI_Type_free(&gt[k]); /* a new handle: the original stays valid */
    }
  }
  ck_ints(h, gi, ni);
  for (int k = 0; k < na; k++)
    ck_i64(h, ga[k]);
}

static void constructors(ck_t* h) {
  const int NAMED = MPI_COMBINER_NAMED;
  envelope(MPI_DOUBLE, 0, 0, 0, MPI_COMBINER_NAMED);
  envelope(MPI_DOUBLE_INT, 0, 0, 0, MPI_COMBINER_NAMED);

  MPI_Datatype contig, vec, hvec, idx, hidx, iblk, hblk, st, res, dup, dup2;
  MPI_Type_contiguous(3, MPI_INT, &contig);
  envelope(contig, 1, 0, 1, MPI_COMBINER_CONTIGUOUS);
  contents(h, contig, 1, (int[]){3}, 0, NULL, 1, (MPI_Datatype[]){MPI_INT}, &NAMED);

  MPI_Type_vector(4, 2, 5, contig, &vec);
  envelope(vec, 3, 0, 1, MPI_COMBINER_VECTOR);
  contents(h, vec, 3, (int[]){4, 2, 5}, 0, NULL, 1, (MPI_Datatype[]){contig}, (int[]){MPI_COMBINER_CONTIGUOUS});

  MPI_Type_create_hvector(2, 3, 100, MPI_SHORT, &hvec);
  envelope(hvec, 2, 1, 1, MPI_COMBINER_HVECTOR);
  contents(h, hvec, 2, (int[]){2, 3}, 1, (MPI_Aint[]){100}, 1, (MPI_Datatype[]){MPI_SHORT}, &NAMED);

  MPI_Type_indexed(3, (int[]){1, 2, 3}, (int[]){0, 10, 20}, vec, &idx);
  envelope(idx, 7, 0, 1, MPI_COMBINER_INDEXED);
  contents(h, idx, 7, (int[]){3, 1, 2, 3, 0, 10, 20}, 0, NULL, 1, (MPI_Datatype[]){vec}, (int[]){MPI_COMBINER_VECTOR});

  MPI_Type_create_hindexed(2, (int[]){4, 1}, (MPI_Aint[]){-8, 64}, MPI_DOUBLE, &hidx);
  envelope(hidx, 3, 2, 1, MPI_COMBINER_HINDEXED);
  contents(h, hidx, 3, (int[]){2, 4, 1}, 2, (MPI_Aint[]){-8, 64}, 1, (MPI_Datatype[]){MPI_DOUBLE}, &NAMED);

  MPI_Type_create_indexed_block(3, 2, (int[]){5, 0, 9}, MPI_FLOAT, &iblk);
  envelope(iblk, 5, 0, 1, MPI_COMBINER_INDEXED_BLOCK);
  contents(h, iblk, 5, (int[]){3, 2, 5, 0, 9}, 0, NULL, 1, (MPI_Datatype[]){MPI_FLOAT}, &NAMED);

  MPI_Type_create_hindexed_block(2, 3, (MPI_Aint[]){16, 0}, hvec, &hblk);
  envelope(hblk, 2, 2, 1, MPI_COMBINER_HINDEXED_BLOCK);
  contents(h, hblk, 2, (int[]){2, 3}, 2, (MPI_Aint[]){16, 0}, 1, (MPI_Datatype[]){hvec}, (int[]){MPI_COMBINER_HVECTOR});

  MPI_Type_create_struct(3, (int[]){1, 2, 1}, (MPI_Aint[]){0, 8, 40}, (MPI_Datatype[]){MPI_CHAR, hidx, MPI_INT}, &st);
  envelope(st, 4, 3, 3, MPI_COMBINER_STRUCT);
  contents(h, st, 4, (int[]){3, 1, 2, 1}, 3, (MPI_Aint[]){0, 8, 40}, 3, (MPI_Datatype[]){MPI_CHAR, hidx, MPI_INT},
           (int[]){NAMED, MPI_COMBINER_HINDEXED, NAMED});

  MPI_Type_create_resized(st, -4, 200, &res);
  envelope(res, 0, 2, 1, MPI_COMBINER_RESIZED);
  contents(h, res, 0, NULL, 2, (MPI_Aint[]){-4, 200}, 1, (MPI_Datatype[]){st}, (int[]){MPI_COMBINER_STRUCT});

  MPI_Type_dup(res, &dup);
  envelope(dup, 0, 0, 1, MPI_COMBINER_DUP);
  contents(h, dup, 0, NULL, 0, NULL, 1, (MPI_Datatype[]){res}, (int[]){MPI_COMBINER_RESIZED});
  MPI_Type_dup(MPI_INT, &dup2);
  envelope(dup2, 0, 0, 1, MPI_COMBINER_DUP);
  contents(h, dup2, 0, NULL, 0, NULL, 1, (MPI_Datatype[]){MPI_INT}, &NAMED);

  /* A member outlives the free of its own handle: the vector still describes the contiguous. */
  MPI_Type_free(&contig);
  MPI_Datatype inner;
  int gi[3];
  MPI_Type_get_contents(vec, 3, 0, 1, gi, NULL, &inner);
  int sz;
  MPI_Type_size(inner, &sz);
  CHECK(sz == 3 * (int)sizeof(int), "member of a freed handle has size %d", sz);
  MPI_Datatype inner2;
  MPI_Type_get_contents(inner, 1, 0, 1, gi, NULL, &inner2);
  CHECK(inner2 == MPI_INT && gi[0] == 3, "member's contents");
  MPI_Type_free(&inner);

  /* MPI-1 names build the same combiners. */
  MPI_Datatype o1, o2, o3;
  MPI_Type_hindexed(2, (int[]){1, 1}, (MPI_Aint[]){0, 12}, MPI_INT, &o1);
  envelope(o1, 3, 2, 1, MPI_COMBINER_HINDEXED);
  MPI_Type_hvector(2, 1, 12, MPI_INT, &o2);
  envelope(o2, 2, 1, 1, MPI_COMBINER_HVECTOR);
  MPI_Type_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 8}, (MPI_Datatype[]){MPI_INT, MPI_DOUBLE}, &o3);
  envelope(o3, 3, 2, 2, MPI_COMBINER_STRUCT);
  MPI_Aint ext, lb, ub;
  MPI_Type_extent(o3, &ext);
  MPI_Type_lb(o3, &lb);
  MPI_Type_ub(o3, &ub);
  CHECK(ext == 16 && lb == 0 && ub == 16, "old-API bounds %ld %ld %ld", (long)ext, (long)lb, (long)ub);
  ck_i64(h, ext);

  MPI_Datatype all[] = {vec, hvec, idx, hidx, iblk, hblk, st, res, dup, dup2, o1, o2, o3};
  for (int k = 0; k < (int)(sizeof all / sizeof all[0]); k++)
    MPI_Type_free(&all[k]);
}

static void external32(ck_t* h) {
  /* Every basic type's external32 size (MPI-4.0 Table 13.2), through Pack_external_size. */
  struct {
    MPI_Datatype t;
    int bytes;
  } sizes[] = {{MPI_CHAR, 1},
               {MPI_SHORT, 2},
               {MPI_INT, 4},
               {MPI_LONG, 4},
               {MPI_LONG_LONG, 8},
               {MPI_FLOAT, 4},
               {MPI_DOUBLE, 8},
               {MPI_LONG_DOUBLE, 16},
               {MPI_WCHAR, 2},
               {MPI_C_BOOL, 1},
               {MPI_AINT, 8},
               {MPI_UINT16_T, 2},
               {MPI_C_DOUBLE_COMPLEX, 16}};
  for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
    MPI_Aint s;
    MPI_Pack_external_size("external32", 3, sizes[k].t, &s);
    CHECK(s == 3 * sizes[k].bytes, "external32 size of type %d is %ld, expected %d", k, (long)s, 3 * sizes[k].bytes);
    ck_i64(h, s);
  }
  /* Doubles at uneven places (MPICH 4.0.2 cannot pack mixed structs as external32): packed
   * big-endian, in typemap order, no gaps. */
  double in[5] = {1.0, -2.5, 0.5, 7.0, -0.25}, out[5] = {0, 0, 0, 0, 0};
  MPI_Datatype hx;
  MPI_Type_create_hindexed(2, (int[]){1, 2}, (MPI_Aint[]){24, 0}, MPI_DOUBLE, &hx);
  MPI_Type_commit(&hx);
  MPI_Aint size, pos = 3;
  MPI_Pack_external_size("external32", 1, hx, &size);
  CHECK(size == 24, "hindexed external32 size %ld", (long)size);
  unsigned char buf[64];
  memset(buf, 0xee, sizeof buf);
  MPI_Pack_external("external32", in, 1, hx, buf, sizeof buf, &pos);
  CHECK(pos == 3 + size, "position %ld", (long)pos);
  const unsigned char want[24] = {0x40, 0x1c, 0, 0, 0,    0,    0, 0, 0x3f, 0xf0, 0, 0,
                                  0,    0,    0, 0, 0xc0, 0x04, 0, 0, 0,    0,    0, 0};
  for (int k = 0; k < 24; k++)
    CHECK(buf[3 + k] == want[k], "external32 byte %d is %02x, expected %02x", k, buf[3 + k], want[k]);
  ck_bytes(h, buf + 3, 24);
  pos = 3;
  MPI_Unpack_external("external32", buf, sizeof buf, &pos, out, 1, hx);
  CHECK(pos == 3 + size, "unpack position %ld", (long)pos);
  CHECK(out[0] == 1.0 && out[1] == -2.5 && out[2] == 0 && out[3] == 7.0 && out[4] == 0, "round trip");
  MPI_Type_free(&hx);
  /* A C long is 4 bytes in external32: truncated on the way out, sign-extended back. */
  long lg[2] = {1, -2}, lg2[2] = {0, 0};
  pos = 0;
  MPI_Pack_external("external32", lg, 2, MPI_LONG, buf, sizeof buf, &pos);
  CHECK(pos == 8 && buf[3] == 1 && buf[4] == 0xff && buf[7] == 0xfe, "long external32");
  pos = 0;
  MPI_Unpack_external("external32", buf, 8, &pos, lg2, 2, MPI_LONG);
  CHECK(lg2[0] == 1 && lg2[1] == -2, "long round trip %ld %ld", lg2[0], lg2[1]);
  /* long double as an IEEE quad: 1.0 and -3.0. */
  long double ld[2] = {1.0L, -3.0L}, ld2[2] = {0, 0};
  unsigned char q[32];
  pos = 0;
  MPI_Pack_external("external32", ld, 2, MPI_LONG_DOUBLE, q, sizeof q, &pos);
  CHECK(q[0] == 0x3f && q[1] == 0xff && q[2] == 0 && q[16] == 0xc0 && q[17] == 0x00 && q[18] == 0x80,
        "long double bytes %02x %02x %02x / %02x %02x %02x", q[0], q[1], q[2], q[16], q[17], q[18]);
  pos = 0;
  MPI_Unpack_external("external32", q, sizeof q, &pos, ld2, 2, MPI_LONG_DOUBLE);
  CHECK(ld2[0] == 1.0L && ld2[1] == -3.0L, "long double round trip");
  /* A vector of ints: only the selected elements, in order. */
  int v[6] = {1, -2, 3, -4, 5, -6}, v2[6] = {0};
  MPI_Datatype vec;
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  pos = 0;
  MPI_Pack_external("external32", v, 1, vec, buf, sizeof buf, &pos);
  CHECK(pos == 12 && buf[3] == 1 && buf[7] == 3 && buf[11] == 5, "vector external32");
  pos = 0;
  MPI_Unpack_external("external32", buf, 12, &pos, v2, 1, vec);
  CHECK(v2[0] == 1 && v2[1] == 0 && v2[2] == 3 && v2[4] == 5, "vector unpack");
  MPI_Type_free(&vec);
}

static void match_and_names(ck_t* h) {
  struct {
    int cls, size;
  } m[] = {{MPI_TYPECLASS_REAL, 4},    {MPI_TYPECLASS_REAL, 8},    {MPI_TYPECLASS_INTEGER, 1},
           {MPI_TYPECLASS_INTEGER, 2}, {MPI_TYPECLASS_INTEGER, 4}, {MPI_TYPECLASS_INTEGER, 8},
           {MPI_TYPECLASS_COMPLEX, 8}, {MPI_TYPECLASS_COMPLEX, 16}};
  for (int k = 0; k < (int)(sizeof m / sizeof m[0]); k++) {
    MPI_Datatype t;
    MPI_Type_match_size(m[k].cls, m[k].size, &t);
    int s;
    MPI_Type_size(t, &s);
    CHECK(s == m[k].size, "match_size gave a type of size %d, expected %d", s, m[k].size);
    ck_int(h, s);
    char tname[MPI_MAX_OBJECT_NAME];
    int tlen;
    MPI_Type_get_name(t, tname, &tlen);
    ck_str(h, tname); /* which type: MPICH picks Fortran's sized ones */
  }
  /* Renaming a predefined type (MPICH allows it); other types keep their names. */
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  MPI_Type_set_name(MPI_INT, "my int");
  MPI_Type_get_name(MPI_INT, name, &len);
  CHECK(strcmp(name, "my int") == 0 && len == 6, "renamed MPI_INT is '%s'", name);
  MPI_Type_get_name(MPI_DOUBLE, name, &len);
  CHECK(strcmp(name, "MPI_DOUBLE") == 0, "MPI_DOUBLE is '%s'", name);
  ck_str(h, name);
}

/* No byte moves with a type of size 0: null buffers are fine (MPICH). */
static void null_buffers(void) {
  MPI_Datatype empty;
  MPI_Type_contiguous(0, MPI_INT, &empty);
  MPI_Type_commit(&empty);
  MPI_Request r;
  MPI_Irecv(NULL, 2, empty, 0, 5, MPI_COMM_SELF, &r);
  MPI_Send(NULL, 3, empty, 0, 5, MPI_COMM_SELF);
  MPI_Status st;
  MPI_Wait(&r, &st);
  int count;
  MPI_Get_count(&st, MPI_BYTE, &count);
  CHECK(count == 0, "received %d bytes", count);
  MPI_Type_free(&empty);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ck_t h = CK_INIT;
  constructors(&h);
  external32(&h);
  match_and_names(&h);
  null_buffers();
  ck_finish(&h, "type_contents");
  MPI_Finalize();
  return 0;
}
