// Recursive-halving reduce-scatter (MPICH's reduce_scatter for commutative ops below 512 KiB;
// Thakur, Rabenseifner & Gropp 2005, §4.3): log2(p) rounds, each exchanging half of the
// remaining range with the partner at distance p/2, p/4, ..., 1 and reducing, so each rank
// moves about the whole vector once. With p = 2^n + extra ranks, extra ranks fold into a
// neighbour first (util.hpp: Fold), which then also carries their block and hands it back.
#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void reduce_scatter_recursive_halving(Channel& ch, const ReduceScatterArgs& a) {
  const int p = ch.size(), me = ch.rank();
  const uint64_t ts = a.type_size;
  const Packed packed(p, a.regular, a.block, a.counts);  // in elements
  const uint64_t total = packed.total();
  const void* in = a.in_place ? a.recv : a.send;
  const bool real = present(in, total * ts) && present(a.recv, a.count(me) * ts);
  if (p == 1) {
    copy_block(a.recv, in, total * ts);
    return;
  }
  const Fold fold(p);
  const int newrank = fold.newrank(me);
  if (newrank < 0) {
    ch.send(in, total * ts, me + 1, kTagReduceScatter);
    ch.recv(a.recv, a.count(me) * ts, me + 1, kTagReduceScatter);
    return;
  }
  Scratch acc_buf(real, total * ts), tmp_buf(real, total * ts);
  char* acc = acc_buf.get();
  char* tmp = tmp_buf.get();
  copy_block(acc, in, total * ts);
  if (me < 2 * fold.extra) {
    ch.recv(tmp, total * ts, me - 1, kTagReduceScatter);
    ch.reduce(tmp, acc, total, a.type, a.op);
  }
  // New block i is the blocks of the real ranks new rank i stands for: contiguous.
  auto begin = [&](int i) { return packed.begin(fold.first(i)); };
  reduce_scatter_halving(ch, fold, newrank, acc, tmp, begin, a.type, a.type_size, a.op, kTagReduceScatter);
  if (me < 2 * fold.extra) {
    ch.send(at(acc, packed.begin(me - 1) * ts), a.count(me - 1) * ts, me - 1, kTagReduceScatter);
  }
  copy_block(a.recv, at(acc, packed.begin(me) * ts), a.count(me) * ts);
}

}  // namespace mgen::mpi::colls
