// Ring allgather: p - 1 steps; in step s every rank passes block (rank - s) to its right
// neighbour and receives block (rank - s - 1) from its left. Bandwidth-optimal for large
// blocks; handles unequal blocks (allgatherv).
#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void allgather_ring(Channel& ch, const BlockArgs& a) {
  const int p = ch.size(), me = ch.rank();
  auto block = [&](int i) { return at(a.recv, a.recv_displ(i)); };
  if (!a.in_place) copy_block(block(me), a.send, a.recv_count(me));
  const int right = (me + 1) % p, left = (me - 1 + p) % p;
  for (int s = 0; s + 1 < p; ++s) {
    const int out = (me - s + p) % p, in = (me - s - 1 + p) % p;
    ch.sendrecv(block(out), a.recv_count(out), right, block(in), a.recv_count(in), left, kTagAllgather);
  }
}

}  // namespace mgen::mpi::colls
