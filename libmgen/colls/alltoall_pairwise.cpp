// Pairwise-exchange alltoall (MPICH's long-message alltoall; Thakur, Rabenseifner & Gropp
// 2005, §4.2): p - 1 steps of one sendrecv each, so a rank never has more than one message in
// each direction. With p a power of two the partner in step i is rank XOR i (each step a
// perfect matching); otherwise the rank sends to rank + i and receives from rank - i.
// Handles alltoallv.
#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void alltoall_pairwise(Channel& ch, const BlockArgs& a) {
  const int p = ch.size(), me = ch.rank();
  copy_block(at(a.recv, a.recv_displ(me)), at(a.send, a.send_displ(me)), a.recv_count(me));
  const bool xor_partners = is_pof2(p);
  for (int i = 1; i < p; ++i) {
    const int to = xor_partners ? me ^ i : (me + i) % p;
    const int from = xor_partners ? me ^ i : (me - i + p) % p;
    exchange(ch, at(a.send, a.send_displ(to)), a.send_count(to), to, at(a.recv, a.recv_displ(from)), a.recv_count(from),
             from, kTagAlltoall);
  }
}

}  // namespace mgen::mpi::colls
