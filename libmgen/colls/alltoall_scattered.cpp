// Scattered alltoall (MPICH's alltoall for blocks of 257 B to 32 KiB, and its alltoallv): in
// batches of 32 peers (MPIR_CVAR_ALLTOALL_THROTTLE's default) a rank posts its receives from
// rank + i and its sends to rank - i, then waits for the batch, so that not every rank hits
// the same destination at once and at most 64 requests are outstanding. Handles alltoallv.
#include <algorithm>
#include <vector>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

namespace {
constexpr int kThrottle = 32;
}  // namespace

void alltoall_scattered(Channel& ch, const BlockArgs& a) {
  const int p = ch.size(), me = ch.rank();
  copy_block(at(a.recv, a.recv_displ(me)), at(a.send, a.send_displ(me)), a.recv_count(me));
  std::vector<uint32_t> qs;
  qs.reserve(2 * kThrottle);
  for (int first = 0; first < p; first += kThrottle) {
    const int n = std::min(kThrottle, p - first);
    for (int i = first; i < first + n; ++i) {
      const int from = (me + i) % p;
      if (from != me && a.recv_count(from) > 0)
        qs.push_back(ch.irecv(at(a.recv, a.recv_displ(from)), a.recv_count(from), from, kTagAlltoall));
    }
    for (int i = first; i < first + n; ++i) {
      const int to = (me - i + p) % p;
      if (to != me && a.send_count(to) > 0)
        qs.push_back(ch.isend(at(a.send, a.send_displ(to)), a.send_count(to), to, kTagAlltoall));
    }
    ch.waitall(qs);
  }
}

}  // namespace mgen::mpi::colls
