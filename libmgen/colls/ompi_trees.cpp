// Open MPI's tree shapes (see ompi_trees.hpp).
#include "colls/ompi_trees.hpp"

namespace mgen::mpi::colls {

Tree kary_tree(int fanout, int rank, int p, int root) {
  Tree t;
  if (p < 2) return t;
  const int r = (rank - root + p) % p;
  // Level L holds the relative ranks [first, first + width), width = fanout^L.
  int first = 0, width = 1;
  while (r >= first + width) {
    first += width;
    width *= fanout;
  }
  for (int i = 0; i < fanout; ++i) {
    const int child = r + width * (i + 1);
    if (child >= p) break;
    t.children.push_back((child + root) % p);
  }
  if (r > 0) {
    // The parent is on the level above, [first - width / fanout, first): step back by the
    // upper level's width until inside it.
    int parent = r;
    while (parent >= first)
      parent -= width / fanout;
    t.parent = (parent + root) % p;
  }
  return t;
}

Tree knomial_tree(int radix, int rank, int p, int root) {
  Tree t;
  const int r = (rank - root + p) % p;
  int mask = 1;
  for (; mask < p; mask *= radix) {
    if (r % (radix * mask)) {
      t.parent = (r / (radix * mask) * (radix * mask) + root) % p;
      break;
    }
  }
  for (mask /= radix; mask > 0; mask /= radix) {
    for (int j = 1; j < radix; ++j) {
      const int child = r + mask * j;
      if (child < p) t.children.push_back((child + root) % p);
    }
  }
  return t;
}

Tree chain_tree(int rank, int p, int root) {
  Tree t;
  const int r = (rank - root + p) % p;
  if (r > 0) t.parent = (rank - 1 + p) % p;
  if (r + 1 < p) t.children.push_back((rank + 1) % p);
  return t;
}

Tree in_order_binary_tree(int rank, int p) {
  Tree t;
  int lo = 0, n = p, parent = -1;
  for (;;) {
    const int top = lo + n - 1, right_n = n / 2;
    if (rank == top) {
      t.parent = parent;
      const int left_n = n - 1 - right_n;
      if (left_n > 0) t.children.push_back(lo + right_n + left_n - 1);
      if (right_n > 0) t.children.push_back(lo + right_n - 1);
      return t;
    }
    parent = top;
    if (rank >= lo + right_n) {  // the left subtree: [lo + right_n, top)
      lo += right_n;
      n = n - 1 - right_n;
    } else {
      n = right_n;
    }
  }
}

}  // namespace mgen::mpi::colls
