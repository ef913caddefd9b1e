// Collectives: message counts per algorithm, default selection, split communicators, 1031
// ranks, size-only runs against real ones, barrier round counts against closed-form times,
// argument errors.
#include "colls_common.hpp"

using namespace colls_test;

namespace {

int log2_ceil(int p) {
  int k = 0;
  while ((1 << k) < p)
    ++k;
  return k;
}
int pof2_of(int p) {
  return 1 << (log2_ceil(p + 1) - 1);
}
// Messages of the recursive-doubling scan: one each way for every pair (r, r XOR 2^k) < p.
int scan_pairs(int p) {
  int n = 0;
  for (int mask = 1; mask < p; mask <<= 1) {
    for (int r = 0; r < p; ++r)
      n += (r ^ mask) < p;
  }
  return n;
}

}  // namespace
TEST_CASE("each algorithm sends the messages its structure says", "[colls]") {
  // Short messages (all eager: one network message per send); a registry entry without a
  // formula here is still covered by the sweeps above.
  struct Case {
    const char* collective;
    Field field;
    const char* algorithm;
    std::function<int(int)> messages;
    Body body;
  };
  auto lg = log2_ceil;
  auto extra = [](int p) { return p - pof2_of(p); };
  auto plog = [](int p) { return pof2_of(p) * log2_ceil(pof2_of(p)); };  // recursive doubling among 2^n
  const Body bcast = [](int, int) {
    std::vector<int> v(100);
    MGEN_Bcast(v.data(), 100, MGEN_INT, 0, MGEN_COMM_WORLD);
  };
  const Body reduce = [](int rank, int size) {
    std::vector<long long> v(64, rank), r(64);
    MGEN_Reduce(v.data(), r.data(), 64, MGEN_LONG_LONG, MGEN_SUM, size - 1, MGEN_COMM_WORLD);
  };
  const Body allreduce = [](int rank, int) {
    std::vector<long long> v(64, rank);
    MGEN_Allreduce(MGEN_IN_PLACE, v.data(), 64, MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
  };
  const Body allgather = [](int rank, int size) {
    std::vector<int> all(static_cast<size_t>(size) * 2);
    int mine[2] = {rank, rank};
    MGEN_Allgather(mine, 2, MGEN_INT, all.data(), 2, MGEN_INT, MGEN_COMM_WORLD);
  };
  const Body alltoall = [](int, int size) {
    std::vector<int> out(static_cast<size_t>(size) * 2), in(out.size());
    MGEN_Alltoall(out.data(), 2, MGEN_INT, in.data(), 2, MGEN_INT, MGEN_COMM_WORLD);
  };
  const Body reduce_scatter = [](int, int size) {
    std::vector<int> v(static_cast<size_t>(size) * 10, 1), r(10);
    MGEN_Reduce_scatter_block(v.data(), r.data(), 10, MGEN_INT, MGEN_SUM, MGEN_COMM_WORLD);
  };
  const Body scan = [](int rank, int) {
    int v = rank, r = 0;
    MGEN_Scan(&v, &r, 1, MGEN_INT, MGEN_SUM, MGEN_COMM_WORLD);
    MGEN_Exscan(&v, &r, 1, MGEN_INT, MGEN_SUM, MGEN_COMM_WORLD);
  };
  const Body barrier = [](int, int) { MGEN_Barrier(MGEN_COMM_WORLD); };
  const std::vector<Case> cases = {
      {"barrier", &CollectiveConfig::barrier, "dissemination", [&](int p) { return p * lg(p); }, barrier},
      {"barrier", &CollectiveConfig::barrier, "recursive_doubling", [&](int p) { return 2 * extra(p) + plog(p); },
       barrier},
      {"barrier", &CollectiveConfig::barrier, "ring", [](int p) { return p * (p - 1); }, barrier},
      {"bcast", &CollectiveConfig::bcast, "binomial", [](int p) { return p - 1; }, bcast},
      {"bcast", &CollectiveConfig::bcast, "scatter_allgather", [](int p) { return (p - 1) + p * (p - 1); }, bcast},
      // Recursive doubling at powers of two; other sizes take the ring version.
      {"bcast", &CollectiveConfig::bcast, "scatter_rd_allgather",
       [&](int p) { return (p - 1) + (pof2_of(p) == p ? p * lg(p) : p * (p - 1)); }, bcast},
      {"reduce", &CollectiveConfig::reduce, "binomial", [](int p) { return p - 1; }, reduce},
      {"reduce", &CollectiveConfig::reduce, "linear", [](int p) { return p - 1; }, reduce},
      {"reduce", &CollectiveConfig::reduce, "rabenseifner", [&](int p) { return extra(p) + plog(p) + pof2_of(p) - 1; },
       reduce},
      {"allreduce", &CollectiveConfig::allreduce, "recursive_doubling", [&](int p) { return 2 * extra(p) + plog(p); },
       allreduce},
      {"allreduce", &CollectiveConfig::allreduce, "rabenseifner", [&](int p) { return 2 * extra(p) + 2 * plog(p); },
       allreduce},
      {"allreduce", &CollectiveConfig::allreduce, "ring", [](int p) { return 2 * p * (p - 1); }, allreduce},
      {"allreduce", &CollectiveConfig::allreduce, "binomial", [](int p) { return 2 * (p - 1); }, allreduce},
      {"allgather", &CollectiveConfig::allgather, "ring", [](int p) { return p * (p - 1); }, allgather},
      {"allgather", &CollectiveConfig::allgather, "recursive_doubling", [&](int p) { return p * lg(p); }, allgather},
      {"allgather", &CollectiveConfig::allgather, "bruck", [&](int p) { return p * lg(p); }, allgather},
      {"alltoall", &CollectiveConfig::alltoall, "pairwise", [](int p) { return p * (p - 1); }, alltoall},
      {"alltoall", &CollectiveConfig::alltoall, "bruck", [&](int p) { return p * lg(p); }, alltoall},
      {"alltoall", &CollectiveConfig::alltoall, "linear", [](int p) { return p * (p - 1); }, alltoall},
      {"alltoall", &CollectiveConfig::alltoall, "scattered", [](int p) { return p * (p - 1); }, alltoall},
      {"reduce_scatter", &CollectiveConfig::reduce_scatter, "recursive_halving",
       [&](int p) { return 2 * extra(p) + plog(p); }, reduce_scatter},
      {"reduce_scatter", &CollectiveConfig::reduce_scatter, "ring", [](int p) { return p * (p - 1); }, reduce_scatter},
      {"reduce_scatter", &CollectiveConfig::reduce_scatter, "pairwise", [](int p) { return p * (p - 1); },
       reduce_scatter},
      {"scan", &CollectiveConfig::scan, "recursive_doubling", [](int p) { return 2 * scan_pairs(p); }, scan},
      {"scan", &CollectiveConfig::scan, "linear", [](int p) { return 2 * (p - 1); }, scan},
  };
  for (const Case& c : cases) {
    for (int p : {5, 8, 13}) {
      INFO(c.collective << " " << c.algorithm << " on " << p << " ranks");
      const auto r = run_with(p, c.field, c.algorithm, c.body);
      CHECK(r.messages == static_cast<uint64_t>(c.messages(p)));
    }
  }
}

TEST_CASE("selector mgen keeps mgen's own rules", "[colls]") {
  namespace colls = mgen::mpi::colls;
  CollectiveConfig automatic;
  automatic.selector = "mgen";
  CHECK(std::string(colls::select_bcast({.size = 64, .bytes = 12287}, automatic).name) == "binomial");
  CHECK(std::string(colls::select_bcast({.size = 64, .bytes = 12288}, automatic).name) == "scatter_allgather");
  CHECK(std::string(colls::select_bcast({.size = 4, .bytes = 1 << 20}, automatic).name) == "binomial");
  CHECK(std::string(colls::select_allreduce({.size = 64, .bytes = 2048}, automatic).name) == "recursive_doubling");
  CHECK(std::string(colls::select_allreduce({.size = 64, .bytes = 4096}, automatic).name) == "rabenseifner");
  CHECK(std::string(colls::select_allreduce({.size = 64, .bytes = 128 << 10}, automatic).name) == "rabenseifner");
  CHECK(std::string(colls::select_allreduce({.size = 64, .bytes = 256 << 10}, automatic).name) == "ring");
  CHECK(std::string(colls::select_allreduce({.size = 48, .bytes = 32 << 10}, automatic).name) == "rabenseifner");
  CHECK(std::string(colls::select_allreduce({.size = 48, .bytes = 48 << 10}, automatic).name) == "ring");
  CHECK(std::string(colls::select_allreduce({.size = 1031, .bytes = 4096}, automatic).name) == "recursive_doubling");
  CHECK(std::string(colls::select_reduce({.size = 64, .bytes = 2048}, automatic).name) == "binomial");
  CHECK(std::string(colls::select_reduce({.size = 64, .bytes = 65536}, automatic).name) == "rabenseifner");
  CHECK(std::string(colls::select_allgather({.size = 64, .bytes = 1024}, automatic).name) == "recursive_doubling");
  CHECK(std::string(colls::select_allgather({.size = 63, .bytes = 1024}, automatic).name) == "bruck");
  CHECK(std::string(colls::select_allgather({.size = 63, .bytes = 1 << 20}, automatic).name) == "ring");
  CHECK(std::string(colls::select_alltoall({.size = 64, .bytes = 256}, automatic).name) == "bruck");
  CHECK(std::string(colls::select_alltoall({.size = 4, .bytes = 256}, automatic).name) == "pairwise");
  CHECK(std::string(colls::select_alltoall({.size = 64, .bytes = colls::kVaried}, automatic).name) == "pairwise");
  CHECK(std::string(colls::select_gather({.size = 64, .bytes = colls::kVaried}, automatic).name) == "linear");
  CHECK(std::string(colls::select_scatter({.size = 64, .bytes = 100}, automatic).name) == "binomial");
  CHECK(std::string(colls::select_reduce_scatter({.size = 64, .bytes = 1024}, automatic).name) == "recursive_halving");
  CHECK(std::string(colls::select_reduce_scatter({.size = 64, .bytes = 128 << 10}, automatic).name) ==
        "recursive_halving");
  CHECK(std::string(colls::select_reduce_scatter({.size = 64, .bytes = 256 << 10}, automatic).name) == "ring");
  CHECK(std::string(colls::select_reduce_scatter({.size = 48, .bytes = 48 << 10}, automatic).name) == "ring");
  CHECK(std::string(colls::select_scan({.size = 64, .bytes = 8}, automatic).name) == "recursive_doubling");
  CollectiveConfig chosen;
  chosen.selector = "mgen";
  chosen.allreduce = "ring";
  CHECK(std::string(colls::select_allreduce({.size = 64, .bytes = 8}, chosen).name) == "ring");
  chosen.scan = "linear";
  CHECK(std::string(colls::select_exscan({.size = 64, .bytes = 8}, chosen).name) == "linear");
  CHECK_NOTHROW(colls::validate(chosen));
  chosen.reduce_scatter = "pairwise_nope";
  CHECK_THROWS_WITH(colls::validate(chosen), Catch::Contains("collectives.reduce_scatter"));
}

TEST_CASE("collectives on split communicators and with several ranks per node", "[colls]") {
  // Even and odd world ranks form two communicators of different sizes; four ranks per node
  // make some messages memory copies.
  for (const std::string& name : algorithms("allreduce")) {
    auto m = machine_with(13, &CollectiveConfig::allreduce, name);
    const auto r = run(
        13,
        [](int rank, int) {
          MGEN_Comm half;
          MGEN_Comm_split(MGEN_COMM_WORLD, rank % 2, -rank, &half);  // reversed order inside
          int sub = 0, n = 0;
          MGEN_Comm_rank(half, &sub);
          MGEN_Comm_size(half, &n);
          std::vector<long long> v(40);
          for (int i = 0; i < 40; ++i)
            v[i] = rank * 100 + i;
          MGEN_Allreduce(MGEN_IN_PLACE, v.data(), 40, MGEN_LONG_LONG, MGEN_SUM, half);
          bool ok = true;
          for (int i = 0; i < 40; ++i) {
            long long expect = 0;
            for (int w = rank % 2; w < 13; w += 2)
              expect += w * 100 + i;
            ok = ok && v[i] == expect;
          }
          CHECK(ok);
          // Rank 0 of `half` is its highest world rank; it broadcasts it, then everyone gathers.
          int top = sub == 0 ? rank : -1;
          MGEN_Bcast(&top, 1, MGEN_INT, 0, half);
          CHECK(top == (rank % 2 ? 11 : 12));
          std::vector<int> all(static_cast<size_t>(n));
          MGEN_Allgather(&rank, 1, MGEN_INT, all.data(), 1, MGEN_INT, half);
          for (int k = 0; k < n; ++k)
            CHECK(all[k] == top - 2 * k);
          MGEN_Comm_free(&half);
        },
        m, 4);
    INFO(name << ": " << r.error);
    REQUIRE(r.ok);
    CHECK(r.intra_node_messages > 0);
  }
}

// ---------------------------------------------------------------- large communicators

TEST_CASE("1031 ranks: barrier, bcast and allreduce with their default algorithms", "[colls][large]") {
  const auto r = run(1031, [](int rank, int size) {
    MGEN_Barrier(MGEN_COMM_WORLD);
    long long v[3] = {rank == 517 ? 42 : 0, 0, 0};
    MGEN_Bcast(v, 3, MGEN_LONG_LONG, 517, MGEN_COMM_WORLD);
    CHECK(v[0] == 42);
    long long s[2] = {rank, 1};
    MGEN_Allreduce(MGEN_IN_PLACE, s, 2, MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
    CHECK(s[0] == static_cast<long long>(size) * (size - 1) / 2);
    CHECK(s[1] == size);
  });
  INFO(r.error);
  REQUIRE(r.ok);
}

TEST_CASE("1031 ranks: every algorithm of the rooted and reducing collectives", "[colls][large]") {
  // One call each with a few elements: the folds and trees at a size far from a power of two.
  const int p = 1031, root = 700;
  const Body bcast = [](int rank, int) {
    long long v[3] = {rank == root ? 42 : 0, rank == root ? 43 : 0, 0};
    MGEN_Bcast(v, 3, MGEN_LONG_LONG, root, MGEN_COMM_WORLD);
    CHECK((v[0] == 42 && v[1] == 43));
  };
  const Body reduce = [](int rank, int size) {
    long long v[2] = {rank, 1}, r[2] = {0, 0};
    MGEN_Reduce(v, r, 2, MGEN_LONG_LONG, MGEN_SUM, root, MGEN_COMM_WORLD);
    if (rank == root) CHECK((r[0] == static_cast<long long>(size) * (size - 1) / 2 && r[1] == size));
  };
  const Body allreduce = [](int rank, int size) {
    long long v[2] = {rank, 1};
    MGEN_Allreduce(MGEN_IN_PLACE, v, 2, MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
    CHECK((v[0] == static_cast<long long>(size) * (size - 1) / 2 && v[1] == size));
  };
  const Body scan = [](int rank, int) {
    long long v = rank, incl = 0, excl = -1;
    MGEN_Scan(&v, &incl, 1, MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
    MGEN_Exscan(&v, &excl, 1, MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
    CHECK(incl == static_cast<long long>(rank) * (rank + 1) / 2);
    CHECK(excl == (rank == 0 ? -1 : static_cast<long long>(rank) * (rank - 1) / 2));
  };
  const Body gather = [](int rank, int size) {
    std::vector<int> all(static_cast<size_t>(rank == root ? size : 0));
    MGEN_Gather(&rank, 1, MGEN_INT, all.data(), 1, MGEN_INT, root, MGEN_COMM_WORLD);
    if (rank == root) {
      std::vector<int> expect(all.size());
      std::iota(expect.begin(), expect.end(), 0);
      CHECK(all == expect);
    }
    std::vector<int> out(static_cast<size_t>(size));
    std::iota(out.begin(), out.end(), 5);
    int mine = -1;
    MGEN_Scatter(out.data(), 1, MGEN_INT, &mine, 1, MGEN_INT, root, MGEN_COMM_WORLD);
    CHECK(mine == rank + 5);
  };
  const Body allgather = [](int rank, int size) {
    std::vector<int> all(static_cast<size_t>(size));
    MGEN_Allgather(&rank, 1, MGEN_INT, all.data(), 1, MGEN_INT, MGEN_COMM_WORLD);
    std::vector<int> expect(all.size());
    std::iota(expect.begin(), expect.end(), 0);
    CHECK(all == expect);
  };
  const Body reduce_scatter = [](int rank, int size) {
    std::vector<int> v(static_cast<size_t>(size), 1);
    v[static_cast<size_t>(rank)] = rank;
    int r = 0;
    MGEN_Reduce_scatter_block(v.data(), &r, 1, MGEN_INT, MGEN_SUM, MGEN_COMM_WORLD);
    CHECK(r == size - 1 + rank);
  };
  for (const auto& [collective, field, body] : std::vector<std::tuple<std::string, Field, Body>>{
           {"barrier", &CollectiveConfig::barrier, [](int, int) { MGEN_Barrier(MGEN_COMM_WORLD); }},
           {"bcast", &CollectiveConfig::bcast, bcast},
           {"reduce", &CollectiveConfig::reduce, reduce},
           {"allreduce", &CollectiveConfig::allreduce, allreduce},
           {"scan", &CollectiveConfig::scan, scan},
           {"gather", &CollectiveConfig::gather, gather},
           {"scatter", &CollectiveConfig::scatter, gather},
           {"allgather", &CollectiveConfig::allgather, allgather},
           {"reduce_scatter", &CollectiveConfig::reduce_scatter, reduce_scatter},
       }) {
    for (const std::string& name : algorithms(collective)) {
      INFO(collective << " " << name);
      run_with(p, field, name, body);
    }
  }
}

// ---------------------------------------------------------------- size-only mode

namespace {

// One call of each collective; with real == false every buffer is null.
void every_collective(int rank, int p, bool real) {
  const int n = 1500;  // 12000-byte vectors: eager; the gathers' sums cross into rendezvous
  std::vector<long long> a(static_cast<size_t>(2 * n * p), 1), b(static_cast<size_t>(2 * n * p), 0);
  long long* x = real ? a.data() : nullptr;
  long long* y = real ? b.data() : nullptr;
  std::vector<int> counts(static_cast<size_t>(p)), displs(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) {
    counts[r] = (r % 3) * 100;
    displs[r] = r * 200;
  }
  const int root = p / 2;
  MGEN_Barrier(MGEN_COMM_WORLD);
  MGEN_Bcast(x, n * 2, MGEN_LONG_LONG, root, MGEN_COMM_WORLD);
  MGEN_Reduce(x, y, n, MGEN_LONG_LONG, MGEN_SUM, root, MGEN_COMM_WORLD);
  MGEN_Allreduce(x, y, n, MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
  MGEN_Allreduce(real ? MGEN_IN_PLACE : nullptr, y, 7, MGEN_LONG_LONG, MGEN_MAX, MGEN_COMM_WORLD);
  MGEN_Gather(x, n, MGEN_LONG_LONG, y, n, MGEN_LONG_LONG, root, MGEN_COMM_WORLD);
  MGEN_Gatherv(x, counts[rank], MGEN_LONG_LONG, y, counts.data(), displs.data(), MGEN_LONG_LONG, root, MGEN_COMM_WORLD);
  MGEN_Scatter(x, n, MGEN_LONG_LONG, y, n, MGEN_LONG_LONG, root, MGEN_COMM_WORLD);
  MGEN_Scatterv(x, counts.data(), displs.data(), MGEN_LONG_LONG, y, counts[rank], MGEN_LONG_LONG, root,
                MGEN_COMM_WORLD);
  MGEN_Allgather(x, 40, MGEN_LONG_LONG, y, 40, MGEN_LONG_LONG, MGEN_COMM_WORLD);
  MGEN_Allgatherv(x, counts[rank], MGEN_LONG_LONG, y, counts.data(), displs.data(), MGEN_LONG_LONG, MGEN_COMM_WORLD);
  MGEN_Alltoall(x, 30, MGEN_LONG_LONG, y, 30, MGEN_LONG_LONG, MGEN_COMM_WORLD);
  MGEN_Alltoall(x, 3000, MGEN_LONG_LONG, y, 3000, MGEN_LONG_LONG, MGEN_COMM_WORLD);
  std::vector<int> sym(static_cast<size_t>(p), 100), sd(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r)
    sd[r] = r * 100;
  MGEN_Alltoallv(x, sym.data(), sd.data(), MGEN_LONG_LONG, y, sym.data(), sd.data(), MGEN_LONG_LONG, MGEN_COMM_WORLD);
  MGEN_Reduce_scatter(x, y, counts.data(), MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
  MGEN_Reduce_scatter_block(x, y, 300, MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
  MGEN_Scan(x, y, n, MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
  MGEN_Exscan(x, y, n, MGEN_LONG_LONG, MGEN_SUM, MGEN_COMM_WORLD);
}

}  // namespace

TEST_CASE("size-only runs (null buffers) take exactly as long as real ones", "[colls]") {
  for (int p : {1, 6, 8}) {
    const auto real = run(static_cast<uint32_t>(p), [](int rank, int size) { every_collective(rank, size, true); });
    const auto sized = run(static_cast<uint32_t>(p), [](int rank, int size) { every_collective(rank, size, false); });
    INFO(p << " ranks: " << real.error << sized.error);
    REQUIRE(real.ok);
    REQUIRE(sized.ok);
    CHECK(ps(real.predicted_s()) == ps(sized.predicted_s()));
    CHECK(real.messages == sized.messages);
  }
}

TEST_CASE("size-only runs match real ones for every algorithm", "[colls]") {
  struct Case {
    const char* collective;
    Field field;
  };
  const Case cases[] = {
      {"bcast", &CollectiveConfig::bcast},         {"reduce", &CollectiveConfig::reduce},
      {"allreduce", &CollectiveConfig::allreduce}, {"gather", &CollectiveConfig::gather},
      {"scatter", &CollectiveConfig::scatter},     {"allgather", &CollectiveConfig::allgather},
      {"alltoall", &CollectiveConfig::alltoall},   {"reduce_scatter", &CollectiveConfig::reduce_scatter},
      {"scan", &CollectiveConfig::scan},
  };
  for (const Case& c : cases) {
    for (const std::string& name : algorithms(c.collective)) {
      const int p = 7;
      const auto real = run_with(p, c.field, name, [](int rank, int size) { every_collective(rank, size, true); });
      const auto sized = run_with(p, c.field, name, [](int rank, int size) { every_collective(rank, size, false); });
      INFO(c.collective << " " << name);
      CHECK(ps(real.predicted_s()) == ps(sized.predicted_s()));
      CHECK(real.messages == sized.messages);
    }
  }
}

// ---------------------------------------------------------------- round counts

namespace {

// One rank per node on a 64-port crossbar: every pair of ranks is the same distance apart,
// and a round in which each rank sends one message and receives one has no contention.
mgen::mpi::MachineSetup crossbar(const char* barrier) {
  mgen::mpi::MachineSetup m = test_machine();
  m.network.topology.kind = "crossbar";
  m.network.topology.crossbar_nodes = 64;
  m.collectives.barrier = barrier;
  return m;
}

double barrier_time(int p, const char* algorithm) {
  const auto r = run(
      static_cast<uint32_t>(p), [](int, int) { MGEN_Barrier(MGEN_COMM_WORLD); }, crossbar(algorithm));
  INFO(r.error);
  REQUIRE(r.ok);
  return r.predicted_s();
}

// A round of zero-byte sendrecvs: the send overhead, the envelope's zero-load network time
// through one router (docs/network-model.md: 2 L_nic + t_head + w/B with w = 64-byte envelope
// + 32-byte header), the receive overhead.
int64_t round_ps() {
  const int64_t wire = transfer_time(Bytes(64 + 32), Bandwidth::gigabytes_per_second(4)).count_ps();
  return 100000 + (2 * 10000 + 140000 + wire) + 100000;
}

}  // namespace

TEST_CASE("recursive-doubling barrier: log2 p rounds; dissemination: ceil(log2 p)", "[colls][timing]") {
  const int64_t one = ps(barrier_time(2, "recursive_doubling"));
  CHECK(one == round_ps());
  CHECK(ps(barrier_time(8, "recursive_doubling")) == 3 * one);
  CHECK(ps(barrier_time(64, "recursive_doubling")) == 6 * one);
  CHECK(ps(barrier_time(5, "dissemination")) == 3 * one);
  CHECK(ps(barrier_time(8, "dissemination")) == 3 * one);
  CHECK(ps(barrier_time(5, "ring")) == 4 * one);
}

// ---------------------------------------------------------------- errors

TEST_CASE("collective argument errors stop the run and name the call", "[colls][errors]") {
  SECTION("root outside the communicator") {
    const auto r = run(4, [](int, int) {
      int v = 0;
      MGEN_Bcast(&v, 1, MGEN_INT, 4, MGEN_COMM_WORLD);
    });
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.error, Catch::Contains("MGEN_Bcast") && Catch::Contains("MGEN_ERR_ROOT"));
  }
  SECTION("ranks disagree on the root") {
    const auto r = run(4, [](int rank, int) {
      long long v = rank, out = 0;
      MGEN_Reduce(&v, &out, 1, MGEN_LONG_LONG, MGEN_SUM, rank == 0 ? 0 : 1, MGEN_COMM_WORLD);
    });
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.error, Catch::Contains("MGEN_Reduce"));
  }
  SECTION("an operation the type does not support") {
    const auto r = run(3, [](int, int) {
      double v = 1, out = 0;
      MGEN_Allreduce(&v, &out, 1, MGEN_DOUBLE, MGEN_BAND, MGEN_COMM_WORLD);
    });
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.error,
               Catch::Contains("MGEN_Allreduce") && Catch::Contains("MGEN_BAND") && Catch::Contains("MGEN_DOUBLE"));
  }
  SECTION("size-only runs check the operation too") {
    const auto r = run(3, [](int, int) { MGEN_Scan(nullptr, nullptr, 4, MGEN_FLOAT, MGEN_BXOR, MGEN_COMM_WORLD); });
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.error, Catch::Contains("MGEN_Scan") && Catch::Contains("MGEN_ERR_OP"));
  }
  SECTION("MINLOC needs a value-index pair type") {
    const auto r = run(2, [](int, int) {
      int v = 1, out = 0;
      MGEN_Reduce(&v, &out, 1, MGEN_INT, MGEN_MINLOC, 0, MGEN_COMM_WORLD);
    });
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.error, Catch::Contains("MGEN_Reduce") && Catch::Contains("MGEN_MINLOC"));
  }
  SECTION("send and receive sizes differ") {
    const auto r = run(3, [](int, int) {
      int s[2] = {0, 0}, all[6];
      MGEN_Allgather(s, 2, MGEN_INT, all, 1, MGEN_INT, MGEN_COMM_WORLD);
    });
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.error, Catch::Contains("MGEN_Allgather") && Catch::Contains("MGEN_ERR_TRUNCATE"));
  }
  SECTION("MGEN_IN_PLACE away from the root") {
    const auto r = run(3, [](int rank, int) {
      int v[3] = {rank, 0, 0};
      MGEN_Gather(rank == 1 ? MGEN_IN_PLACE : v, 1, MGEN_INT, v, 1, MGEN_INT, 0, MGEN_COMM_WORLD);
    });
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.error, Catch::Contains("MGEN_Gather") && Catch::Contains("MGEN_IN_PLACE"));
  }
  SECTION("negative counts in a v collective") {
    const auto r = run(2, [](int, int) {
      int counts[2] = {1, -1}, displs[2] = {0, 1}, all[2], mine = 0;
      MGEN_Allgatherv(&mine, 1, MGEN_INT, all, counts, displs, MGEN_INT, MGEN_COMM_WORLD);
    });
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.error, Catch::Contains("MGEN_Allgatherv") && Catch::Contains("MGEN_ERR_COUNT"));
  }
  SECTION("an unknown configured algorithm") {
    mgen::mpi::MachineSetup m = machine_for(2);
    m.collectives.alltoall = "telepathy";
    CHECK_THROWS_WITH(run(
                          2, [](int, int) {}, m),
                      Catch::Contains("collectives.alltoall") && Catch::Contains("bruck"));
  }
}
