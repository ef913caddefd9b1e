// Open MPI's allreduces that reduce to rank 0 and then broadcast (coll_base_allreduce.c):
//   linear          basic_linear: the linear reduce, then the linear broadcast;
//   nonoverlapping  the reduce and the broadcast that coll/tuned's own fixed rules pick for
//                   the same communicator and size (select_ompi.cpp's reduce and bcast rows),
//                   whatever the configured selector: the composition is Open MPI's.
#include "colls/algorithms.hpp"

namespace mgen::mpi::colls {

namespace {

void reduce_then_bcast(Channel& ch, const ReduceArgs& a, ReduceFn reduce, BcastFn bcast) {
  ReduceArgs to_zero = a;
  to_zero.root = 0;
  reduce(ch, to_zero);
  // As in allreduce_binomial: a rank's own input has left before the broadcast overwrites it.
  const bool real = a.recv != nullptr && (a.in_place || a.send != nullptr);
  bcast(ch, real ? a.recv : nullptr, a.count * a.type_size, 0);
}

}  // namespace

void allreduce_linear(Channel& ch, const ReduceArgs& a) {
  reduce_then_bcast(ch, a, reduce_linear, bcast_linear);
}

void allreduce_nonoverlapping(Channel& ch, const ReduceArgs& a) {
  CollectiveConfig ompi;
  ompi.selector = "ompi";
  const Signature sig{.size = ch.size(), .bytes = a.count * a.type_size, .count = a.count};
  reduce_then_bcast(ch, a, select_reduce(sig, ompi).fn, select_bcast(sig, ompi).fn);
}

}  // namespace mgen::mpi::colls
