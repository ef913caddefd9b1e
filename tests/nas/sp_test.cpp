// SP: every rank's calls and bytes against the closed forms of nas/docs/sp.md.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "adi_expect.hpp"

using namespace mgen;

namespace {

// Per rank, q = sqrt(np) > 1: copy_faces as in BT (niter + 2 times: 6 Irecv, 6 Isend of F
// doubles, one Waitall). Per solve in direction d (niter + 1 times each) a cell's message
// carries 22 (forward) or 10 (back substitution) doubles per interior line L_d (its interior
// extents across d multiplied): forward sends leave the cells not in the last plane of d and
// arrive at those not in the first; back-substitution messages go the other way. One Waitall
// per received message (it also completes the previous send).
test::Expected sp_expect(int n, int niter, int np, int rank) {
  const auto cells = test::adi_cells(n, np, rank);
  const uint64_t q = cells.size();
  const uint64_t faces = niter + 2, steps = niter + 1;
  const uint64_t f = test::adi_face_doubles(cells);
  uint64_t sent = 0, received = 0;  // doubles per step
  for (const test::AdiCell& c : cells) {
    for (int d = 0; d < 3; ++d) {
      const uint64_t lines = c.inner((d + 1) % 3) * c.inner((d + 2) % 3);
      const bool first = c.at[d] == 0, last = c.at[d] == static_cast<int>(q) - 1;
      sent += (last ? 0 : 22 * lines) + (first ? 0 : 10 * lines);
      received += (first ? 0 : 22 * lines) + (last ? 0 : 10 * lines);
    }
  }
  const uint64_t p2p_calls = 6 * faces + 6 * (q - 1) * steps;
  return {{"isend", {p2p_calls, 8 * f * faces + 8 * sent * steps}},
          {"irecv", {p2p_calls, 8 * f * faces + 8 * received * steps}},
          {"waitall", {faces + 6 * (q - 1) * steps, 0}},
          {"bcast", {4, 4 + 8 + 12 + 4}},  // niter, dt, grid_points, timeron
          {"allreduce", {2, 2 * 5 * 8}},   // error_norm, rhs_norm
          {"reduce", {1, 8}},              // the time
          {"barrier", {2, 0}},             // before the timer; before finalize
          {"comm_split", {1, 0}},
          {"comm_dup", {2, 0}}};
}

}  // namespace

TEST_CASE("SP: each rank's calls and bytes equal the closed forms (S, W, A at 4, 9, 16)", "[nas][sp]") {
  const auto k = nas::make_sp();
  struct C {
    char cls;
    int n, niter;
  };
  for (C c : {C{'S', 12, 100}, C{'W', 36, 400}, C{'A', 64, 400}}) {
    for (int np : {4, 9, 16}) {
      const nas::Result r = test::run_nas(*k, c.cls, np);
      REQUIRE(r.report.ok);
      INFO("class " << c.cls << ", " << np << " processes");
      test::check_tallies(r, np, [&](int rank) { return sp_expect(c.n, c.niter, np, rank); });
      CHECK(r.time_s > 0);
    }
  }
}

TEST_CASE("SP on one process: no point-to-point messages", "[nas][sp]") {
  const auto k = nas::make_sp();
  const nas::Result r = test::run_nas(*k, 'S', 1);
  REQUIRE(r.report.ok);
  const nas::Tally& t = r.tallies[0];
  CHECK(t.calls_of("isend") == 0);
  CHECK(t.calls_of("waitall") == 0);
  CHECK(t.calls_of("bcast") == 4);
  CHECK(r.time_s > 0);
}

TEST_CASE("SP refuses process counts and classes NPB cannot use, naming the rule", "[nas][sp]") {
  const auto k = nas::make_sp();
  CHECK_THAT(k->check({'A', 8}), Catch::Contains("square number of processes"));
  CHECK_THAT(k->check({'B', 1000}), Catch::Contains("square number of processes"));
  CHECK_THAT(k->check({'Q', 4}), Catch::Contains("classes SWABCDE"));
  CHECK_THAT(k->check({'S', 36}), Catch::Contains("at most 16 processes"));
  CHECK_THAT(k->check({'W', 169}), Catch::Contains("fewer than the 3"));  // 36 / 13 = 2 points
  CHECK(k->check({'W', 144}).empty());                                    // 36 / 12 = 3
  CHECK(k->check({'C', 1024}).empty());
  CHECK(k->check({'D', 4096}).empty());
}

TEST_CASE("SP: iterations and Mop/s follow NPB's print_results", "[nas][sp]") {
  const auto k = nas::make_sp();
  CHECK(k->iterations({'A', 4}) == 400);
  CHECK(k->iterations({'E', 4}) == 500);
  // NPB: (881.174 n^3 - 4683.91 n^2 + 11484.5 n - 19272.4) niter / 10^6.
  const double n = 64;
  CHECK(k->mops({'A', 4}) == Approx((881.174 * n * n * n - 4683.91 * n * n + 11484.5 * n - 19272.4) * 400 / 1e6));
  const double c = 162;
  CHECK(k->mops({'C', 1024}) == Approx((881.174 * c * c * c - 4683.91 * c * c + 11484.5 * c - 19272.4) * 400 / 1e6));
}
