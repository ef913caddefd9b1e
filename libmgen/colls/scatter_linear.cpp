// Linear scatter (MPICH's scatterv): the root posts a send per rank from its place in the
// send buffer and waits for all; every other rank receives once. Serves the "v" form, whose
// counts only the root knows.
#include <vector>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void scatter_linear(Channel& ch, const BlockArgs& a) {
  const int p = ch.size(), me = ch.rank();
  if (me != a.root) {
    ch.recv(a.recv, a.recv_bytes, a.root, kTagScatter);
    return;
  }
  std::vector<uint32_t> qs;
  qs.reserve(static_cast<size_t>(p));
  for (int i = 1; i < p; ++i) {
    const int to = (me + i) % p;  // the next ranks first, as MPICH does
    qs.push_back(ch.isend(at(a.send, a.send_displ(to)), a.send_count(to), to, kTagScatter));
  }
  if (!a.in_place) copy_block(a.recv, at(a.send, a.send_displ(me)), a.send_count(me));
  ch.waitall(qs);
}

}  // namespace mgen::mpi::colls
