// Recursive-doubling barrier: pairwise exchanges with rank XOR 2^k, log2 p rounds when p is a
// power of two. Otherwise (p = 2^n + r) the r extra ranks first report to a partner among the
// first 2^n and are released by it at the end: the extra steps NSIM-ACE §4.2.2 describes.
#include "colls/colls.hpp"

namespace mgen::mpi::colls {

void barrier_recursive_doubling(Channel& ch) {
  const int p = ch.size(), me = ch.rank();
  int pof2 = 1;
  while (pof2 * 2 <= p)
    pof2 *= 2;
  const int extra = p - pof2;
  if (me >= pof2) {
    ch.send(nullptr, 0, me - pof2, kTagBarrier);
    ch.recv(nullptr, 0, me - pof2, kTagBarrier);
    return;
  }
  if (me < extra) ch.recv(nullptr, 0, me + pof2, kTagBarrier);
  for (int mask = 1; mask < pof2; mask <<= 1) {
    ch.sendrecv(nullptr, 0, me ^ mask, nullptr, 0, me ^ mask, kTagBarrier);
  }
  if (me < extra) ch.send(nullptr, 0, me + pof2, kTagBarrier);
}

}  // namespace mgen::mpi::colls
