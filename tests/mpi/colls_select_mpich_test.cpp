// Collective selection "mpich": the algorithm per (collective, ranks, bytes, count, operation)
// against MPICH 4.0.2's default decision tree. Every row names the line of
// maint/tuning/coll/mpir/generic.json (at tag v4.0.2) it comes from; sizes follow
// src/mpi/coll/src/csel.c (avg_msg_size = count x type size; total_msg_size = the whole
// result; count<pow2 = count below the largest power of two <= p).
#include <catch2/catch.hpp>

#include <string>

#include "colls/colls.hpp"
#include "colls_select_common.hpp"
#include "mgen/mpi/run.hpp"

namespace colls = mgen::mpi::colls;
using mgen::mpi::CollectiveConfig;
using enum mgen::mpi::colls::Collective;

namespace {

struct Row {
  colls::Collective coll;
  int p;
  uint64_t bytes, count;
  bool builtin;
  bool in_place;
  const char* algorithm;  // mgen's registry name for MPICH's algorithm
  const char* source;     // generic.json line: MPICH's algorithm
};

const char* chosen(const Row& r, const CollectiveConfig& c) {
  const colls::Signature s{
      .size = r.p, .bytes = r.bytes, .count = r.count, .builtin_op = r.builtin, .in_place = r.in_place};
  return colls::test::selected(r.coll, s, c);
}

constexpr uint64_t kV = colls::kVaried;

// clang-format off
const Row kRows[] = {
    // The case: 1 MiB of doubles at 256 ranks is reduce-scatter + allgather, not the ring.
    {kAllreduce, 256, 1 << 20, 131072, true, false, "rabenseifner", "132: Allreduce_intra_reduce_scatter_allgather"},
    {kAllreduce, 256, 8, 1, true, false, "recursive_doubling", "116: avg_msg_size<=8 -> recursive_doubling"},
    {kAllreduce, 4, 16, 2, true, false, "recursive_doubling", "128: count<pow2 (2 < 4) -> recursive_doubling"},
    {kAllreduce, 4, 32, 4, true, false, "rabenseifner", "132: count 4 >= pof2 4"},
    {kAllreduce, 6, 32, 4, true, false, "rabenseifner", "132: pof2(6) = 4"},
    {kAllreduce, 1031, 8184, 1023, true, false, "recursive_doubling", "128: count<pow2 (1023 < 1024)"},
    {kAllreduce, 1031, 8192, 1024, true, false, "rabenseifner", "132: count 1024 = pof2(1031)"},
    {kAllreduce, 64, 1 << 20, 131072, false, false, "recursive_doubling", "122: is_op_built_in=no"},
    {kBcast, 7, 1 << 20, 0, true, false, "binomial", "23: comm_size<8 -> binomial"},
    {kBcast, 8, 1 << 20, 0, true, false, "scatter_allgather", "60: pow2, > 524288 -> scatter_ring_allgather"},
    {kBcast, 64, 12288, 0, true, false, "binomial", "52: pow2, avg_msg_size<=12288 -> binomial"},
    {kBcast, 64, 12289, 0, true, false, "scatter_rd_allgather", "56: pow2, <=524288 -> scatter_recursive_doubling_allgather"},
    {kBcast, 64, 524288, 0, true, false, "scatter_rd_allgather", "56: pow2, <=524288"},
    {kBcast, 64, 524289, 0, true, false, "scatter_allgather", "60: pow2, any -> scatter_ring_allgather"},
    {kBcast, 48, 12288, 0, true, false, "binomial", "85: any, <=12288 -> binomial"},
    {kBcast, 48, 12289, 0, true, false, "scatter_allgather", "89: any -> scatter_ring_allgather"},
    {kReduce, 64, 2048, 256, true, false, "binomial", "250: avg_msg_size<=2048 -> binomial"},
    {kReduce, 64, 4096, 512, true, false, "rabenseifner", "262: reduce_scatter_gather"},
    {kReduce, 1024, 4096, 512, true, false, "binomial", "258: count<pow2 (512 < 1024)"},
    {kReduce, 64, 1 << 20, 131072, false, false, "binomial", "267: is_op_built_in=no"},
    {kAllgather, 64, 524287, 0, true, false, "recursive_doubling", "150: pow2, total<524288"},
    {kAllgather, 64, 524288, 0, true, false, "ring", "154: pow2, any -> ring"},
    {kAllgather, 63, 81919, 0, true, false, "bruck", "161: total<81920 -> brucks"},
    {kAllgather, 63, 81920, 0, true, false, "ring", "165: any -> ring"},
    {kAlltoall, 64, 256, 0, true, false, "bruck", "457: avg_msg_size<=256 -> brucks"},
    {kAlltoall, 64, 257, 0, true, false, "scattered", "461: <=32768 -> scattered"},
    {kAlltoall, 64, 32768, 0, true, false, "scattered", "461: <=32768 -> scattered"},
    {kAlltoall, 64, 32769, 0, true, false, "pairwise", "465: any -> pairwise"},
    {kAlltoall, 4, 16, 0, true, false, "scattered", "446: comm_size<8, <=32768 -> scattered"},
    {kAlltoall, 4, 32769, 0, true, false, "pairwise", "450: comm_size<8, any -> pairwise"},
    {kAlltoall, 8, 16, 0, true, false, "bruck", "457: 8 is not < 8"},
    {kAlltoall, 64, kV, 0, true, false, "scattered", "485: Alltoallv_intra_scattered"},
    {kAlltoall, 64, 1024, 0, true, true, "pairwise", "438: in place -> pairwise_sendrecv_replace"},
    {kReduceScatter, 64, 524287, 0, true, false, "recursive_halving", "285: commutative, total<524288"},
    {kReduceScatter, 64, 524288, 0, true, false, "pairwise", "289: commutative, any -> pairwise"},
    {kGather, 64, 1 << 20, 0, true, false, "binomial", "352: Gather_intra_binomial"},
    {kGather, 64, kV, 0, true, false, "linear", "386: Gatherv_allcomm_linear"},
    {kScatter, 64, 100, 0, true, false, "binomial", "370: Scatter_intra_binomial"},
    {kScatter, 64, kV, 0, true, false, "linear", "390: Scatterv_allcomm_linear"},
    {kBarrier, 64, 0, 0, true, false, "dissemination", "424: Barrier_intra_dissemination"},
    {kScan, 64, 8, 1, true, false, "recursive_doubling", "402: Scan_intra_recursive_doubling"},
    {kExscan, 64, 8, 1, true, false, "recursive_doubling", "412: Exscan_intra_recursive_doubling"},
};
// clang-format on

}  // namespace

TEST_CASE("colls: selector mpich picks MPICH 4.0.2's default algorithms", "[colls]") {
  CollectiveConfig mpich;
  mpich.selector = "mpich";
  for (const Row& r : kRows) {
    INFO(colls::mpich_decisions()[static_cast<size_t>(r.coll)].collective
         << " p=" << r.p << " bytes=" << r.bytes << " count=" << r.count << " (generic.json " << r.source << ")");
    CHECK(std::string(chosen(r, mpich)) == r.algorithm);
  }
}

TEST_CASE("colls: the 1 MiB allreduce at 256 ranks: mpich takes Rabenseifner, mgen the ring", "[colls]") {
  const Row r{kAllreduce, 256, 1 << 20, 131072, true, false, "", ""};
  CollectiveConfig c;
  c.selector = "mpich";
  CHECK(std::string(chosen(r, c)) == "rabenseifner");
  c.selector = "mgen";
  CHECK(std::string(chosen(r, c)) == "ring");
}

TEST_CASE("colls: a configured algorithm wins over either selector; unknown selectors are refused", "[colls]") {
  const Row r{kAllreduce, 256, 1 << 20, 131072, true, false, "", ""};
  CollectiveConfig c;
  c.allreduce = "binomial";
  CHECK(std::string(chosen(r, c)) == "binomial");
  c.selector = "mgen";
  CHECK(std::string(chosen(r, c)) == "binomial");
  c.model = "dimemas";
  c.allreduce = "auto";
  CHECK(std::string(chosen(r, c)) == "dimemas");
  c.selector = "openmpi";
  CHECK_THROWS_WITH(colls::validate(c), Catch::Contains("collectives.selector"));
}

TEST_CASE("colls: every decision names a registered algorithm and ends with a rule that always holds", "[colls]") {
  const auto registered = mgen::mpi::collective_algorithms();
  const char* order[] = {"barrier",   "bcast",    "reduce",         "allreduce", "gather", "scatter",
                         "allgather", "alltoall", "reduce_scatter", "scan",      "exscan"};
  for (const char* selector : {"mpich", "ompi", "mgen"}) {
    for (size_t i = 0; i < colls::kCollectives; ++i)
      CHECK(std::string(colls::decisions(selector)[i].collective) == order[i]);
    for (const colls::Decision& d : colls::decisions(selector)) {
      INFO(selector << " " << d.collective);
      REQUIRE_FALSE(d.rules.empty());
      CHECK(std::string(d.rules.back().when).starts_with("any"));  // "any" or "any: <its algorithm>"
      CHECK(d.rules.back().holds(colls::Signature{}));
      for (const colls::Rule& rule : d.rules) {
        bool found = false;
        for (const auto& a : registered)
          found = found || (a.collective == d.collective && a.name == rule.algorithm);
        CHECK(found);
      }
    }
  }
}
