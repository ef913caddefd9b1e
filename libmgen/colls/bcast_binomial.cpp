// Binomial-tree broadcast (MPICH's short-message algorithm): ceil(log2 p) rounds; in round k
// the ranks that already hold the data send it 2^k further (relative to the root).
#include "colls/colls.hpp"

namespace mgen::mpi::colls {

void bcast_binomial(Channel& ch, void* buf, uint64_t bytes, int root) {
  const int p = ch.size();
  const int vrank = (ch.rank() - root + p) % p;
  int mask = 1;
  while (mask < p) {
    if (vrank & mask) {
      ch.recv(buf, bytes, (vrank - mask + root) % p, kTagBcast);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (vrank + mask < p) ch.send(buf, bytes, (vrank + mask + root) % p, kTagBcast);
  }
}

}  // namespace mgen::mpi::colls
