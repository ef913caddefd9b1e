// Ring allgather: p - 1 steps; in step s every rank passes block (rank - s) to its right
// neighbour and receives block (rank - s - 1) from its left. Bandwidth-optimal for large
// blocks; handles unequal blocks (allgatherv).
#include "colls/colls.hpp"

namespace mgen::mpi::colls {

void allgather_ring(Channel& ch, const BlockArgs& a) {
  const int p = ch.size(), me = ch.rank();
  auto* recv = static_cast<char*>(a.recv);
  auto at = [&](int block) { return recv ? recv + a.recv_displs[block] : nullptr; };
  if (!a.in_place) copy_block(at(me), a.send, a.recv_counts[me]);
  const int right = (me + 1) % p, left = (me - 1 + p) % p;
  for (int s = 0; s + 1 < p; ++s) {
    const int out = (me - s + p) % p, in = (me - s - 1 + p) % p;
    ch.sendrecv(at(out), a.recv_counts[out], right, at(in), a.recv_counts[in], left, kTagAllgather);
  }
}

}  // namespace mgen::mpi::colls
