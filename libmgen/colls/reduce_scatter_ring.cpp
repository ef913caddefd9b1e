// Ring reduce-scatter (the first half of the ring allreduce, Patarasuk & Yuan 2009): p - 1
// steps; in step s a rank passes its partial of block (rank - s - 1) to the right, receives
// the partial of block (rank - s - 2) from the left and folds its own contribution in, so
// after p - 1 steps it holds block rank complete. Bandwidth-optimal for any p, neighbours
// only, and it needs only two block-sized buffers. Blocks combine starting after their owner,
// a rotation of rank order: right for the commutative predefined operations.
#include <algorithm>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void reduce_scatter_ring(Channel& ch, const ReduceScatterArgs& a) {
  const int p = ch.size(), me = ch.rank();
  const uint64_t ts = a.type_size;
  const Packed packed(p, a.regular, a.block, a.counts);  // in elements
  const void* in = a.in_place ? a.recv : a.send;
  const bool real = present(in, packed.total() * ts) && present(a.recv, a.count(me) * ts);
  if (p == 1) {
    copy_block(a.recv, in, a.count(0) * ts);
    return;
  }
  uint64_t largest = 0;
  for (int i = 0; i < p; ++i)
    largest = std::max(largest, a.count(i));
  Scratch work_buf(real, largest * ts), tmp_buf(real, largest * ts);
  char* work = work_buf.get();
  char* tmp = tmp_buf.get();
  const int right = (me + 1) % p, left = (me - 1 + p) % p;
  const void* partial = at(in, packed.begin((me - 1 + p) % p) * ts);  // step 0 sends the raw input
  for (int s = 0; s + 1 < p; ++s) {
    const int out = (me - s - 1 + p) % p, into = (me - s - 2 + 2 * p) % p;
    exchange(ch, partial, a.count(out) * ts, right, tmp, a.count(into) * ts, left, kTagReduceScatter);
    copy_block(work, at(in, packed.begin(into) * ts), a.count(into) * ts);
    ch.reduce(tmp, work, a.count(into), a.type, a.op);
    partial = work;
  }
  copy_block(a.recv, work, a.count(me) * ts);
}

}  // namespace mgen::mpi::colls
