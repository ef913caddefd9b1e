// Linear barrier (Open MPI's basic linear barrier): every rank signals rank 0, which waits for
// them all and then releases them all. 2 (p - 1) empty messages through one NIC.
#include "colls/colls.hpp"

#include <vector>

namespace mgen::mpi::colls {

void barrier_linear(Channel& ch) {
  const int p = ch.size();
  if (ch.rank() != 0) {
    ch.send(nullptr, 0, 0, kTagBarrier);
    ch.recv(nullptr, 0, 0, kTagBarrier);
    return;
  }
  std::vector<uint32_t> qs;
  for (int i = 1; i < p; ++i)
    qs.push_back(ch.irecv(nullptr, 0, i, kTagBarrier));
  ch.waitall(qs);
  for (int i = 1; i < p; ++i)
    qs.push_back(ch.isend(nullptr, 0, i, kTagBarrier));
  ch.waitall(qs);
}

}  // namespace mgen::mpi::colls
