// Pairwise-exchange alltoall as Open MPI runs it (coll_base_alltoall.c / coll_base_alltoallv.c
// "pairwise"): p - 1 steps of one sendrecv each; in step i every rank sends to rank + i and
// receives from rank - i, whatever p (mgen's "pairwise", MPICH's, pairs rank XOR i when p is
// a power of two). Handles alltoallv.
#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void alltoall_pairwise_shift(Channel& ch, const BlockArgs& a) {
  const int p = ch.size(), me = ch.rank();
  copy_block(at(a.recv, a.recv_displ(me)), at(a.send, a.send_displ(me)), a.recv_count(me));
  for (int i = 1; i < p; ++i) {
    const int to = (me + i) % p, from = (me - i + p) % p;
    exchange(ch, at(a.send, a.send_displ(to)), a.send_count(to), to, at(a.recv, a.recv_displ(from)), a.recv_count(from),
             from, kTagAlltoall);
  }
}

}  // namespace mgen::mpi::colls
