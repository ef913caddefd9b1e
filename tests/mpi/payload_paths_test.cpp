// Received data is exact on every path a payload takes: eager (inline and on the heap) and
// rendezvous, into a receive posted before the message arrives or from the unexpected queue,
// between two nodes and inside one (a node's memory), with the sender overwriting its buffers
// as soon as its sends complete. The truth is the sender's pattern.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "harness.hpp"

using namespace mgen;

namespace {

mpi::RunReport run_pair(uint32_t ppn, const std::function<void(int)>& body) {
  mpi::JobConfig job;
  job.ranks = 2;
  job.procs_per_node = ppn;
  job.stack_bytes = 256 * 1024;
  job.measure_compute = false;
  return mpi::run_job(test::machine_for(64), job,
                      [&body](int, char**) {
                        mpi::mpi_program_begin();
                        MPI_Init(nullptr, nullptr);
                        int rank = 0;
                        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
                        body(rank);
                        MPI_Finalize();
                        mpi::mpi_program_end();
                      },
                      {"payload_paths_test"});
}

unsigned char pattern(int message, size_t i) {
  return static_cast<unsigned char>((i * 131 + static_cast<size_t>(message) * 17 + 1) & 0xff);
}

}  // namespace

TEST_CASE("payloads arrive exactly on the posted and unexpected eager and rendezvous paths", "[p2p][payload]") {
  // The test machine's eager limit is 16 KiB; messages up to 64 bytes travel inline.
  const std::vector<int> sizes = {1, 64, 65, 1000, 16384, 16385, 100000, 1 << 20};
  for (const uint32_t ppn : {1u, 2u}) {
    for (const bool posted : {true, false}) {
      std::vector<std::vector<unsigned char>> got(sizes.size());
      const auto r = run_pair(ppn, [&](int rank) {
        const int n = static_cast<int>(sizes.size());
        if (rank == 0) {
          // Non-blocking, so that the rendezvous sends can wait for receives posted after the
          // barrier; each buffer is overwritten as soon as the sends completed.
          std::vector<std::vector<unsigned char>> bufs(static_cast<size_t>(n));
          std::vector<MPI_Request> reqs(static_cast<size_t>(n));
          if (posted) MPI_Barrier(MPI_COMM_WORLD);  // the receives are posted by now
          for (int m = 0; m < n; ++m) {
            bufs[m].resize(static_cast<size_t>(sizes[m]));
            for (size_t i = 0; i < bufs[m].size(); ++i)
              bufs[m][i] = pattern(m, i);
            MPI_Isend(bufs[m].data(), sizes[m], MPI_BYTE, 1, m, MPI_COMM_WORLD, &reqs[m]);
          }
          if (!posted) MPI_Barrier(MPI_COMM_WORLD);
          MPI_Waitall(n, reqs.data(), MPI_STATUSES_IGNORE);
          for (auto& b : bufs)
            std::memset(b.data(), 0xAB, b.size());
        } else {
          std::vector<MPI_Request> reqs(static_cast<size_t>(n));
          for (int m = 0; m < n; ++m)
            got[m].assign(static_cast<size_t>(sizes[m]), 0x5A);
          if (posted) {
            for (int m = 0; m < n; ++m)
              MPI_Irecv(got[m].data(), sizes[m], MPI_BYTE, 0, m, MPI_COMM_WORLD, &reqs[m]);
            MPI_Barrier(MPI_COMM_WORLD);
          } else {
            // The eager messages are all in (unexpected) once rank 0 reached the barrier; the
            // rendezvous ones wait there as requests to send. Received in reverse order.
            MPI_Barrier(MPI_COMM_WORLD);
            for (int m = n - 1; m >= 0; --m)
              MPI_Irecv(got[m].data(), sizes[m], MPI_BYTE, 0, m, MPI_COMM_WORLD, &reqs[m]);
          }
          MPI_Waitall(n, reqs.data(), MPI_STATUSES_IGNORE);
        }
      });
      INFO("ppn " << ppn << (posted ? ", posted" : ", unexpected"));
      REQUIRE(r.ok);
      for (size_t m = 0; m < sizes.size(); ++m) {
        INFO("message of " << sizes[m] << " bytes");
        std::vector<unsigned char> want(static_cast<size_t>(sizes[m]));
        for (size_t i = 0; i < want.size(); ++i)
          want[i] = pattern(static_cast<int>(m), i);
        CHECK(got[m] == want);
      }
    }
  }
}

TEST_CASE("a truncated receive gets exactly the bytes that fit, posted or unexpected", "[p2p][payload]") {
  for (const bool posted : {true, false}) {
    for (const int size : {1000, 100000}) {
      std::vector<unsigned char> got(static_cast<size_t>(size), 0x5A);
      int cls = -1;
      const auto r = run_pair(1, [&](int rank) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        if (rank == 0) {
          std::vector<unsigned char> buf(static_cast<size_t>(size));
          for (size_t i = 0; i < buf.size(); ++i)
            buf[i] = pattern(3, i);
          MPI_Request q;
          if (posted) MPI_Barrier(MPI_COMM_WORLD);
          MPI_Isend(buf.data(), size, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &q);
          if (!posted) MPI_Barrier(MPI_COMM_WORLD);
          MPI_Wait(&q, MPI_STATUS_IGNORE);
        } else {
          MPI_Request q;
          if (!posted) MPI_Barrier(MPI_COMM_WORLD);
          MPI_Irecv(got.data(), size / 2, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &q);
          if (posted) MPI_Barrier(MPI_COMM_WORLD);
          MPI_Status st;
          MPI_Error_class(MPI_Wait(&q, &st), &cls);
        }
      });
      REQUIRE(r.ok);
      INFO((posted ? "posted, " : "unexpected, ") << size << " bytes");
      CHECK(cls == MPI_ERR_TRUNCATE);
      for (size_t i = 0; i < got.size(); ++i) {
        const unsigned char want = i < got.size() / 2 ? pattern(3, i) : 0x5A;
        if (got[i] != want) {
          FAIL_CHECK("byte " << i << " is " << int(got[i]) << ", not " << int(want));
          break;
        }
      }
    }
  }
}
