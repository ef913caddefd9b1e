// Recursive-doubling allreduce (MPICH's short-message allreduce; Thakur, Rabenseifner & Gropp
// 2005, §4.4): log2(p) rounds of exchanging the whole vector with rank XOR 2^k and reducing.
// With p = 2^n + extra, the extra ranks first fold into a neighbour (util.hpp: Fold) and get
// the result back at the end: two more rounds.
#include <utility>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void allreduce_recursive_doubling(Channel& ch, const ReduceArgs& a) {
  const int p = ch.size(), me = ch.rank();
  const uint64_t bytes = a.count * a.type_size;
  const void* in = a.in_place ? a.recv : a.send;
  const bool real = in != nullptr && a.recv != nullptr;
  char* acc = real ? static_cast<char*>(a.recv) : nullptr;
  copy_block(acc, in, bytes);
  if (p == 1) return;
  const Fold fold(p);
  const int newrank = fold.newrank(me);
  if (newrank < 0) {
    ch.send(acc, bytes, me + 1, kTagAllreduce);
    ch.recv(acc, bytes, me + 1, kTagAllreduce);
    return;
  }
  Scratch tmp_buf(real, bytes);
  char* tmp = tmp_buf.get();
  if (me < 2 * fold.extra) {
    ch.recv(tmp, bytes, me - 1, kTagAllreduce);
    ch.reduce(tmp, acc, a.count, a.type, a.op);
  }
  for (int mask = 1; mask < fold.pof2; mask <<= 1) {
    const int partner = fold.real(newrank ^ mask);
    ch.sendrecv(acc, bytes, partner, tmp, bytes, partner, kTagAllreduce);
    // Lower ranks' data on the left; when ours is, reduce into tmp and swap the roles of the
    // two buffers rather than copy. Both partners compute the same bits. An operation that gives
    // the same bits in either order folds into acc directly (no final copy).
    if (partner < me || folds_in_place(a.op)) {
      ch.reduce(tmp, acc, a.count, a.type, a.op);
    } else {
      ch.reduce(acc, tmp, a.count, a.type, a.op);
      std::swap(acc, tmp);
    }
  }
  if (me < 2 * fold.extra) ch.send(acc, bytes, me - 1, kTagAllreduce);
  copy_block(a.recv, acc, bytes);
}

}  // namespace mgen::mpi::colls
