// Linear gather (MPICH's gatherv): the root posts a receive per rank straight into its place
// in the receive buffer and waits for all; every other rank sends once. p - 1 messages into
// one NIC. Serves the "v" form, whose counts only the root knows.
#include <vector>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void gather_linear(Channel& ch, const BlockArgs& a) {
  const int p = ch.size(), me = ch.rank();
  if (me != a.root) {
    ch.send(a.send, a.send_bytes, a.root, kTagGather);
    return;
  }
  std::vector<uint32_t> qs;
  qs.reserve(static_cast<size_t>(p));
  for (int i = 0; i < p; ++i) {
    if (i != me) qs.push_back(ch.irecv(at(a.recv, a.recv_displ(i)), a.recv_count(i), i, kTagGather));
  }
  if (!a.in_place) copy_block(at(a.recv, a.recv_displ(me)), a.send, a.recv_count(me));
  ch.waitall(qs);
}

}  // namespace mgen::mpi::colls
