// Recursive-doubling inclusive scan (MPICH's scan, after Hillis & Steele 1986): in round k
// each rank swaps the partial over its aligned group of 2^k ranks with rank XOR 2^k; a
// partial from below also goes into the rank's prefix. ceil(log2 p) rounds; everything
// combines in rank order.
#include <utility>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void scan_recursive_doubling(Channel& ch, const ReduceArgs& a) {
  const int p = ch.size(), me = ch.rank();
  const uint64_t bytes = a.count * a.type_size;
  const void* in = a.in_place ? a.recv : a.send;
  const bool real = in != nullptr && a.recv != nullptr;
  char* prefix = real ? static_cast<char*>(a.recv) : nullptr;
  copy_block(prefix, in, bytes);
  if (p == 1) return;
  Scratch partial_buf(real, bytes), tmp_buf(real, bytes);
  char* partial = partial_buf.get();
  char* tmp = tmp_buf.get();
  copy_block(partial, in, bytes);
  for (int mask = 1; mask < p; mask <<= 1) {
    const int partner = me ^ mask;
    if (partner >= p) continue;
    ch.sendrecv(partial, bytes, partner, tmp, bytes, partner, kTagScan);
    if (partner < me) {
      ch.reduce(tmp, partial, a.count, a.type, a.op);
      ch.reduce(tmp, prefix, a.count, a.type, a.op);
    } else {
      ch.reduce(partial, tmp, a.count, a.type, a.op);
      std::swap(partial, tmp);
    }
  }
}

}  // namespace mgen::mpi::colls
