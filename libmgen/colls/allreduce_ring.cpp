// Ring allreduce (Patarasuk & Yuan 2009): a ring reduce-scatter, then a ring allgather, each
// p - 1 steps over p blocks of the vector (uneven when p does not divide the count). Moves
// the bandwidth-optimal 2 (p - 1) / p * bytes per rank, only between ring neighbours, at the
// price of 2 (p - 1) latencies. Block b is combined starting after rank b, a rotation of rank
// order: the same bits on every rank, and right for the commutative predefined operations.
#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void allreduce_ring(Channel& ch, const ReduceArgs& a) {
  const int p = ch.size(), me = ch.rank();
  const uint64_t ts = a.type_size;
  const void* in = a.in_place ? a.recv : a.send;
  const bool real = in != nullptr && a.recv != nullptr;
  char* acc = real ? static_cast<char*>(a.recv) : nullptr;
  copy_block(acc, in, a.count * ts);
  if (p == 1) return;
  const EvenSplit split{a.count, p};
  Scratch tmp_buf(real, split.size(0, 1) * ts);
  char* tmp = tmp_buf.get();
  const int right = (me + 1) % p, left = (me - 1 + p) % p;
  // Reduce-scatter: in step s pass on the partial of block (me - s - 1), receive block
  // (me - s - 2) and fold our contribution in; after p - 1 steps block me is complete.
  for (int s = 0; s + 1 < p; ++s) {
    const int out = (me - s - 1 + p) % p, into = (me - s - 2 + 2 * p) % p;
    const uint64_t n = split.size(into, into + 1);
    exchange(ch, at(acc, split.begin(out) * ts), split.size(out, out + 1) * ts, right, tmp, n * ts, left,
             kTagAllreduce);
    ch.reduce(tmp, at(acc, split.begin(into) * ts), n, a.type, a.op);
  }
  // Allgather: in step s pass on complete block (me - s), receive block (me - s - 1).
  for (int s = 0; s + 1 < p; ++s) {
    const int out = (me - s + p) % p, into = (me - s - 1 + p) % p;
    exchange(ch, at(acc, split.begin(out) * ts), split.size(out, out + 1) * ts, right, at(acc, split.begin(into) * ts),
             split.size(into, into + 1) * ts, left, kTagAllreduce);
  }
}

}  // namespace mgen::mpi::colls
