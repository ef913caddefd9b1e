// Ring barrier as NSIM-ACE §4.2.1 runs it: p - 1 steps, in each of which every rank signals
// its successor and waits for its predecessor. O(p).
#include "colls/colls.hpp"

namespace mgen::mpi::colls {

void barrier_ring(Channel& ch) {
  const int p = ch.size(), me = ch.rank();
  for (int step = 0; step + 1 < p; ++step)
    ch.sendrecv(nullptr, 0, (me + 1) % p, nullptr, 0, (me - 1 + p) % p, kTagBarrier);
}

}  // namespace mgen::mpi::colls
