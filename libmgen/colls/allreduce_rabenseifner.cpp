// Rabenseifner's allreduce (Rabenseifner 2004; Thakur, Rabenseifner & Gropp 2005, §4.4): a
// reduce-scatter by recursive halving, then an allgather by recursive doubling that retraces
// it. 2 log2(p) rounds moving about 2 * bytes per rank instead of log2(p) * bytes, so it
// wins for long vectors. With p = 2^n + extra ranks, extra ranks fold into a neighbour first
// and get the result back at the end (util.hpp: Fold).
#include <algorithm>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void allreduce_rabenseifner(Channel& ch, const ReduceArgs& a) {
  const int p = ch.size(), me = ch.rank();
  const uint64_t bytes = a.count * a.type_size;
  const void* in = a.in_place ? a.recv : a.send;
  const bool real = in != nullptr && a.recv != nullptr;
  char* acc = real ? static_cast<char*>(a.recv) : nullptr;
  const Fold fold(p);
  // With no ranks to fold in and an operation that gives the same bits in either order, the
  // first halving step reads the send buffer itself instead of a copy of it in recv (MPICH
  // copies first): one copy of the vector less. Such an operation also reduces every received
  // half where it lands (reduce_scatter_halving), so no scratch is needed then.
  const bool from_send = real && !a.in_place && p > 1 && fold.extra == 0 && folds_in_place(a.op);
  if (!from_send) copy_block(acc, in, bytes);
  if (p == 1) return;
  const int newrank = fold.newrank(me);
  if (newrank < 0) {
    ch.send(acc, bytes, me + 1, kTagAllreduce);
    ch.recv(acc, bytes, me + 1, kTagAllreduce);
    return;
  }
  Scratch tmp_buf(real && (me < 2 * fold.extra || !folds_in_place(a.op)), bytes);
  char* tmp = tmp_buf.get();
  if (me < 2 * fold.extra) {
    ch.recv(tmp, bytes, me - 1, kTagAllreduce);
    ch.reduce(tmp, acc, a.count, a.type, a.op);
  }
  const EvenSplit split{a.count, fold.pof2};
  auto begin = [&](int i) { return split.begin(i); };
  reduce_scatter_halving(ch, fold, newrank, acc, tmp, begin, a.type, a.type_size, a.op, kTagAllreduce,
                         from_send ? static_cast<const char*>(in) : nullptr);

  // Allgather by recursive doubling: at distance d each rank holds the aligned range of d
  // blocks around its new rank and swaps it for its partner's.
  const uint64_t ts = a.type_size;
  for (int dist = 1; dist < fold.pof2; dist <<= 1) {
    const int partner_new = newrank ^ dist, partner = fold.real(partner_new);
    const int lo = newrank & ~(dist - 1), plo = partner_new & ~(dist - 1);
    exchange(ch, at(acc, split.begin(lo) * ts), split.size(lo, lo + dist) * ts, partner, at(acc, split.begin(plo) * ts),
             split.size(plo, plo + dist) * ts, partner, kTagAllreduce);
  }
  if (me < 2 * fold.extra) ch.send(acc, bytes, me - 1, kTagAllreduce);
}

}  // namespace mgen::mpi::colls
