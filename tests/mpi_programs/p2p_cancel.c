/* p2p_cancel.c - cancelling sends (MPI-4.0 §3.8.4).
 *
 * MPI lets a send's cancellation fail, but never both ways: a cancelled send's message is
 * never received, a send whose cancellation failed is received intact, and a send whose
 * message was received cannot be cancelled. Each rank sends to its right neighbour (itself on
 * one rank) and checks, for Isend, Issend, Ibsend and a persistent send at 1, 100, 10000 and
 * 1000000 bytes: Cancel, Wait, Test_cancelled; the neighbour learns the outcome from a later
 * message and either receives the message (it must arrive intact) or finds no such message
 * (Iprobe after the later one, which cannot overtake it); two messages of one tag where only
 * the second is cancelled (the first is received, the second never); a send cancelled after
 * the receiver probed it, and one cancelled after the receiver confirmed its receipt (both
 * cancellations must fail).
 *
 * MPICH 4.0.2 (ch4:ucx) does not cancel sends and hangs in some of these cases (its own
 * scancel, pscancel, cancelrecv and scancel_unmatch are expected to fail in its testlist; here
 * it passes everything at 2 ranks and hangs at 1, 3 and 4). So by default only the last part
 * runs (the RESULT hashes from MPICH at every rank count); the argument "all" runs every part,
 * and "expect-cancel" runs every part and also requires that every send not yet matched is
 * cancelled (unless its receiver probed or received it first, which measured compute time
 * allows), which mgen promises. Whether a cancellation succeeded is never hashed: with
 * "all" or "expect-cancel" at 2 ranks the hash equals MPICH's with "all".
 */
#include "check.h"

enum { CTRL = 1000, PAYLOAD = 2000, NSIZES = 4, NMODES = 4 };
static const int kSizes[NSIZES] = {1, 100, 10000, 1000000};

static unsigned char byte_at(int sender, int i, int salt) {
  return (unsigned char)((sender * 31 + i * 7 + salt) & 0xff);
}

/* Starts a send of `n` bytes in mode `mode` (0 Isend, 1 Issend, 2 Ibsend, 3 persistent). */
static void start_send(int mode, const unsigned char* buf, int n, int dest, int tag, MPI_Request* req) {
  switch (mode) {
    case 0: MPI_Isend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, req); break;
    case 1: MPI_Issend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, req); break;
    case 2: MPI_Ibsend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, req); break;
    default:
      MPI_Send_init(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, req);
      MPI_Start(req);
      break;
  }
}

/* Cancel right after starting: the outcome travels to the receiver, which checks it. */
static void cancel_fresh(ck_t* h, int rank, int size, int expect, int* cancelled_count) {
  const int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  unsigned char* out = malloc(1000000);
  unsigned char* in = malloc(1000000);
  CHECK(out && in, "out of memory");
  int bsize = 1000000 + MPI_BSEND_OVERHEAD;
  void* bbuf = malloc((size_t)bsize);
  CHECK(bbuf != NULL, "out of memory");
  MPI_Buffer_attach(bbuf, bsize);
  for (int mode = 0; mode < NMODES; mode++) {
    for (int s = 0; s < NSIZES; s++) {
      const int n = kSizes[s], tag = PAYLOAD + mode * NSIZES + s, salt = mode * 10 + s;
      for (int i = 0; i < n; i++)
        out[i] = byte_at(rank, i, salt);
      MPI_Request req;
      MPI_Status st;
      start_send(mode, out, n, next, tag, &req);
      MPI_Cancel(&req);
      /* A send whose cancellation fails completes once received (synchronous and large ones):
       * receive the left neighbour's message meanwhile if it shows up. */
      int done = 0, received = 0;
      while (!done) {
        MPI_Test(&req, &done, &st);
        int there = 0;
        if (!received) MPI_Iprobe(prev, tag, MPI_COMM_WORLD, &there, MPI_STATUS_IGNORE);
        if (there) {
          MPI_Status rst;
          MPI_Recv(in, n, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &rst);
          int got = -1;
          MPI_Get_count(&rst, MPI_BYTE, &got);
          CHECK(got == n, "mode %d: received %d of %d bytes", mode, got, n);
          for (int i = 0; i < n; i++)
            CHECK(in[i] == byte_at(prev, i, salt), "mode %d, %d bytes: byte %d wrong", mode, n, i);
          received = 1;
        }
      }
      int flag = -1;
      MPI_Test_cancelled(&st, &flag);
      if (mode == 3) MPI_Request_free(&req);
      *cancelled_count += flag;
      /* Tell the receiver; the ctrl message cannot overtake the payload (same sender, same
       * communicator), so once it is in, a payload that was not cancelled is there too. The
       * receiver says whether it had received (or probed) the message before. */
      int theirs = -1, taken = -1;
      MPI_Sendrecv(&flag, 1, MPI_INT, next, CTRL, &theirs, 1, MPI_INT, prev, CTRL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Sendrecv(&received, 1, MPI_INT, prev, CTRL + 1, &taken, 1, MPI_INT, next, CTRL + 1, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
      if (expect) CHECK(flag || taken, "mode %d, %d bytes: a send nobody received was not cancelled", mode, n);
      if (theirs) {
        CHECK(!received, "mode %d, %d bytes: a cancelled send's message was received", mode, n);
        int there = 1;
        MPI_Iprobe(prev, tag, MPI_COMM_WORLD, &there, MPI_STATUS_IGNORE);
        CHECK(!there, "mode %d, %d bytes: a cancelled send's message arrived", mode, n);
      } else if (!received) {
        MPI_Recv(in, n, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &st);
        int got = -1;
        MPI_Get_count(&st, MPI_BYTE, &got);
        CHECK(got == n, "mode %d: received %d of %d bytes", mode, got, n);
        for (int i = 0; i < n; i++)
          CHECK(in[i] == byte_at(prev, i, salt), "mode %d, %d bytes: byte %d wrong", mode, n, i);
      }
      ck_int(h, n); /* the outcome may differ between implementations: not hashed */
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  int bs = 0;
  MPI_Buffer_detach(&bbuf, &bs);
  free(bbuf);
  free(in);
  free(out);
}

/* Two messages with one tag; the second is cancelled. The first must be received and the
 * receive must not get the second. */
static void cancel_second(ck_t* h, int rank, int size, int expect) {
  const int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  int a = 100 + rank, b = 200 + rank;
  MPI_Request r[2];
  MPI_Isend(&a, 1, MPI_INT, next, 7, MPI_COMM_WORLD, &r[0]);
  MPI_Isend(&b, 1, MPI_INT, next, 7, MPI_COMM_WORLD, &r[1]);
  MPI_Cancel(&r[1]);
  MPI_Status st[2];
  MPI_Waitall(2, r, st);
  int c0 = -1, c1 = -1;
  MPI_Test_cancelled(&st[0], &c0);
  MPI_Test_cancelled(&st[1], &c1);
  CHECK(!c0, "the first send was cancelled without being asked");
  if (expect) CHECK(c1, "the second send, not received, was not cancelled");
  int theirs = -1;
  MPI_Sendrecv(&c1, 1, MPI_INT, next, CTRL, &theirs, 1, MPI_INT, prev, CTRL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int got = -1;
  MPI_Recv(&got, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(got == 100 + prev, "first message: %d", got);
  if (!theirs) {
    MPI_Recv(&got, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(got == 200 + prev, "second message: %d", got);
  } else {
    int there = 1;
    MPI_Iprobe(prev, 7, MPI_COMM_WORLD, &there, MPI_STATUS_IGNORE);
    CHECK(!there, "the cancelled second message arrived");
  }
  ck_int(h, 100 + prev);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* The receiver has probed the message before the sender cancels: the cancellation must fail,
 * because a probe promises the receive that follows this very message (MPI-4.0 §3.8.1). */
static void cancel_probed(ck_t* h, int rank, int size) {
  const int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  for (int s = 0; s < NSIZES; s++) {
    const int n = kSizes[s];
    unsigned char* out = malloc((size_t)n);
    unsigned char* in = malloc((size_t)n);
    CHECK(out && in, "out of memory");
    for (int i = 0; i < n; i++)
      out[i] = byte_at(rank, i, 77);
    MPI_Request sreq;
    MPI_Isend(out, n, MPI_BYTE, next, 8, MPI_COMM_WORLD, &sreq);
    MPI_Status st;
    MPI_Probe(prev, 8, MPI_COMM_WORLD, &st);
    int ack = 1, acked = 0;
    MPI_Sendrecv(&ack, 1, MPI_INT, prev, CTRL, &acked, 1, MPI_INT, next, CTRL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Cancel(&sreq); /* the right neighbour has probed it */
    MPI_Recv(in, n, MPI_BYTE, prev, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&sreq, &st);
    int flag = -1;
    MPI_Test_cancelled(&st, &flag);
    CHECK(!flag, "%d bytes: a send already probed was cancelled", n);
    for (int i = 0; i < n; i++)
      CHECK(in[i] == byte_at(prev, i, 77), "%d bytes: probed message, byte %d wrong", n, i);
    ck_bytes(h, in, (size_t)(n < 64 ? n : 64));
    free(in);
    free(out);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* The receiver confirms it has the message before the sender cancels: must fail. */
static void cancel_received(ck_t* h, int rank, int size) {
  const int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  for (int s = 0; s < NSIZES; s++) {
    const int n = kSizes[s];
    unsigned char* out = malloc((size_t)n);
    unsigned char* in = malloc((size_t)n);
    CHECK(out && in, "out of memory");
    for (int i = 0; i < n; i++)
      out[i] = byte_at(rank, i, 99);
    MPI_Request sreq, rreq;
    MPI_Irecv(in, n, MPI_BYTE, prev, 9, MPI_COMM_WORLD, &rreq);
    MPI_Isend(out, n, MPI_BYTE, next, 9, MPI_COMM_WORLD, &sreq);
    MPI_Wait(&rreq, MPI_STATUS_IGNORE);
    int ack = 1, acked = 0;
    MPI_Sendrecv(&ack, 1, MPI_INT, prev, CTRL, &acked, 1, MPI_INT, next, CTRL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Cancel(&sreq);
    MPI_Status st;
    MPI_Wait(&sreq, &st);
    int flag = -1;
    MPI_Test_cancelled(&st, &flag);
    CHECK(!flag, "%d bytes: a send already received was cancelled", n);
    for (int i = 0; i < n; i++)
      CHECK(in[i] == byte_at(prev, i, 99), "%d bytes: byte %d wrong", n, i);
    ck_bytes(h, in, (size_t)(n < 64 ? n : 64));
    free(in);
    free(out);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int expect = argc > 1 && strcmp(argv[1], "expect-cancel") == 0;
  const int all = expect || (argc > 1 && strcmp(argv[1], "all") == 0);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;
  int cancelled = 0;
  if (all) {
    cancel_fresh(&h, rank, size, expect, &cancelled);
    cancel_second(&h, rank, size, expect);
    cancel_probed(&h, rank, size);
  }
  cancel_received(&h, rank, size);
  ck_finish(&h, "p2p_cancel");
  MPI_Finalize();
  return 0;
}
