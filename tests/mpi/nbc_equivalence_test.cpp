// Non-blocking collectives run the registered blocking algorithms on a helper context: for
// every collective with a non-blocking form and every algorithm of its registry, MPI_Ix +
// MPI_Wait must predict exactly the picoseconds of MPI_X and leave exactly the same data; and
// computation between MPI_Ix and MPI_Wait overlaps the collective.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "colls/colls.hpp"
#include "harness.hpp"
#include "mgen/mpix.h"

using namespace mgen;
using simcore::Time;
namespace colls = mgen::mpi::colls;

namespace {

// What one rank's program returns: everything it received.
using Data = std::vector<int>;
// Runs the collective blocking (false) or as MPI_Ix + MPI_Wait (true) on `count` ints per
// block (per rank for reductions), returning what this rank received.
using Program = std::function<Data(bool nonblocking, int rank, int size, int count)>;

struct Outcome {
  mpi::RunReport report;
  std::vector<Data> data;  // by rank
};

// Changes to the test machine and job (a backend, ranks per node).
using Setup = std::function<void(mpi::MachineSetup&, mpi::JobConfig&)>;

Outcome run_mpi(uint32_t ranks, const mpi::CollectiveConfig& colls, const std::function<Data(int, int)>& body,
                const Setup& setup = {}) {
  mpi::MachineSetup machine = test::machine_for(64);
  machine.collectives = colls;
  mpi::JobConfig job;
  job.ranks = ranks;
  job.stack_bytes = 256 * 1024;
  job.measure_compute = false;
  if (setup) setup(machine, job);
  Outcome out;
  out.data.resize(ranks);
  out.report = mpi::run_job(machine, job,
                            [&](int, char**) {
                              mpi::mpi_program_begin();
                              MPI_Init(nullptr, nullptr);
                              int rank = 0, size = 0;
                              MPI_Comm_rank(MPI_COMM_WORLD, &rank);
                              MPI_Comm_size(MPI_COMM_WORLD, &size);
                              out.data[rank] = body(rank, size);
                              MPI_Finalize();
                              mpi::mpi_program_end();
                            },
                            {"nbc_equivalence_test"});
  return out;
}

// The blocking call, or the non-blocking one followed at once by MPI_Wait.
template <class Blocking, class Start>
void either(bool nonblocking, Blocking&& blocking, Start&& start) {
  if (!nonblocking) {
    blocking();
    return;
  }
  MPI_Request rq = MPI_REQUEST_NULL;
  start(&rq);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
}

// Distinct values per rank and position, so that a misplaced block shows.
Data input(int rank, size_t n) {
  Data v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = rank * 1000 + static_cast<int>(i % 997) + 1;
  return v;
}

template <class Fn>
std::vector<std::string> names(const std::vector<colls::Algorithm<Fn>>& table) {
  std::vector<std::string> out;
  for (const auto& a : table)
    out.emplace_back(a.name);
  return out;
}

struct Collective {
  const char* name;
  std::vector<std::string> algorithms;
  std::string mpi::CollectiveConfig::*key;
  Program program;
};

std::vector<Collective> collectives() {
  const MPI_Comm w = MPI_COMM_WORLD;
  const int root = 1;  // not 0, so that rooted trees are rotated
  std::vector<Collective> out;
  out.push_back(
      {"barrier", names(colls::barrier_algorithms()), &mpi::CollectiveConfig::barrier, [w](bool nb, int, int, int) {
         either(
             nb, [&] { MPI_Barrier(w); }, [&](MPI_Request* rq) { MPI_Ibarrier(w, rq); });
         return Data{};
       }});
  out.push_back(
      {"bcast", names(colls::bcast_algorithms()), &mpi::CollectiveConfig::bcast, [w](bool nb, int rank, int, int n) {
         Data v = rank == root ? input(rank, n) : Data(n, -1);
         either(
             nb, [&] { MPI_Bcast(v.data(), n, MPI_INT, root, w); },
             [&](MPI_Request* rq) { MPI_Ibcast(v.data(), n, MPI_INT, root, w, rq); });
         return v;
       }});
  out.push_back(
      {"reduce", names(colls::reduce_algorithms()), &mpi::CollectiveConfig::reduce, [w](bool nb, int rank, int, int n) {
         const Data in = input(rank, n);
         Data v(n, -1);
         either(
             nb, [&] { MPI_Reduce(in.data(), v.data(), n, MPI_INT, MPI_SUM, root, w); },
             [&](MPI_Request* rq) { MPI_Ireduce(in.data(), v.data(), n, MPI_INT, MPI_SUM, root, w, rq); });
         return v;
       }});
  out.push_back({"allreduce", names(colls::allreduce_algorithms()), &mpi::CollectiveConfig::allreduce,
                 [w](bool nb, int rank, int, int n) {
                   const Data in = input(rank, n);
                   Data v(n, -1);
                   either(
                       nb, [&] { MPI_Allreduce(in.data(), v.data(), n, MPI_INT, MPI_SUM, w); },
                       [&](MPI_Request* rq) { MPI_Iallreduce(in.data(), v.data(), n, MPI_INT, MPI_SUM, w, rq); });
                   return v;
                 }});
  out.push_back({"gather", names(colls::gather_algorithms()), &mpi::CollectiveConfig::gather,
                 [w](bool nb, int rank, int size, int n) {
                   const Data in = input(rank, n);
                   Data v(static_cast<size_t>(n) * size, -1);
                   either(
                       nb, [&] { MPI_Gather(in.data(), n, MPI_INT, v.data(), n, MPI_INT, root, w); },
                       [&](MPI_Request* rq) { MPI_Igather(in.data(), n, MPI_INT, v.data(), n, MPI_INT, root, w, rq); });
                   return v;
                 }});
  out.push_back(
      {"scatter", names(colls::scatter_algorithms()), &mpi::CollectiveConfig::scatter,
       [w](bool nb, int rank, int size, int n) {
         const Data in = input(rank, static_cast<size_t>(n) * size);
         Data v(n, -1);
         either(
             nb, [&] { MPI_Scatter(in.data(), n, MPI_INT, v.data(), n, MPI_INT, root, w); },
             [&](MPI_Request* rq) { MPI_Iscatter(in.data(), n, MPI_INT, v.data(), n, MPI_INT, root, w, rq); });
         return v;
       }});
  out.push_back({"allgather", names(colls::allgather_algorithms()), &mpi::CollectiveConfig::allgather,
                 [w](bool nb, int rank, int size, int n) {
                   const Data in = input(rank, n);
                   Data v(static_cast<size_t>(n) * size, -1);
                   either(
                       nb, [&] { MPI_Allgather(in.data(), n, MPI_INT, v.data(), n, MPI_INT, w); },
                       [&](MPI_Request* rq) { MPI_Iallgather(in.data(), n, MPI_INT, v.data(), n, MPI_INT, w, rq); });
                   return v;
                 }});
  out.push_back({"alltoall", names(colls::alltoall_algorithms()), &mpi::CollectiveConfig::alltoall,
                 [w](bool nb, int rank, int size, int n) {
                   const Data in = input(rank, static_cast<size_t>(n) * size);
                   Data v(static_cast<size_t>(n) * size, -1);
                   either(
                       nb, [&] { MPI_Alltoall(in.data(), n, MPI_INT, v.data(), n, MPI_INT, w); },
                       [&](MPI_Request* rq) { MPI_Ialltoall(in.data(), n, MPI_INT, v.data(), n, MPI_INT, w, rq); });
                   return v;
                 }});
  out.push_back(
      {"reduce_scatter_block", names(colls::reduce_scatter_algorithms()), &mpi::CollectiveConfig::reduce_scatter,
       [w](bool nb, int rank, int size, int n) {
         const Data in = input(rank, static_cast<size_t>(n) * size);
         Data v(n, -1);
         either(
             nb, [&] { MPI_Reduce_scatter_block(in.data(), v.data(), n, MPI_INT, MPI_SUM, w); },
             [&](MPI_Request* rq) { MPI_Ireduce_scatter_block(in.data(), v.data(), n, MPI_INT, MPI_SUM, w, rq); });
         return v;
       }});
  out.push_back({"reduce_scatter", names(colls::reduce_scatter_algorithms()), &mpi::CollectiveConfig::reduce_scatter,
                 [w](bool nb, int rank, int size, int n) {
                   // Unequal parts: rank i gets n + i elements.
                   std::vector<int> counts(size);
                   for (int i = 0; i < size; ++i)
                     counts[i] = n + i;
                   const Data in = input(rank, std::accumulate(counts.begin(), counts.end(), size_t{0}));
                   Data v(counts[rank], -1);
                   either(
                       nb, [&] { MPI_Reduce_scatter(in.data(), v.data(), counts.data(), MPI_INT, MPI_SUM, w); },
                       [&](MPI_Request* rq) {
                         MPI_Ireduce_scatter(in.data(), v.data(), counts.data(), MPI_INT, MPI_SUM, w, rq);
                       });
                   return v;
                 }});
  out.push_back(
      {"scan", names(colls::scan_algorithms()), &mpi::CollectiveConfig::scan, [w](bool nb, int rank, int, int n) {
         const Data in = input(rank, n);
         Data v(n, -1);
         either(
             nb, [&] { MPI_Scan(in.data(), v.data(), n, MPI_INT, MPI_SUM, w); },
             [&](MPI_Request* rq) { MPI_Iscan(in.data(), v.data(), n, MPI_INT, MPI_SUM, w, rq); });
         return v;
       }});
  // Exscan's table has the scan table's names: one key chooses both.
  out.push_back(
      {"exscan", names(colls::exscan_algorithms()), &mpi::CollectiveConfig::scan, [w](bool nb, int rank, int, int n) {
         const Data in = input(rank, n);
         Data v(n, -1);
         either(
             nb, [&] { MPI_Exscan(in.data(), v.data(), n, MPI_INT, MPI_SUM, w); },
             [&](MPI_Request* rq) { MPI_Iexscan(in.data(), v.data(), n, MPI_INT, MPI_SUM, w, rq); });
         return v;
       }});
  return out;
}

// Runs `program` both ways and checks the prediction and the data agree exactly.
void check_equivalent(uint32_t ranks, const mpi::CollectiveConfig& config, int count, const Program& program,
                      const Setup& setup = {}) {
  const Outcome blocking = run_mpi(
      ranks, config, [&](int r, int p) { return program(false, r, p, count); }, setup);
  const Outcome nonblocking = run_mpi(
      ranks, config, [&](int r, int p) { return program(true, r, p, count); }, setup);
  INFO(blocking.report.error);
  REQUIRE(blocking.report.ok);
  INFO(nonblocking.report.error);
  REQUIRE(nonblocking.report.ok);
  CHECK(nonblocking.report.predicted.count_ps() == blocking.report.predicted.count_ps());
  CHECK(nonblocking.report.messages == blocking.report.messages);
  CHECK(nonblocking.data == blocking.data);
}

}  // namespace

TEST_CASE("every algorithm of every collective: MPI_Ix + MPI_Wait predicts exactly MPI_X", "[nbc][equivalence]") {
  // Dimemas's one-step entries are included: they run on the helper like any other algorithm.
  for (const Collective& c : collectives()) {
    for (const std::string& algorithm : c.algorithms) {
      for (uint32_t ranks : {3u, 4u, 6u, 8u}) {
        // 1 int, eager blocks, and blocks above the 16 KiB eager threshold (rendezvous).
        for (int count : {1, 300, 5000}) {
          mpi::CollectiveConfig config;
          config.*(c.key) = algorithm;
          INFO(c.name << " / " << algorithm << " on " << ranks << " ranks, " << count << " ints");
          check_equivalent(ranks, config, count, c.program);
        }
      }
    }
  }
}

TEST_CASE(
    "MPI_Ix + MPI_Wait predicts exactly MPI_X on the analytic backend, with two ranks per node, with send "
    "progress costs",
    "[nbc][equivalence]") {
  const std::vector<std::pair<const char*, Setup>> setups = {
      {"analytic", [](mpi::MachineSetup& m, mpi::JobConfig&) { m.network.backend = "analytic"; }},
      {"two per node", [](mpi::MachineSetup&, mpi::JobConfig& j) { j.procs_per_node = 2; }},
      {"send progress", [](mpi::MachineSetup& m, mpi::JobConfig&) { m.mpi.send_progress_overhead = Time::ns(70); }},
  };
  for (const auto& [what, setup] : setups) {
    for (const Collective& c : collectives()) {
      for (const std::string& algorithm : c.algorithms) {
        for (int count : {1, 5000}) {
          mpi::CollectiveConfig config;
          config.*(c.key) = algorithm;
          INFO(what << ": " << c.name << " / " << algorithm << ", " << count << " ints");
          check_equivalent(6, config, count, c.program, setup);
        }
      }
    }
  }
}

namespace {

// Subtraction as a reduction: not commutative, so the order-preserving path runs.
void subtract(void* in, void* inout, int* len, MPI_Datatype*) {
  const int* a = static_cast<const int*>(in);
  int* b = static_cast<int*>(inout);
  for (int i = 0; i < *len; ++i)
    b[i] = a[i] - b[i];
}

}  // namespace

namespace {

// User operations, a derived datatype and MPI_IN_PLACE, blocking or not.
Data mixed_program(bool nb, int rank, int size, int n) {
  const MPI_Comm w = MPI_COMM_WORLD;
  Data got;
  // A non-commutative operation: gathered to the root and combined in rank order.
  MPI_Op sub;
  MPI_Op_create(subtract, 0, &sub);
  const Data in = input(rank, n);
  Data v(n, -1);
  either(
      nb, [&] { MPI_Allreduce(in.data(), v.data(), n, MPI_INT, sub, w); },
      [&](MPI_Request* rq) { MPI_Iallreduce(in.data(), v.data(), n, MPI_INT, sub, w, rq); });
  got.insert(got.end(), v.begin(), v.end());
  either(
      nb, [&] { MPI_Scan(in.data(), v.data(), n, MPI_INT, sub, w); },
      [&](MPI_Request* rq) { MPI_Iscan(in.data(), v.data(), n, MPI_INT, sub, w, rq); });
  got.insert(got.end(), v.begin(), v.end());
  MPI_Op_free(&sub);
  // A strided datatype: packed before the algorithm, unpacked after.
  MPI_Datatype every_other;
  MPI_Type_vector(n, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  Data strided = rank == 0 ? input(7, 2 * static_cast<size_t>(n)) : Data(2 * static_cast<size_t>(n), -1);
  either(
      nb, [&] { MPI_Bcast(strided.data(), 1, every_other, 0, w); },
      [&](MPI_Request* rq) { MPI_Ibcast(strided.data(), 1, every_other, 0, w, rq); });
  got.insert(got.end(), strided.begin(), strided.end());
  Data red(2 * static_cast<size_t>(n), -1);
  either(
      nb, [&] { MPI_Reduce(strided.data(), red.data(), 1, every_other, MPI_SUM, 0, w); },
      [&](MPI_Request* rq) { MPI_Ireduce(strided.data(), red.data(), 1, every_other, MPI_SUM, 0, w, rq); });
  got.insert(got.end(), red.begin(), red.end());
  MPI_Type_free(&every_other);
  // In place.
  Data all = input(rank, static_cast<size_t>(n) * size);
  either(
      nb, [&] { MPI_Allreduce(MPI_IN_PLACE, all.data(), n * size, MPI_INT, MPI_MAX, w); },
      [&](MPI_Request* rq) { MPI_Iallreduce(MPI_IN_PLACE, all.data(), n * size, MPI_INT, MPI_MAX, w, rq); });
  got.insert(got.end(), all.begin(), all.end());
  either(
      nb, [&] { MPI_Alltoall(MPI_IN_PLACE, 0, MPI_INT, all.data(), n, MPI_INT, w); },
      [&](MPI_Request* rq) { MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_INT, all.data(), n, MPI_INT, w, rq); });
  got.insert(got.end(), all.begin(), all.end());
  return got;
}

}  // namespace

TEST_CASE("non-blocking collectives with user operations, derived datatypes and MPI_IN_PLACE equal the blocking ones",
          "[nbc][equivalence]") {
  for (uint32_t ranks : {3u, 5u, 8u}) {
    for (int count : {2, 3000}) {
      INFO(ranks << " ranks, " << count << " ints");
      check_equivalent(ranks, mpi::CollectiveConfig{}, count, mixed_program);
    }
  }
}

TEST_CASE("computation between MPI_Ix and MPI_Wait overlaps the collective", "[nbc]") {
  constexpr int kCount = 64 * 1024;  // 256 KiB: well over a hundred microseconds on the test torus
  constexpr double kCompute = 100e-6;
  enum class Mode { kBlocking, kComputeOnly, kSequential, kOverlapped };
  auto run = [&](Mode mode) {
    return run_mpi(8, mpi::CollectiveConfig{}, [mode](int rank, int) {
      const Data in = input(rank, kCount);
      Data v(kCount, -1);
      switch (mode) {
        case Mode::kBlocking:
          MPI_Allreduce(in.data(), v.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
          break;
        case Mode::kComputeOnly:
          MPI_Comp(kCompute);
          break;
        case Mode::kSequential:
          MPI_Allreduce(in.data(), v.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
          MPI_Comp(kCompute);
          break;
        case Mode::kOverlapped: {
          MPI_Request rq;
          MPI_Iallreduce(in.data(), v.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
          MPI_Comp(kCompute);
          MPI_Wait(&rq, MPI_STATUS_IGNORE);
          break;
        }
      }
      return v;
    });
  };
  const Outcome blocking = run(Mode::kBlocking), compute = run(Mode::kComputeOnly);
  const Outcome sequential = run(Mode::kSequential), overlapped = run(Mode::kOverlapped);
  for (const Outcome* o : {&blocking, &compute, &sequential, &overlapped}) {
    INFO(o->report.error);
    REQUIRE(o->report.ok);
  }
  const auto t = [](const Outcome& o) { return o.report.predicted.count_ps(); };
  INFO("blocking " << t(blocking) << " ps, compute " << t(compute) << " ps, sequential " << t(sequential)
                   << " ps, overlapped " << t(overlapped) << " ps");
  CHECK(t(blocking) > t(compute) / 2);  // the collective is long enough for overlap to show
  CHECK(t(overlapped) < t(sequential));
  CHECK(t(overlapped) < t(blocking) + t(compute));
  CHECK(t(overlapped) >= std::max(t(blocking), t(compute)));
  CHECK(overlapped.data == blocking.data);
}

TEST_CASE("a non-blocking collective some ranks never start is reported as a deadlock", "[nbc]") {
  const Outcome o = run_mpi(4, mpi::CollectiveConfig{}, [](int rank, int) {
    if (rank != 2) {
      MPI_Request rq;
      MPI_Ibarrier(MPI_COMM_WORLD, &rq);
      if (rank == 0) MPI_Wait(&rq, MPI_STATUS_IGNORE);
      if (rank != 0) MPI_Request_free(&rq);  // detached: its helper still waits for rank 2
    }
    return Data{};
  });
  CHECK_FALSE(o.report.ok);
  CHECK_THAT(o.report.error, Catch::Contains("deadlock"));
  CHECK_THAT(o.report.error, Catch::Contains("non-blocking collective"));
  // Who waits for whom, on the communicator the program named.
  CHECK_THAT(o.report.error, Catch::Contains("rank 0: MPI_Wait for a non-blocking collective (MPI_Ibarrier)"));
  CHECK_THAT(o.report.error, Catch::Contains("rank 1: its non-blocking collective (MPI_Ibarrier) on MPI_COMM_WORLD, "
                                             "waiting for a message from rank 3"));
}

TEST_CASE("MPI_Test polls a non-blocking collective to completion", "[nbc]") {
  constexpr int kCount = 4096;
  Data polls(4, 0);
  const Outcome o = run_mpi(4, mpi::CollectiveConfig{}, [&polls](int rank, int) {
    const Data in = input(rank, kCount);
    Data v(kCount, -1);
    MPI_Request rq;
    MPI_Iallreduce(in.data(), v.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
    int done = 0;
    while (!done) {
      MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
      ++polls[rank];
    }
    CHECK(rq == MPI_REQUEST_NULL);
    return v;
  });
  INFO(o.report.error);
  REQUIRE(o.report.ok);
  const Outcome blocking = run_mpi(4, mpi::CollectiveConfig{}, [](int rank, int) {
    const Data in = input(rank, kCount);
    Data v(kCount, -1);
    MPI_Allreduce(in.data(), v.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return v;
  });
  CHECK(o.data == blocking.data);
  for (int p : polls)
    CHECK(p > 1);  // not done at once: the collective takes time
  CHECK(o.report.predicted.count_ps() >= blocking.report.predicted.count_ps());
}

TEST_CASE(
    "MPI_Alltoallw is timed as MPI_Alltoallv of the same bytes, Ialltoallw and persistent collectives as the "
    "blocking ones",
    "[nbc][equivalence]") {
  const MPI_Comm w = MPI_COMM_WORLD;
  // Uneven blocks: rank r sends n + (r + i) % 3 ints to rank i (and receives as many from it).
  auto layout = [](int rank, int size, int n, std::vector<int>& counts, std::vector<int>& displs) {
    counts.assign(size, 0);
    displs.assign(size, 0);
    for (int i = 0; i < size; ++i) {
      counts[i] = n + (rank + i) % 3;
      if (i > 0) displs[i] = displs[i - 1] + counts[i - 1];
    }
    return static_cast<size_t>(displs[size - 1] + counts[size - 1]);
  };
  // false: MPI_Alltoallv; true: MPI_Alltoallw with MPI_INT everywhere (displacements in bytes).
  const Program w_as_v = [w, layout](bool as_w, int rank, int size, int n) {
    std::vector<int> counts, displs;
    const size_t total = layout(rank, size, n, counts, displs);
    const Data in = input(rank, total);
    Data v(total, -1);
    if (!as_w) {
      MPI_Alltoallv(in.data(), counts.data(), displs.data(), MPI_INT, v.data(), counts.data(), displs.data(), MPI_INT,
                    w);
      return v;
    }
    std::vector<int> bytes(displs.size());
    for (size_t i = 0; i < displs.size(); ++i)
      bytes[i] = displs[i] * static_cast<int>(sizeof(int));
    const std::vector<MPI_Datatype> types(displs.size(), MPI_INT);
    MPI_Alltoallw(in.data(), counts.data(), bytes.data(), types.data(), v.data(), counts.data(), bytes.data(),
                  types.data(), w);
    return v;
  };
  const Program nonblocking_w = [w, layout](bool nb, int rank, int size, int n) {
    std::vector<int> counts, displs;
    const size_t total = layout(rank, size, n, counts, displs);
    for (int& d : displs)
      d *= static_cast<int>(sizeof(int));
    const std::vector<MPI_Datatype> types(displs.size(), MPI_INT);
    const Data in = input(rank, total);
    Data v(total, -1);
    either(
        nb,
        [&] {
          MPI_Alltoallw(in.data(), counts.data(), displs.data(), types.data(), v.data(), counts.data(), displs.data(),
                        types.data(), w);
        },
        [&](MPI_Request* rq) {
          MPI_Ialltoallw(in.data(), counts.data(), displs.data(), types.data(), v.data(), counts.data(), displs.data(),
                         types.data(), w, rq);
        });
    return v;
  };
  // false: MPI_Iallreduce + MPI_Wait, twice; true: MPI_Allreduce_init, two starts, each waited.
  const Program persistent = [w](bool p, int rank, int, int n) {
    Data in = input(rank, n), v(n, -1), both;
    MPI_Request rq = MPI_REQUEST_NULL;
    if (p) MPI_Allreduce_init(in.data(), v.data(), n, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &rq);
    for (int round = 0; round < 2; ++round) {
      in[0] = round;
      if (p) {
        MPI_Start(&rq);
      } else {
        MPI_Iallreduce(in.data(), v.data(), n, MPI_INT, MPI_SUM, w, &rq);
      }
      MPI_Wait(&rq, MPI_STATUS_IGNORE);
      both.insert(both.end(), v.begin(), v.end());
    }
    if (p) MPI_Request_free(&rq);
    return both;
  };
  for (uint32_t ranks : {3u, 4u, 8u}) {
    for (int count : {1, 300, 5000}) {
      INFO(ranks << " ranks, " << count << " ints");
      check_equivalent(ranks, {}, count, w_as_v);
      check_equivalent(ranks, {}, count, nonblocking_w);
      check_equivalent(ranks, {}, count, persistent);
    }
  }
}
