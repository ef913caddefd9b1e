// Rabenseifner's long-message reduce (Rabenseifner 2004; Thakur, Rabenseifner & Gropp 2005,
// §4.4): a reduce-scatter by recursive halving leaves 1/2^n of the result on each of 2^n
// ranks, then a binomial gather brings the pieces to the root. Each rank sends and receives
// about 2 * bytes instead of log2(p) * bytes. With p = 2^n + extra ranks, extra ranks fold
// their vectors into a neighbour first (util.hpp: Fold).
#include <algorithm>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void reduce_rabenseifner(Channel& ch, const ReduceArgs& a) {
  const int p = ch.size(), me = ch.rank();
  const uint64_t bytes = a.count * a.type_size;
  const void* in = a.in_place ? a.recv : a.send;
  if (p == 1) {
    copy_block(a.recv, in, bytes);
    return;
  }
  const Fold fold(p);
  const int newrank = fold.newrank(me);
  // A root that sits out the power-of-two phase gets the result from its odd neighbour.
  const int root_newrank = fold.newrank(a.root) >= 0 ? fold.newrank(a.root) : fold.newrank(a.root + 1);
  if (newrank < 0) {
    ch.send(in, bytes, me + 1, kTagReduce);
    if (me == a.root) ch.recv(a.recv, bytes, me + 1, kTagReduce);
    return;
  }
  const bool real = in != nullptr && (me != a.root || a.recv != nullptr);
  Scratch acc_buf(real, bytes), tmp_buf(real, bytes);
  char* acc = acc_buf.get();
  char* tmp = tmp_buf.get();
  copy_block(acc, in, bytes);
  if (me < 2 * fold.extra) {
    ch.recv(tmp, bytes, me - 1, kTagReduce);
    ch.reduce(tmp, acc, a.count, a.type, a.op);
  }
  const EvenSplit split{a.count, fold.pof2};
  auto begin = [&](int i) { return split.begin(i); };
  reduce_scatter_halving(ch, fold, newrank, acc, tmp, begin, a.type, a.type_size, a.op, kTagReduce);

  // Binomial gather toward the root's new rank, relative by XOR: a subtree at distance d is an
  // aligned range of d new ranks, whose blocks are contiguous in the vector.
  const int vrank = newrank ^ root_newrank;
  int lo = newrank;
  for (int dist = 1; dist < fold.pof2; dist <<= 1) {
    const int partner_new = newrank ^ dist, partner = fold.real(partner_new);
    if (vrank & dist) {
      const uint64_t n = split.size(lo, lo + dist) * a.type_size;
      if (n > 0) ch.send(at(acc, split.begin(lo) * a.type_size), n, partner, kTagReduce);
      return;
    }
    const int plo = partner_new & ~(dist - 1);
    const uint64_t n = split.size(plo, plo + dist) * a.type_size;
    if (n > 0) ch.recv(at(acc, split.begin(plo) * a.type_size), n, partner, kTagReduce);
    lo = std::min(lo, plo);
  }
  if (me == a.root) {
    copy_block(a.recv, acc, bytes);
  } else {
    ch.send(acc, bytes, a.root, kTagReduce);  // the root sat out: its neighbour holds the result
  }
}

}  // namespace mgen::mpi::colls
