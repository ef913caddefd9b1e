// Reduce then scatter (Open MPI's "non-overlapping" reduce_scatter and "basic_linear"
// reduce_scatter_block, coll_base_reduce_scatter.c / coll_base_reduce_scatter_block.c): the
// whole vector is reduced to rank 0, which then sends every rank its block. Open MPI runs the
// reduce its own rules pick; here it is the binomial reduce (rank order, so any operation).
#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void reduce_scatter_reduce_scatterv(Channel& ch, const ReduceScatterArgs& a) {
  const int p = ch.size(), me = ch.rank();
  const uint64_t ts = a.type_size;
  const Packed packed(p, a.regular, a.block, a.counts);  // in elements
  const void* in = a.in_place ? a.recv : a.send;
  const uint64_t mine = a.count(me) * ts;
  const bool real = present(in, packed.total() * ts) && present(a.recv, mine);
  Scratch whole(real && me == 0, packed.total() * ts);
  ReduceArgs r;
  r.send = real ? in : nullptr;
  r.recv = whole.get();
  r.count = packed.total();
  r.type = a.type;
  r.type_size = a.type_size;
  r.op = a.op;
  reduce_binomial(ch, r);
  if (me != 0) {
    if (mine > 0) ch.recv(a.recv, mine, 0, kTagReduceScatter);
    return;
  }
  std::vector<uint32_t> qs;
  for (int i = 1; i < p; ++i) {
    if (a.count(i) > 0)
      qs.push_back(ch.isend(at(whole.get(), packed.begin(i) * ts), a.count(i) * ts, i, kTagReduceScatter));
  }
  copy_block(a.recv, whole.get(), mine);
  ch.waitall(qs);
}

}  // namespace mgen::mpi::colls
