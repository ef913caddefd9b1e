// Dissemination barrier (Hensgen, Finkel & Manber 1988): in round k every rank signals
// rank + 2^k and hears from rank - 2^k; ceil(log2 p) rounds for any p.
#include "colls/colls.hpp"

namespace mgen::mpi::colls {

void barrier_dissemination(Channel& ch) {
  const int p = ch.size(), me = ch.rank();
  for (int k = 1; k < p; k <<= 1)
    ch.sendrecv(nullptr, 0, (me + k) % p, nullptr, 0, (me - k + p) % p, kTagBarrier);
}

}  // namespace mgen::mpi::colls
