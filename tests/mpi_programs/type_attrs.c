/* type_attrs.c - attributes on datatypes and windows, and callbacks that fail:
 * MPI_Type_create_keyval/free_keyval, Type_set/get/delete_attr, copy callbacks on Type_dup,
 * delete callbacks on Type_free, on replacing and on deleting a value; window keyvals read
 * back through MPI_Win_get_attr and deleted at MPI_Win_free; a copy or delete callback that
 * returns an error makes Type_dup / Comm_dup / *_delete_attr / *_set_attr return it (and a
 * failed dup gives the null handle). Rank-local: every rank does the same. */
#include "check.h"

/* Callback activity, recorded in a local log through extra_state (no globals). */
typedef struct {
  int copies, deletes, fail_copy, fail_delete;
  long last_deleted;
} Log;

static int type_copy(MPI_Datatype t, int k, void* extra, void* in, void* out, int* flag) {
  (void)t;
  (void)k;
  Log* log = (Log*)extra;
  log->copies++;
  if (log->fail_copy) return MPI_ERR_OTHER;
  *(void**)out = (void*)((long)in + 100);
  *flag = 1;
  return MPI_SUCCESS;
}
static int type_delete(MPI_Datatype t, int k, void* value, void* extra) {
  (void)t;
  (void)k;
  Log* log = (Log*)extra;
  log->deletes++;
  log->last_deleted = (long)value;
  return log->fail_delete ? MPI_ERR_OTHER : MPI_SUCCESS;
}
static int comm_copy(MPI_Comm c, int k, void* extra, void* in, void* out, int* flag) {
  return type_copy((MPI_Datatype)c, k, extra, in, out, flag);
}
static int comm_delete(MPI_Comm c, int k, void* value, void* extra) {
  return type_delete((MPI_Datatype)c, k, value, extra);
}
static int win_delete(MPI_Win w, int k, void* value, void* extra) {
  return type_delete((MPI_Datatype)w, k, value, extra);
}

static void types(ck_t* h) {
  Log log = {0, 0, 0, 0, 0};
  int key;
  MPI_Type_create_keyval(type_copy, type_delete, &key, &log);
  MPI_Datatype t, d;
  MPI_Type_contiguous(2, MPI_INT, &t);
  void* v;
  int flag;
  MPI_Type_get_attr(t, key, &v, &flag);
  CHECK(flag == 0, "attribute set before any set_attr");
  MPI_Type_set_attr(t, key, (void*)7L);
  MPI_Type_get_attr(t, key, &v, &flag);
  CHECK(flag == 1 && (long)v == 7, "get_attr %d %ld", flag, (long)v);
  MPI_Type_set_attr(t, key, (void*)8L); /* replaces: the old value's delete runs */
  CHECK(log.deletes == 1 && log.last_deleted == 7, "replace deleted %d (%ld)", log.deletes, log.last_deleted);
  MPI_Type_dup(t, &d);
  CHECK(log.copies == 1, "copies %d", log.copies);
  MPI_Type_get_attr(d, key, &v, &flag);
  CHECK(flag == 1 && (long)v == 108, "dup's attribute %d %ld", flag, (long)v);
  /* The duplicate refers to t: freeing t's handle does not destroy it yet (MPICH deletes the
   * attributes when the type itself goes). */
  MPI_Type_free(&t);
  CHECK(log.deletes == 1, "free of a still referenced type deleted %d (%ld)", log.deletes, log.last_deleted);
  MPI_Type_delete_attr(d, key);
  CHECK(log.deletes == 2 && log.last_deleted == 108, "delete_attr deleted %d (%ld)", log.deletes, log.last_deleted);
  MPI_Type_get_attr(d, key, &v, &flag);
  CHECK(flag == 0, "attribute still there after delete_attr");
  MPI_Type_free(&d);
  CHECK(log.deletes == 3 && log.last_deleted == 8, "freeing the last reference deleted %d (%ld)", log.deletes,
        log.last_deleted);
  /* A type with nobody else referring to it loses its attributes with its handle. */
  MPI_Type_contiguous(3, MPI_INT, &t);
  MPI_Type_set_attr(t, key, (void*)9L);
  MPI_Type_free(&t);
  CHECK(log.deletes == 4 && log.last_deleted == 9, "free deleted %d (%ld)", log.deletes, log.last_deleted);
  /* Predefined types carry attributes too. */
  MPI_Type_set_attr(MPI_DOUBLE, key, (void*)5L);
  MPI_Type_get_attr(MPI_DOUBLE, key, &v, &flag);
  CHECK(flag == 1 && (long)v == 5, "predefined type's attribute");
  MPI_Type_delete_attr(MPI_DOUBLE, key);

  /* Failing callbacks. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Type_dup(MPI_INT, &t);
  MPI_Type_set_attr(t, key, (void*)1L);
  log.fail_delete = 1;
  int rc = MPI_Type_set_attr(t, key, (void*)2L);
  CHECK(rc != MPI_SUCCESS, "set_attr whose delete callback fails succeeded");
  MPI_Type_get_attr(t, key, &v, &flag);
  CHECK(flag == 1 && (long)v == 1, "the value changed though its delete failed (%ld)", (long)v);
  rc = MPI_Type_delete_attr(t, key);
  CHECK(rc != MPI_SUCCESS, "delete_attr whose callback fails succeeded");
  MPI_Type_get_attr(t, key, &v, &flag);
  CHECK(flag == 1, "the attribute went though its delete failed");
  log.fail_copy = 1;
  d = MPI_INT;
  rc = MPI_Type_dup(t, &d);
  CHECK(rc != MPI_SUCCESS && d == MPI_DATATYPE_NULL, "dup with a failing copy callback: rc %d", rc);
  log.fail_copy = 0;
  log.fail_delete = 0;
  MPI_Type_free(&t);
  MPI_Type_free_keyval(&key);
  CHECK(key == MPI_KEYVAL_INVALID, "freed keyval");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  ck_int(h, log.copies);
  ck_int(h, log.deletes);
}

static void comms(ck_t* h) {
  Log log = {0, 0, 0, 0, 0};
  int key;
  MPI_Comm_create_keyval(comm_copy, comm_delete, &key, &log);
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_set_attr(c, key, (void*)3L);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  log.fail_copy = 1;
  MPI_Comm d = MPI_COMM_WORLD;
  int rc = MPI_Comm_dup(c, &d);
  CHECK(rc != MPI_SUCCESS && d == MPI_COMM_NULL, "Comm_dup with a failing copy callback: rc %d", rc);
  log.fail_copy = 0;
  log.fail_delete = 1;
  rc = MPI_Comm_delete_attr(c, key);
  CHECK(rc != MPI_SUCCESS, "Comm_delete_attr whose callback fails succeeded");
  log.fail_delete = 0;
  MPI_Comm_free(&c);
  CHECK(log.last_deleted == 3, "Comm_free deleted %ld", log.last_deleted);
  MPI_Comm_free_keyval(&key);
  ck_int(h, log.copies);
  ck_int(h, log.deletes);
}

static void windows(ck_t* h) {
  Log log = {0, 0, 0, 0, 0};
  int k1, k2;
  MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, &k1, &log);
  MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, &k2, &log);
  int mem[4];
  MPI_Win w;
  MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
  void* v;
  int flag;
  MPI_Win_get_attr(w, k1, &v, &flag);
  CHECK(flag == 0, "window attribute before set");
  MPI_Win_set_attr(w, k1, (void*)11L);
  MPI_Win_set_attr(w, k2, (void*)12L);
  MPI_Win_get_attr(w, k2, &v, &flag);
  CHECK(flag == 1 && (long)v == 12, "window attribute %d %ld", flag, (long)v);
  MPI_Win_get_attr(w, MPI_WIN_BASE, &v, &flag);
  CHECK(flag == 1 && v == mem, "MPI_WIN_BASE");
  MPI_Win_free_keyval(&k1); /* the attribute stays until the window goes */
  MPI_Win_free(&w);
  CHECK(log.deletes == 2, "Win_free ran %d delete callbacks", log.deletes);
  MPI_Win_free_keyval(&k2);
  ck_int(h, log.deletes);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ck_t h = CK_INIT;
  types(&h);
  comms(&h);
  windows(&h);
  ck_finish(&h, "type_attrs");
  MPI_Finalize();
  return 0;
}
