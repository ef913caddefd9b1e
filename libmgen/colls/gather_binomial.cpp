// Binomial-tree gather (MPICH's gather): each rank collects the blocks of its subtree from its
// children, smallest subtree first, and passes them to its parent in one message: ceil(log2 p)
// rounds instead of p - 1 messages at the root. Subtree sizes need every block's size at every
// rank, so the "v" form (counts known only at the root) goes linear.
#include <algorithm>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void gather_binomial(Channel& ch, const BlockArgs& a) {
  if (!a.regular) {
    gather_linear(ch, a);
    return;
  }
  const int p = ch.size(), me = ch.rank();
  const int vrank = (me - a.root + p) % p;
  const uint64_t block = a.block;
  const bool root = me == a.root;
  const void* mine = root && a.in_place ? at(a.recv, a.recv_displ(me)) : a.send;
  // Relative ranks [vrank, vrank + subtree) end up here; the root's subtree is everything.
  int span = 1;
  while (span < p && !(vrank & span))
    span <<= 1;
  const int subtree = std::min(span, p - vrank);
  if (subtree == 1 && !root) {
    ch.send(mine, block, (vrank - span + a.root) % p, kTagGather);
    return;
  }
  const bool real = mine != nullptr && (!root || a.recv != nullptr);
  // Blocks in relative-rank order; at root 0 that is the receive buffer itself.
  Scratch tmp_buf(real && !(root && a.root == 0), static_cast<uint64_t>(subtree) * block);
  char* tmp = root && a.root == 0 ? static_cast<char*>(a.recv) : tmp_buf.get();
  copy_block(tmp, mine, block);
  for (int mask = 1; mask < span; mask <<= 1) {
    const int child = vrank + mask;
    if (child >= p) break;
    const uint64_t n = static_cast<uint64_t>(std::min(mask, p - child)) * block;
    ch.recv(at(tmp, static_cast<uint64_t>(mask) * block), n, (child + a.root) % p, kTagGather);
  }
  if (!root) {
    ch.send(tmp, static_cast<uint64_t>(subtree) * block, (vrank - span + a.root) % p, kTagGather);
    return;
  }
  // Relative rank v is rank (v + root) mod p: two contiguous pieces.
  if (a.root != 0) {
    const uint64_t head = static_cast<uint64_t>(p - a.root) * block;
    copy_block(at(a.recv, static_cast<uint64_t>(a.root) * block), tmp, head);
    copy_block(a.recv, at(tmp, head), static_cast<uint64_t>(a.root) * block);
  }
}

}  // namespace mgen::mpi::colls
