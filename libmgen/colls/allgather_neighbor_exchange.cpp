// Neighbor-exchange allgather (Chen et al. 2005; Open MPI's "neighbor", coll_base_allgather.c):
// p / 2 steps for even p. Step 0: even rank r and r + 1 swap their own blocks. Then each step
// swaps a pair of blocks, the pair received in the step before, alternately with the other
// neighbour: an even rank's pairs come from the right (2 blocks further each time), an odd
// rank's from the left. Odd p takes the ring, as Open MPI does. A pair travels as one message
// (allgather) or as its two blocks (allgatherv, whose layouts may differ between ranks; Open
// MPI sends one message described by a derived datatype there).
#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

namespace {

// Sends the pair of blocks starting at `out` and receives the pair starting at `in`.
void swap_pairs(Channel& ch, const BlockArgs& a, int out, int in, int peer) {
  const int p = ch.size();
  auto block = [&](int i) { return at(a.recv, a.recv_displ(i)); };
  // Displacements are each rank's own (MPI lets them differ): only the regular form's pairs are
  // known to lie end to end at both ends.
  const int pieces = a.regular ? 1 : 2;
  std::vector<uint32_t> qs;
  for (int k = 0; k < pieces; ++k) {
    const int i = (in + k) % p;
    const uint64_t n = pieces == 1 ? 2 * a.block : a.recv_count(i);
    if (n > 0) qs.push_back(ch.irecv(block(i), n, peer, kTagAllgather));
  }
  for (int k = 0; k < pieces; ++k) {
    const int i = (out + k) % p;
    const uint64_t n = pieces == 1 ? 2 * a.block : a.recv_count(i);
    if (n > 0) qs.push_back(ch.isend(block(i), n, peer, kTagAllgather));
  }
  ch.waitall(qs);
}

}  // namespace

void allgather_neighbor_exchange(Channel& ch, const BlockArgs& a) {
  const int p = ch.size(), me = ch.rank();
  if (p % 2 != 0) {
    allgather_ring(ch, a);
    return;
  }
  auto block = [&](int i) { return at(a.recv, a.recv_displ(i)); };
  if (!a.in_place) copy_block(block(me), a.send, a.recv_count(me));
  const bool even = me % 2 == 0;
  const int neighbor[2] = {even ? (me + 1) % p : (me - 1 + p) % p, even ? (me - 1 + p) % p : (me + 1) % p};
  const int step[2] = {even ? 2 : -2, even ? -2 : 2};
  exchange(ch, block(me), a.recv_count(me), neighbor[0], block(neighbor[0]), a.recv_count(neighbor[0]), neighbor[0],
           kTagAllgather);
  // The first block of each pair: pairs start at even ranks.
  int from[2] = {even ? me : neighbor[0], even ? me : neighbor[0]};
  int send_from = from[0];
  for (int i = 1; i < p / 2; ++i) {
    const int parity = i % 2;
    from[parity] = (from[parity] + step[parity] + p) % p;
    swap_pairs(ch, a, send_from, from[parity], neighbor[parity]);
    send_from = from[parity];
  }
}

}  // namespace mgen::mpi::colls
