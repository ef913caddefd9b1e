// The communication trees of Open MPI's coll/base (ompi/mca/coll/base/coll_base_topo.c at
// v4.1.6), as one rank sees them: its parent and its children, in the order Open MPI serves
// them. Only the shapes carry over; the builders are written from the definitions:
//   k-ary tree   relative rank r sits on level L (the levels hold 1, k, k^2, ... ranks); its
//                children are r + k^L * (i + 1), i < k (so for k = 2 and 7 ranks: 0 -> 1 2,
//                1 -> 3 5, 2 -> 4 6);
//   k-nomial     relative rank r's parent clears r's lowest non-zero base-k digit; its children
//                are r + j * k^m for the digits below that one, highest first;
//   chain        relative ranks 0 -> 1 -> ... -> p - 1 (Open MPI's chain with fanout 1);
//   in-order     binary tree rooted at rank p - 1: a subtree over ranks [lo, lo + n) has its
//                root at lo + n - 1, its right subtree over the lowest n / 2 ranks, its left one
//                over the rest; children are listed left, then right, so combining each child's
//                partial in front of the running one keeps rank order.
#pragma once

#include <vector>

namespace mgen::mpi::colls {

struct Tree {
  int parent = -1;            // -1 at the tree's root
  std::vector<int> children;  // real ranks
};

Tree kary_tree(int fanout, int rank, int p, int root);
Tree knomial_tree(int radix, int rank, int p, int root);
Tree chain_tree(int rank, int p, int root);
Tree in_order_binary_tree(int rank, int p);

}  // namespace mgen::mpi::colls
