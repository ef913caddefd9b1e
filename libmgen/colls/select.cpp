// The collective registries and the default selection.
//
// Selection is a pure function of communicator size and message size, in the spirit of
// MPICH's defaults (Thakur, Rabenseifner & Gropp 2005): latency-optimal trees and recursive
// doubling for short messages, bandwidth-optimal scatter/allgather, reduce-scatter and ring
// schemes for long ones. A configured name other than "auto" always wins.
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
      {"dimemas", kDimemasDescription, barrier_dimemas},
  };
  return table;
}

const std::vector<Algorithm<BcastFn>>& bcast_algorithms() {
  static const std::vector<Algorithm<BcastFn>> table = {
      {"binomial", "binomial tree from the root, ceil(log2 p) rounds", bcast_binomial},
      {"scatter_allgather", "Van de Geijn: binomial scatter of p chunks, then ring allgather; long messages",
       bcast_scatter_allgather},
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
      {"dimemas", kDimemasDescription, allreduce_dimemas},
  };
  return table;
}
const std::vector<Algorithm<BlockFn>>& gather_algorithms() {
  static const std::vector<Algorithm<BlockFn>> table = {
      {"binomial", "binomial tree toward the root, ceil(log2 p) rounds; gatherv goes linear", gather_binomial},
      {"linear", "the root receives from every rank at once", gather_linear},
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
      {"dimemas", kDimemasDescription, allgather_dimemas},
  };
  return table;
}
const std::vector<Algorithm<BlockFn>>& alltoall_algorithms() {
  static const std::vector<Algorithm<BlockFn>> table = {
      {"pairwise", "p - 1 sendrecv steps with rank XOR i (powers of two) or rank +- i", alltoall_pairwise},
      {"bruck", "Bruck et al. 1997: ceil(log2 p) rounds for short blocks; alltoallv uses pairwise", alltoall_bruck},
      {"linear", "every send and receive posted at once", alltoall_linear},
      {"dimemas", kDimemasDescription, alltoall_dimemas},
  };
  return table;
}
const std::vector<Algorithm<ReduceScatterFn>>& reduce_scatter_algorithms() {
  static const std::vector<Algorithm<ReduceScatterFn>> table = {
      {"recursive_halving", "halve the vector with partners at distance p/2 .. 1, log2 p rounds (+2 for other p)",
       reduce_scatter_recursive_halving},
      {"ring", "p - 1 steps around a ring between neighbours; bandwidth-optimal for any p", reduce_scatter_ring},
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
                          const std::string& configured, const char* key, const char* automatic) {
  if (configured != "auto") return by_name(table, configured, key);
  return by_name(table, c.model == "dimemas" ? "dimemas" : automatic, key);
}

// Whether the ring beats recursive halving (allreduce, reduce_scatter) for `bytes` in all.
// Measured on the 4x4x4 test torus at 4 GB/s for p = 8 to 200 and 16 KiB to 4 MiB: the ring's
// neighbour-only traffic beats recursive halving, whose partners at distance p/2, p/4 share
// torus links, once each of its p blocks is 4 KiB; at other sizes than powers of two, where
// Rabenseifner's fold moves the whole vector twice more, from 1 KiB. Below, the ring's
// 2 (p - 1) latencies cost more.
bool ring_pays(int size, uint64_t bytes) {
  return bytes / static_cast<uint64_t>(size) >= (is_pof2(size) ? 4096u : 1024u);
}

}  // namespace

const Algorithm<BarrierFn>& select_barrier(int size, const CollectiveConfig& c) {
  // Recursive doubling matches dissemination at powers of two; dissemination never needs the
  // extra steps otherwise.
  return pick(barrier_algorithms(), c, c.barrier, "barrier", is_pof2(size) ? "recursive_doubling" : "dissemination");
}

// MPICH: binomial below 12 KiB or for fewer than 8 ranks, where its log2(p) full copies cost
// less than the scatter's extra latency.
const Algorithm<BcastFn>& select_bcast(int size, uint64_t bytes, const CollectiveConfig& c) {
  return pick(bcast_algorithms(), c, c.bcast, "bcast", bytes < 12288 || size < 8 ? "binomial" : "scatter_allgather");
}

// MPICH: binomial up to 2 KiB; Rabenseifner above, when there is at least an element (8 bytes,
// the selection sees no counts) for every block of its reduce-scatter.
const Algorithm<ReduceFn>& select_reduce(int size, uint64_t bytes, const CollectiveConfig& c) {
  const bool rabenseifner = bytes > 2048 && bytes >= 8 * static_cast<uint64_t>(pof2_floor(size));
  return pick(reduce_algorithms(), c, c.reduce, "reduce", rabenseifner ? "rabenseifner" : "binomial");
}

// MPICH: recursive doubling up to 2 KiB, Rabenseifner above (given an element, 8 bytes since
// the selection sees no counts, for every block of its reduce-scatter). Our addition: the ring
// for long vectors (ring_pays).
const Algorithm<ReduceFn>& select_allreduce(int size, uint64_t bytes, const CollectiveConfig& c) {
  const char* name = "recursive_doubling";
  if (bytes > 2048 && bytes >= 8 * static_cast<uint64_t>(pof2_floor(size))) {
    name = ring_pays(size, bytes) ? "ring" : "rabenseifner";
  }
  return pick(allreduce_algorithms(), c, c.allreduce, "allreduce", name);
}

// MPICH: binomial trees for gather and scatter; the "v" forms (kVaried) are linear.
const Algorithm<BlockFn>& select_gather(int, uint64_t bytes, const CollectiveConfig& c) {
  return pick(gather_algorithms(), c, c.gather, "gather", bytes == kVaried ? "linear" : "binomial");
}
const Algorithm<BlockFn>& select_scatter(int, uint64_t bytes, const CollectiveConfig& c) {
  return pick(scatter_algorithms(), c, c.scatter, "scatter", bytes == kVaried ? "linear" : "binomial");
}

// MPICH, on the total: recursive doubling for powers of two below 512 KiB, Bruck below 80 KiB
// otherwise, the ring for long messages.
const Algorithm<BlockFn>& select_allgather(int size, uint64_t bytes, const CollectiveConfig& c) {
  const char* name = "ring";
  if (bytes < 524288 && is_pof2(size)) {
    name = "recursive_doubling";
  } else if (bytes < 81920) {
    name = "bruck";
  }
  return pick(allgather_algorithms(), c, c.allgather, "allgather", name);
}

// MPICH: Bruck for blocks of at most 256 bytes on 8 or more ranks, pairwise exchange otherwise
// (and for alltoallv, whose blocks only their two ranks know).
const Algorithm<BlockFn>& select_alltoall(int size, uint64_t bytes, const CollectiveConfig& c) {
  return pick(alltoall_algorithms(), c, c.alltoall, "alltoall", bytes <= 256 && size >= 8 ? "bruck" : "pairwise");
}

// MPICH: recursive halving for short vectors; where MPICH switches to a pairwise exchange for
// long ones, the ring, by the measured rule of ring_pays.
const Algorithm<ReduceScatterFn>& select_reduce_scatter(int size, uint64_t bytes, const CollectiveConfig& c) {
  return pick(reduce_scatter_algorithms(), c, c.reduce_scatter, "reduce_scatter",
              ring_pays(size, bytes) ? "ring" : "recursive_halving");
}

const Algorithm<ReduceFn>& select_scan(int, uint64_t, const CollectiveConfig& c) {
  return pick(scan_algorithms(), c, c.scan, "scan", "recursive_doubling");
}
const Algorithm<ReduceFn>& select_exscan(int, uint64_t, const CollectiveConfig& c) {
  return pick(exscan_algorithms(), c, c.scan, "scan", "recursive_doubling");
}

void validate(const CollectiveConfig& c) {
  if (c.model != "algorithms" && c.model != "dimemas") {
    throw std::invalid_argument(
        fmt::format("collectives.model: unknown model '{}' (known: algorithms, dimemas)", c.model));
  }
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
