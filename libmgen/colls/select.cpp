// The collective registries and the selection.
//
// A configured name other than "auto" always wins; otherwise the selector's decision table
// (select_mpich.cpp: MPICH 4.0.2's defaults; select_ompi.cpp: Open MPI 4.1.6's fixed rules;
// select_mgen.cpp: mgen's own) names the algorithm
// from the call's signature (communicator size, bytes, count, operation, in place).
#include <fmt/format.h>

#include <stdexcept>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

namespace {
constexpr const char* kDimemasDescription =
    "Dimemas collective model (Girona et al. 2000): one step, T = FAN_IN + FAN_OUT from [dimemas_collectives]";
}  // namespace

const std::vector<Algorithm<BarrierFn>>& barrier_algorithms() {
  static const std::vector<Algorithm<BarrierFn>> table = {
      {"dissemination", "ceil(log2 p) rounds of signals to rank + 2^k (any p)", barrier_dissemination},
      {"recursive_doubling", "pairwise exchanges with rank XOR 2^k; extra steps when p is not a power of two",
       barrier_recursive_doubling},
      {"ring", "p - 1 steps of signals to the next rank (NSIM-ACE §4.2.1)", barrier_ring},
      {"linear", "every rank signals rank 0, which then releases them all (Open MPI's linear)", barrier_linear},
      {"tree", "binomial fan-in to rank 0 and back out, 2 ceil(log2 p) rounds (Open MPI's tree)", barrier_tree},
      {"dimemas", kDimemasDescription, barrier_dimemas},
  };
  return table;
}

const std::vector<Algorithm<BcastFn>>& bcast_algorithms() {
  static const std::vector<Algorithm<BcastFn>> table = {
      {"binomial", "binomial tree from the root, ceil(log2 p) rounds", bcast_binomial},
      {"scatter_allgather", "Van de Geijn: binomial scatter of p chunks, then ring allgather; long messages",
       bcast_scatter_allgather},
      {"scatter_rd_allgather",
       "binomial scatter of p chunks, then recursive-doubling allgather (MPICH: medium, p a power of two)",
       bcast_scatter_rd_allgather},
      {"linear", "the root sends to every rank at once (Open MPI's basic_linear)", bcast_linear},
      {"chain", "root -> root + 1 -> ..., p - 1 hops, whole message (Open MPI's chain/pipeline, one segment)",
       bcast_chain},
      {"binary", "binary tree from the root, whole message per hop (Open MPI's binary_tree, one segment)",
       bcast_binary},
      {"knomial", "radix-4 k-nomial tree from the root (Open MPI's knomial, one segment)", bcast_knomial},
      {"dimemas", kDimemasDescription, bcast_dimemas},
  };
  return table;
}

const std::vector<Algorithm<ReduceFn>>& reduce_algorithms() {
  static const std::vector<Algorithm<ReduceFn>> table = {
      {"binomial", "binomial tree toward the root, ceil(log2 p) rounds", reduce_binomial},
      {"linear", "the root receives every vector in turn and combines them in rank order", reduce_linear},
      {"rabenseifner", "reduce-scatter by recursive halving, then binomial gather to the root; long vectors",
       reduce_rabenseifner},
      {"chain", "a chain toward the root, p - 1 hops (Open MPI's chain/pipeline, one segment); commuting ops",
       reduce_chain},
      {"binary", "binary tree toward the root (Open MPI's binary, one segment); commuting ops", reduce_binary},
      {"in_order_binary", "in-order binary tree to rank p - 1, combined in rank order, then to the root (Open MPI)",
       reduce_in_order_binary},
      {"dimemas", kDimemasDescription, reduce_dimemas},
  };
  return table;
}
const std::vector<Algorithm<ReduceFn>>& allreduce_algorithms() {
  static const std::vector<Algorithm<ReduceFn>> table = {
      {"recursive_doubling",
       "whole-vector exchanges with rank XOR 2^k, log2 p rounds (+2 when p is not a power of two)",
       allreduce_recursive_doubling},
      {"rabenseifner", "reduce-scatter by recursive halving + allgather by recursive doubling (Rabenseifner 2004)",
       allreduce_rabenseifner},
      {"ring", "ring reduce-scatter + ring allgather, 2 (p - 1) steps between neighbours; bandwidth-optimal",
       allreduce_ring},
      {"binomial", "binomial reduce to rank 0, then binomial broadcast", allreduce_binomial},
      {"linear", "linear reduce to rank 0, then linear broadcast (Open MPI's basic_linear)", allreduce_linear},
      {"nonoverlapping", "reduce to rank 0, then broadcast, each as Open MPI's fixed rules pick them",
       allreduce_nonoverlapping},
      {"dimemas", kDimemasDescription, allreduce_dimemas},
  };
  return table;
}
const std::vector<Algorithm<BlockFn>>& gather_algorithms() {
  static const std::vector<Algorithm<BlockFn>> table = {
      {"binomial", "binomial tree toward the root, ceil(log2 p) rounds; gatherv goes linear", gather_binomial},
      {"linear", "the root receives from every rank at once", gather_linear},
      {"linear_sync", "the root takes one rank at a time: receive posted, empty go message, block (Open MPI)",
       gather_linear_sync},
      {"dimemas", kDimemasDescription, gather_dimemas},
  };
  return table;
}
const std::vector<Algorithm<BlockFn>>& scatter_algorithms() {
  static const std::vector<Algorithm<BlockFn>> table = {
      {"binomial", "binomial tree from the root, ceil(log2 p) rounds; scatterv goes linear", scatter_binomial},
      {"linear", "the root sends to every rank at once", scatter_linear},
      {"dimemas", kDimemasDescription, scatter_dimemas},
  };
  return table;
}
const std::vector<Algorithm<BlockFn>>& allgather_algorithms() {
  static const std::vector<Algorithm<BlockFn>> table = {
      {"ring", "p - 1 steps around a ring; bandwidth-optimal, handles unequal blocks", allgather_ring},
      {"recursive_doubling", "exchanges with rank XOR 2^k, log2 p rounds; other sizes than powers of two use bruck",
       allgather_recursive_doubling},
      {"bruck", "Bruck et al. 1997: ceil(log2 p) rounds at distances 2^k for any p", allgather_bruck},
      {"neighbor_exchange", "Chen et al. 2005: p / 2 steps of block pairs with alternating neighbours; odd p: ring",
       allgather_neighbor_exchange},
      {"gather_bcast",
       "linear gather to rank 0, then one broadcast of the whole result (Open MPI's allgatherv default)",
       allgather_gather_bcast},
      {"dimemas", kDimemasDescription, allgather_dimemas},
  };
  return table;
}
const std::vector<Algorithm<BlockFn>>& alltoall_algorithms() {
  static const std::vector<Algorithm<BlockFn>> table = {
      {"pairwise", "p - 1 sendrecv steps with rank XOR i (powers of two) or rank +- i", alltoall_pairwise},
      {"bruck", "Bruck et al. 1997: ceil(log2 p) rounds for short blocks; alltoallv uses pairwise", alltoall_bruck},
      {"linear", "every send and receive posted at once", alltoall_linear},
      {"scattered", "MPICH's medium alltoall(v): sends and receives posted 32 peers at a time (ALLTOALL_THROTTLE)",
       alltoall_scattered},
      {"pairwise_shift", "p - 1 sendrecv steps to rank + i, from rank - i, for any p (Open MPI's pairwise)",
       alltoall_pairwise_shift},
      {"dimemas", kDimemasDescription, alltoall_dimemas},
  };
  return table;
}
const std::vector<Algorithm<ReduceScatterFn>>& reduce_scatter_algorithms() {
  static const std::vector<Algorithm<ReduceScatterFn>> table = {
      {"recursive_halving", "halve the vector with partners at distance p/2 .. 1, log2 p rounds (+2 for other p)",
       reduce_scatter_recursive_halving},
      {"ring", "p - 1 steps around a ring between neighbours; bandwidth-optimal for any p", reduce_scatter_ring},
      {"pairwise", "p - 1 sendrecv steps with rank + i / rank - i, one block each (MPICH: long, commutative)",
       reduce_scatter_pairwise},
      {"reduce_scatterv", "binomial reduce of the whole vector to rank 0, then a linear scatter (Open MPI)",
       reduce_scatter_reduce_scatterv},
      {"butterfly", "recursive halving at distances 1, 2, 4, ..., then a mirror exchange (Open MPI's butterfly)",
       reduce_scatter_butterfly},
      {"dimemas", kDimemasDescription, reduce_scatter_dimemas},
  };
  return table;
}
const std::vector<Algorithm<ReduceFn>>& scan_algorithms() {
  static const std::vector<Algorithm<ReduceFn>> table = {
      {"recursive_doubling", "exchanges with rank XOR 2^k, ceil(log2 p) rounds (Hillis-Steele)",
       scan_recursive_doubling},
      {"linear", "a chain from rank 0, p - 1 rounds", scan_linear},
      {"dimemas", kDimemasDescription, scan_dimemas},
  };
  return table;
}
// Same names as the scan table: one configuration key ([collectives] scan) chooses both.
const std::vector<Algorithm<ReduceFn>>& exscan_algorithms() {
  static const std::vector<Algorithm<ReduceFn>> table = {
      {"recursive_doubling", "exchanges with rank XOR 2^k, ceil(log2 p) rounds; rank 0's buffer untouched",
       exscan_recursive_doubling},
      {"linear", "a chain from rank 0, p - 1 rounds; rank 0's buffer untouched", exscan_linear},
      {"dimemas", kDimemasDescription, exscan_dimemas},
  };
  return table;
}

namespace {

template <class Fn>
const Algorithm<Fn>& by_name(const std::vector<Algorithm<Fn>>& table, const std::string& name, const char* key) {
  for (const Algorithm<Fn>& a : table) {
    if (name == a.name) return a;
  }
  std::string known;
  for (const Algorithm<Fn>& a : table)
    known += std::string(known.empty() ? "" : ", ") + a.name;
  throw std::invalid_argument(
      fmt::format("collectives.{}: unknown algorithm '{}' (known: auto, {})", key, name, known));
}

// Model "dimemas" makes Dimemas's collective model the automatic choice of every collective.
template <class Fn>
const Algorithm<Fn>& pick(const std::vector<Algorithm<Fn>>& table, const CollectiveConfig& c,
                          const std::string& configured, const char* key, Collective coll, const Signature& sig) {
  if (configured != "auto") return by_name(table, configured, key);
  if (c.model == "dimemas") return by_name(table, "dimemas", key);
  return by_name(table, decide(decisions(c.selector), coll, sig), key);
}

}  // namespace

const DecisionTable& decisions(const std::string& selector) {
  if (selector == "mpich") return mpich_decisions();
  if (selector == "ompi") return ompi_decisions();
  if (selector == "mgen") return mgen_decisions();
  throw std::invalid_argument(
      fmt::format("collectives.selector: unknown selector '{}' (known: mpich, ompi, mgen)", selector));
}

const char* decide(const DecisionTable& table, Collective coll, const Signature& sig) {
  const Decision& d = table[static_cast<size_t>(coll)];
  for (const Rule& r : d.rules) {
    if (r.holds(sig)) return r.algorithm;
  }
  return d.rules.back().algorithm;  // unreachable: the last rule always holds
}

const Algorithm<BarrierFn>& select_barrier(const Signature& sig, const CollectiveConfig& c) {
  return pick(barrier_algorithms(), c, c.barrier, "barrier", Collective::kBarrier, sig);
}
const Algorithm<BcastFn>& select_bcast(const Signature& sig, const CollectiveConfig& c) {
  return pick(bcast_algorithms(), c, c.bcast, "bcast", Collective::kBcast, sig);
}
const Algorithm<ReduceFn>& select_reduce(const Signature& sig, const CollectiveConfig& c) {
  return pick(reduce_algorithms(), c, c.reduce, "reduce", Collective::kReduce, sig);
}
const Algorithm<ReduceFn>& select_allreduce(const Signature& sig, const CollectiveConfig& c) {
  return pick(allreduce_algorithms(), c, c.allreduce, "allreduce", Collective::kAllreduce, sig);
}
const Algorithm<BlockFn>& select_gather(const Signature& sig, const CollectiveConfig& c) {
  return pick(gather_algorithms(), c, c.gather, "gather", Collective::kGather, sig);
}
const Algorithm<BlockFn>& select_scatter(const Signature& sig, const CollectiveConfig& c) {
  return pick(scatter_algorithms(), c, c.scatter, "scatter", Collective::kScatter, sig);
}
const Algorithm<BlockFn>& select_allgather(const Signature& sig, const CollectiveConfig& c) {
  return pick(allgather_algorithms(), c, c.allgather, "allgather", Collective::kAllgather, sig);
}
const Algorithm<BlockFn>& select_alltoall(const Signature& sig, const CollectiveConfig& c) {
  return pick(alltoall_algorithms(), c, c.alltoall, "alltoall", Collective::kAlltoall, sig);
}
const Algorithm<ReduceScatterFn>& select_reduce_scatter(const Signature& sig, const CollectiveConfig& c) {
  return pick(reduce_scatter_algorithms(), c, c.reduce_scatter, "reduce_scatter", Collective::kReduceScatter, sig);
}
const Algorithm<ReduceFn>& select_scan(const Signature& sig, const CollectiveConfig& c) {
  return pick(scan_algorithms(), c, c.scan, "scan", Collective::kScan, sig);
}
const Algorithm<ReduceFn>& select_exscan(const Signature& sig, const CollectiveConfig& c) {
  return pick(exscan_algorithms(), c, c.scan, "scan", Collective::kExscan, sig);
}

void validate(const CollectiveConfig& c) {
  if (c.model != "algorithms" && c.model != "dimemas") {
    throw std::invalid_argument(
        fmt::format("collectives.model: unknown model '{}' (known: algorithms, dimemas)", c.model));
  }
  decisions(c.selector);
  auto check = [](const auto& table, const std::string& name, const char* key) {
    if (name != "auto") by_name(table, name, key);
  };
  check(barrier_algorithms(), c.barrier, "barrier");
  check(bcast_algorithms(), c.bcast, "bcast");
  check(reduce_algorithms(), c.reduce, "reduce");
  check(allreduce_algorithms(), c.allreduce, "allreduce");
  check(gather_algorithms(), c.gather, "gather");
  check(scatter_algorithms(), c.scatter, "scatter");
  check(allgather_algorithms(), c.allgather, "allgather");
  check(alltoall_algorithms(), c.alltoall, "alltoall");
  check(reduce_scatter_algorithms(), c.reduce_scatter, "reduce_scatter");
  check(scan_algorithms(), c.scan, "scan");
  check(exscan_algorithms(), c.scan, "scan");
}

}  // namespace mgen::mpi::colls
