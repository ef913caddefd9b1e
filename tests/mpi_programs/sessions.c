/* sessions.c - the MPI-4.0 sessions model: MPI_Session_init before MPI_Init, the process sets
 * mpi://WORLD and mpi://SELF (names, mpi_size, groups), communicators from them with
 * MPI_Comm_create_from_group (point-to-point and collectives on them), a second session at the
 * same time, and the world model (MPI_Init) beside them for the result. */
#include "check.h"

static int from_pset(MPI_Session s, const char* pset, const char* tag, MPI_Comm* comm) {
  MPI_Group g = MPI_GROUP_NULL;
  CHECK_MPI(MPI_Group_from_session_pset(s, pset, &g));
  CHECK_MPI(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, comm));
  int n = 0;
  MPI_Group_size(g, &n);
  MPI_Group_free(&g);
  return n;
}

int main(int argc, char** argv) {
  ck_t h = CK_INIT;
  MPI_Session s = MPI_SESSION_NULL, s2 = MPI_SESSION_NULL;
  MPI_Info sinfo;
  MPI_Info_create(&sinfo); /* info objects work before any initialisation */
  MPI_Info_set(sinfo, "thread_level", "MPI_THREAD_SINGLE");
  CHECK_MPI(MPI_Session_init(sinfo, MPI_ERRORS_RETURN, &s));
  MPI_Info_free(&sinfo);
  MPI_Info got;
  CHECK_MPI(MPI_Session_get_info(s, &got));
  char value[64];
  int flag = 0;
  MPI_Info_get(got, "thread_level", sizeof value - 1, value, &flag);
  /* At least the level asked for (MPICH 4.0.2 always gives MPI_THREAD_MULTIPLE). */
  CHECK(flag && strncmp(value, "MPI_THREAD_", 11) == 0, "thread_level %s", flag ? value : "(absent)");
  MPI_Info_free(&got);

  /* The process sets: names (length first), sizes, and that WORLD and SELF are among them. */
  int npsets = 0, have_world = 0, have_self = 0, world_size = 0;
  MPI_Session_get_num_psets(s, MPI_INFO_NULL, &npsets);
  CHECK(npsets >= 2, "%d process sets", npsets);
  for (int i = 0; i < npsets; i++) {
    int len = 0;
    MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL);
    char name[256];
    CHECK(len > 1 && len <= (int)sizeof name, "pset name length %d", len);
    MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name);
    CHECK((int)strlen(name) + 1 == len, "pset name '%s' length %d", name, len);
    MPI_Info pinfo;
    MPI_Session_get_pset_info(s, name, &pinfo);
    MPI_Info_get(pinfo, "mpi_size", sizeof value - 1, value, &flag);
    CHECK(flag && atoi(value) > 0, "mpi_size of %s", name);
    if (strcmp(name, "mpi://WORLD") == 0) {
      have_world = 1;
      world_size = atoi(value);
    }
    if (strcmp(name, "mpi://SELF") == 0) {
      have_self = 1;
      CHECK(atoi(value) == 1, "mpi_size of SELF %s", value);
    }
    MPI_Info_free(&pinfo);
  }
  CHECK(have_world && have_self, "WORLD %d SELF %d", have_world, have_self);

  /* A communicator over WORLD: ring exchange and an allreduce. */
  MPI_Comm wc, sc;
  const int n = from_pset(s, "mpi://WORLD", "org.example.sessions.world", &wc);
  int rank = -1, size = -1;
  MPI_Comm_rank(wc, &rank);
  MPI_Comm_size(wc, &size);
  CHECK(size == n && size == world_size, "WORLD comm size %d, group %d, pset %d", size, n, world_size);
  int token = 10 * rank, got_token = -1;
  MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 3, &got_token, 1, MPI_INT, (rank + size - 1) % size, 3, wc,
               MPI_STATUS_IGNORE);
  CHECK(got_token == 10 * ((rank + size - 1) % size), "ring token %d", got_token);
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, wc);
  CHECK(sum == size * (size - 1) / 2, "allreduce %d", sum);
  ck_int(&h, sum);
  /* SELF: a communicator of one; a message to itself. */
  CHECK(from_pset(s, "mpi://SELF", "org.example.sessions.self", &sc) == 1, "SELF group");
  MPI_Comm_size(sc, &size);
  CHECK(size == 1, "SELF comm size %d", size);
  MPI_Request r;
  MPI_Irecv(&got_token, 1, MPI_INT, 0, 0, sc, &r);
  MPI_Send(&token, 1, MPI_INT, 0, 0, sc);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  CHECK(got_token == token, "self message %d", got_token);
  /* A second session and a second communicator over WORLD (another tag): independent. */
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2));
  MPI_Comm wc2;
  from_pset(s2, "mpi://WORLD", "org.example.sessions.other", &wc2);
  int bval = rank == 0 ? 77 : -1;
  MPI_Bcast(&bval, 1, MPI_INT, 0, wc2);
  CHECK(bval == 77, "bcast on the second session's comm %d", bval);
  ck_int(&h, bval);
  MPI_Comm_free(&wc2);
  CHECK_MPI(MPI_Session_finalize(&s2));
  CHECK(s2 == MPI_SESSION_NULL, "Session_finalize");
  MPI_Comm_free(&sc);
  MPI_Comm_free(&wc);

  /* The world model beside the session (MPICH 4.0.2 crashes in an MPI_Init after every session
   * was finalized, so the first session stays open until then). */
  MPI_Init(&argc, &argv);
  CHECK_MPI(MPI_Session_finalize(&s));
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_int(&h, size);
  ck_finish(&h, "sessions");
  MPI_Finalize();
  return 0;
}
