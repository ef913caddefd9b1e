/* barrier_ring_rdma — NSIM-ACE's ring barrier (§4.2.1) built from RDMA puts.
 *
 * p - 1 steps. In every step rank i puts a few bytes into rank i + 1 (rank p - 1 into rank 0)
 * and then polls for the put of rank i - 1 (rank 0 for that of rank p - 1). After step s a rank
 * knows that the s ranks before it in the ring have entered the barrier, so after p - 1 steps
 * everyone has.
 *
 * Step s uses tag s. MGEN_rdma_poll(tag) consumes one completed put of that tag, and a rank
 * only ever receives tag s from its left neighbour, once per barrier; since that neighbour's
 * puts of one tag are issued one barrier after another, the k-th poll of tag s always takes
 * the put of the k-th barrier, even when the neighbour is already a barrier ahead.
 *
 *   mgen run -n 16 -c configs/nsim-ace-ib.toml --ppn 2 examples/barrier_ring_rdma
 */
#include <stdio.h>

#include "barrier_common.h"

static void ring_barrier(int rank, int size, int bytes, int complete_each, MGEN_acp_handle* handles) {
  const int right = (rank + 1) % size;
  int step, issued = 0;
  for (step = 1; step < size; ++step) {
    handles[issued++] = MGEN_rdma_put(right, bytes, step);
    MGEN_rdma_poll(step);
    if (complete_each) MGEN_acp_complete(handles[--issued]);
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
  const ex_program prog = {"barrier_ring_rdma", "Ring barrier from RDMA puts and polls (NSIM-ACE 4.2.1).", options,
                           (int)(sizeof options / sizeof options[0])};
  char description[128];
  int size;
  if (!ex_parse(&prog, argc, argv)) return 0;
  size = ex_size();
  if (iters < 1 || iters > 1000000) ex_die(&prog, "--iters must be in [1, 1000000], not %lld", iters);
  if (bytes < 0 || bytes > 1048576) ex_die(&prog, "--bytes must be in [0, 1 MiB], not %lld", bytes);
  snprintf(description, sizeof description, "ring: %d step(s) of one put and one poll", size - 1);
  return run_barrier_benchmark(&prog, description, ring_barrier, size, iters, bytes, complete_each);
}
