// Dimemas's models (Girona, Labarta & Badia 2000): the point-to-point backend T = L + S/B with
// node links and buses (§3), and the collective model T = FAN_IN + FAN_OUT (§3.1, Tables 1-3),
// checked against the paper's equations evaluated here by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "colls/colls.hpp"
#include "harness.hpp"

using namespace mgen::test;
using mgen::mpi::DimemasPhase;
using mgen::mpi::DimemasRow;

namespace {

constexpr double kL = 25e-6;    // the paper's SGI Origin values (§4.2)
constexpr double kB = 87.5e6;   // bytes per second
constexpr double kTol = 1e-11;  // the simulator rounds each transfer up to a picosecond

mgen::mpi::MachineSetup dimemas_machine(uint32_t nodes, uint32_t buses, bool half_duplex, uint32_t links = 1) {
  mgen::mpi::MachineSetup m = test_machine();
  m.network.backend = "dimemas";
  m.network.topology.kind = "crossbar";
  m.network.topology.crossbar_nodes = nodes;
  m.network.dimemas.latency = Time::us(25);
  m.network.dimemas.bandwidth = Bandwidth::bytes_per_second(87500000);
  m.network.dimemas.buses = buses;
  m.network.dimemas.input_links = m.network.dimemas.output_links = links;
  m.network.dimemas.half_duplex = half_duplex;
  // Dimemas charges nothing else: no envelopes, no software overheads, no rendezvous.
  m.mpi.send_overhead = m.mpi.recv_overhead = Time::zero();
  m.mpi.envelope = Bytes(0);
  m.mpi.eager_threshold = Bytes(uint64_t{1} << 40);
  m.collectives.model = "dimemas";
  return m;
}

// Every rank's MGEN_Wtime after `body`.
std::vector<double> finish_times(uint32_t ranks, const mgen::mpi::MachineSetup& m,
                                 const std::function<void(int, int)>& body) {
  std::vector<double> t(ranks, -1);
  const auto r = run(
      ranks,
      [&](int rank, int size) {
        body(rank, size);
        t[static_cast<size_t>(rank)] = MGEN_Wtime();
      },
      m);
  INFO(r.error);
  REQUIRE(r.ok);
  return t;
}

double max_of(const std::vector<double>& v) {
  return *std::max_element(v.begin(), v.end());
}

}  // namespace

TEST_CASE("Dimemas point to point: T = L + S/B", "[dimemas]") {
  for (int bytes : {0, 1, 1000, 87500, 1 << 20}) {
    INFO(bytes << " bytes");
    std::vector<char> buf(static_cast<size_t>(bytes) + 1);
    const auto t = finish_times(2, dimemas_machine(2, 0, false), [&](int rank, int) {
      if (rank == 0) MGEN_Send(buf.data(), bytes, MGEN_BYTE, 1, 0, MGEN_COMM_WORLD);
      if (rank == 1) MGEN_Recv(buf.data(), bytes, MGEN_BYTE, 0, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
    });
    CHECK(std::abs(t[1] - (kL + bytes / kB)) < kTol);
  }
}

TEST_CASE("Dimemas buses: k concurrent transfers take ceil(k / buses) transfer times", "[dimemas]") {
  const int bytes = 175000;  // 2 ms at 87.5 MB/s
  for (uint32_t buses : {0u, 1u, 2u, 3u, 4u}) {
    INFO(buses << " buses");
    // Four disjoint pairs send at once: only the buses are shared.
    const auto t = finish_times(8, dimemas_machine(8, buses, false), [&](int rank, int) {
      if (rank % 2 == 0) MGEN_Send(nullptr, bytes, MGEN_BYTE, rank + 1, 0, MGEN_COMM_WORLD);
      if (rank % 2 == 1) MGEN_Recv(nullptr, bytes, MGEN_BYTE, rank - 1, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
    });
    const int rounds = buses == 0 ? 1 : (4 + static_cast<int>(buses) - 1) / static_cast<int>(buses);
    CHECK(std::abs(max_of(t) - (kL + rounds * bytes / kB)) < kTol);
  }
}

TEST_CASE("Dimemas links: half duplex serialises an exchange, input links a fan-in", "[dimemas]") {
  const int bytes = 87500;  // 1 ms
  auto exchange = [&](int rank, int) {
    MGEN_Sendrecv(nullptr, bytes, MGEN_BYTE, 1 - rank, 0, nullptr, bytes, MGEN_BYTE, 1 - rank, 0, MGEN_COMM_WORLD,
                  MGEN_STATUS_IGNORE);
  };
  CHECK(std::abs(max_of(finish_times(2, dimemas_machine(2, 0, false), exchange)) - (kL + bytes / kB)) < kTol);
  CHECK(std::abs(max_of(finish_times(2, dimemas_machine(2, 0, true), exchange)) - (kL + 2 * bytes / kB)) < kTol);
  CHECK(std::abs(max_of(finish_times(2, dimemas_machine(2, 0, true, 2), exchange)) - (kL + bytes / kB)) < kTol);
  auto fan_in = [&](int rank, int size) {
    if (rank == 0) {
      for (int i = 1; i < size; ++i)
        MGEN_Recv(nullptr, bytes, MGEN_BYTE, MGEN_ANY_SOURCE, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
    } else {
      MGEN_Send(nullptr, bytes, MGEN_BYTE, 0, 0, MGEN_COMM_WORLD);
    }
  };
  CHECK(std::abs(finish_times(4, dimemas_machine(4, 0, false), fan_in)[0] - (kL + 3 * bytes / kB)) < kTol);
  CHECK(std::abs(finish_times(4, dimemas_machine(4, 0, false, 3), fan_in)[0] - (kL + bytes / kB)) < kTol);
}

TEST_CASE("Dimemas Nsteps: ceil(log2 P) tree phases of ceil(C_i / buses) steps (equation 4)", "[dimemas]") {
  // P = 16: phases carry 8, 4, 2, 1 communications. The paper's example: 8 over 5 buses is 2 steps.
  CHECK(mgen::mpi::colls::dimemas_log_steps(16, 0) == 4);
  CHECK(mgen::mpi::colls::dimemas_log_steps(16, 5) == 2 + 1 + 1 + 1);
  CHECK(mgen::mpi::colls::dimemas_log_steps(16, 1) == 8 + 4 + 2 + 1);
  CHECK(mgen::mpi::colls::dimemas_log_steps(16, 10) == 4);
  // P = 13: 6 pairs (7 left), 3 (4 left), 2 (2 left), 1: still ceil(log2 13) = 4 phases.
  CHECK(mgen::mpi::colls::dimemas_log_steps(13, 0) == 4);
  CHECK(mgen::mpi::colls::dimemas_log_steps(13, 2) == 3 + 2 + 1 + 1);
  CHECK(mgen::mpi::colls::dimemas_log_steps(1, 0) == 0);
  CHECK(mgen::mpi::colls::dimemas_log_steps(2, 0) == 1);
}

namespace {

// The paper's equations, evaluated independently: factor (Table 1) x (L + SIZE/B) (Table 2).
double phase_time(DimemasPhase ph, int p, double sent, double received, double nsteps) {
  double factor = 0;
  switch (ph.model) {
    case DimemasPhase::kNone:
      factor = 0;
      break;
    case DimemasPhase::kConstant:
      factor = 1;
      break;
    case DimemasPhase::kLinear:
      factor = p;
      break;
    case DimemasPhase::kLog:
      factor = nsteps;
      break;
  }
  double size = 0;
  switch (ph.size) {
    case DimemasPhase::kMax:
      size = std::max(sent, received);
      break;
    case DimemasPhase::kMin:
      size = std::min(sent, received);
      break;
    case DimemasPhase::kMean:
      size = (sent + received) / 2;
      break;
    case DimemasPhase::kTwiceMax:
      size = 2 * std::max(sent, received);
      break;
    case DimemasPhase::kSum:
      size = sent + received;
      break;
  }
  return factor * (kL + size / kB);
}

}  // namespace

TEST_CASE("Dimemas collective model: every Table 3 row gives the paper's equation", "[dimemas]") {
  const int n = 1000;  // elements of 8 bytes
  const double v = 8.0 * n;
  struct Case {
    const char* name;
    mgen::mpi::DimemasOp op;
    double sent, received;  // the root's (or largest member's) message sizes
    std::function<void(int rank, int size)> call;
  };
  std::vector<double> in(static_cast<size_t>(n) * 64), out(static_cast<size_t>(n) * 64);
  std::vector<int> counts(64, n), displs(64);
  for (int i = 0; i < 64; ++i)
    displs[static_cast<size_t>(i)] = i * n;
  const std::vector<Case> cases = {
      {"barrier", mgen::mpi::kDimBarrier, 0, 0, [&](int, int) { MGEN_Barrier(MGEN_COMM_WORLD); }},
      {"bcast", mgen::mpi::kDimBcast, v, 0,
       [&](int, int) { MGEN_Bcast(in.data(), n, MGEN_DOUBLE, 0, MGEN_COMM_WORLD); }},
      {"gather", mgen::mpi::kDimGather, v, v,
       [&](int, int) { MGEN_Gather(in.data(), n, MGEN_DOUBLE, out.data(), n, MGEN_DOUBLE, 0, MGEN_COMM_WORLD); }},
      {"gatherv", mgen::mpi::kDimGatherv, v, v,
       [&](int, int) {
         MGEN_Gatherv(in.data(), n, MGEN_DOUBLE, out.data(), counts.data(), displs.data(), MGEN_DOUBLE, 0,
                      MGEN_COMM_WORLD);
       }},
      {"scatter", mgen::mpi::kDimScatter, v, v,
       [&](int, int) { MGEN_Scatter(in.data(), n, MGEN_DOUBLE, out.data(), n, MGEN_DOUBLE, 0, MGEN_COMM_WORLD); }},
      {"scatterv", mgen::mpi::kDimScatterv, v, v,
       [&](int, int) {
         MGEN_Scatterv(in.data(), counts.data(), displs.data(), MGEN_DOUBLE, out.data(), n, MGEN_DOUBLE, 0,
                       MGEN_COMM_WORLD);
       }},
      {"allgather", mgen::mpi::kDimAllgather, v, v,
       [&](int, int) { MGEN_Allgather(in.data(), n, MGEN_DOUBLE, out.data(), n, MGEN_DOUBLE, MGEN_COMM_WORLD); }},
      {"allgatherv", mgen::mpi::kDimAllgatherv, v, v,
       [&](int, int) {
         MGEN_Allgatherv(in.data(), n, MGEN_DOUBLE, out.data(), counts.data(), displs.data(), MGEN_DOUBLE,
                         MGEN_COMM_WORLD);
       }},
      {"alltoall", mgen::mpi::kDimAlltoall, v, v,
       [&](int, int) { MGEN_Alltoall(in.data(), n, MGEN_DOUBLE, out.data(), n, MGEN_DOUBLE, MGEN_COMM_WORLD); }},
      {"alltoallv", mgen::mpi::kDimAlltoallv, v, v,
       [&](int, int) {
         MGEN_Alltoallv(in.data(), counts.data(), displs.data(), MGEN_DOUBLE, out.data(), counts.data(), displs.data(),
                        MGEN_DOUBLE, MGEN_COMM_WORLD);
       }},
      {"reduce", mgen::mpi::kDimReduce, v, v,
       [&](int, int) { MGEN_Reduce(in.data(), out.data(), n, MGEN_DOUBLE, MGEN_SUM, 0, MGEN_COMM_WORLD); }},
      {"allreduce", mgen::mpi::kDimAllreduce, v, v,
       [&](int, int) { MGEN_Allreduce(in.data(), out.data(), n, MGEN_DOUBLE, MGEN_SUM, MGEN_COMM_WORLD); }},
      // Reduce_scatter_block of n each: the vector sent is P n elements, the block received n.
      {"reduce_scatter", mgen::mpi::kDimReduceScatter, -1, v,
       [&](int, int) { MGEN_Reduce_scatter_block(in.data(), out.data(), n, MGEN_DOUBLE, MGEN_SUM, MGEN_COMM_WORLD); }},
      {"scan", mgen::mpi::kDimScan, v, v,
       [&](int, int) { MGEN_Scan(in.data(), out.data(), n, MGEN_DOUBLE, MGEN_SUM, MGEN_COMM_WORLD); }},
  };
  // P = 16 with the paper's buses (10: 0.6 P, §4.2; 16: Fig. 3) and unlimited; P = 13 with 2.
  struct Setting {
    int p;
    uint32_t buses;
    double nsteps;  // equation 4, by hand
  };
  for (const Setting s : {Setting{16, 0, 4}, Setting{16, 10, 4}, Setting{16, 16, 4}, Setting{16, 3, 3 + 2 + 1 + 1},
                          Setting{13, 2, 3 + 2 + 1 + 1}}) {
    for (const Case& c : cases) {
      INFO(c.name << " on " << s.p << " ranks, " << s.buses << " buses");
      const DimemasRow row = mgen::mpi::kDimemasTable3[c.op];
      const double sent = c.sent < 0 ? v * s.p : c.sent;
      const double expected =
          phase_time(row.in, s.p, sent, c.received, s.nsteps) + phase_time(row.out, s.p, sent, c.received, s.nsteps);
      // Ranks arrive 1 us apart; all leave together, T after the last arrival.
      const auto t = finish_times(static_cast<uint32_t>(s.p),
                                  dimemas_machine(static_cast<uint32_t>(s.p), s.buses, true), [&](int rank, int size) {
                                    MGEN_Comp(1e-6 * rank);
                                    c.call(rank, size);
                                  });
      for (double x : t)
        CHECK(std::abs(x - (1e-6 * (s.p - 1) + expected)) < 1e-9);
    }
  }
}

TEST_CASE("Dimemas collective model: Table 3 rows can be replaced per collective", "[dimemas]") {
  mgen::mpi::MachineSetup m = dimemas_machine(8, 0, true);
  m.collectives.dimemas[mgen::mpi::kDimAllreduce] =
      DimemasRow{{DimemasPhase::kLinear, DimemasPhase::kSum}, {DimemasPhase::kConstant, DimemasPhase::kMin}};
  const auto t = finish_times(8, m, [](int, int) {
    double x = 1, y = 0;
    MGEN_Allreduce(&x, &y, 1, MGEN_DOUBLE, MGEN_SUM, MGEN_COMM_WORLD);
    CHECK(y == 8);
  });
  CHECK(std::abs(max_of(t) - (8 * (kL + 16 / kB) + (kL + 8 / kB))) < 1e-9);
}

TEST_CASE("Dimemas collective model: mismatched collectives and roots stop the run", "[dimemas]") {
  const mgen::mpi::MachineSetup m = dimemas_machine(4, 0, true);
  auto r = run(
      4,
      [](int rank, int) {
        double x = 0;
        if (rank == 2) {
          MGEN_Bcast(&x, 1, MGEN_DOUBLE, 0, MGEN_COMM_WORLD);
        } else {
          MGEN_Allreduce(MGEN_IN_PLACE, &x, 1, MGEN_DOUBLE, MGEN_SUM, MGEN_COMM_WORLD);
        }
      },
      m);
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.error, Catch::Contains("mismatched collectives") && Catch::Contains("MGEN_Bcast") &&
                          Catch::Contains("MGEN_Allreduce"));
  r = run(
      4,
      [](int rank, int) {
        double x = 0;
        MGEN_Bcast(&x, 1, MGEN_DOUBLE, rank == 3 ? 1 : 0, MGEN_COMM_WORLD);
      },
      m);
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.error, Catch::Contains("root 0") && Catch::Contains("root 1"));
  r = run(
      4,
      [](int rank, int) {
        double x[2] = {0, 0};
        MGEN_Bcast(x, rank == 1 ? 1 : 2, MGEN_DOUBLE, 0, MGEN_COMM_WORLD);
      },
      m);
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.error, Catch::Contains("rank 1 passes 8 bytes, rank 0 passed 16 bytes"));
}

TEST_CASE("Dimemas runs are deterministic under contention", "[dimemas][determinism]") {
  // Sixteen ranks exchange with every other through 3 buses and half-duplex links, then reduce
  // with the collective model: the same inputs give the same picoseconds.
  auto body = [](int rank, int size) {
    std::vector<MGEN_Request> qs;
    for (int peer = 0; peer < size; ++peer) {
      if (peer == rank) continue;
      MGEN_Request q;
      MGEN_Isend(nullptr, 1000 * (rank + 1), MGEN_BYTE, peer, 0, MGEN_COMM_WORLD, &q);
      qs.push_back(q);
      MGEN_Irecv(nullptr, 1000 * (peer + 1), MGEN_BYTE, peer, 0, MGEN_COMM_WORLD, &q);
      qs.push_back(q);
    }
    MGEN_Waitall(static_cast<int>(qs.size()), qs.data(), MGEN_STATUSES_IGNORE);
    double x = rank;
    MGEN_Allreduce(MGEN_IN_PLACE, &x, 1, MGEN_DOUBLE, MGEN_SUM, MGEN_COMM_WORLD);
    CHECK(x == size * (size - 1) / 2);
  };
  const auto a = finish_times(16, dimemas_machine(16, 3, true), body);
  const auto b = finish_times(16, dimemas_machine(16, 3, true), body);
  CHECK(a == b);
  // With 3 buses the 240 transfers cannot all overlap: later than one transfer's time.
  CHECK(max_of(a) > kL + 16000 / kB);
}

TEST_CASE("Dimemas collective model: in-place Scatterv and Gatherv at the root", "[dimemas]") {
  // Review finding: the root's in-place block used to fail the truncation check.
  const auto t = finish_times(4, dimemas_machine(4, 0, true), [](int rank, int size) {
    std::vector<int> counts(static_cast<size_t>(size)), displs(static_cast<size_t>(size));
    std::vector<double> all;
    for (int i = 0; i < size; ++i) {
      counts[static_cast<size_t>(i)] = i + 1;
      displs[static_cast<size_t>(i)] = i * (i + 1) / 2;
      for (int k = 0; k <= i; ++k)
        all.push_back(100 * i + k);
    }
    std::vector<double> mine(static_cast<size_t>(rank) + 1, -1);
    if (rank == 0) {
      MGEN_Scatterv(all.data(), counts.data(), displs.data(), MGEN_DOUBLE, MGEN_IN_PLACE, 0, MGEN_DOUBLE, 0,
                    MGEN_COMM_WORLD);
    } else {
      MGEN_Scatterv(nullptr, nullptr, nullptr, MGEN_DOUBLE, mine.data(), rank + 1, MGEN_DOUBLE, 0, MGEN_COMM_WORLD);
      for (int k = 0; k <= rank; ++k)
        CHECK(mine[static_cast<size_t>(k)] == 100 * rank + k);
    }
    std::vector<double> back(all.size(), -1);
    if (rank == 0) {
      back[0] = 0;  // the root's own block, in place
      MGEN_Gatherv(MGEN_IN_PLACE, 0, MGEN_DOUBLE, back.data(), counts.data(), displs.data(), MGEN_DOUBLE, 0,
                   MGEN_COMM_WORLD);
      CHECK(back == all);
    } else {
      MGEN_Gatherv(mine.data(), rank + 1, MGEN_DOUBLE, nullptr, nullptr, nullptr, MGEN_DOUBLE, 0, MGEN_COMM_WORLD);
    }
  });
  CHECK(max_of(t) > 0);
}

TEST_CASE("Dimemas collective model: Scan against Exscan and unequal counts in size-only runs", "[dimemas]") {
  const mgen::mpi::MachineSetup m = dimemas_machine(2, 0, true);
  auto r = run(
      2,
      [](int rank, int) {
        double x = 1, y = 0;
        if (rank == 0) {
          MGEN_Scan(&x, &y, 1, MGEN_DOUBLE, MGEN_SUM, MGEN_COMM_WORLD);
        } else {
          MGEN_Exscan(&x, &y, 1, MGEN_DOUBLE, MGEN_SUM, MGEN_COMM_WORLD);
        }
      },
      m);
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.error, Catch::Contains("mismatched collectives"));
  r = run(
      2,
      [](int rank, int) {
        double x[2] = {1, 1};
        // Rank 0 runs size-only, rank 1 with data, and they disagree on the count.
        MGEN_Allreduce(rank == 0 ? nullptr : x, rank == 0 ? nullptr : x, rank + 1, MGEN_DOUBLE, MGEN_SUM,
                       MGEN_COMM_WORLD);
      },
      m);
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.error, Catch::Contains("rank 1 passes 16 bytes, rank 0 passed 8 bytes"));
}
