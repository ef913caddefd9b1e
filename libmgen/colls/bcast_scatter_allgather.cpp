// Van de Geijn's long-message broadcast (Barnett et al. 1994; MPICH's default above 12 KiB):
// a binomial scatter cuts the message into p chunks of ceil(bytes / p) and leaves chunk v at
// the rank v places from the root, then a ring allgather assembles every chunk everywhere.
// About 2 * bytes cross each link instead of log2(p) * bytes for the binomial tree.
#include <algorithm>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void bcast_scatter_allgather(Channel& ch, void* buf, uint64_t bytes, int root) {
  const int p = ch.size();
  if (p == 1) return;
  const int vrank = (ch.rank() - root + p) % p;
  auto real = [&](int v) { return (v + root) % p; };
  const uint64_t chunk = (bytes + static_cast<uint64_t>(p) - 1) / static_cast<uint64_t>(p);
  // Chunks [lo, hi) of the relative ranks: the tail chunks may be short or empty.
  auto begin = [&](int v) { return std::min(static_cast<uint64_t>(v) * chunk, bytes); };
  auto span = [&](int lo, int hi) { return begin(std::min(hi, p)) - begin(lo); };

  // Binomial scatter: a rank receives the chunks of its whole subtree from its parent, then
  // hands each child the chunks of the child's subtree, largest subtree first. Empty pieces
  // are left out on both sides.
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

  // Ring allgather of the chunks: in step s a rank passes chunk (vrank - s) on to the right.
  const int right = real((vrank + 1) % p), left = real((vrank - 1 + p) % p);
  for (int s = 0; s + 1 < p; ++s) {
    const int out = (vrank - s + p) % p, in = (vrank - s - 1 + p) % p;
    exchange(ch, at(buf, begin(out)), span(out, out + 1), right, at(buf, begin(in)), span(in, in + 1), left, kTagBcast);
  }
}

}  // namespace mgen::mpi::colls
