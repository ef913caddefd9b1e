// Open MPI's tree broadcasts as its fixed rules run them (one segment: coll/tuned passes
// segsize 0, ompi_coll_base_bcast_intra_generic then sends the whole message): each rank
// receives from its parent, then starts a send to every child at once and waits for them all.
// The trees (ompi_trees.hpp) make the algorithms:
//   linear    the root sends to every other rank (ompi_coll_base_bcast_intra_basic_linear);
//   chain     root -> root + 1 -> ... : p - 1 hops in a row (chain with fanout 1, and the
//             pipeline, which is the same chain when it has one segment);
//   binary    the k-ary tree with k = 2 (bintree);
//   knomial   the k-nomial tree with radix 4 (coll_tuned_bcast_knomial_radix's default).
#include "colls/algorithms.hpp"
#include "colls/ompi_trees.hpp"

namespace mgen::mpi::colls {

namespace {

void bcast_over(Channel& ch, void* buf, uint64_t bytes, const Tree& t) {
  if (t.parent >= 0) ch.recv(buf, bytes, t.parent, kTagBcast);
  std::vector<uint32_t> qs;
  qs.reserve(t.children.size());
  for (int child : t.children)
    qs.push_back(ch.isend(buf, bytes, child, kTagBcast));
  ch.waitall(qs);
}

}  // namespace

void bcast_linear(Channel& ch, void* buf, uint64_t bytes, int root) {
  const int p = ch.size(), me = ch.rank();
  Tree t;
  if (me == root) {
    for (int i = 0; i < p; ++i)
      if (i != root) t.children.push_back(i);
  } else {
    t.parent = root;
  }
  bcast_over(ch, buf, bytes, t);
}

void bcast_chain(Channel& ch, void* buf, uint64_t bytes, int root) {
  bcast_over(ch, buf, bytes, chain_tree(ch.rank(), ch.size(), root));
}

void bcast_binary(Channel& ch, void* buf, uint64_t bytes, int root) {
  bcast_over(ch, buf, bytes, kary_tree(2, ch.rank(), ch.size(), root));
}

void bcast_knomial(Channel& ch, void* buf, uint64_t bytes, int root) {
  bcast_over(ch, buf, bytes, knomial_tree(4, ch.rank(), ch.size(), root));
}

}  // namespace mgen::mpi::colls
