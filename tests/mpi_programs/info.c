/* info.c - info objects (keys in insertion order, MPI's length rules and error classes,
 * Info_get_string, dup, delete) and the hints communicators and windows report: MPICH's keys
 * and defaults from Comm_get_info / Win_get_info, values set by Comm_set_info,
 * Comm_dup_with_info and window creation, unknown keys ignored, plain dups not inheriting. */
#include "check.h"

static void hash_info(ck_t* h, MPI_Info info) {
  int n = -1;
  MPI_Info_get_nkeys(info, &n);
  ck_int(h, n);
  for (int i = 0; i < n; i++) {
    char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
    int len = -1, flag = 0;
    MPI_Info_get_nthkey(info, i, key);
    MPI_Info_get_valuelen(info, key, &len, &flag);
    CHECK(flag && len >= 0, "valuelen of %s", key);
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
    CHECK(flag && (int)strlen(value) == len, "Info_get %s", key);
    ck_bytes(h, key, strlen(key));
    ck_bytes(h, value, strlen(value));
  }
}

static const char* value_of(MPI_Info info, const char* key, char* buf) {
  int flag = 0;
  MPI_Info_get(info, key, MPI_MAX_INFO_VAL, buf, &flag);
  return flag ? buf : "(absent)";
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  ck_t h = CK_INIT;
  char buf[MPI_MAX_INFO_VAL + 1];

  /* Keys keep their first position when set again; delete removes; dup copies. */
  MPI_Info a, b;
  MPI_Info_create(&a);
  MPI_Info_set(a, "first", "1");
  MPI_Info_set(a, "second", "22");
  MPI_Info_set(a, "first", "333");
  int n = 0;
  MPI_Info_get_nkeys(a, &n);
  CHECK(n == 2, "nkeys %d", n);
  char key[MPI_MAX_INFO_KEY + 1];
  MPI_Info_get_nthkey(a, 0, key);
  CHECK(strcmp(key, "first") == 0 && strcmp(value_of(a, "first", buf), "333") == 0, "key 0 %s", key);
  MPI_Info_dup(a, &b);
  MPI_Info_delete(a, "first");
  MPI_Info_get_nkeys(a, &n);
  CHECK(n == 1, "nkeys after delete %d", n);
  hash_info(&h, a);
  hash_info(&h, b);
  /* Info_get copies at most valuelen characters and a NUL. */
  char small[4];
  int flag = 0;
  MPI_Info_set(b, "long", "abcdefgh");
  MPI_Info_get(b, "long", 3, small, &flag);
  CHECK(flag && strcmp(small, "abc") == 0, "truncated get '%s'", small);
  /* Info_get_string: buflen becomes the length + 1; a short buffer gets a prefix. */
  int buflen = 1;
  MPI_Info_get_string(b, "second", &buflen, small, &flag);
  CHECK(flag && buflen == 3 && small[0] == '\0', "get_string short: buflen %d", buflen);
  buflen = 4;
  MPI_Info_get_string(b, "second", &buflen, small, &flag);
  CHECK(flag && buflen == 3 && strcmp(small, "22") == 0, "get_string: '%s'", small);
  buflen = 4;
  MPI_Info_get_string(b, "missing", &buflen, small, &flag);
  CHECK(!flag && buflen == 4, "get_string missing");
  /* Error classes. */
  int cls = -1;
  MPI_Error_class(MPI_Info_delete(a, "missing"), &cls);
  CHECK(cls == MPI_ERR_INFO_NOKEY, "delete missing: class %d", cls);
  MPI_Error_class(MPI_Info_get_nthkey(a, 5, key), &cls);
  CHECK(cls == MPI_ERR_ARG, "nthkey 5: class %d", cls);
  char longkey[MPI_MAX_INFO_KEY + 2];
  memset(longkey, 'k', sizeof longkey - 1);
  longkey[sizeof longkey - 1] = '\0';
  MPI_Error_class(MPI_Info_set(a, longkey, "v"), &cls);
  CHECK(cls == MPI_ERR_INFO_KEY, "long key: class %d", cls);
  MPI_Info_free(&a);
  CHECK(a == MPI_INFO_NULL, "Info_free");
  MPI_Info_free(&b);
  n = -1;
  MPI_Info_get_nkeys(MPI_INFO_ENV, &n);
  ck_int(&h, n);

  /* Communicator hints: MPICH's defaults; set_info changes known keys, ignores others. */
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Info got;
  MPI_Comm_get_info(dup, &got);
  hash_info(&h, got);
  MPI_Info_free(&got);
  MPI_Info hints;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "mpi_assert_no_any_tag", "true");
  MPI_Info_set(hints, "no_such_hint", "true");
  MPI_Comm_set_info(dup, hints);
  MPI_Comm_get_info(dup, &got);
  CHECK(strcmp(value_of(got, "mpi_assert_no_any_tag", buf), "true") == 0, "no_any_tag %s", buf);
  CHECK(strcmp(value_of(got, "no_such_hint", buf), "(absent)") == 0, "unknown hint kept");
  hash_info(&h, got);
  MPI_Info_free(&got);
  MPI_Comm dup2, dup3;
  MPI_Comm_dup(dup, &dup2); /* a plain dup does not inherit hints (as MPICH) */
  MPI_Comm_get_info(dup2, &got);
  CHECK(strcmp(value_of(got, "mpi_assert_no_any_tag", buf), "false") == 0, "dup inherited %s", buf);
  MPI_Info_free(&got);
  MPI_Comm_dup_with_info(MPI_COMM_WORLD, hints, &dup3);
  MPI_Comm_get_info(dup3, &got);
  CHECK(strcmp(value_of(got, "mpi_assert_no_any_tag", buf), "true") == 0, "dup_with_info %s", buf);
  MPI_Info_free(&got);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&dup2);
  MPI_Comm_free(&dup3);
  MPI_Info_free(&hints);

  /* Window hints: defaults, the creating call's info, Win_set_info. */
  int mem[4];
  MPI_Win win;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "no_locks", "true");
  MPI_Win_create(mem, sizeof mem, sizeof(int), hints, MPI_COMM_WORLD, &win);
  MPI_Win_get_info(win, &got);
  CHECK(strcmp(value_of(got, "no_locks", buf), "true") == 0, "window no_locks %s", buf);
  hash_info(&h, got);
  MPI_Info_free(&got);
  MPI_Info_set(hints, "no_locks", "false");
  MPI_Info_set(hints, "accumulate_ordering", "none");
  MPI_Win_set_info(win, hints);
  MPI_Win_get_info(win, &got);
  CHECK(strcmp(value_of(got, "accumulate_ordering", buf), "none") == 0, "accumulate_ordering %s", buf);
  hash_info(&h, got);
  MPI_Info_free(&got);
  MPI_Win_free(&win);
  MPI_Info_free(&hints);

  ck_int(&h, size);
  ck_finish(&h, "info");
  MPI_Finalize();
  return 0;
}
