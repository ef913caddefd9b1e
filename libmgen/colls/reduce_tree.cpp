// Open MPI's tree reductions as its fixed rules run them (one segment): each rank combines the
// partial results of its children, in the order the tree lists them, into its own vector and
// sends the result to its parent (ompi_coll_base_reduce_generic). The trees (ompi_trees.hpp):
//   chain            the chain toward the root (chain with fanout 1; the pipeline is the same
//                    chain with one segment); commutative operations only, as in Open MPI;
//   binary           the binary tree rooted at the root (commutative operations only);
//   in_order_binary  the in-order binary tree rooted at rank p - 1, whose children's partials
//                    combine in rank order (safe for operations that do not commute); rank
//                    p - 1 then sends the result to the root when that is another rank.
#include "colls/algorithms.hpp"
#include "colls/ompi_trees.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

namespace {

// The reduction over `t`, whose top rank is `top`: its result goes to the root.
void reduce_over(Channel& ch, const ReduceArgs& a, const Tree& t, int top) {
  const int me = ch.rank();
  const uint64_t bytes = a.count * a.type_size;
  const void* in = a.in_place ? a.recv : a.send;
  const bool real = in != nullptr && (me != a.root || a.recv != nullptr);
  const bool inner = !t.children.empty();
  Scratch acc(real && inner, bytes), tmp(real && inner, bytes);
  const void* cur = in;
  if (inner) {
    copy_block(acc.get(), in, bytes);
    for (int child : t.children) {
      ch.recv(tmp.get(), bytes, child, kTagReduce);
      ch.reduce(tmp.get(), acc.get(), a.count, a.type, a.op);  // acc = child's (op) acc
    }
    cur = acc.get();
  }
  if (t.parent >= 0) {
    ch.send(cur, bytes, t.parent, kTagReduce);
  } else if (me != a.root) {
    ch.send(cur, bytes, a.root, kTagReduce);
  } else {
    copy_block(a.recv, cur, bytes);
  }
  if (me == a.root && me != top) ch.recv(a.recv, bytes, top, kTagReduce);
}

}  // namespace

void reduce_chain(Channel& ch, const ReduceArgs& a) {
  reduce_over(ch, a, chain_tree(ch.rank(), ch.size(), a.root), a.root);
}

void reduce_binary(Channel& ch, const ReduceArgs& a) {
  reduce_over(ch, a, kary_tree(2, ch.rank(), ch.size(), a.root), a.root);
}

void reduce_in_order_binary(Channel& ch, const ReduceArgs& a) {
  reduce_over(ch, a, in_order_binary_tree(ch.rank(), ch.size()), ch.size() - 1);
}

}  // namespace mgen::mpi::colls
