// Binomial-tree reduce (MPICH's short-message reduce): ceil(log2 p) rounds; in round k the
// ranks whose relative rank has bit k set send their partial result 2^k down toward the root
// and drop out. Partial results combine in relative-rank order (rank order when root = 0).
#include <utility>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void reduce_binomial(Channel& ch, const ReduceArgs& a) {
  const int p = ch.size(), me = ch.rank();
  const int vrank = (me - a.root + p) % p;
  const uint64_t bytes = a.count * a.type_size;
  const void* in = a.in_place ? a.recv : a.send;
  const bool real = in != nullptr && (me != a.root || a.recv != nullptr);

  int children = 0;
  for (int mask = 1; mask < p && !(vrank & mask); mask <<= 1)
    children += vrank + mask < p;
  // Two buffers in turn: each received partial is combined into the receive buffer itself
  // (cur op received), which then becomes `cur`, so nothing is copied.
  Scratch first(real && children > 0, bytes), second(real && children > 1, bytes);
  char* spare[2] = {first.get(), second.get()};
  const void* cur = in;
  int turn = 0;
  for (int mask = 1; mask < p; mask <<= 1) {
    if (vrank & mask) {
      ch.send(cur, bytes, (vrank - mask + a.root) % p, kTagReduce);
      return;
    }
    const int child = vrank + mask;
    if (child >= p) continue;
    char* buf = spare[turn];
    turn ^= 1;
    ch.recv(buf, bytes, (child + a.root) % p, kTagReduce);
    ch.reduce(cur, buf, a.count, a.type, a.op);
    cur = buf;
  }
  copy_block(a.recv, cur, bytes);
}

}  // namespace mgen::mpi::colls
