// Collective algorithms: one file per algorithm (colls/<collective>_<algorithm>.cpp), each
// plain blocking code over point-to-point on a Channel; a typed registry per collective; and
// a pure selection function of (call signature, configuration) in select.cpp.
//
// Buffers follow the facade's conventions: sizes are in bytes, null buffers mean size-only
// (no copies, no reductions), and `send == recv` means in place. Algorithms must be correct
// for every communicator size, not only powers of two.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "colls/channel.hpp"
#include "mgen/mpi/config.hpp"
#include "mgen/net/config.hpp"

namespace mgen::mpi::colls {

// Reductions: `count` elements of `type` (type_size bytes each) combined with `op`.
struct ReduceArgs {
  const void* send = nullptr;
  void* recv = nullptr;  // significant at the root only for reduce
  uint64_t count = 0;
  int type = 0;
  uint32_t type_size = 0;
  int op = 0;
  int root = 0;
  bool in_place = false;  // the input is already in `recv` (MGEN_IN_PLACE)
};

// Gather/scatter/allgather/alltoall in bytes. For the "v" forms counts and displacements are
// per rank. The regular forms set `regular` and `block` instead and may leave the vectors
// empty: every block is `block` bytes at `i * block`, every rank knows it (so tree algorithms
// can size subtrees), and no rank holds an O(p) table (100K ranks stay affordable). Algorithms
// read sizes through the accessors, which serve both forms.
struct BlockArgs {
  const void* send = nullptr;
  void* recv = nullptr;
  std::vector<uint64_t> send_counts, send_displs;  // alltoall(v), scatter(v) (root)
  std::vector<uint64_t> recv_counts, recv_displs;  // gather(v) (root), allgather(v), alltoall(v)
  uint64_t send_bytes = 0;                         // gather/allgather: this rank's block
  uint64_t recv_bytes = 0;                         // scatter: this rank's block
  int root = 0;
  bool in_place = false;  // MGEN_IN_PLACE: this rank's block is already where it belongs
  bool regular = false;   // every block is `block` bytes and every rank knows it
  uint64_t block = 0;

  uint64_t send_count(int i) const { return regular ? block : send_counts[i]; }
  uint64_t send_displ(int i) const { return regular ? block * static_cast<uint64_t>(i) : send_displs[i]; }
  uint64_t recv_count(int i) const { return regular ? block : recv_counts[i]; }
  uint64_t recv_displ(int i) const { return regular ? block * static_cast<uint64_t>(i) : recv_displs[i]; }
};

// Reduce-scatter: `counts[i]` elements of the result go to rank i (or `block` elements each
// when `regular`, with `counts` left empty: reduce_scatter_block).
struct ReduceScatterArgs {
  const void* send = nullptr;
  void* recv = nullptr;
  std::vector<uint64_t> counts;
  int type = 0;
  uint32_t type_size = 0;
  int op = 0;
  bool in_place = false;  // the input is in `recv`, sized for the whole vector
  bool regular = false;
  uint64_t block = 0;

  uint64_t count(int i) const { return regular ? block : counts[i]; }
};

using BarrierFn = void (*)(Channel&);
using BcastFn = void (*)(Channel&, void* buf, uint64_t bytes, int root);
using ReduceFn = void (*)(Channel&, const ReduceArgs&);
using BlockFn = void (*)(Channel&, const BlockArgs&);
using ReduceScatterFn = void (*)(Channel&, const ReduceScatterArgs&);

template <class Fn>
struct Algorithm {
  const char* name;
  const char* description;
  Fn fn;
};

// The registries, one per collective (printed by `mgen info`, swept by the tests).
const std::vector<Algorithm<BarrierFn>>& barrier_algorithms();
const std::vector<Algorithm<BcastFn>>& bcast_algorithms();
const std::vector<Algorithm<ReduceFn>>& reduce_algorithms();
const std::vector<Algorithm<ReduceFn>>& allreduce_algorithms();
const std::vector<Algorithm<BlockFn>>& gather_algorithms();
const std::vector<Algorithm<BlockFn>>& scatter_algorithms();
const std::vector<Algorithm<BlockFn>>& allgather_algorithms();
const std::vector<Algorithm<BlockFn>>& alltoall_algorithms();
const std::vector<Algorithm<ReduceScatterFn>>& reduce_scatter_algorithms();
const std::vector<Algorithm<ReduceFn>>& scan_algorithms();    // inclusive
const std::vector<Algorithm<ReduceFn>>& exscan_algorithms();  // exclusive

// What the default selection looks at in a call (MPICH's "coll_sig"). `bytes` must be the same
// at every rank: bcast, reduce, allreduce, scan: the message; gather, scatter, alltoall: one
// block; allgather, reduce_scatter: the whole result. Where no rank knows every size (gatherv,
// scatterv, alltoallv) the facade passes kVaried.
constexpr uint64_t kVaried = ~uint64_t{0};
struct Signature {
  int size = 1;  // communicator size
  uint64_t bytes = 0;
  uint64_t count = 0;       // elements of a reduction (MPICH compares it with pof2)
  bool builtin_op = true;   // a predefined operation (MPICH: is_op_built_in)
  bool commutative = true;  // the MPI layer keeps operations that do not commute off these paths
  bool in_place = false;    // alltoall with MGEN_IN_PLACE
  bool varied = false;      // allgatherv, reduce_scatter: blocks may differ (Open MPI has rules of their own)
};

// The default selection, as data: per collective, conditions tried in order, the first that
// holds names the algorithm. One table per selector ([collectives] selector): "mpich" (MPICH
// 4.0.2's defaults, select_mpich.cpp), "ompi" (Open MPI 4.1.6's fixed rules, select_ompi.cpp)
// and "mgen" (mgen's own rules, select_mgen.cpp). `mgen info` prints the active one; the
// selection walks the same rows, so the two cannot drift.
enum class Collective : int {
  kBarrier,
  kBcast,
  kReduce,
  kAllreduce,
  kGather,
  kScatter,
  kAllgather,
  kAlltoall,
  kReduceScatter,
  kScan,
  kExscan,
};
constexpr size_t kCollectives = 11;
struct Rule {
  const char* when;  // the condition, as `mgen info` prints it
  bool (*holds)(const Signature&);
  const char* algorithm;
};
struct Decision {
  const char* collective;
  std::vector<Rule> rules;  // the last one always holds
};
using DecisionTable = std::array<Decision, kCollectives>;  // indexed by Collective
const DecisionTable& mpich_decisions();
const DecisionTable& mgen_decisions();
const DecisionTable& ompi_decisions();
// The table of `selector`; throws std::invalid_argument for an unknown one.
const DecisionTable& decisions(const std::string& selector);
// The algorithm the table picks for `sig`.
const char* decide(const DecisionTable& table, Collective coll, const Signature& sig);

// Selection: the configured name when it is not "auto", else the selector's choice (or
// Dimemas's model when collectives.model is "dimemas"). Throws std::invalid_argument for an
// unknown name.
const Algorithm<BarrierFn>& select_barrier(const Signature& sig, const CollectiveConfig& c);
const Algorithm<BcastFn>& select_bcast(const Signature& sig, const CollectiveConfig& c);
const Algorithm<ReduceFn>& select_reduce(const Signature& sig, const CollectiveConfig& c);
const Algorithm<ReduceFn>& select_allreduce(const Signature& sig, const CollectiveConfig& c);
const Algorithm<BlockFn>& select_gather(const Signature& sig, const CollectiveConfig& c);
const Algorithm<BlockFn>& select_scatter(const Signature& sig, const CollectiveConfig& c);
const Algorithm<BlockFn>& select_allgather(const Signature& sig, const CollectiveConfig& c);
const Algorithm<BlockFn>& select_alltoall(const Signature& sig, const CollectiveConfig& c);
const Algorithm<ReduceScatterFn>& select_reduce_scatter(const Signature& sig, const CollectiveConfig& c);
const Algorithm<ReduceFn>& select_scan(const Signature& sig, const CollectiveConfig& c);
const Algorithm<ReduceFn>& select_exscan(const Signature& sig, const CollectiveConfig& c);

// Dimemas's collective model: Nsteps of a logarithmic phase (equation 4: a binary tree's
// ceil(log2 p) phases, ceil(C_i / buses) steps each, buses 0 = unlimited) and the time of one
// collective, FAN_IN + FAN_OUT, for the root's (or the largest member's) sent/received bytes.
uint64_t dimemas_log_steps(int p, uint32_t buses);
Time dimemas_collective_time(const DimemasRow& row, int p, uint64_t sent, uint64_t received,
                             const net::DimemasConfig& d);

// Checks every configured name exists; throws std::invalid_argument naming the key.
void validate(const CollectiveConfig& c);

// Tags of collective traffic (on the collective context, so they never meet user tags).
enum Tag : int {
  kTagBarrier = 1,
  kTagBcast,
  kTagReduce,
  kTagAllreduce,
  kTagGather,
  kTagScatter,
  kTagAllgather,
  kTagAlltoall,
  kTagReduceScatter,
  kTagScan,
  kTagCommCreate,
};

// Copies `bytes` unless either side is null (size-only) or they are the same place.
void copy_block(void* to, const void* from, uint64_t bytes);

}  // namespace mgen::mpi::colls
