// Linear alltoall (MPICH's medium-message alltoall): post every receive and every send at
// once, starting with the neighbours, and wait for all; the network sorts out the contention.
// Handles alltoallv.
#include <vector>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void alltoall_linear(Channel& ch, const BlockArgs& a) {
  const int p = ch.size(), me = ch.rank();
  copy_block(at(a.recv, a.recv_displ(me)), at(a.send, a.send_displ(me)), a.recv_count(me));
  std::vector<uint32_t> qs;
  qs.reserve(2 * static_cast<size_t>(p));
  for (int i = 1; i < p; ++i) {
    const int from = (me - i + p) % p;
    if (a.recv_count(from) > 0)
      qs.push_back(ch.irecv(at(a.recv, a.recv_displ(from)), a.recv_count(from), from, kTagAlltoall));
  }
  for (int i = 1; i < p; ++i) {
    const int to = (me + i) % p;
    if (a.send_count(to) > 0) qs.push_back(ch.isend(at(a.send, a.send_displ(to)), a.send_count(to), to, kTagAlltoall));
  }
  ch.waitall(qs);
}

}  // namespace mgen::mpi::colls
