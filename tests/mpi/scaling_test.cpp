// The scaling aids of <mgen/mpix.h>: shared buffers (one buffer for every rank, messages from
// and to them charged but not copied) and loop sampling (the first iterations run and are
// measured, the rest are charged their mean), against closed forms.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <ctime>
#include <vector>

#include "harness.hpp"
#include "mgen/mpix.h"

using namespace mgen;
using test::Time;

namespace {

// `body(rank, size)` as an MPI program on one rank per node (or `ppn`), modelled time only.
mpi::RunReport run_mpi(uint32_t ranks, const std::function<void(int, int)>& body, uint32_t ppn = 1) {
  mpi::JobConfig job;
  job.ranks = ranks;
  job.procs_per_node = ppn;
  job.stack_bytes = 256 * 1024;
  job.measure_compute = false;
  return mpi::run_job(test::machine_for(64), job,
                      [&body](int, char**) {
                        mpi::mpi_program_begin();
                        MPI_Init(nullptr, nullptr);
                        int rank = 0, size = 0;
                        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
                        MPI_Comm_size(MPI_COMM_WORLD, &size);
                        body(rank, size);
                        MPI_Finalize();
                        mpi::mpi_program_end();
                      },
                      {"scaling_test"});
}

constexpr int kEager = 1000, kRendezvous = 100000;  // bytes; the test machine's eager limit is 16 KiB

}  // namespace

TEST_CASE("MGEN_SHARED_MALLOC gives every rank the same buffer per call site and size", "[scaling][shared]") {
  std::vector<void*> site_a(4), site_b(4), keyed(4), again(4);
  std::vector<int> contained(4), after_free(4, -1);
  const auto r = run_mpi(4, [&](int rank, int) {
    void* a = MGEN_SHARED_MALLOC(1 << 20);
    void* b = MGEN_SHARED_MALLOC(1 << 20);  // another line: another buffer
    site_a[rank] = a;
    site_b[rank] = b;
    keyed[rank] = MGEN_SHARED_MALLOC_KEY(4096, "halo");
    contained[rank] = MGEN_Shared_contains(static_cast<char*>(a) + 12345);
    MPI_Barrier(MPI_COMM_WORLD);
    MGEN_SHARED_FREE(a);
    MGEN_SHARED_FREE(b);
    MGEN_SHARED_FREE(keyed[rank]);
    MPI_Barrier(MPI_COMM_WORLD);
    after_free[rank] = MGEN_Shared_contains(a);
    again[rank] = nullptr;
  });
  REQUIRE(r.ok);
  for (int i = 0; i < 4; ++i) {
    CHECK(site_a[i] == site_a[0]);
    CHECK(site_b[i] == site_b[0]);
    CHECK(keyed[i] == keyed[0]);
    CHECK(contained[i] == 1);
    CHECK(after_free[i] == 0);  // the last free released it
  }
  CHECK(site_a[0] != site_b[0]);
  CHECK(site_a[0] != keyed[0]);
}

TEST_CASE("freeing a buffer that is not shared is an MPI error naming the call", "[scaling][shared]") {
  int x = 0;
  const auto r = run_mpi(1, [&](int, int) { MGEN_SHARED_FREE(&x); });
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.error, Catch::Contains("MGEN_SHARED_FREE") && Catch::Contains("not a buffer from MGEN_SHARED_MALLOC"));
}

TEST_CASE("messages from and to shared buffers cost the same and move no bytes", "[scaling][shared]") {
  // Rank 0 sends eager and rendezvous messages to rank 1, once from and into private buffers,
  // once from a shared buffer into a private one, once from a private buffer into a shared
  // one; intra-node (2 per node) and across nodes.
  for (const uint32_t ppn : {1u, 2u}) {
    for (const int mode : {0, 1, 2}) {  // 0: private, 1: shared source, 2: shared destination
      std::vector<unsigned char> got_eager(kEager), got_rdv(kRendezvous);
      unsigned char shared_after = 0;
      const auto r = run_mpi(
          2,
          [&](int rank, int) {
            unsigned char* shared = static_cast<unsigned char*>(MGEN_SHARED_MALLOC(kRendezvous));
            if (rank == 1) std::memset(shared, 0xEE, kRendezvous);
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0) {
              std::vector<unsigned char> mine(kRendezvous, 0x11);
              const unsigned char* from = mode == 1 ? shared : mine.data();
              MPI_Send(from, kEager, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
              MPI_Send(from, kRendezvous, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
            } else {
              std::vector<unsigned char> eager(kEager, 0x22), rdv(kRendezvous, 0x22);
              unsigned char* into_eager = mode == 2 ? shared : eager.data();
              unsigned char* into_rdv = mode == 2 ? shared : rdv.data();
              MPI_Recv(into_eager, kEager, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
              MPI_Recv(into_rdv, kRendezvous, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
              got_eager = eager;
              got_rdv = rdv;
              shared_after = shared[0];
            }
            MPI_Barrier(MPI_COMM_WORLD);
            MGEN_SHARED_FREE(shared);
          },
          ppn);
      REQUIRE(r.ok);
      INFO("ppn " << ppn << ", mode " << mode);
      static Time private_time;
      if (mode == 0) {
        private_time = r.predicted;
        CHECK(got_eager == std::vector<unsigned char>(kEager, 0x11));
        CHECK(got_rdv == std::vector<unsigned char>(kRendezvous, 0x11));
      } else {
        CHECK(r.predicted == private_time);  // the network charged the same bytes
        if (mode == 1) {                     // nothing was copied from the shared buffer
          CHECK(got_eager == std::vector<unsigned char>(kEager, 0x22));
          CHECK(got_rdv == std::vector<unsigned char>(kRendezvous, 0x22));
        } else {  // nothing was copied into it
          CHECK(shared_after == 0xEE);
        }
      }
    }
  }
}

TEST_CASE("MGEN_SAMPLE_LOCAL runs the first iterations and charges their mean for the rest", "[scaling][sample]") {
  // Iteration i costs (i + 1) us. With 3 samples: 1 + 2 + 3 us measured, mean 2 us, charged
  // for the remaining 7 iterations: 6 + 7 x 2 = 20 us; the body runs 3 times.
  std::vector<double> elapsed(2);
  std::vector<int> runs(2);
  const auto r = run_mpi(2, [&](int rank, int) {
    const double t0 = MPI_Wtime();
    for (int i = 0; i < 10; ++i) {
      MGEN_SAMPLE_LOCAL(3, 0) {
        ++runs[rank];
        MPI_Comp((i + 1) * 1e-6);
      }
    }
    elapsed[rank] = MPI_Wtime() - t0;
  });
  REQUIRE(r.ok);
  for (int rank = 0; rank < 2; ++rank) {
    CHECK(runs[rank] == 3);  // per rank: LOCAL
    CHECK(elapsed[rank] == Approx(20e-6).epsilon(1e-9));
  }
}

TEST_CASE("MGEN_SAMPLE_GLOBAL shares the samples of all ranks", "[scaling][sample]") {
  // 4 ranks x 5 iterations, 3 samples in all (on whichever ranks ran first): every iteration
  // that did not run is charged the mean of the 3, so the ranks' times add up to
  // sum(samples) + (20 - 3) x mean.
  std::vector<double> elapsed(4), sampled;
  std::vector<int> runs(4);
  const auto r = run_mpi(4, [&](int rank, int) {
    const double t0 = MPI_Wtime();
    for (int i = 0; i < 5; ++i) {
      MGEN_SAMPLE_GLOBAL(3, 0) {
        ++runs[rank];
        const double cost = (rank + 1) * 1e-6 + i * 1e-7;
        sampled.push_back(cost);
        MPI_Comp(cost);
      }
    }
    elapsed[rank] = MPI_Wtime() - t0;
  });
  REQUIRE(r.ok);
  REQUIRE(sampled.size() == 3);
  const double mean = (sampled[0] + sampled[1] + sampled[2]) / 3;
  double total = 0;
  for (int rank = 0; rank < 4; ++rank)
    total += elapsed[rank];
  CHECK(runs[0] + runs[1] + runs[2] + runs[3] == 3);
  CHECK(total == Approx(3 * mean + 17 * mean).epsilon(1e-6));
  for (int rank = 0; rank < 4; ++rank) {
    if (runs[rank] == 0) CHECK(elapsed[rank] == Approx(5 * mean).epsilon(1e-6));
  }
}

TEST_CASE("a sampling threshold stops early once the samples agree; MGEN_SAMPLE_DELAY charges a fixed time",
          "[scaling][sample]") {
  int runs = 0, delayed_runs = 0;
  double elapsed = 0, delayed = 0;
  const auto r = run_mpi(1, [&](int, int) {
    double t0 = MPI_Wtime();
    for (int i = 0; i < 10; ++i) {
      MGEN_SAMPLE_LOCAL(8, 0.01) {  // identical durations: 2 samples have no deviation
        ++runs;
        MPI_Comp(5e-6);
      }
    }
    elapsed = MPI_Wtime() - t0;
    t0 = MPI_Wtime();
    for (int i = 0; i < 4; ++i) {
      MGEN_SAMPLE_DELAY(3e-6) {
        ++delayed_runs;
      }
    }
    delayed = MPI_Wtime() - t0;
  });
  REQUIRE(r.ok);
  CHECK(runs == 2);
  CHECK(elapsed == Approx(50e-6).epsilon(1e-9));
  CHECK(delayed_runs == 0);
  CHECK(delayed == Approx(12e-6).epsilon(1e-9));
}

TEST_CASE("sampling with measured compute charges the measured mean", "[scaling][sample]") {
  // A busy loop's cost is its measured CPU time: the body's own clock says what the 3 real
  // iterations took, and the 10 iterations are charged 10/3 of that (within the measuring
  // noise of the calls around the body).
  mpi::JobConfig job;
  job.ranks = 1;
  job.stack_bytes = 256 * 1024;
  job.measure_compute = true;
  int runs = 0;
  double elapsed = 0, measured = 0;
  volatile double sink = 0;
  const auto r = mpi::run_job(test::machine_for(1), job,
                              [&](int, char**) {
                                mpi::mpi_program_begin();
                                MPI_Init(nullptr, nullptr);
                                const double t0 = MPI_Wtime();
                                for (int i = 0; i < 10; ++i) {
                                  MGEN_SAMPLE_LOCAL(3, 0) {
                                    ++runs;
                                    timespec a{}, b{};
                                    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
                                    for (int k = 0; k < 5000000; ++k)
                                      sink = sink + k * 0.5;
                                    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
                                    measured += static_cast<double>(b.tv_sec - a.tv_sec) +
                                                static_cast<double>(b.tv_nsec - a.tv_nsec) * 1e-9;
                                  }
                                }
                                elapsed = MPI_Wtime() - t0;
                                MPI_Finalize();
                                mpi::mpi_program_end();
                              },
                              {"scaling_test"});
  REQUIRE(r.ok);
  CHECK(runs == 3);
  REQUIRE(measured > 0);
  CHECK(elapsed == Approx(measured * 10 / 3).epsilon(0.2));
}
