/* errors.c - error handling and environment queries.
 *
 * Checks: Initialized / Finalized before and after; MPI_Init_thread(MPI_THREAD_FUNNELED) with
 * Query_thread and Is_thread_main; MPI_ERRORS_RETURN on MPI_COMM_WORLD, then the error classes
 * of erroneous calls: invalid destination/source rank (MPI_ERR_RANK), tag (MPI_ERR_TAG), count
 * (MPI_ERR_COUNT), datatype (MPI_ERR_TYPE), root (MPI_ERR_ROOT), operation (MPI_ERR_OP), a
 * truncated receive (MPI_ERR_TRUNCATE); the communicator still works afterwards; Error_class and
 * Error_string (non-empty); Comm_get_errhandler + Errhandler_free; a user error handler
 * (Comm_create_errhandler, Comm_set_errhandler on a duplicate of MPI_COMM_WORLD) called for a
 * failing call and for Comm_call_errhandler with the right code (the handler keeps its state in
 * the communicator's name, via Comm_get_name / Comm_set_name, so it needs no global variables);
 * Get_processor_name; Wtime monotonic, Wtick > 0; Pcontrol; Get_version (consistent with
 * MPI_VERSION / MPI_SUBVERSION); Get_library_version.
 * Only error classes are compared, never implementation-specific codes, strings or class values
 * (the hash records which checks ran, not the numeric classes).
 */
#include "check.h"

/* user error handler: counts its calls and records the last class in the communicator's name
 * ("errh <calls> <class>") */
static void my_handler(MPI_Comm* comm, int* code, ...) {
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0, calls = -1, cls = -1;
  MPI_Comm_get_name(*comm, name, &len);
  CHECK(sscanf(name, "errh %d %d", &calls, &cls) == 2, "handler called on '%s'", name);
  MPI_Error_class(*code, &cls);
  snprintf(name, sizeof name, "errh %d %d", calls + 1, cls);
  MPI_Comm_set_name(*comm, name);
}

static void handler_state(MPI_Comm comm, int* calls, int* cls) {
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  MPI_Comm_get_name(comm, name, &len);
  CHECK(sscanf(name, "errh %d %d", calls, cls) == 2, "communicator name '%s'", name);
}

/* expects rc to be an error of class want; checks its string */
static void expect_class(ck_t* h, int rc, int want, const char* what) {
  int cls = -1, len = 0;
  char msg[MPI_MAX_ERROR_STRING];
  CHECK(rc != MPI_SUCCESS, "%s: returned MPI_SUCCESS", what);
  MPI_Error_class(rc, &cls);
  CHECK(cls == want, "%s: class %d want %d", what, cls, want);
  msg[0] = 0;
  MPI_Error_string(rc, msg, &len);
  CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && (int)strlen(msg) == len, "%s: Error_string", what);
  ck_str(h, what);
}

int main(int argc, char** argv) {
  int flag = -1, provided = -1, rank, size;
  MPI_Initialized(&flag);
  CHECK(flag == 0, "Initialized before MPI_Init_thread");
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;
  MPI_Initialized(&flag);
  CHECK(flag == 1, "Initialized after init");
  MPI_Finalized(&flag);
  CHECK(flag == 0, "Finalized before finalize");
  CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "provided %d", provided);
  int q = -1;
  MPI_Query_thread(&q);
  CHECK(q == provided, "Query_thread %d provided %d", q, provided);
  MPI_Is_thread_main(&flag);
  CHECK(flag, "Is_thread_main");

  /* ---- error classes with MPI_ERRORS_RETURN ---- */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
  CHECK(eh == MPI_ERRORS_RETURN, "Comm_get_errhandler");
  MPI_Errhandler_free(&eh);
  CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free");

  int v[4] = {1, 2, 3, 4}, r[4];
  expect_class(&h, MPI_Send(v, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "send rank");
  expect_class(&h, MPI_Send(v, 1, MPI_INT, -1000, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "send rank -1000");
  expect_class(&h, MPI_Recv(r, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_RANK, "recv rank");
  expect_class(&h, MPI_Send(v, 1, MPI_INT, 0, -1000, MPI_COMM_WORLD), MPI_ERR_TAG, "send tag");
  expect_class(&h, MPI_Send(v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "send count");
  expect_class(&h, MPI_Send(v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "send type");
  expect_class(&h, MPI_Bcast(v, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT, "bcast root");
  expect_class(&h, MPI_Allreduce(v, r, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP, "allreduce op");
  {
    /* truncation: 4 ints into a 2-int buffer (message to self) */
    MPI_Request rq;
    CHECK_MPI(MPI_Isend(v, 4, MPI_INT, rank, 7, MPI_COMM_WORLD, &rq));
    expect_class(&h, MPI_Recv(r, 2, MPI_INT, rank, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE, "truncate");
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  }
  {
    int cls = -1, len = 0;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Error_class(MPI_SUCCESS, &cls);
    CHECK(cls == MPI_SUCCESS, "class of MPI_SUCCESS");
    MPI_Error_class(MPI_ERR_TAG, &cls);
    CHECK(cls == MPI_ERR_TAG, "a class is its own class");
    MPI_Error_string(MPI_ERR_COUNT, msg, &len);
    CHECK(len > 0, "Error_string of a class");
  }
  /* the communicator still works */
  {
    int s = 0, one = 1;
    CHECK_MPI(MPI_Allreduce(&one, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(s == size, "Allreduce after errors");
    ck_int(&h, s);
  }

  /* ---- user error handler ---- */
  {
    MPI_Comm dup;
    MPI_Errhandler mine;
    int calls, cls;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_name(dup, "errh 0 0");
    MPI_Comm_create_errhandler(my_handler, &mine);
    MPI_Comm_set_errhandler(dup, mine);
    int rc = MPI_Send(v, 1, MPI_INT, size + 1, 0, dup);
    handler_state(dup, &calls, &cls);
    CHECK(calls == 1 && cls == MPI_ERR_RANK, "user handler: calls %d class %d", calls, cls);
    CHECK(rc != MPI_SUCCESS, "failing call returned MPI_SUCCESS after the handler");
    CHECK_MPI(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));
    handler_state(dup, &calls, &cls);
    CHECK(calls == 2 && cls == MPI_ERR_OTHER, "Comm_call_errhandler: calls %d class %d", calls, cls);
    ck_int(&h, calls);
    /* world is untouched by the handler on the duplicate */
    char wname[MPI_MAX_OBJECT_NAME];
    int wlen;
    MPI_Comm_get_name(MPI_COMM_WORLD, wname, &wlen);
    CHECK(strcmp(wname, "MPI_COMM_WORLD") == 0, "world name '%s'", wname);
    MPI_Errhandler_free(&mine);
    CHECK(mine == MPI_ERRHANDLER_NULL, "Errhandler_free of a user handler");
    /* the handler stays attached to dup after the handle is freed */
    rc = MPI_Send(v, 1, MPI_INT, 0, -1000, dup);
    handler_state(dup, &calls, &cls);
    CHECK(calls == 3 && cls == MPI_ERR_TAG, "handler after Errhandler_free: %d %d", calls, cls);
    MPI_Comm_free(&dup);
  }

  /* ---- environment ---- */
  {
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = -1;
    MPI_Get_processor_name(name, &len);
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME && (int)strlen(name) == len, "processor name");
    double t0 = MPI_Wtime(), prev = t0, tick = MPI_Wtick();
    CHECK(tick > 0.0, "Wtick %g", tick);
    for (int k = 0; k < 1000; k++) {
      double t = MPI_Wtime();
      CHECK(t >= prev, "Wtime went backwards");
      prev = t;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Wtime() >= prev, "Wtime after Barrier");
    CHECK(MPI_Pcontrol(1) == MPI_SUCCESS && MPI_Pcontrol(0) == MPI_SUCCESS, "Pcontrol");
    int ver = -1, sub = -1;
    MPI_Get_version(&ver, &sub);
    CHECK(ver == MPI_VERSION && sub == MPI_SUBVERSION, "Get_version %d.%d", ver, sub);
    CHECK(ver > 3 || (ver == 3 && sub >= 1), "MPI version %d.%d is older than 3.1", ver, sub);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Get_library_version(lib, &len);
    CHECK(len > 0 && (int)strlen(lib) == len, "library version");
    ck_int(&h, 1); /* versions and names are implementation-specific: not hashed */
  }

  ck_finish(&h, "errors");
  MPI_Finalize();
  MPI_Finalized(&flag);
  if (flag != 1) {
    fprintf(stderr, "rank %d: FAIL %s:%d: Finalized after MPI_Finalize is %d\n", rank, __FILE__, __LINE__, flag);
    return 1;
  }
  MPI_Initialized(&flag);
  if (flag != 1) {
    fprintf(stderr, "rank %d: FAIL %s:%d: Initialized after MPI_Finalize\n", rank, __FILE__, __LINE__);
    return 1;
  }
  return 0;
}
