// Tree barrier (Open MPI's "tree", coll_base_barrier.c): a binomial fan-in to rank 0 and the
// same tree back out. At distance 2^k, a rank whose low k bits are clear pairs with rank XOR
// 2^k: the higher of the two signals the lower on the way in, the lower releases the higher on
// the way out. 2 ceil(log2 p) rounds on the critical path.
#include "colls/colls.hpp"

namespace mgen::mpi::colls {

void barrier_tree(Channel& ch) {
  const int p = ch.size(), me = ch.rank();
  int depth = 1;
  while (depth < p)
    depth <<= 1;
  // A rank takes part at distance `jump` while its bits below `jump` are clear.
  auto partner_at = [&](int jump) {
    const int partner = me ^ jump;
    return (partner & (jump - 1)) == 0 && partner < p ? partner : -1;
  };
  for (int jump = 1; jump < depth; jump <<= 1) {
    const int partner = partner_at(jump);
    if (partner > me) ch.recv(nullptr, 0, partner, kTagBarrier);
    if (partner >= 0 && partner < me) ch.send(nullptr, 0, partner, kTagBarrier);
  }
  for (int jump = depth >> 1; jump > 0; jump >>= 1) {
    const int partner = partner_at(jump);
    if (partner > me) ch.send(nullptr, 0, partner, kTagBarrier);
    if (partner >= 0 && partner < me) ch.recv(nullptr, 0, partner, kTagBarrier);
  }
}

}  // namespace mgen::mpi::colls
