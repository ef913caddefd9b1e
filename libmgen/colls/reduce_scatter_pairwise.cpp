// Pairwise-exchange reduce-scatter (MPICH's reduce_scatter for commutative operations from
// 512 KiB on; Thakur, Rabenseifner & Gropp 2005, §4.5): p - 1 steps; in step i a rank sends
// the destination's block of its input to rank + i, receives its own block of rank - i's input
// and folds it in. Each rank's block is reduced in the order its pieces arrive, so it is only
// for operations that commute (the MPI layer keeps the others off this path).
#include <algorithm>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void reduce_scatter_pairwise(Channel& ch, const ReduceScatterArgs& a) {
  const int p = ch.size(), me = ch.rank();
  const uint64_t ts = a.type_size;
  const Packed packed(p, a.regular, a.block, a.counts);  // in elements
  const void* in = a.in_place ? a.recv : a.send;
  const uint64_t mine = a.count(me) * ts;
  const bool real = present(in, packed.total() * ts) && present(a.recv, mine);
  // In place, the input's block `me` sits at its offset in recv, which the result overwrites
  // from 0: accumulate apart and copy at the end.
  Scratch acc_buf(real, mine), tmp_buf(real, mine);
  char* acc = acc_buf.get();
  char* tmp = tmp_buf.get();
  copy_block(acc, at(in, packed.begin(me) * ts), mine);
  for (int i = 1; i < p; ++i) {
    const int to = (me + i) % p, from = (me - i + p) % p;
    exchange(ch, at(in, packed.begin(to) * ts), a.count(to) * ts, to, tmp, mine, from, kTagReduceScatter);
    if (mine > 0) ch.reduce(tmp, acc, a.count(me), a.type, a.op);
  }
  copy_block(a.recv, acc, mine);
}

}  // namespace mgen::mpi::colls
