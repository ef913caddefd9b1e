// CG: every rank's messages against the closed forms of nas/README.md ("CG").
#include <catch2/catch.hpp>

#include "nas_common.hpp"

using namespace mgen;

namespace {

struct Expect {
  uint64_t sends, bytes;
};

// Closed forms for na divisible by the grid (true for S, W, A at 4, 8, 16 processes).
// l2 = log2(npcols); t = 1 if l2 > 0 (the transpose exchange); rows = na / nprows.
// Per conj_grad: 4 l2 + t + 25 (3 l2 + t) messages; the matrix-vector products send
// 8 rows (l2 + t) bytes on square grids and 8 (rows / 2)(l2 + t) bytes on 2:1 grids; every
// other message is one double (dot products) or two (the norms after each call).
Expect cg_expect(long na, int niter, int np) {
  int log2 = 0;
  while ((1 << log2) < np)
    ++log2;
  const int npcols = 1 << ((log2 + 1) / 2), nprows = np / npcols;
  int l2 = 0;
  for (int i = npcols / 2; i > 0; i /= 2)
    ++l2;
  const uint64_t t = l2 > 0 ? 1 : 0;
  const uint64_t rows = static_cast<uint64_t>(na / nprows);
  const uint64_t mv_words = (npcols == nprows ? rows : rows / 2) * (static_cast<uint64_t>(l2) + t);
  const uint64_t calls = static_cast<uint64_t>(niter + 1);
  const uint64_t sends_per_call = 4 * l2 + t + 25 * (3 * l2 + t);
  const uint64_t bytes_per_call = 8 * (26 * mv_words + 51 * static_cast<uint64_t>(l2) + 2 * l2 + l2);
  return {calls * sends_per_call, calls * bytes_per_call};
}

}  // namespace

TEST_CASE("CG: each rank's messages and bytes equal the closed forms (S, W, A at 4, 8, 16)", "[nas][cg]") {
  const auto k = nas::make_cg();
  struct C {
    char cls;
    long na;
    int niter;
  };
  for (C c : {C{'S', 1400, 15}, C{'W', 7000, 15}, C{'A', 14000, 15}}) {
    for (int np : {4, 8, 16}) {
      const nas::Result r = test::run_nas(*k, c.cls, np);
      REQUIRE(r.report.ok);
      const Expect e = cg_expect(c.na, c.niter, np);
      for (int rank = 0; rank < np; ++rank) {
        const nas::Tally& t = r.tallies[static_cast<size_t>(rank)];
        INFO("class " << c.cls << ", " << np << " processes, rank " << rank);
        CHECK(t.calls_of("send") == e.sends);
        CHECK(t.calls_of("irecv") == e.sends);
        CHECK(t.bytes_of("send") == e.bytes);
        CHECK(t.calls_of("barrier") == 1);
      }
      CHECK(r.time_s > 0);
    }
  }
}

TEST_CASE("CG refuses process counts NPB cannot use, naming the rule", "[nas][cg]") {
  const auto k = nas::make_cg();
  CHECK_THAT(k->check({'A', 12}), Catch::Contains("power-of-two"));
  CHECK_THAT(k->check({'F', 4}), Catch::Contains("classes SWABCDE"));
  CHECK(k->check({'B', 64}).empty());
}

TEST_CASE("CG: Mop/s follows NPB's operation count", "[nas][cg]") {
  const auto k = nas::make_cg();
  // NPB: 2 niter na (3 + nz + 25 (5 + nz) + 3) with nz = nonzer (nonzer + 1); class A: 15, 14000, 11.
  CHECK(k->mops({'A', 4}) == Approx(2.0 * 15 * 14000 * (3 + 132 + 25 * (5 + 132) + 3) / 1e6));
}
