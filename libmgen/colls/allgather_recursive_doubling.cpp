// Recursive-doubling allgather (MPICH's allgather for powers of two up to 512 KiB; Thakur,
// Rabenseifner & Gropp 2005, §4.1): in round k each rank swaps everything it has, the aligned
// range of 2^k blocks around it, with rank XOR 2^k: log2(p) rounds. Works on blocks laid end
// to end (the receive buffer itself when displacements are packed). Other sizes than powers
// of two go to Bruck's algorithm, which needs the same ceil(log2 p) rounds for any p.
#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void allgather_recursive_doubling(Channel& ch, const BlockArgs& a) {
  const int p = ch.size(), me = ch.rank();
  if (!is_pof2(p)) {
    allgather_bruck(ch, a);
    return;
  }
  const Packed packed(p, a.regular, a.block, a.recv_counts);
  bool in_order = true;  // are the blocks already end to end in the receive buffer?
  for (int i = 0; i < p && in_order && !a.regular; ++i)
    in_order = a.recv_displs[i] == packed.begin(i);
  const void* mine = a.in_place ? at(a.recv, a.recv_displ(me)) : a.send;
  const bool real = present(a.recv, packed.total()) && present(mine, a.recv_count(me));
  Scratch tmp_buf(real && !in_order, packed.total());
  char* buf = in_order ? static_cast<char*>(a.recv) : tmp_buf.get();
  if (!real) buf = nullptr;
  copy_block(at(buf, packed.begin(me)), mine, a.recv_count(me));
  for (int dist = 1; dist < p; dist <<= 1) {
    const int partner = me ^ dist;
    const int lo = me & ~(dist - 1), plo = partner & ~(dist - 1);
    exchange(ch, at(buf, packed.begin(lo)), packed.size(lo, lo + dist), partner, at(buf, packed.begin(plo)),
             packed.size(plo, plo + dist), partner, kTagAllgather);
  }
  if (!in_order) {
    for (int i = 0; i < p; ++i)
      copy_block(at(a.recv, a.recv_displ(i)), at(buf, packed.begin(i)), a.recv_count(i));
  }
}

}  // namespace mgen::mpi::colls
