// Binomial-tree scatter (MPICH's scatter): the root sends each child the blocks of the child's
// whole subtree, largest first, and every rank forwards likewise: ceil(log2 p) rounds. Subtree
// sizes need every block's size at every rank, so the "v" form goes linear.
#include <algorithm>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void scatter_binomial(Channel& ch, const BlockArgs& a) {
  if (!a.regular) {
    scatter_linear(ch, a);
    return;
  }
  const int p = ch.size(), me = ch.rank();
  const int vrank = (me - a.root + p) % p;
  const uint64_t block = a.block;
  const bool root = me == a.root;
  int span = 1;
  while (span < p && !(vrank & span))
    span <<= 1;
  const int subtree = std::min(span, p - vrank);
  const int parent = (vrank - span + a.root) % p;
  if (subtree == 1 && !root) {
    ch.recv(a.recv, block, parent, kTagScatter);
    return;
  }
  // Blocks of the subtree in relative-rank order: the send buffer itself at root 0, a rotated
  // copy at another root, a receive buffer for the subtree elsewhere.
  const bool real = root ? a.send != nullptr : a.recv != nullptr;
  Scratch tmp_buf(real && !(root && a.root == 0), static_cast<uint64_t>(subtree) * block);
  const char* data = tmp_buf.get();
  if (root && a.root == 0) {
    data = static_cast<const char*>(a.send);
  } else if (root) {
    const uint64_t head = static_cast<uint64_t>(p - a.root) * block;
    copy_block(tmp_buf.get(), at(a.send, static_cast<uint64_t>(a.root) * block), head);
    copy_block(at(tmp_buf.get(), head), a.send, static_cast<uint64_t>(a.root) * block);
  } else {
    ch.recv(tmp_buf.get(), static_cast<uint64_t>(subtree) * block, parent, kTagScatter);
  }
  for (int mask = span >> 1; mask > 0; mask >>= 1) {
    const int child = vrank + mask;
    if (child >= p) continue;
    const uint64_t n = static_cast<uint64_t>(std::min(mask, p - child)) * block;
    ch.send(at(data, static_cast<uint64_t>(mask) * block), n, (child + a.root) % p, kTagScatter);
  }
  if (!(root && a.in_place)) copy_block(a.recv, data, block);
}

}  // namespace mgen::mpi::colls
