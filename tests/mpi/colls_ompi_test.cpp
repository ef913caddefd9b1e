// Open MPI's trees and the algorithms built on them (selector "ompi"): the tree shapes against
// the definitions in coll_base_topo.c (v4.1.6) and its worked example, the rank order the
// in-order tree keeps, and the chain broadcast's time against its closed form. Correctness
// with real data for every registered algorithm (these included) is colls_test.cpp's sweep.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "colls/ompi_trees.hpp"
#include "harness.hpp"

namespace colls = mgen::mpi::colls;
using namespace mgen::test;

namespace {

// Every rank's tree; checks that parent and children agree and every rank hangs below `top`.
std::vector<colls::Tree> whole(int p, const std::function<colls::Tree(int)>& build, int top) {
  std::vector<colls::Tree> t;
  for (int r = 0; r < p; ++r)
    t.push_back(build(r));
  for (int r = 0; r < p; ++r) {
    INFO("p=" << p << " rank " << r);
    CHECK((t[r].parent == -1) == (r == top));
    for (int c : t[r].children)
      CHECK(t[c].parent == r);
    int up = r, hops = 0;
    while (t[up].parent >= 0 && hops++ <= p)
      up = t[up].parent;
    CHECK(up == top);
  }
  return t;
}

// The ranks of r's subtree, lowest and highest, and how many.
void span(const std::vector<colls::Tree>& t, int r, int& lo, int& hi, int& n) {
  lo = hi = r;
  n = 1;
  for (int c : t[r].children) {
    int l, h, k;
    span(t, c, l, h, k);
    lo = std::min(lo, l);
    hi = std::max(hi, h);
    n += k;
  }
}

int64_t ps(double seconds) {
  return std::llround(seconds * 1e12);
}

// Predicted time (ps) of `body` on p ranks, one per node of a 64-node crossbar (every hop costs
// the same: send overhead, network time, receive overhead), after `configure` picks the
// algorithm.
template <class Configure, class Body>
int64_t crossbar_time(int p, Configure configure, Body body) {
  mgen::mpi::MachineSetup m = test_machine();
  m.network.topology.kind = "crossbar";
  m.network.topology.crossbar_nodes = 64;
  configure(m.collectives);
  const auto r = run(static_cast<uint32_t>(p), body, m);
  INFO(r.error);
  REQUIRE(r.ok);
  return ps(r.predicted_s());
}

}  // namespace

TEST_CASE("ompi trees: the binary tree of coll_base_topo.c's example (fanout 2, 7 ranks)", "[colls]") {
  const auto t = whole(
      7, [](int r) { return colls::kary_tree(2, r, 7, 0); }, 0);
  CHECK(t[0].children == std::vector<int>{1, 2});
  CHECK(t[1].children == std::vector<int>{3, 5});
  CHECK(t[2].children == std::vector<int>{4, 6});
  // Rooted elsewhere, the same shape on relative ranks.
  const auto s = whole(
      7, [](int r) { return colls::kary_tree(2, r, 7, 5); }, 5);
  CHECK(s[5].children == std::vector<int>{6, 0});
  CHECK(s[6].children == std::vector<int>{1, 3});
}

TEST_CASE("ompi trees: k-nomial radix 4, chain, every size", "[colls]") {
  // Radix 4 at 16 ranks: the root reaches 4, 8, 12 then 1, 2, 3; 4 reaches 5, 6, 7.
  const auto k = whole(
      16, [](int r) { return colls::knomial_tree(4, r, 16, 0); }, 0);
  CHECK(k[0].children == std::vector<int>{4, 8, 12, 1, 2, 3});
  CHECK(k[4].children == std::vector<int>{5, 6, 7});
  CHECK(k[7].children.empty());
  for (int p = 1; p <= 40; ++p) {
    for (int root : {0, p - 1, p / 2}) {
      whole(
          p, [&](int r) { return colls::kary_tree(2, r, p, root); }, root);
      whole(
          p, [&](int r) { return colls::knomial_tree(4, r, p, root); }, root);
      const auto c = whole(
          p, [&](int r) { return colls::chain_tree(r, p, root); }, root);
      int lo, hi, n;
      span(c, root, lo, hi, n);
      CHECK(n == p);
    }
  }
}

TEST_CASE("ompi trees: the in-order binary tree combines in rank order", "[colls]") {
  // Rooted at p - 1; each node's subtree is a run of consecutive ranks ending at the node, its
  // first child's (left) run just below it and its second child's (right) run below that, so
  // folding each child's partial in front of the running one gives x_lo op ... op x_node.
  for (int p = 1; p <= 40; ++p) {
    const auto t = whole(
        p, [&](int r) { return colls::in_order_binary_tree(r, p); }, p - 1);
    for (int r = 0; r < p; ++r) {
      INFO("p=" << p << " rank " << r);
      int lo, hi, n;
      span(t, r, lo, hi, n);
      CHECK(hi == r);
      CHECK(n == hi - lo + 1);
      int below = r;  // the next child's run ends just under the previous one's start
      for (int c : t[r].children) {
        int clo, chi, cn;
        span(t, c, clo, chi, cn);
        CHECK(chi == below - 1);
        below = clo;
      }
      CHECK(below == lo);
      CHECK(t[r].children.size() <= 2);
    }
  }
}

TEST_CASE("ompi chain bcast: p - 1 hops of one message each", "[colls][timing]") {
  // Every hop costs the same, so the chain takes (p - 1) times the one-hop broadcast at 2 ranks.
  auto time = [](int p, const char* algorithm) {
    return crossbar_time(
        p, [&](auto& c) { c.bcast = algorithm; },
        [](int, int) {
          double v[4] = {1, 2, 3, 4};
          MGEN_Bcast(v, 4, MGEN_DOUBLE, 0, MGEN_COMM_WORLD);
        });
  };
  const int64_t hop = time(2, "binomial");
  CHECK(time(2, "chain") == hop);
  CHECK(time(8, "chain") == 7 * hop);
  CHECK(time(13, "chain") == 12 * hop);
}

TEST_CASE("ompi tree barrier: 2 ceil(log2 p) one-way hops", "[colls][timing]") {
  // Fan-in 7 -> 6 -> 4 -> 0 and back out 0 -> 4 -> 6 -> 7 at 8 ranks: each hop is one empty
  // message, the same cost as one round of the recursive-doubling barrier's sendrecvs.
  auto time = [](int p, const char* algorithm) {
    return crossbar_time(
        p, [&](auto& c) { c.barrier = algorithm; }, [](int, int) { MGEN_Barrier(MGEN_COMM_WORLD); });
  };
  const int64_t hop = time(2, "recursive_doubling");
  CHECK(time(2, "tree") == 2 * hop);
  CHECK(time(8, "tree") == 6 * hop);
}

TEST_CASE("selector ompi end to end: the table's picks give the right results", "[colls]") {
  // At 5 and 6 ranks (p < 8 rows) these sizes run binary-tree and linear bcast
  // (fixed.c:563, 571), binary and chain reduce (:744, :746), neighbor-exchange allgatherv with a
  // reversed layout (:1285; odd p: the ring), the linear barrier (:485) and reduce_scatter_block.
  for (int p : {5, 6}) {
    mgen::mpi::MachineSetup m = machine_for(static_cast<uint32_t>(p));
    m.collectives.selector = "ompi";
    const auto r = run(
        static_cast<uint32_t>(p),
        [p](int rank, int) {
          MGEN_Barrier(MGEN_COMM_WORLD);
          for (int count : {1, 3, 100, 3000, 40000}) {
            std::vector<int> v(static_cast<size_t>(count), rank == 1 ? 7 : -1);
            MGEN_Bcast(v.data(), count, MGEN_INT, 1, MGEN_COMM_WORLD);
            CHECK(std::all_of(v.begin(), v.end(), [](int x) { return x == 7; }));
            std::vector<long long> in(static_cast<size_t>(count), rank + 1), out(static_cast<size_t>(count), 0);
            MGEN_Reduce(in.data(), out.data(), count, MGEN_LONG_LONG, MGEN_SUM, p - 1, MGEN_COMM_WORLD);
            if (rank == p - 1) CHECK(out == std::vector<long long>(out.size(), p * (p + 1) / 2));
            MGEN_Allreduce(in.data(), out.data(), count, MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
            CHECK(out == std::vector<long long>(out.size(), p * (p + 1) / 2));
            std::vector<int> mine(static_cast<size_t>(count), rank), all(static_cast<size_t>(count * p), -1);
            MGEN_Allgather(mine.data(), count, MGEN_INT, all.data(), count, MGEN_INT, MGEN_COMM_WORLD);
            bool ok = true;
            for (int i = 0; i < count * p; ++i)
              ok = ok && all[i] == i / count;
            CHECK(ok);
            std::vector<int> counts(static_cast<size_t>(p), count), displs(static_cast<size_t>(p));
            for (int i = 0; i < p; ++i)
              displs[i] = (p - 1 - i) * count;  // reversed layout
            std::fill(all.begin(), all.end(), -1);
            MGEN_Allgatherv(mine.data(), count, MGEN_INT, all.data(), counts.data(), displs.data(), MGEN_INT,
                            MGEN_COMM_WORLD);
            ok = true;
            for (int i = 0; i < count * p; ++i)
              ok = ok && all[i] == p - 1 - i / count;
            CHECK(ok);
            std::vector<long long> whole(static_cast<size_t>(count * p), rank + 1), part(static_cast<size_t>(count), 0);
            MGEN_Reduce_scatter_block(whole.data(), part.data(), count, MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
            CHECK(part == std::vector<long long>(part.size(), p * (p + 1) / 2));
          }
        },
        m);
    INFO(r.error);
    CHECK(r.ok);
  }
}
