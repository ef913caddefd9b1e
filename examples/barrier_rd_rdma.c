/* barrier_rd_rdma — NSIM-ACE's recursive-doubling barrier (§4.2.2) built from RDMA puts.
 *
 * With p = 2^n the barrier takes n steps. In step i (i = 1..n) the ranks form groups of 2^i in
 * rank order; each rank of the lower half of a group puts into the rank 2^(i-1) above it, each
 * rank of the upper half into the rank 2^(i-1) below it (the partner is rank XOR 2^(i-1)), and
 * the two partners poll for each other's put.
 *
 * With p = 2^n + r (0 < r < 2^n) the r extra ranks 2^n .. p-1 take part through two extra
 * steps: before step 1 each extra rank puts into rank - 2^n (which polls for it before its step
 * 1), and after step n rank j < r puts into rank j + 2^n, which has been waiting for exactly
 * that put. So the extra ranks enter via a partner and are released by it.
 *
 * Tags: 0 for the step before step 1, i for step i, n + 1 for the step after step n. A rank
 * receives each tag from one fixed partner, once per barrier, and a partner issues its puts of
 * one tag barrier after barrier, so the k-th poll of a tag always consumes the put of the k-th
 * barrier (MGEN_rdma_poll consumes one completed put of its tag), even when the partner is a
 * barrier ahead.
 *
 *   mgen run -n 16 -c configs/nsim-ace-ib.toml --ppn 2 examples/barrier_rd_rdma
 */
#include <stdio.h>

#include "barrier_common.h"

static void rd_barrier(int rank, int size, int bytes, int complete_each, MGEN_acp_handle* handles) {
  int n = 0, pow2 = 1, extra, step, issued = 0;
  while (pow2 * 2 <= size) {
    pow2 *= 2;
    ++n;
  }
  extra = size - pow2;
  const int tag_before = 0, tag_after = n + 1;
  if (rank >= pow2) {
    /* An extra rank: announce itself to rank - 2^n, wait to be released. */
    handles[issued++] = MGEN_rdma_put(rank - pow2, bytes, tag_before);
    if (complete_each) MGEN_acp_complete(handles[--issued]);
    MGEN_rdma_poll(tag_after);
  } else {
    if (rank < extra) MGEN_rdma_poll(tag_before);
    for (step = 1; step <= n; ++step) {
      const int partner = rank ^ (1 << (step - 1));
      handles[issued++] = MGEN_rdma_put(partner, bytes, step);
      MGEN_rdma_poll(step);
      if (complete_each) MGEN_acp_complete(handles[--issued]);
    }
    if (rank < extra) {
      handles[issued++] = MGEN_rdma_put(rank + pow2, bytes, tag_after);
      if (complete_each) MGEN_acp_complete(handles[--issued]);
    }
  }
  while (issued > 0)
    MGEN_acp_complete(handles[--issued]);
}

int MGEN_Main(int argc, char** argv) {
  long long iters = 100, bytes = 8;
  int complete_each = 0;
  const ex_option options[] = {
      {"iters", EX_INT, &iters, "barriers to run"},
      {"bytes", EX_INT, &bytes, "bytes per put"},
      {"complete-each", EX_FLAG, &complete_each, "wait for each put's completion before the next step"},
  };
  const ex_program prog = {"barrier_rd_rdma", "Recursive-doubling barrier from RDMA puts and polls (NSIM-ACE 4.2.2).",
                           options, (int)(sizeof options / sizeof options[0])};
  char description[160];
  int size, n = 0, pow2 = 1;
  if (!ex_parse(&prog, argc, argv)) return 0;
  size = ex_size();
  if (iters < 1 || iters > 1000000) ex_die(&prog, "--iters must be in [1, 1000000], not %lld", iters);
  if (bytes < 0 || bytes > 1048576) ex_die(&prog, "--bytes must be in [0, 1 MiB], not %lld", bytes);
  while (pow2 * 2 <= size) {
    pow2 *= 2;
    ++n;
  }
  snprintf(description, sizeof description, "recursive doubling: %d step(s)%s (p = 2^%d + %d)", n,
           size > pow2 ? " plus one before and one after for the extra ranks" : "", n, size - pow2);
  return run_barrier_benchmark(&prog, description, rd_barrier, n + 2, iters, bytes, complete_each);
}
