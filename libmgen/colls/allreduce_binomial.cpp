// Reduce to rank 0 along a binomial tree, then broadcast from it along the same tree: 2
// ceil(log2 p) rounds. The simplest composition (MPICH's fallback for non-commutative ops);
// results combine in rank order.
#include "colls/algorithms.hpp"

namespace mgen::mpi::colls {

void allreduce_binomial(Channel& ch, const ReduceArgs& a) {
  ReduceArgs to_zero = a;
  to_zero.root = 0;
  reduce_binomial(ch, to_zero);
  // Rank 0's result is in its recv; the others' recv may hold their input (in place), which
  // reduce_binomial has already sent, so the broadcast may overwrite it.
  const bool real = a.recv != nullptr && (a.in_place || a.send != nullptr);
  bcast_binomial(ch, real ? a.recv : nullptr, a.count * a.type_size, 0);
}

}  // namespace mgen::mpi::colls
