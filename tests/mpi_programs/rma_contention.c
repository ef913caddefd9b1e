/* rma_contention.c - passive-target locks under contention, and ranks that wait by polling.
 *
 * Checks that a rank waiting for a lock gets it while others keep taking and releasing the
 * same lock (MPI-3.1 §11.5.3: a lock request is eventually granted):
 *   hand-off: in each round one rank (the writer) sets a flag on rank 0 under an exclusive
 *   lock while every other rank polls the flag, each poll an exclusive lock, a get and an
 *   unlock, back to back; then the same with the pollers taking shared locks, which overlap
 *   and would keep the writer's exclusive request out for ever if later requests could
 *   overtake it;
 *   a ticket line: every rank appends itself to a list on rank 0 by Compare_and_swap on the
 *   tail's link, retrying under exclusive locks until it wins, the list ends up holding every
 *   rank exactly once;
 *   a polling wait on a rank's own window memory with MPI_Win_sync (no lock), released by a
 *   put from another rank.
 * Windows are multiples of 64 bytes (see onesided.c: MPICH 4.0.2's ch4:ucx misreads others).
 */
#include "check.h"

enum { ROUNDS = 3 };

static void handoff(ck_t* h, int rank, int size, int poll_lock) {
  int* base = NULL;
  MPI_Win win;
  MPI_Win_allocate(64, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  base[0] = 0;
  MPI_Win_unlock(rank, win);
  MPI_Barrier(MPI_COMM_WORLD);
  int polls_seen = 0;
  for (int round = 1; round <= ROUNDS; round++) {
    const int writer = (round * 7) % size;
    if (rank == writer) {
      /* Let the pollers start first, then ask for the lock among them. */
      int dummy = 0;
      MPI_Win_lock(poll_lock, 0, 0, win);
      MPI_Get(&dummy, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
      MPI_Win_unlock(0, win);
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
      MPI_Put(&round, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
      MPI_Win_unlock(0, win);
    } else {
      int flag = -1;
      do {
        MPI_Win_lock(poll_lock, 0, 0, win);
        MPI_Get(&flag, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
        CHECK(flag == round - 1 || flag == round, "round %d: flag %d", round, flag);
      } while (flag != round);
      polls_seen++;
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  ck_int(h, polls_seen); /* rounds this rank waited in, not how many polls it took */
  MPI_Win_free(&win);
}

/* An element of the list: the next element's rank and slot (-1: none), and its owner. */
typedef struct {
  int next_rank;
  int next_slot;
  int owner;
  int pad;
} elem_t;

static void ticket_line(ck_t* h, int rank, int size) {
  /* Every rank's window holds one element (slot 0); rank 0's holds the head too (slot 1).
   * Displacements count ints: an element's link is at slot * 4, its slot at slot * 4 + 1. */
  elem_t* base = NULL;
  MPI_Win win;
  MPI_Win_allocate(64, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  base[0] = (elem_t){-1, -1, rank, 0};
  base[1] = (elem_t){-1, -1, -1, 0};
  MPI_Win_unlock(rank, win);
  MPI_Barrier(MPI_COMM_WORLD);
  int tail_rank = 0, tail_slot = 1;
  const int none = -1;
  for (;;) {
    int old = -2;
    const MPI_Aint link = (MPI_Aint)tail_slot * (MPI_Aint)(sizeof(elem_t) / sizeof(int));
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tail_rank, 0, win);
    MPI_Compare_and_swap(&rank, &none, &old, MPI_INT, tail_rank, link, win);
    MPI_Win_unlock(tail_rank, win);
    if (old == none) {
      const int zero = 0;
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tail_rank, 0, win);
      MPI_Put(&zero, 1, MPI_INT, tail_rank, link + 1, 1, MPI_INT, win);
      MPI_Win_unlock(tail_rank, win);
      break;
    }
    /* Another rank linked first: follow its link once its slot is written. */
    int slot = -1;
    do {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tail_rank, 0, win);
      MPI_Get(&slot, 1, MPI_INT, tail_rank, link + 1, 1, MPI_INT, win);
      MPI_Win_unlock(tail_rank, win);
    } while (slot == -1);
    tail_rank = old;
    tail_slot = slot;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    int* seen = calloc((size_t)size, sizeof(int));
    CHECK(seen != NULL, "out of memory");
    int r = 0, s = 1, n = 0;
    for (;;) {
      elem_t e;
      MPI_Win_lock(MPI_LOCK_SHARED, r, 0, win);
      MPI_Get(&e, 4, MPI_INT, r, (MPI_Aint)s * 4, 4, MPI_INT, win);
      MPI_Win_unlock(r, win);
      if (s == 0) {
        CHECK(e.owner == r, "element of rank %d owned by %d", r, e.owner);
        CHECK(seen[r] == 0, "rank %d is in the list twice", r);
        seen[r] = 1;
        n++;
      }
      if (e.next_rank < 0) break;
      r = e.next_rank;
      s = e.next_slot;
    }
    CHECK(n == size, "the list holds %d of %d ranks", n, size);
    ck_int(h, n); /* the order depends on timing: not hashed */
    free(seen);
  }
  MPI_Win_free(&win);
}

/* Rank 0 polls its own window (MPI_Iprobe and MPI_Win_sync, no lock) until every other rank
 * has put a 1 in its slot: the puts become visible in the unified memory model. */
static void sync_poll(ck_t* h, int rank, int size) {
  const MPI_Aint bytes = (MPI_Aint)(((size_t)size * sizeof(int) + 63) / 64 * 64);
  int* base = NULL;
  MPI_Win win;
  MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < size; i++)
    base[i] = 0;
  MPI_Win_sync(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    int arrived = 1;
    while (arrived < size) {
      int any = 0; /* MPICH moves the others' puts only while rank 0 drives its progress */
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &any, MPI_STATUS_IGNORE);
      MPI_Win_sync(win);
      arrived = 1;
      for (int i = 1; i < size; i++)
        arrived += ((volatile int*)base)[i];
    }
    ck_int(h, arrived);
  } else {
    const int one = 1;
    MPI_Put(&one, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
    MPI_Win_flush(0, win);
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;
  handoff(&h, rank, size, MPI_LOCK_EXCLUSIVE);
  handoff(&h, rank, size, MPI_LOCK_SHARED);
  ticket_line(&h, rank, size);
  sync_poll(&h, rank, size);
  ck_finish(&h, "rma_contention");
  MPI_Finalize();
  return 0;
}
