// Collective selection "ompi": the algorithm per (collective, ranks, bytes, commutativity)
// against Open MPI 4.1.6's fixed decision rules. Every row names the line of
// ompi/mca/coll/tuned/coll_tuned_decision_fixed.c (at tag v4.1.6) whose `alg = N` it expects,
// read from that file, and Open MPI's algorithm (numbers as the file's "Algorithms:" lists).
// Sizes as Open MPI measures them: bcast/reduce/allreduce dsize * count; alltoall, gather,
// scatter, allgather, reduce_scatter_block one block; allgatherv the mean block;
// reduce_scatter the whole result. The signature carries allgather's and
// reduce_scatter_block's whole result (block * p), as the facade passes it.
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
  uint64_t bytes;  // as the signature carries them
  bool commutative;
  bool varied;  // allgatherv, reduce_scatter
  bool in_place;
  const char* algorithm;  // mgen's registry name
  const char* source;     // decision_fixed.c line: Open MPI's algorithm
};

const char* chosen(const Row& r, const CollectiveConfig& c) {
  const colls::Signature s{.size = r.p,
                           .bytes = r.bytes,
                           .count = r.bytes / 8,
                           .commutative = r.commutative,
                           .in_place = r.in_place,
                           .varied = r.varied};
  return colls::test::selected(r.coll, s, c);
}

constexpr uint64_t kV = colls::kVaried;
constexpr bool C = true, N = false;  // commutative or not

// clang-format off
const Row kRows[] = {
    // allreduce, commutative (the case first: 1 MiB at 256 ranks)
    {kAllreduce, 256, 1 << 20, C, false, false, "rabenseifner", "183: p<512, else -> 6 rabenseifner"},
    {kAllreduce, 256, 4095, C, false, false, "nonoverlapping", "181: p<512, <4096 -> 2 nonoverlapping"},
    {kAllreduce, 256, 4096, C, false, false, "rabenseifner", "183: 4096 is not < 4096"},
    {kAllreduce, 2, 7, C, false, false, "ring", "123: p<4, <8 -> 4 ring"},
    {kAllreduce, 2, 8, C, false, false, "recursive_doubling", "125: p<4, <4096 -> 3"},
    {kAllreduce, 3, 100000, C, false, false, "ring", "133: p<4, <262144 -> 5 segmented_ring (segsize 0)"},
    {kAllreduce, 3, 262144, C, false, false, "rabenseifner", "135: p<4, else -> 6"},
    {kAllreduce, 16, 32, C, false, false, "ring", "153: p<32, <64 -> 5"},
    {kAllreduce, 64, 1000, C, false, false, "recursive_doubling", "167: p<128, <262144 -> 3"},
    {kAllreduce, 5000, 3000, C, false, false, "ring", "207: else, <16384 -> 5"},
    // allreduce, operation does not commute
    {kAllreduce, 2, 131072, N, false, false, "linear", "85: p<4, else -> 1 basic_linear"},
    {kAllreduce, 8, 100, N, false, false, "recursive_doubling", "91: p<16, <1048576 -> 3"},
    {kAllreduce, 8, 1 << 21, N, false, false, "nonoverlapping", "93: p<16, else -> 2 nonoverlapping"},
    // bcast
    {kBcast, 2, 16, C, false, false, "chain", "541: p<4, <32 -> 3 pipeline"},
    {kBcast, 2, 100, C, false, false, "binary", "543: p<4, <256 -> 5 binary_tree"},
    {kBcast, 3, 600, C, false, false, "knomial", "547: p<4, <1024 -> 7 knomial"},
    {kBcast, 3, 1024, C, false, false, "linear", "549: p<4, <32768 -> 1 basic_linear"},
    {kBcast, 3, 200000, C, false, false, "chain", "553: p<4, <262144 -> 2 chain"},
    {kBcast, 3, 600000, C, false, false, "binomial", "557: p<4, <1048576 -> 6 binomial"},
    {kBcast, 4, 1 << 20, C, false, false, "chain", "573: p<8, else -> 2 chain"},
    {kBcast, 16, 1 << 21, C, false, false, "scatter_rd_allgather", "595: p<32, else -> 8 scatter_allgather"},
    {kBcast, 64, 1, C, false, false, "knomial", "604: p<128 -> 7"},
    {kBcast, 128, 1, C, false, false, "binomial", "607: p<256, <2 -> 6"},
    {kBcast, 300, 20000, C, false, false, "binary", "621: p<1024, <32768 -> 4 split_binary_tree (not built)"},
    {kBcast, 5000, 10000, C, false, false, "binary", "641: else, <16384 -> 5"},
    // reduce
    {kReduce, 2, 4, C, false, false, "rabenseifner", "728: p<4, <8 -> 7"},
    {kReduce, 2, 8, C, false, false, "binary", "730: p<4, <16 -> 4"},
    {kReduce, 2, 16, C, false, false, "chain", "732: p<4, <32 -> 3 pipeline"},
    {kReduce, 2, 100, C, false, false, "linear", "734: p<4, <262144 -> 1"},
    {kReduce, 4, 100000, C, false, false, "binomial", "748: p<8, <262144 -> 5"},
    {kReduce, 5, 300000, C, false, false, "linear", "750: p<8, <524288 -> 1"},
    {kReduce, 5, 600000, C, false, false, "binomial", "752: p<8, <1048576 -> 5"},
    {kReduce, 300, 10000, C, false, false, "in_order_binary", "774: p<512, <16384 -> 6"},
    {kReduce, 100, 1 << 20, C, false, false, "binomial", "769: p<256 -> 5"},
    {kReduce, 2, 4, N, false, false, "in_order_binary", "694: not commutative, p<4, <8 -> 6"},
    {kReduce, 5, 8, N, false, false, "linear", "699: not commutative, p<8 -> 1"},
    // alltoall (one block) and alltoallv (size only)
    {kAlltoall, 2, 1, C, false, false, "pairwise_shift", "255: p==2, <2 -> 2"},
    {kAlltoall, 2, 3, C, false, false, "pairwise_shift", "257: p==2, <4 -> 5 two_proc"},
    {kAlltoall, 2, 100000, C, false, false, "linear", "269: p==2, <262144 -> 4 linear_sync"},
    {kAlltoall, 64, 100, C, false, false, "bruck", "321: p<128, <1024 -> 3 modified_bruck"},
    {kAlltoall, 64, 1500, C, false, false, "linear", "323: p<128, <2048 -> 1"},
    {kAlltoall, 64, 300000, C, false, false, "pairwise_shift", "329: p<128, else -> 2"},
    {kAlltoall, 64, 100, C, false, true, "pairwise", "in place: coll_base_alltoall.c basic_inplace"},
    {kAlltoall, 3, kV, C, false, false, "pairwise_shift", "437: alltoallv p<4 -> 2"},
    {kAlltoall, 10, kV, C, false, false, "linear", "439: alltoallv p<64 -> 1"},
    // allgather (bytes = block * p) and allgatherv (bytes = the total, mean block = total / p)
    {kAllgather, 2, 200, C, false, false, "ring", "1119: p==2 -> 6 two_proc"},
    {kAllgather, 16, 16 << 20, C, false, false, "recursive_doubling", "1121: p<32 -> 3"},
    {kAllgather, 40, 40 * 2000, C, false, false, "neighbor_exchange", "1126: p<64, <65536 -> 5"},
    {kAllgather, 40, 40 * 100000, C, false, false, "ring", "1128: p<64, else -> 4"},
    {kAllgather, 300, 300 * 64, C, false, false, "bruck", "1154: p<512, <128 -> 2"},
    {kAllgather, 2, 2 * 3000, C, true, false, "ring", "1275: allgatherv p==2, <4096 -> 5 two_proc"},
    {kAllgather, 5, 5 * 100, C, true, false, "gather_bcast", "1283: allgatherv p<8, <256 -> 1 default"},
    {kAllgather, 5, 5 * 300, C, true, false, "neighbor_exchange", "1285: allgatherv p<8, <4096 -> 4 neighbor"},
    // gather and scatter (one block)
    {kGather, 2, 1, C, false, false, "linear_sync", "1415: p<4, <2 -> 3 linear_sync"},
    {kGather, 3, 131072, C, false, false, "linear_sync", "1425: p<4, else -> 3 linear_sync"},
    {kGather, 5, 100, C, false, false, "binomial", "1429: p<8, <1024 -> 2"},
    {kGather, 5, 2000, C, false, false, "linear", "1431: p<8, <8192 -> 1"},
    {kGather, 100, 1 << 20, C, false, false, "binomial", "1440: p<256 -> 2"},
    {kGather, 100, kV, C, false, false, "linear", "gatherv: coll/basic"},
    {kScatter, 2, 1, C, false, false, "linear", "1502: p<4, <2 -> 3 linear_nb"},
    {kScatter, 5, 100, C, false, false, "binomial", "1512: p<8, <2048 -> 2"},
    {kScatter, 20, 20000, C, false, false, "linear", "1536: p<32, <32768 -> 1"},
    {kScatter, 100, kV, C, false, false, "linear", "scatterv: coll/basic"},
    // reduce_scatter (the whole result) and reduce_scatter_block (bytes = block * p)
    {kReduceScatter, 64, 1000, N, true, false, "reduce_scatterv", "854: not commutative -> 1 non-overlapping"},
    {kReduceScatter, 2, 1000, C, true, false, "ring", "858: p<4, <65536 -> 3"},
    {kReduceScatter, 2, 100000, C, true, false, "butterfly", "860: p<4, <131072 -> 4 butterfly"},
    {kReduceScatter, 40, 100000, C, true, false, "butterfly", "884: p<64, <524288 -> 4 butterfly"},
    {kReduceScatter, 40, 600000, C, true, false, "ring", "886: p<64, else -> 3 ring"},
    {kReduceScatter, 5, 4, C, true, false, "reduce_scatterv", "866: p<8, <8 -> 1"},
    {kReduceScatter, 2, 2 * 2, C, false, false, "recursive_halving", "1004: block p<4, <4 -> 2 (not built)"},
    {kReduceScatter, 2, 2 * 4, C, false, false, "butterfly", "1006: block p<4, <8 -> 4 butterfly"},
    {kReduceScatter, 2, 2 * 8, C, false, false, "recursive_halving", "1008: block p<4, <16 -> 3"},
    {kReduceScatter, 64, 64 * 8, N, false, false, "reduce_scatterv", "1000: block, not commutative -> 1"},
    // barrier (size only), scan and exscan (coll/basic)
    {kBarrier, 2, 0, C, false, false, "recursive_doubling", "483: p<4 -> 3"},
    {kBarrier, 5, 0, C, false, false, "linear", "485: p<8 -> 1"},
    {kBarrier, 100, 0, C, false, false, "dissemination", "489: p<256 -> 4 bruck"},
    {kBarrier, 300, 0, C, false, false, "tree", "491: p<512 -> 6 tree"},
    {kBarrier, 2000, 0, C, false, false, "tree", "495: p<4096 -> 6 tree"},
    {kBarrier, 5000, 0, C, false, false, "dissemination", "497: else -> 4 bruck"},
    {kScan, 64, 8, C, false, false, "linear", "coll_tuned_module.c:112: coll/basic"},
    {kExscan, 64, 8, C, false, false, "linear", "coll_tuned_module.c:106: coll/basic"},
};
// clang-format on

}  // namespace

TEST_CASE("colls: selector ompi picks Open MPI 4.1.6's fixed-rule algorithms", "[colls]") {
  CollectiveConfig ompi;
  ompi.selector = "ompi";
  for (const Row& r : kRows) {
    INFO(colls::ompi_decisions()[static_cast<size_t>(r.coll)].collective
         << " p=" << r.p << " bytes=" << r.bytes << " commutative=" << r.commutative << " (decision_fixed.c "
         << r.source << ")");
    CHECK(std::string(chosen(r, ompi)) == r.algorithm);
  }
}

TEST_CASE("colls: selector ompi: a configured algorithm still wins; the labels say what is not built", "[colls]") {
  const Row r{kAllreduce, 256, 1 << 20, C, false, false, "", ""};
  CollectiveConfig c;
  c.selector = "ompi";
  c.allreduce = "ring";
  CHECK(std::string(chosen(r, c)) == "ring");
  CHECK_NOTHROW(colls::validate(c));
  // Every row whose algorithm differs from Open MPI's says so in its label.
  int not_built = 0;
  for (const colls::Decision& d : colls::ompi_decisions()) {
    for (const colls::Rule& rule : d.rules)
      not_built += std::string(rule.when).find("not built") != std::string::npos;
  }
  CHECK(not_built > 0);
}
