// Linear reduce: every rank sends its vector to the root, which receives them one after the
// other, from rank p - 1 down to 0, and folds each in front of the running result:
// x0 op (x1 op (... op x_{p-1})), MPI's canonical order. p - 1 messages into one NIC.
#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void reduce_linear(Channel& ch, const ReduceArgs& a) {
  const int p = ch.size(), me = ch.rank();
  const uint64_t bytes = a.count * a.type_size;
  const void* in = a.in_place ? a.recv : a.send;
  if (me != a.root) {
    ch.send(in, bytes, a.root, kTagReduce);
    return;
  }
  const bool real = in != nullptr && a.recv != nullptr;
  // The result accumulates in recv; the root's own input, when it lives there too (in place),
  // is kept aside until its turn.
  Scratch mine_copy(real && a.in_place && p > 1, bytes);
  const void* mine = in;
  if (mine_copy.get()) {
    copy_block(mine_copy.get(), in, bytes);
    mine = mine_copy.get();
  }
  Scratch tmp(real && p > 1, bytes);
  char* acc = real ? static_cast<char*>(a.recv) : nullptr;
  for (int i = p - 1; i >= 0; --i) {
    if (i == p - 1) {
      if (i == me) {
        copy_block(acc, mine, bytes);
      } else {
        ch.recv(acc, bytes, i, kTagReduce);
      }
      continue;
    }
    if (i == me) {
      ch.reduce(mine, acc, a.count, a.type, a.op);
    } else {
      ch.recv(tmp.get(), bytes, i, kTagReduce);
      ch.reduce(tmp.get(), acc, a.count, a.type, a.op);
    }
  }
}

}  // namespace mgen::mpi::colls
