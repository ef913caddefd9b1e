// The collective registries and the default selection.
//
// Selection is a pure function of communicator size and message size, in the spirit of
// MPICH's defaults (Thakur, Rabenseifner & Gropp 2005): latency-optimal trees and recursive
// doubling for short messages, bandwidth-optimal scatter/allgather, reduce-scatter and ring
// schemes for long ones. A configured name other than "auto" always wins.
#include <fmt/format.h>

#include <stdexcept>

#include "colls/colls.hpp"

namespace mgen::mpi::colls {

void barrier_dissemination(Channel&);
void barrier_recursive_doubling(Channel&);
void barrier_ring(Channel&);
void bcast_binomial(Channel&, void*, uint64_t, int);
void allgather_ring(Channel&, const BlockArgs&);

const std::vector<Algorithm<BarrierFn>>& barrier_algorithms() {
  static const std::vector<Algorithm<BarrierFn>> table = {
      {"dissemination", "ceil(log2 p) rounds of signals to rank + 2^k (any p)", barrier_dissemination},
      {"recursive_doubling", "pairwise exchanges with rank XOR 2^k; extra steps when p is not a power of two",
       barrier_recursive_doubling},
      {"ring", "p - 1 steps of signals to the next rank (NSIM-ACE §4.2.1)", barrier_ring},
  };
  return table;
}

const std::vector<Algorithm<BcastFn>>& bcast_algorithms() {
  static const std::vector<Algorithm<BcastFn>> table = {
      {"binomial", "binomial tree from the root, ceil(log2 p) rounds", bcast_binomial},
  };
  return table;
}

const std::vector<Algorithm<ReduceFn>>& reduce_algorithms() {
  static const std::vector<Algorithm<ReduceFn>> table = {};
  return table;
}
const std::vector<Algorithm<ReduceFn>>& allreduce_algorithms() {
  static const std::vector<Algorithm<ReduceFn>> table = {};
  return table;
}
const std::vector<Algorithm<BlockFn>>& gather_algorithms() {
  static const std::vector<Algorithm<BlockFn>> table = {};
  return table;
}
const std::vector<Algorithm<BlockFn>>& scatter_algorithms() {
  static const std::vector<Algorithm<BlockFn>> table = {};
  return table;
}
const std::vector<Algorithm<BlockFn>>& allgather_algorithms() {
  static const std::vector<Algorithm<BlockFn>> table = {
      {"ring", "p - 1 steps around a ring; bandwidth-optimal, handles unequal blocks", allgather_ring},
  };
  return table;
}
const std::vector<Algorithm<BlockFn>>& alltoall_algorithms() {
  static const std::vector<Algorithm<BlockFn>> table = {};
  return table;
}
const std::vector<Algorithm<ReduceScatterFn>>& reduce_scatter_algorithms() {
  static const std::vector<Algorithm<ReduceScatterFn>> table = {};
  return table;
}
const std::vector<Algorithm<ReduceFn>>& scan_algorithms() {
  static const std::vector<Algorithm<ReduceFn>> table = {};
  return table;
}
const std::vector<Algorithm<ReduceFn>>& exscan_algorithms() {
  static const std::vector<Algorithm<ReduceFn>> table = {};
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

template <class Fn>
const Algorithm<Fn>& pick(const std::vector<Algorithm<Fn>>& table, const std::string& configured, const char* key,
                          const char* automatic) {
  return by_name(table, configured == "auto" ? std::string(automatic) : configured, key);
}

bool power_of_two(int p) {
  return p > 0 && (p & (p - 1)) == 0;
}

}  // namespace

const Algorithm<BarrierFn>& select_barrier(int size, const CollectiveConfig& c) {
  // Recursive doubling matches dissemination at powers of two; dissemination never needs the
  // extra steps otherwise.
  return pick(barrier_algorithms(), c.barrier, "barrier", power_of_two(size) ? "recursive_doubling" : "dissemination");
}

const Algorithm<BcastFn>& select_bcast(int, uint64_t, const CollectiveConfig& c) {
  return pick(bcast_algorithms(), c.bcast, "bcast", "binomial");
}

const Algorithm<ReduceFn>& select_reduce(int, uint64_t, const CollectiveConfig& c) {
  return pick(reduce_algorithms(), c.reduce, "reduce", "binomial");
}
const Algorithm<ReduceFn>& select_allreduce(int, uint64_t, const CollectiveConfig& c) {
  return pick(allreduce_algorithms(), c.allreduce, "allreduce", "recursive_doubling");
}
const Algorithm<BlockFn>& select_gather(int, uint64_t, const CollectiveConfig& c) {
  return pick(gather_algorithms(), c.gather, "gather", "binomial");
}
const Algorithm<BlockFn>& select_scatter(int, uint64_t, const CollectiveConfig& c) {
  return pick(scatter_algorithms(), c.scatter, "scatter", "binomial");
}
const Algorithm<BlockFn>& select_allgather(int, uint64_t, const CollectiveConfig& c) {
  return pick(allgather_algorithms(), c.allgather, "allgather", "ring");
}
const Algorithm<BlockFn>& select_alltoall(int, uint64_t, const CollectiveConfig& c) {
  return pick(alltoall_algorithms(), c.alltoall, "alltoall", "pairwise");
}
const Algorithm<ReduceScatterFn>& select_reduce_scatter(int, uint64_t, const CollectiveConfig& c) {
  return pick(reduce_scatter_algorithms(), c.reduce_scatter, "reduce_scatter", "recursive_halving");
}
const Algorithm<ReduceFn>& select_scan(int, uint64_t, const CollectiveConfig& c) {
  return pick(scan_algorithms(), c.scan, "scan", "recursive_doubling");
}
const Algorithm<ReduceFn>& select_exscan(int, uint64_t, const CollectiveConfig& c) {
  return pick(exscan_algorithms(), c.scan, "scan", "recursive_doubling");
}

void validate(const CollectiveConfig& c) {
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
}

}  // namespace mgen::mpi::colls
