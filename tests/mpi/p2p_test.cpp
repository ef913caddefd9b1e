// Point-to-point semantics, errors and timing against closed forms.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <vector>

#include "harness.hpp"

using namespace mgen::test;
using mgen::simcore::transfer_time;

namespace {

int64_t ps(double seconds) {
  return std::llround(seconds * 1e12);
}

// Zero-load time of one message on test_machine() between neighbouring routers (1 hop, two
// routers): the closed form of docs/network-model.md with 4 GB/s everywhere.
int64_t network_ps(uint64_t wire_bytes, uint32_t routers = 2) {
  const uint64_t full = wire_bytes / 2048, rest = wire_bytes % 2048;
  const uint64_t packets = wire_bytes == 0 ? 1 : full + (rest ? 1 : 0);
  const uint64_t last = (wire_bytes == 0 ? 0 : (rest ? rest : 2048)) + 32;
  const auto ser = [](uint64_t b) { return transfer_time(Bytes(b), Bandwidth::gigabytes_per_second(4)).count_ps(); };
  return 2 * 10000 + (routers - 1) * 600 + routers * 140000 + static_cast<int64_t>(packets - 1) * ser(2080) + ser(last);
}

constexpr int64_t kOverhead = 100000;  // send and receive overheads of test_machine(), ps

}  // namespace

TEST_CASE("a message carries its data, tag and source", "[p2p]") {
  const auto r = run(2, [](int rank, int) {
    if (rank == 0) {
      int v[3] = {7, 8, 9};
      MGEN_Send(v, 3, MGEN_INT, 1, 42, MGEN_COMM_WORLD);
    } else {
      int v[3] = {0, 0, 0};
      MGEN_Status st;
      MGEN_Recv(v, 3, MGEN_INT, 0, 42, MGEN_COMM_WORLD, &st);
      int count = 0;
      MGEN_Get_count(&st, MGEN_INT, &count);
      CHECK(v[0] == 7);
      CHECK(v[2] == 9);
      CHECK(st.MGEN_SOURCE == 0);
      CHECK(st.MGEN_TAG == 42);
      CHECK(count == 3);
    }
  });
  REQUIRE(r.ok);
}

TEST_CASE("messages from one sender match in the order they were sent", "[p2p][order]") {
  // A large (rendezvous) message followed by small eager ones with the same tag: the small ones
  // overtake it in the network, yet must be received after it.
  const auto r = run(2, [](int rank, int) {
    std::vector<int> big(20000, 0);
    if (rank == 0) {
      std::iota(big.begin(), big.end(), 1);
      MGEN_Request reqs[4];
      MGEN_Isend(big.data(), 20000, MGEN_INT, 1, 5, MGEN_COMM_WORLD, &reqs[0]);
      int small[3] = {100, 200, 300};
      for (int i = 0; i < 3; ++i)
        MGEN_Isend(&small[i], 1, MGEN_INT, 1, 5, MGEN_COMM_WORLD, &reqs[i + 1]);
      MGEN_Waitall(4, reqs, MGEN_STATUSES_IGNORE);
    } else {
      MGEN_Comp(5e-6);  // let everything arrive first: all of it sits in the unexpected queue
      MGEN_Status st;
      MGEN_Recv(big.data(), 20000, MGEN_INT, 0, 5, MGEN_COMM_WORLD, &st);
      CHECK(st.count_bytes == 80000);
      CHECK(big[19999] == 20000);
      for (int expect : {100, 200, 300}) {
        int v = 0;
        MGEN_Recv(&v, 1, MGEN_INT, 0, 5, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
        CHECK(v == expect);
      }
    }
  });
  REQUIRE(r.ok);
}

TEST_CASE("wildcards, probe and get_count", "[p2p]") {
  const auto r = run(5, [](int rank, int size) {
    if (rank != 0) {
      std::vector<double> v(static_cast<size_t>(rank), rank);
      MGEN_Send(v.data(), rank, MGEN_DOUBLE, 0, 10 + rank, MGEN_COMM_WORLD);
      return;
    }
    std::vector<int> seen;
    for (int i = 1; i < size; ++i) {
      MGEN_Status st;
      MGEN_Probe(MGEN_ANY_SOURCE, MGEN_ANY_TAG, MGEN_COMM_WORLD, &st);
      int n = 0;
      MGEN_Get_count(&st, MGEN_DOUBLE, &n);
      CHECK(n == st.MGEN_SOURCE);
      CHECK(st.MGEN_TAG == 10 + st.MGEN_SOURCE);
      std::vector<double> v(static_cast<size_t>(n));
      MGEN_Recv(v.data(), n, MGEN_DOUBLE, st.MGEN_SOURCE, st.MGEN_TAG, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
      CHECK(v.back() == st.MGEN_SOURCE);
      seen.push_back(st.MGEN_SOURCE);
    }
    std::sort(seen.begin(), seen.end());
    CHECK(seen == std::vector<int>{1, 2, 3, 4});
    int flag = 1;
    MGEN_Iprobe(MGEN_ANY_SOURCE, MGEN_ANY_TAG, MGEN_COMM_WORLD, &flag, MGEN_STATUS_IGNORE);
    CHECK(flag == 0);
  });
  REQUIRE(r.ok);
}

TEST_CASE("non-blocking completion: test, waitany, testall", "[p2p]") {
  const auto r = run(3, [](int rank, int) {
    if (rank == 0) {
      int a = 1, b = 2;
      MGEN_Comp(1e-6);
      MGEN_Send(&a, 1, MGEN_INT, 1, 0, MGEN_COMM_WORLD);
      MGEN_Comp(1e-6);
      MGEN_Send(&b, 1, MGEN_INT, 1, 1, MGEN_COMM_WORLD);
    } else if (rank == 1) {
      int x = 0, y = 0;
      MGEN_Request reqs[2];
      MGEN_Irecv(&x, 1, MGEN_INT, 0, 0, MGEN_COMM_WORLD, &reqs[0]);
      MGEN_Irecv(&y, 1, MGEN_INT, 0, 1, MGEN_COMM_WORLD, &reqs[1]);
      int flag = 1;
      MGEN_Test(&reqs[0], &flag, MGEN_STATUS_IGNORE);
      CHECK(flag == 0);  // nothing can have arrived at t = 0
      int index = -1;
      MGEN_Waitany(2, reqs, &index, MGEN_STATUS_IGNORE);
      CHECK(index == 0);
      CHECK(x == 1);
      CHECK(reqs[0] == MGEN_REQUEST_NULL);
      MGEN_Testall(2, reqs, &flag, MGEN_STATUSES_IGNORE);
      CHECK(flag == 0);
      MGEN_Comp(5e-6);
      MGEN_Testall(2, reqs, &flag, MGEN_STATUSES_IGNORE);
      CHECK(flag == 1);
      CHECK(y == 2);
      MGEN_Waitany(2, reqs, &index, MGEN_STATUS_IGNORE);
      CHECK(index == MGEN_UNDEFINED);
    }
  });
  REQUIRE(r.ok);
}

TEST_CASE("communicators keep their messages apart", "[p2p][comm]") {
  const auto r = run(4, [](int rank, int) {
    MGEN_Comm dup;
    MGEN_Comm_dup(MGEN_COMM_WORLD, &dup);
    if (rank == 0) {
      int a = 1, b = 2;
      MGEN_Send(&a, 1, MGEN_INT, 1, 0, dup);
      MGEN_Send(&b, 1, MGEN_INT, 1, 0, MGEN_COMM_WORLD);
    } else if (rank == 1) {
      int v = 0;
      MGEN_Recv(&v, 1, MGEN_INT, 0, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
      CHECK(v == 2);  // the world message, though the dup one was sent first
      MGEN_Recv(&v, 1, MGEN_INT, 0, 0, dup, MGEN_STATUS_IGNORE);
      CHECK(v == 1);
    }
    // Split into even and odd, ordered by descending key.
    MGEN_Comm half;
    MGEN_Comm_split(MGEN_COMM_WORLD, rank % 2, -rank, &half);
    int hr = -1, hs = 0;
    MGEN_Comm_rank(half, &hr);
    MGEN_Comm_size(half, &hs);
    CHECK(hs == 2);
    CHECK(hr == (rank < 2 ? 1 : 0));
    int token = rank, got = -1;
    MGEN_Sendrecv(&token, 1, MGEN_INT, 1 - hr, 3, &got, 1, MGEN_INT, 1 - hr, 3, half, MGEN_STATUS_IGNORE);
    CHECK(got == (rank + 2) % 4);
    MGEN_Comm_free(&half);
    MGEN_Comm_free(&dup);
    CHECK(dup == MGEN_COMM_NULL);
  });
  REQUIRE(r.ok);
}

TEST_CASE("groups and Cartesian topologies", "[p2p][comm]") {
  const auto r = run(6, [](int rank, int) {
    int dims[2] = {0, 0};
    MGEN_Dims_create(6, 2, dims);
    CHECK(dims[0] == 3);
    CHECK(dims[1] == 2);
    const int periods[2] = {1, 0};
    MGEN_Comm cart;
    MGEN_Cart_create(MGEN_COMM_WORLD, 2, dims, periods, 0, &cart);
    int coords[2];
    MGEN_Cart_coords(cart, rank, 2, coords);
    CHECK(coords[0] == rank / 2);
    CHECK(coords[1] == rank % 2);
    int back = -1;
    MGEN_Cart_rank(cart, coords, &back);
    CHECK(back == rank);
    int src, dst;
    MGEN_Cart_shift(cart, 0, 1, &src, &dst);  // periodic
    CHECK(dst == (rank + 2) % 6);
    CHECK(src == (rank + 4) % 6);
    MGEN_Cart_shift(cart, 1, 1, &src, &dst);  // not periodic
    CHECK(dst == (rank % 2 == 0 ? rank + 1 : MGEN_PROC_NULL));
    CHECK(src == (rank % 2 == 1 ? rank - 1 : MGEN_PROC_NULL));
    // A shift to MGEN_PROC_NULL is a no-op send and receive.
    int v = rank, w = -7;
    MGEN_Sendrecv(&v, 1, MGEN_INT, dst, 0, &w, 1, MGEN_INT, src, 0, cart, MGEN_STATUS_IGNORE);
    CHECK(w == (src == MGEN_PROC_NULL ? -7 : src));

    MGEN_Group world, evens;
    MGEN_Comm_group(MGEN_COMM_WORLD, &world);
    const int pick[3] = {0, 2, 4};
    MGEN_Group_incl(world, 3, pick, &evens);
    int gr = -2, gs = 0;
    MGEN_Group_rank(evens, &gr);
    MGEN_Group_size(evens, &gs);
    CHECK(gs == 3);
    CHECK(gr == (rank % 2 == 0 ? rank / 2 : MGEN_UNDEFINED));
    MGEN_Comm ec;
    MGEN_Comm_create(MGEN_COMM_WORLD, evens, &ec);
    CHECK((ec == MGEN_COMM_NULL) == (rank % 2 == 1));
    const int local[3] = {0, 1, 2};
    int translated[3];
    MGEN_Group_translate_ranks(evens, 3, local, world, translated);
    CHECK(translated[1] == 2);
    CHECK(translated[2] == 4);
    MGEN_Group_free(&evens);
    MGEN_Group_free(&world);
  });
  INFO(r.error);
  REQUIRE(r.ok);
}

TEST_CASE("invalid calls stop the run with the rank, the call and the reason", "[p2p][errors]") {
  auto error_of = [](const std::function<void(int, int)>& body) {
    const auto r = run(2, body);
    CHECK_FALSE(r.ok);
    return r.error;
  };
  CHECK_THAT(error_of([](int rank, int) {
               if (rank == 0) MGEN_Send(nullptr, 1, MGEN_INT, 5, 0, MGEN_COMM_WORLD);
             }),
             Catch::Contains("rank 0: MGEN_Send: MGEN_ERR_RANK: destination 5 is not a rank"));
  CHECK_THAT(
      error_of([](int rank, int) {
        int big[8] = {}, small[2] = {};
        if (rank == 0) MGEN_Send(big, 8, MGEN_INT, 1, 0, MGEN_COMM_WORLD);
        if (rank == 1) MGEN_Recv(small, 2, MGEN_INT, 0, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
      }),
      Catch::Contains("rank 1: MGEN_Recv: MGEN_ERR_TRUNCATE: a message of 32 bytes from rank 0 (tag 0) is longer "
                      "than the receive buffer of 8 bytes"));
  CHECK_THAT(error_of([](int, int) { MGEN_Send(nullptr, 1, 999, 0, 0, MGEN_COMM_WORLD); }),
             Catch::Contains("MGEN_ERR_TYPE"));
  CHECK_THAT(error_of([](int, int) { MGEN_Send(nullptr, 1, MGEN_INT, 0, -4, MGEN_COMM_WORLD); }),
             Catch::Contains("invalid tag -4"));
  CHECK_THAT(error_of([](int, int) { MGEN_Barrier(77); }), Catch::Contains("invalid communicator 77"));
  CHECK_THAT(error_of([](int rank, int) {
               if (rank == 1) MGEN_Abort(MGEN_COMM_WORLD, 3);
               MGEN_Barrier(MGEN_COMM_WORLD);
             }),
             Catch::Contains("rank 1 called MGEN_Abort with error code 3"));
}

TEST_CASE("a deadlock names every blocked rank and its call", "[p2p][errors]") {
  const auto r = run(3, [](int rank, int) {
    int v = 0;
    if (rank < 2) MGEN_Recv(&v, 1, MGEN_INT, 1 - rank, 9, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
  });
  REQUIRE_FALSE(r.ok);
  CHECK_THAT(r.error, Catch::Contains("deadlock: 2 of 3 ranks are blocked"));
  CHECK_THAT(r.error, Catch::Contains("rank 0: MGEN_Recv from rank 1, tag 9, on MGEN_COMM_WORLD (waiting since"));
  CHECK_THAT(r.error, Catch::Contains("rank 1: MGEN_Recv from rank 0, tag 9, on MGEN_COMM_WORLD (waiting since"));
}

TEST_CASE("ping-pong time is the network closed form plus the overheads", "[p2p][timing]") {
  // Ranks 0 and 1 sit on neighbouring routers of test_machine(). One way of an eager message:
  // send overhead + network time of payload + envelope + receive overhead.
  for (uint64_t bytes : {0, 8, 1000, 16384}) {
    double rtt = 0;
    const auto r = run(2, [&](int rank, int) {
      std::vector<char> buf(bytes);
      const int n = static_cast<int>(bytes);
      if (rank == 0) {
        const double t0 = MGEN_Wtime();
        MGEN_Send(buf.data(), n, MGEN_BYTE, 1, 0, MGEN_COMM_WORLD);
        MGEN_Recv(buf.data(), n, MGEN_BYTE, 1, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
        rtt = MGEN_Wtime() - t0;
      } else {
        MGEN_Recv(buf.data(), n, MGEN_BYTE, 0, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
        MGEN_Send(buf.data(), n, MGEN_BYTE, 0, 0, MGEN_COMM_WORLD);
      }
    });
    REQUIRE(r.ok);
    INFO(bytes << " bytes");
    CHECK(ps(rtt) == 2 * (kOverhead + network_ps(bytes + 64) + kOverhead));
  }
}

TEST_CASE("above the eager threshold a message pays the rendezvous round trip", "[p2p][timing]") {
  const uint64_t bytes = 16385;  // one byte over the threshold
  double one_way = 0;
  const auto r = run(2, [&](int rank, int) {
    if (rank == 0) {
      MGEN_Send(nullptr, static_cast<int>(bytes), MGEN_BYTE, 1, 0, MGEN_COMM_WORLD);
    } else {
      MGEN_Recv(nullptr, static_cast<int>(bytes), MGEN_BYTE, 0, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
      one_way = MGEN_Wtime();
    }
  });
  REQUIRE(r.ok);
  // Request-to-send and clear-to-send are envelope-sized; the data goes without an envelope.
  CHECK(ps(one_way) == kOverhead + network_ps(64) + network_ps(64) + network_ps(bytes) + kOverhead);
}

TEST_CASE("ranks of one node exchange through memory, not the network", "[p2p][timing]") {
  double one_way = 0;
  const auto r = run(
      2,
      [&](int rank, int) {
        if (rank == 0) {
          MGEN_Send(nullptr, 10000, MGEN_BYTE, 1, 0, MGEN_COMM_WORLD);
        } else {
          MGEN_Recv(nullptr, 10000, MGEN_BYTE, 0, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
          one_way = MGEN_Wtime();
        }
      },
      test_machine(), 2);
  REQUIRE(r.ok);
  // 10064 bytes at 10 GB/s = 1006.4 ns, plus 300 ns memory latency.
  CHECK(ps(one_way) == kOverhead + 1006400 + 300000 + kOverhead);
  CHECK(r.network.packets == 0);
  CHECK(r.intra_node_messages == 1);
}

TEST_CASE("an RDMA put completes when the target's acknowledgement is back", "[p2p][rdma][timing]") {
  double put_done = 0, poll_done = 0;
  const auto r = run(2, [&](int rank, int) {
    if (rank == 0) {
      MGEN_acp_handle h = MGEN_rdma_put(1, 4096, 7);
      MGEN_acp_complete(h);
      put_done = MGEN_Wtime();
    } else {
      MGEN_rdma_poll(7);
      poll_done = MGEN_Wtime();
    }
  });
  REQUIRE(r.ok);
  CHECK(ps(poll_done) == network_ps(4096));
  CHECK(ps(put_done) == network_ps(4096) + network_ps(64));
}

TEST_CASE("a ring exchange on 1031 ranks with real data", "[p2p][scale]") {
  const auto r = run(1031, [](int rank, int size) {
    int out = rank, in = -1;
    MGEN_Sendrecv(&out, 1, MGEN_INT, (rank + 1) % size, 0, &in, 1, MGEN_INT, (rank + size - 1) % size, 0,
                  MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
    CHECK(in == (rank + size - 1) % size);
  });
  REQUIRE(r.ok);
  CHECK(r.messages == 1031);
}

TEST_CASE("the same job twice gives the same prediction to the picosecond", "[p2p][determinism]") {
  auto once = [] {
    return run(64, [](int rank, int size) {
      // Irregular traffic: every rank sends to three pseudo-random peers with ANY_SOURCE receives.
      MGEN_Request reqs[6];
      int buf[3];
      for (int i = 0; i < 3; ++i) {
        MGEN_Irecv(&buf[i], 1, MGEN_INT, MGEN_ANY_SOURCE, 0, MGEN_COMM_WORLD, &reqs[i]);
      }
      for (int i = 0; i < 3; ++i) {
        const int peer = (rank * 7 + (i + 1) * 13) % size;
        MGEN_Comp(1e-9 * ((rank * 31 + i) % 17));
        MGEN_Isend(&rank, 1, MGEN_INT, (rank + i * (size / 3) + 1) % size, 0, MGEN_COMM_WORLD, &reqs[3 + i]);
        (void)peer;
      }
      MGEN_Waitall(6, reqs, MGEN_STATUSES_IGNORE);
    });
  };
  const auto a = once();
  const auto b = once();
  REQUIRE(a.ok);
  CHECK(a.predicted_s() == b.predicted_s());
  CHECK(a.events == b.events);
  for (size_t i = 0; i < a.ranks.size(); ++i)
    CHECK(a.ranks[i].finish_s() == b.ranks[i].finish_s());
}

TEST_CASE("a rendezvous send buffer may be reused as soon as the send returns", "[p2p][rendezvous]") {
  // Regression: the payload used to be read from the sender's buffer at delivery time.
  const auto r = run(2, [](int rank, int) {
    std::vector<int> big(20000, rank == 0 ? 1 : 0);
    if (rank == 0) {
      MGEN_Send(big.data(), 20000, MGEN_INT, 1, 5, MGEN_COMM_WORLD);
      std::fill(big.begin(), big.end(), 2);
    } else {
      MGEN_Recv(big.data(), 20000, MGEN_INT, 0, 5, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
      CHECK(big[0] == 1);
      CHECK(big[19999] == 1);
    }
  });
  REQUIRE(r.ok);
}

TEST_CASE("placement decides which ranks share a node", "[p2p][placement]") {
  auto intra = [](mgen::mpi::Placement placement, std::vector<uint32_t> map = {}) {
    mgen::mpi::JobConfig job;
    job.ranks = 4;
    job.procs_per_node = 2;
    job.placement = placement;
    job.node_of_rank = std::move(map);
    const auto r = mgen::mpi::run_job(test_machine(), job,
                                      [](int, char**) {
                                        int rank;
                                        MGEN_Comm_rank(MGEN_COMM_WORLD, &rank);
                                        if (rank == 0) MGEN_Send(nullptr, 0, MGEN_BYTE, 1, 0, MGEN_COMM_WORLD);
                                        if (rank == 1)
                                          MGEN_Recv(nullptr, 0, MGEN_BYTE, 0, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
                                      },
                                      {"t"});
    REQUIRE(r.ok);
    CHECK(r.ranks[3].node == (placement == mgen::mpi::Placement::kMap ? 5u : 1u));
    return r.intra_node_messages;
  };
  CHECK(intra(mgen::mpi::Placement::kBlock) == 1);       // ranks 0 and 1 on node 0
  CHECK(intra(mgen::mpi::Placement::kRoundRobin) == 0);  // ranks 0 and 2 on node 0
  CHECK(intra(mgen::mpi::Placement::kMap, {7, 7, 3, 5}) == 1);
  mgen::mpi::JobConfig job;
  job.ranks = 2;
  job.placement = mgen::mpi::Placement::kMap;
  job.node_of_rank = {0, 64};
  CHECK_THROWS_WITH(mgen::mpi::run_job(test_machine(), job, [](int, char**) {}, {}),
                    Catch::Contains("rank 1 is mapped to node 64; the machine has nodes 0 to 63"));
}

TEST_CASE("a waiting rank handles each message as it arrives", "[p2p][timing]") {
  // Regression: Waitall used to charge every receive's overhead after the last arrival. Rank 0
  // posts 64 empty messages 100 ns apart (its send overhead); rank 1 handles each one (100 ns)
  // as it lands, so it is done one overhead after the last arrival.
  double done = 0;
  const auto r = run(2, [&](int rank, int) {
    MGEN_Request reqs[64];
    for (int i = 0; i < 64; ++i) {
      if (rank == 0) MGEN_Isend(nullptr, 0, MGEN_BYTE, 1, 0, MGEN_COMM_WORLD, &reqs[i]);
      if (rank == 1) MGEN_Irecv(nullptr, 0, MGEN_BYTE, 0, 0, MGEN_COMM_WORLD, &reqs[i]);
    }
    MGEN_Waitall(64, reqs, MGEN_STATUSES_IGNORE);
    if (rank == 1) done = MGEN_Wtime();
  });
  REQUIRE(r.ok);
  const int64_t last_arrival = 64 * kOverhead + network_ps(64);
  CHECK(ps(done) == last_arrival + kOverhead);
  CHECK(r.ranks[1].overhead_s() == Approx(64 * 100e-9));
  CHECK(r.ranks[1].wait_s() + r.ranks[1].overhead_s() == Approx(done));
}
