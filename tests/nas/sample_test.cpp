// mgen nas --sample K: NPB's time extrapolated from runs of K and 2K timed iterations, against
// the whole run simulated iteration by iteration.
#include "nas_common.hpp"

using namespace mgen;
using namespace mgen::test;

namespace {

mpi::JobConfig small_job() {
  mpi::JobConfig job;
  job.stack_bytes = 128 * 1024;
  return job;
}

}  // namespace

TEST_CASE("NAS sampling: the extrapolation formula", "[nas][sample]") {
  // T(N) = T(K) + (N - K) (T(2K) - T(K)) / K: a fixed part of 2 s and 0.5 s per iteration.
  REQUIRE(nas::extrapolate(2 + 10 * 0.5, 2 + 20 * 0.5, 10, 300) == Approx(2 + 300 * 0.5));
  REQUIRE(nas::extrapolate(1.0, 1.0, 4, 100) == 1.0);
}

TEST_CASE("NAS sampling: a shorter run makes fewer timed iterations, nothing else changes", "[nas][sample]") {
  // Calls inside the timed loop grow linearly with its steps; all others stay. LU class S
  // runs 50 SSOR steps: whole - (10 steps) = 8 x ((10 steps) - (5 steps)), call by call.
  const nas::Kernel& k = *nas::find("lu");
  const int ranks = 4;
  const nas::Result whole = run_nas(k, 'S', ranks);
  const nas::Result five = nas::simulate(k, {'S', ranks, 5}, machine_for(ranks), small_job());
  const nas::Result ten = nas::simulate(k, {'S', ranks, 10}, machine_for(ranks), small_job());
  uint64_t grew = 0;
  for (int r = 0; r < ranks; ++r) {
    INFO("rank " << r);
    const nas::Tally& w = whole.tallies[static_cast<size_t>(r)];
    const nas::Tally& a = five.tallies[static_cast<size_t>(r)];
    const nas::Tally& b = ten.tallies[static_cast<size_t>(r)];
    REQUIRE(w.used() == a.used());
    for (const std::string& call : w.used()) {
      const uint64_t n = w.calls_of(call);
      INFO(call);
      REQUIRE(n - b.calls_of(call) == 8 * (b.calls_of(call) - a.calls_of(call)));
      REQUIRE(w.bytes_of(call) - b.bytes_of(call) == 8 * (b.bytes_of(call) - a.bytes_of(call)));
      grew += b.calls_of(call) - a.calls_of(call);
    }
  }
  REQUIRE(grew > 0);
  REQUIRE(five.time_s < ten.time_s);
  REQUIRE(ten.time_s < whole.time_s);
}

TEST_CASE("NAS sampling: extrapolation from K and 2K iterations equals the whole run", "[nas][sample]") {
  struct Case {
    const char* kernel;
    char cls;
    int ranks, k;
    double epsilon;  // relative; as measured, rounded up
  };
  // Each kernel with enough timed iterations to sample (EP has none; IS has 10). Every iteration
  // after the first K costs what the K-th to 2K-th did: LU, BT, SP and CG repeat exactly (0 ppm
  // measured), FT within 12 ppm and MG within 430 ppm (their first iterations differ slightly in
  // how transfers overlap; MG's grew from 12 ppm when MPICH's collective choices became the
  // default: MG S has only 4 iterations, so K = 1 is its only sample), IS within 100 ppm (67 ppm measured: its
  // iterations contend slightly differently on the packet network).
  const Case cases[] = {{"lu", 'S', 4, 5, 1e-9},  {"lu", 'W', 8, 10, 1e-9}, {"bt", 'S', 4, 10, 1e-9},
                        {"sp", 'S', 9, 20, 1e-9}, {"cg", 'S', 8, 3, 1e-9},  {"mg", 'S', 8, 1, 5e-4},
                        {"ft", 'S', 8, 1, 2e-5},  {"is", 'S', 8, 2, 1e-4}};
  for (const Case& c : cases) {
    INFO(c.kernel << " class " << c.cls << " on " << c.ranks);
    const nas::Kernel& k = *nas::find(c.kernel);
    const nas::Problem p{c.cls, c.ranks};
    const mpi::MachineSetup machine = machine_for(static_cast<uint32_t>(c.ranks));
    const nas::Result whole = nas::simulate(k, p, machine, small_job());
    const nas::Sampled s = nas::sample(k, p, c.k, machine, small_job());
    REQUIRE(s.extrapolated);
    REQUIRE(s.iterations == k.iterations(p));
    REQUIRE(s.shorter.time_s < s.longer.time_s);
    REQUIRE(s.longer.time_s < whole.time_s);
    REQUIRE(s.time_s == Approx(whole.time_s).epsilon(c.epsilon));
    REQUIRE(s.mops_total == Approx(whole.mops_total).epsilon(c.epsilon));
  }
}

TEST_CASE("NAS sampling: too few iterations to sample runs the whole benchmark", "[nas][sample]") {
  const nas::Kernel& k = *nas::find("is");  // 10 timed iterations
  const nas::Problem p{'S', 4};
  const mpi::MachineSetup machine = machine_for(4);
  const nas::Sampled s = nas::sample(k, p, 5, machine, small_job());
  REQUIRE_FALSE(s.extrapolated);
  REQUIRE(s.time_s == nas::simulate(k, p, machine, small_job()).time_s);
  REQUIRE_THROWS_WITH(nas::sample(k, p, 0, machine, small_job()), Catch::Contains("must be positive"));
}
