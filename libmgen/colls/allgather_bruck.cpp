// Bruck's allgather (Bruck, Ho, Kipnis, Upfal & Weathersby 1997; MPICH's short allgather for
// p not a power of two): ceil(log2 p) rounds for any p. Each rank keeps the blocks in the
// order rank, rank + 1, ...; in the round at distance d it sends its first min(d, p - d)
// blocks to rank - d and appends as many from rank + d. A final rotation puts every block in
// its place.
#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void allgather_bruck(Channel& ch, const BlockArgs& a) {
  const int p = ch.size(), me = ch.rank();
  const Packed packed(p, a.regular, a.block, a.recv_counts);
  const uint64_t total = packed.total();
  // Offset of position j (block (me + j) mod p) in the rotated buffer, j in [0, p].
  auto pos = [&](int j) {
    return me + j <= p ? packed.begin(me + j) - packed.begin(me) : total - packed.begin(me) + packed.begin(me + j - p);
  };
  const void* mine = a.in_place ? at(a.recv, a.recv_displ(me)) : a.send;
  const bool real = present(a.recv, packed.total()) && present(mine, a.recv_count(me));
  Scratch tmp_buf(real, total);
  char* tmp = tmp_buf.get();
  copy_block(tmp, mine, a.recv_count(me));
  for (int dist = 1; dist < p; dist <<= 1) {
    const int n = dist < p - dist ? dist : p - dist;
    exchange(ch, tmp, pos(n), (me - dist + p) % p, at(tmp, pos(dist)), pos(dist + n) - pos(dist), (me + dist) % p,
             kTagAllgather);
  }
  for (int j = 0; j < p; ++j) {
    const int i = (me + j) % p;
    copy_block(at(a.recv, a.recv_displ(i)), at(tmp, pos(j)), a.recv_count(i));
  }
}

}  // namespace mgen::mpi::colls
