// Linear exclusive scan: a chain. Rank r receives the prefix of ranks 0..r-1 from r - 1 (its
// result), appends its own vector and passes that on. Rank 0 has no prefix; MPI leaves its
// receive buffer undefined, and it is left untouched.
#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void exscan_linear(Channel& ch, const ReduceArgs& a) {
  const int p = ch.size(), me = ch.rank();
  const uint64_t bytes = a.count * a.type_size;
  const void* in = a.in_place ? a.recv : a.send;
  const bool real = in != nullptr && a.recv != nullptr;
  if (me == 0) {
    if (p > 1) ch.send(in, bytes, 1, kTagScan);
    return;
  }
  // What goes on is prefix op own; the own vector is copied first because, in place, the
  // prefix arrives on top of it.
  const bool last = me + 1 == p;
  Scratch next(real && !last, bytes);
  copy_block(next.get(), in, bytes);
  ch.recv(real ? a.recv : nullptr, bytes, me - 1, kTagScan);
  if (last) return;
  ch.reduce(a.recv, next.get(), a.count, a.type, a.op);
  ch.send(next.get(), bytes, me + 1, kTagScan);
}

}  // namespace mgen::mpi::colls
