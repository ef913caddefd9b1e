// LU: every rank's messages against the closed forms of nas/docs/lu.md.
#include <catch2/catch.hpp>

#include "nas_common.hpp"

using namespace mgen;

namespace {

struct LuCase {
  char cls;
  int n, itmax;
};

struct Expect {
  uint64_t recvs = 0, recv_bytes = 0, sends = 0, send_bytes = 0, irecvs = 0, irecv_bytes = 0;
};

// The share of n points of block b (0-based) out of p: the first n mod p blocks get one more.
uint64_t share(int n, int p, int b) {
  return static_cast<uint64_t>(n / p + (b < n % p ? 1 : 0));
}

// Closed forms (nas/docs/lu.md, "Messages") for the process at row r, column c (0-based) of
// an X x Y grid. N, S, W, E are 1 where the neighbour exists. Per SSOR iteration and plane,
// the lower sweep receives from N and W and sends to S and E, the upper sweep the reverse;
// rows of 5 doubles per interior point along the boundary they cross. Each rhs (and erhs)
// swaps two-deep halos of 10 doubles per boundary point with every neighbour; pintgr passes
// lines west and north.
Expect lu_expect(const LuCase& c, int X, int Y, int r, int col) {
  Expect e;
  const uint64_t N = r > 0, S = r<X - 1, W = col> 0, E = col < Y - 1;
  const uint64_t nx = share(c.n, X, r), ny = share(c.n, Y, col), nz = static_cast<uint64_t>(c.n);
  const uint64_t nxi = nx - (1 - N) - (1 - S), nyi = ny - (1 - W) - (1 - E);
  const uint64_t planes = nz - 2, sweeps = static_cast<uint64_t>(c.itmax) + 1;
  // exchange_1: (itmax + 1) iterations x (nz - 2) planes x both sweeps.
  const uint64_t wave_msgs = sweeps * planes * (N + S + W + E);
  const uint64_t wave_bytes = sweeps * planes * 40 * ((N + S) * nyi + (W + E) * nxi);
  e.recvs = wave_msgs;
  e.recv_bytes = wave_bytes;
  // exchange_3: erhs once, rhs twice in ssor(1) and itmax + 1 times in ssor(itmax).
  const uint64_t halos = static_cast<uint64_t>(c.itmax) + 4;
  const uint64_t halo_msgs = halos * (N + S + W + E);
  const uint64_t halo_bytes = halos * 80 * nz * ((N + S) * ny + (W + E) * nx);
  // pintgr: exchange_4 once; exchange_5 per face of constant j the process holds (first and
  // last column), exchange_6 per face of constant i (first and last row).
  const uint64_t k5 = (col == 0) + (col == Y - 1), k6 = (r == 0) + (r == X - 1);
  e.sends = wave_msgs + halo_msgs + W + N + k5 * N + k6 * W;
  e.send_bytes = wave_bytes + halo_bytes + W * 16 * nx + N * 16 * (ny + 2) + (k5 * N + k6 * W) * 8 * nz;
  e.irecvs = halo_msgs + E + S + k5 * S + k6 * E;
  e.irecv_bytes = halo_bytes + E * 16 * nx + S * 16 * (ny + 2) + (k5 * S + k6 * E) * 8 * nz;
  return e;
}

}  // namespace

TEST_CASE("LU: each rank's messages and bytes equal the closed forms (S, W, A at 4, 6, 8, 12, 16, 32)", "[nas][lu]") {
  const auto k = nas::make_lu();
  for (LuCase c : {LuCase{'S', 12, 50}, LuCase{'W', 33, 300}, LuCase{'A', 64, 250}}) {
    for (int np : {4, 6, 8, 12, 16, 32}) {
      // proc_grid: the factor pair closest to square, the larger one the rows: 2 x 2, 3 x 2,
      // 4 x 2 (2^ceil(log2(np) / 2) rows for powers of two), 4 x 3, 4 x 4, 8 x 4.
      const int X = np == 4 ? 2 : np == 6 ? 3 : np == 32 ? 8 : 4, Y = np / X;
      INFO("class " << c.cls << ", " << np << " processes");
      if (c.n / X < 3) {
        // Class S's 12 points over 8 rows leave 1 or 2 per process: subdomain stops NPB there
        // (3 per process, class S on 8, 12 or 16, runs).
        CHECK_THAT(k->check({c.cls, np}), Catch::Contains("at least 3"));
        continue;
      }
      REQUIRE(k->check({c.cls, np}).empty());
      const nas::Result r = test::run_nas(*k, c.cls, np);
      REQUIRE(r.report.ok);
      for (int rank = 0; rank < np; ++rank) {
        const nas::Tally& t = r.tallies[static_cast<size_t>(rank)];
        const Expect e = lu_expect(c, X, Y, rank % X, rank / X);
        INFO("rank " << rank);
        CHECK(t.calls_of("recv") == e.recvs);
        CHECK(t.bytes_of("recv") == e.recv_bytes);
        CHECK(t.calls_of("send") == e.sends);
        CHECK(t.bytes_of("send") == e.send_bytes);
        CHECK(t.calls_of("irecv") == e.irecvs);
        CHECK(t.bytes_of("irecv") == e.irecv_bytes);
        CHECK(t.calls_of("wait") == e.irecvs);
        // ipr, inorm, itmax, dt, omega, tolrsd(5), nx0, ny0, nz0, timeron.
        CHECK(t.calls_of("bcast") == 10);
        CHECK(t.bytes_of("bcast") == 3 * 4 + 2 * 8 + 40 + 4 * 4);
        // Norms of five components: 1 + 1 + 2 in the ssor calls, error's; maxtime twice;
        // pintgr's three surface integrals.
        CHECK(t.calls_of("allreduce") == 10);
        CHECK(t.bytes_of("allreduce") == 5 * 40 + 2 * 8 + 3 * 8);
        CHECK(t.calls_of("barrier") == 2);
        CHECK(t.calls_of("reduce") == 0);
      }
      CHECK(r.time_s > 0);
    }
  }
}

TEST_CASE("LU refuses process counts and classes NPB cannot use, naming the rule", "[nas][lu]") {
  const auto k = nas::make_lu();
  // NPB 3.3.1: any np = xdim x ydim with ydim <= xdim <= 2 ydim (6 = 3 x 2, 24 = 6 x 4), not
  // 3, 14 = 7 x 2 or 22 = 11 x 2.
  for (int np : {3, 14, 22, 0})
    CHECK_THAT(k->check({'A', np}), Catch::Contains("ydim <= xdim <= 2 ydim"));
  CHECK(k->check({'A', 24}).empty());
  CHECK(k->check({'A', 96}).empty());
  CHECK_THAT(k->check({'F', 4}), Catch::Contains("classes SWABCDE"));
  // subdomain refuses fewer than 3 points per process along x or y, not 3 (S on 8, 12, 16 run).
  CHECK_THAT(k->check({'S', 32}), Catch::Contains("8x4 process grid leaves subdomains of 1x3"));
  CHECK_THAT(k->check({'C', 2048}), Catch::Contains("at least 3"));
  CHECK(k->check({'S', 8}).empty());
  CHECK(k->check({'S', 12}).empty());
  CHECK(k->check({'S', 16}).empty());
  CHECK(k->check({'B', 512}).empty());
  CHECK(k->check({'S', 4}).empty());
  CHECK(k->check({'C', 1024}).empty());
  CHECK(k->check({'D', 4096}).empty());
  CHECK(k->check({'E', 1}).empty());
}

TEST_CASE("LU: Mop/s follows NPB's operation count and iterations its itmax", "[nas][lu]") {
  const auto k = nas::make_lu();
  // NPB: itmax (1984.77 n^3 - 10923.3 n^2 + 27770.9 n - 144010) / 10^6 with n = nx0 = ny0 = nz0.
  const double n = 64;
  CHECK(k->mops({'A', 4}) == Approx(250 * (1984.77 * n * n * n - 10923.3 * n * n + 27770.9 * n - 144010.0) / 1e6));
  CHECK(k->iterations({'A', 4}) == 250);
  CHECK(k->iterations({'D', 4}) == 300);
}
