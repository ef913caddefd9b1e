// Linear inclusive scan: a chain. Rank r waits for the prefix of ranks 0..r-1 from r - 1,
// appends its own vector and passes the result on: p - 1 rounds, rank order.
#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void scan_linear(Channel& ch, const ReduceArgs& a) {
  const int p = ch.size(), me = ch.rank();
  const uint64_t bytes = a.count * a.type_size;
  const void* in = a.in_place ? a.recv : a.send;
  const bool real = in != nullptr && a.recv != nullptr;
  char* result = real ? static_cast<char*>(a.recv) : nullptr;
  copy_block(result, in, bytes);
  if (me > 0) {
    Scratch tmp(real, bytes);
    ch.recv(tmp.get(), bytes, me - 1, kTagScan);
    ch.reduce(tmp.get(), result, a.count, a.type, a.op);
  }
  if (me + 1 < p) ch.send(result, bytes, me + 1, kTagScan);
}

}  // namespace mgen::mpi::colls
