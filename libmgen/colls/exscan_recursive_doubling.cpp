// Recursive-doubling exclusive scan (MPICH's exscan): the inclusive scan's rounds, but a
// rank's own vector never enters its prefix, which starts empty and takes the first partial
// from below as is. Rank 0 has no prefix; MPI leaves its receive buffer undefined, and it is
// left untouched.
#include <utility>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void exscan_recursive_doubling(Channel& ch, const ReduceArgs& a) {
  const int p = ch.size(), me = ch.rank();
  if (p == 1) return;
  const uint64_t bytes = a.count * a.type_size;
  const void* in = a.in_place ? a.recv : a.send;
  const bool real = in != nullptr && a.recv != nullptr;
  // The prefix is written to recv only at the end: in place, recv holds the input until then.
  Scratch partial_buf(real, bytes), tmp_buf(real, bytes), prefix_buf(real && me > 0, bytes);
  char* partial = partial_buf.get();
  char* tmp = tmp_buf.get();
  char* prefix = prefix_buf.get();
  copy_block(partial, in, bytes);
  bool have_prefix = false;
  for (int mask = 1; mask < p; mask <<= 1) {
    const int partner = me ^ mask;
    if (partner >= p) continue;
    ch.sendrecv(partial, bytes, partner, tmp, bytes, partner, kTagScan);
    if (partner < me) {
      if (have_prefix) {
        ch.reduce(tmp, prefix, a.count, a.type, a.op);
      } else {
        copy_block(prefix, tmp, bytes);
        have_prefix = true;
      }
      ch.reduce(tmp, partial, a.count, a.type, a.op);
    } else {
      ch.reduce(partial, tmp, a.count, a.type, a.op);
      std::swap(partial, tmp);
    }
  }
  if (me > 0) copy_block(a.recv, prefix, bytes);
}

}  // namespace mgen::mpi::colls
