// MG: every rank's messages against the closed forms of nas/docs/mg.md.
#include <catch2/catch.hpp>

#include "nas_common.hpp"

using namespace mgen;

namespace {

struct MgCase {
  char cls;
  int n, nit;
};

struct Expect {
  uint64_t irecvs = 0, irecv_bytes = 0, sends = 0, send_bytes = 0;
};

int log2i(int v) {
  int l = 0;
  while ((1 << l) < v)
    ++l;
  return l;
}

// Closed forms for up to 16 processes (nas/docs/mg.md, "Messages"). Level k has 2^k points
// per axis; an axis split over p processes gives each 2^k / p of them when 2^k >= p; the one
// coarser case met here, 2^k = p / 2, leaves one point on each odd coordinate and none on the
// even ones. Such a level's empty processes skip comm3; on the level above, the odd ones give
// whole faces (one deep towards -1, two towards +1) and the even ones take two.
Expect mg_expect(const MgCase& c, int np, int me) {
  Expect e;
  if (np == 1) return e;
  const int log_p = log2i(np), lt = log2i(c.n);
  const int p[3] = {1 << (log_p / 3), 1 << ((log_p - log_p / 3) / 2), np >> (log_p / 3 + (log_p - log_p / 3) / 2)};
  const int idi[3] = {me % p[0], (me / p[0]) % p[1], me / (p[0] * p[1])};
  const uint64_t nm = 2 + (uint64_t{1} << (lt - log_p / 3)), cap = 8 * 2 * nm * nm;
  const uint64_t cycles = static_cast<uint64_t>(c.nit) + 1;  // V-cycles, one untimed
  for (int k = 1; k <= lt; ++k) {
    const int g = 1 << k;
    uint64_t ext[3];
    bool alive = true;
    for (int a = 0; a < 3; ++a) {
      if (g >= p[a]) {
        ext[a] = static_cast<uint64_t>(g / p[a]);
      } else {
        REQUIRE(2 * g == p[a]);
        ext[a] = 1;
        if (idi[a] % 2 == 0) alive = false;
      }
    }
    // comm3 calls on level k: the finest has 2 per V-cycle plus resid after each, the
    // setup's two residuals, the timed one and zran3's two; level 1 has 2 per V-cycle, the
    // others 3 (restriction, residual, smoother).
    const uint64_t calls = k == lt ? 2 * cycles + static_cast<uint64_t>(c.nit) + 5 : (k == 1 ? 2 * cycles : 3 * cycles);
    if (alive) {
      const uint64_t face = ext[1] * ext[2] + (ext[0] + 2) * ext[2] + (ext[0] + 2) * (ext[1] + 2);
      e.irecvs += 6 * calls;
      e.irecv_bytes += 6 * calls * cap;
      e.sends += 6 * calls;
      e.send_bytes += 16 * face * calls;
    }
    // comm3_ex on level k (k >= 2), once per V-cycle, along axes that were half-empty below.
    if (k >= 2) {
      for (int a = 0; a < 3; ++a) {
        if (g != p[a]) continue;
        const uint64_t ex_face = (ext[(a + 1) % 3] + 2) * (ext[(a + 2) % 3] + 2);
        if (idi[a] % 2 == 1) {
          e.sends += 2 * cycles;
          e.send_bytes += 3 * 8 * ex_face * cycles;
        } else {
          e.irecvs += 2 * cycles;
          e.irecv_bytes += 2 * cap * cycles;
        }
      }
    }
  }
  return e;
}

}  // namespace

TEST_CASE("MG: each rank's messages and bytes equal the closed forms (S, W, A at 4, 8, 16)", "[nas][mg]") {
  const auto k = nas::make_mg();
  for (MgCase c : {MgCase{'S', 32, 4}, MgCase{'W', 128, 4}, MgCase{'A', 256, 4}}) {
    for (int np : {4, 8, 16}) {
      REQUIRE(k->check({c.cls, np}).empty());
      const nas::Result r = test::run_nas(*k, c.cls, np);
      REQUIRE(r.report.ok);
      for (int rank = 0; rank < np; ++rank) {
        const nas::Tally& t = r.tallies[static_cast<size_t>(rank)];
        const Expect e = mg_expect(c, np, rank);
        INFO("class " << c.cls << ", " << np << " processes, rank " << rank);
        CHECK(t.calls_of("send") == e.sends);
        CHECK(t.bytes_of("send") == e.send_bytes);
        CHECK(t.calls_of("irecv") == e.irecvs);
        CHECK(t.bytes_of("irecv") == e.irecv_bytes);
        CHECK(t.calls_of("wait") == e.irecvs);
        CHECK(t.calls_of("recv") == 0);
        // Two barriers around each zran3's searches, one at the start, one before the timer.
        CHECK(t.calls_of("barrier") == 6);
        // lt, nit, nx, ny, nz, debug_vec(8), timeron.
        CHECK(t.calls_of("bcast") == 7);
        CHECK(t.bytes_of("bcast") == 56);
        // zran3 (twice): 10 x (max, 4 ints, min, 4 ints); norm2u3 (four times): max and sum.
        CHECK(t.calls_of("allreduce") == 88);
        CHECK(t.bytes_of("allreduce") == 2 * 10 * (8 + 16 + 8 + 16) + 4 * 2 * 8);
        CHECK(t.calls_of("reduce") == 1);
        CHECK(t.bytes_of("reduce") == 8);
      }
      CHECK(r.time_s > 0);
    }
  }
}

TEST_CASE("MG: one process makes no point-to-point calls", "[nas][mg]") {
  const auto k = nas::make_mg();
  const nas::Result r = test::run_nas(*k, 'S', 1);
  REQUIRE(r.report.ok);
  CHECK(r.tallies[0].calls_of("send") == 0);
  CHECK(r.tallies[0].calls_of("irecv") == 0);
  CHECK(r.tallies[0].calls_of("allreduce") == 88);
}

TEST_CASE("MG refuses process counts and classes NPB cannot use, naming the rule", "[nas][mg]") {
  const auto k = nas::make_mg();
  CHECK_THAT(k->check({'A', 12}), Catch::Contains("power-of-two"));
  CHECK_THAT(k->check({'F', 4}), Catch::Contains("classes SWABCDE"));
  CHECK_THAT(k->check({'S', 65536}), Catch::Contains("without grid points"));
  CHECK_THAT(k->check({'C', 262144}), Catch::Contains("at most 131072"));
  CHECK(k->check({'S', 32768}).empty());
  CHECK(k->check({'C', 1024}).empty());
  CHECK(k->check({'E', 1}).empty());
}

TEST_CASE("MG: Mop/s follows NPB's operation count and iterations its nit", "[nas][mg]") {
  const auto k = nas::make_mg();
  // NPB: 58 nit nx ny nz / 10^6.
  CHECK(k->mops({'A', 4}) == Approx(58.0 * 4 * 256.0 * 256 * 256 / 1e6));
  CHECK(k->mops({'D', 4}) == Approx(58.0 * 50 * 1024.0 * 1024 * 1024 / 1e6));
  CHECK(k->iterations({'B', 4}) == 20);
  CHECK(k->iterations({'S', 4}) == 4);
}
