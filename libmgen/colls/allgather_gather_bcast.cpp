// Gather then broadcast (Open MPI's allgatherv "default", ompi_coll_base_allgatherv_intra_
// basic_default): a linear gatherv to rank 0 (coll/basic's), then one broadcast of every block
// in rank order, by the bcast Open MPI's fixed rules pick for that many bytes (it describes
// each rank's own layout with a derived datatype; here rank 0 packs and the others unpack).
#include <vector>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void allgather_gather_bcast(Channel& ch, const BlockArgs& a) {
  const int p = ch.size(), me = ch.rank();
  BlockArgs to_zero = a;
  to_zero.root = 0;
  to_zero.send = a.in_place ? at(a.recv, a.recv_displ(me)) : a.send;
  to_zero.send_bytes = a.recv_count(me);
  to_zero.in_place = a.in_place && me == 0;
  gather_linear(ch, to_zero);
  const Packed packed(p, a.regular, a.block, a.recv_counts);
  const bool real = present(a.recv, packed.total());
  Scratch whole(real && !a.regular, packed.total());
  char* buf = a.regular ? static_cast<char*>(a.recv) : whole.get();
  if (me == 0 && !a.regular) {
    for (int i = 0; i < p; ++i)
      copy_block(at(buf, packed.begin(i)), at(a.recv, a.recv_displ(i)), a.recv_count(i));
  }
  CollectiveConfig ompi;
  ompi.selector = "ompi";
  select_bcast({.size = p, .bytes = packed.total()}, ompi).fn(ch, real ? buf : nullptr, packed.total(), 0);
  if (me != 0 && !a.regular) {
    for (int i = 0; i < p; ++i)
      copy_block(at(a.recv, a.recv_displ(i)), at(buf, packed.begin(i)), a.recv_count(i));
  }
}

}  // namespace mgen::mpi::colls
