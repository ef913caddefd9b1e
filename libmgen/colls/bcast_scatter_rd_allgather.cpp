// Scatter + recursive-doubling allgather broadcast (MPICH's broadcast for medium messages,
// 12 KiB to 512 KiB, on powers of two; Thakur, Rabenseifner & Gropp 2005, §4.3): the binomial
// scatter of bcast_scatter_allgather leaves chunk v of ceil(bytes / p) at the rank v places
// from the root, then log2(p) rounds swap aligned groups of 1, 2, 4, ... chunks with the rank
// XOR 2^k, instead of the ring's p - 1 steps. Other sizes than powers of two take the ring.
#include <algorithm>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void bcast_scatter_rd_allgather(Channel& ch, void* buf, uint64_t bytes, int root) {
  const int p = ch.size();
  if (!is_pof2(p)) {
    bcast_scatter_allgather(ch, buf, bytes, root);
    return;
  }
  if (p == 1) return;
  const int vrank = (ch.rank() - root + p) % p;
  auto real = [&](int v) { return (v + root) % p; };
  const uint64_t chunk = (bytes + static_cast<uint64_t>(p) - 1) / static_cast<uint64_t>(p);
  auto begin = [&](int v) { return std::min(static_cast<uint64_t>(v) * chunk, bytes); };
  auto span = [&](int lo, int hi) { return begin(std::min(hi, p)) - begin(lo); };

  // Binomial scatter, as in bcast_scatter_allgather: a rank's subtree [vrank, vrank + mask)
  // comes from its parent, then each child gets its own subtree's chunks.
  int mask = 1;
  while (mask < p) {
    if (vrank & mask) {
      const uint64_t n = span(vrank, vrank + mask);
      if (n > 0) ch.recv(at(buf, begin(vrank)), n, real(vrank - mask), kTagBcast);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    const int child = vrank + mask;
    if (child >= p) continue;
    const uint64_t n = span(child, child + mask);
    if (n > 0) ch.send(at(buf, begin(child)), n, real(child), kTagBcast);
  }

  // Recursive doubling over the chunks: before round `dist` a rank holds the aligned group of
  // `dist` chunks around it and swaps it for its partner's group.
  for (int dist = 1; dist < p; dist <<= 1) {
    const int partner = vrank ^ dist;
    const int lo = vrank & ~(dist - 1), plo = partner & ~(dist - 1);
    exchange(ch, at(buf, begin(lo)), span(lo, lo + dist), real(partner), at(buf, begin(plo)), span(plo, plo + dist),
             real(partner), kTagBcast);
  }
}

}  // namespace mgen::mpi::colls
