// Configuration of the MPI layer and the host node, filled from the machine file's [mpi],
// [node] and [collectives] tables (config/ is the only place that reads them).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mgen/simcore/units.hpp"

namespace mgen::mpi {

using simcore::Bandwidth;
using simcore::Bytes;
using simcore::Time;

struct MpiConfig {
  // Messages up to this size go eagerly (data with the envelope); larger ones use rendezvous:
  // request-to-send, clear-to-send, then the data.
  Bytes eager_threshold = Bytes(16384);
  // Bytes of an MPI envelope: added to eager messages, the whole of control messages.
  Bytes envelope = Bytes(64);
  // Host software overheads per call, charged to the calling rank's clock.
  Time send_overhead = Time::ns(200);  // posting a send or a put
  Time recv_overhead = Time::ns(200);  // completing a receive
  Time rdma_overhead = Time::zero();   // NSIM-ACE's "communication library overhead" per put/get
  Time poll_overhead = Time::ns(50);   // an unsuccessful test or probe (a pass of the progress engine)
  // An MPI_Wtime that finds the rank's clock where its previous MPI_Wtime left it (nothing
  // simulated in between: a loop that spins on the clock, under --ignore-compute or around
  // work too short to measure). Without it such a loop would never end.
  Time wtime_overhead = Time::ns(20);
  // Progress of a completed send, charged when a wait or test finds it complete (Breaking
  // Band's Post_prog + Misc, §6). Zero: sends cost nothing after their post.
  Time send_progress_overhead = Time::zero();
};

struct NodeConfig {
  uint32_t procs_per_node = 1;  // default for `mgen run --ppn`
  // Messages between ranks of one node are copies in memory, not network traffic.
  Bandwidth memory_bandwidth = Bandwidth::gigabytes_per_second(10);
  Time memory_latency = Time::ns(300);
  // Copies of at least `first` bytes run at `second` instead (the last row whose size is at most
  // the copy's; sizes increase): caches make a large copy slower than a small one. Empty: one
  // rate. `mgen calibrate` fits it to this host's ping-pong curve.
  std::vector<std::pair<Bytes, Bandwidth>> memory_bandwidth_by_size;
  // Instead of one copy engine per node, a rank takes in one message per this time, by size (a
  // stream's time per message; the copy's latency stays its length plus memory_latency): rows
  // of (size, time), sizes increasing, linear between rows, the first row's time below it and
  // proportional to size beyond the last. `mgen calibrate` fits it to this host's streaming.
  std::vector<std::pair<Bytes, Time>> copy_gap_by_size;
  // Recompiled MPI programs: measured CPU time between MPI calls is multiplied by this to
  // give the target CPU's compute time (0.5: the target is twice as fast as this host).
  double cpu_scale = 1.0;
  // The roofline of one rank's computation (MGEN_Comp_work, the NAS skeletons): sustained
  // floating-point rate and memory bandwidth of one core.
  double flop_rate = 2e9;
  Bandwidth stream_bandwidth = Bandwidth::gigabytes_per_second(4);
};

// Dimemas's collective model (Girona et al. 2000, §3.1): T = FAN_IN + FAN_OUT, each phase
// (L + SIZE/B) x MODEL_FACTOR. One row per MPI collective, as in the paper's Table 3.
struct DimemasPhase {
  enum Model : uint8_t { kNone, kConstant, kLinear, kLog };    // factor 0, 1, P, Nsteps (Table 1)
  enum Size : uint8_t { kMax, kMin, kMean, kTwiceMax, kSum };  // of the root's sent/received sizes (Table 2)
  Model model = kNone;
  Size size = kMax;
};
struct DimemasRow {
  DimemasPhase in, out;
};
// The rows of Table 3, in this order.
enum DimemasOp : uint8_t {
  kDimBarrier,
  kDimBcast,
  kDimGather,
  kDimGatherv,
  kDimScatter,
  kDimScatterv,
  kDimAllgather,
  kDimAllgatherv,
  kDimAlltoall,
  kDimAlltoallv,
  kDimReduce,
  kDimAllreduce,
  kDimReduceScatter,
  kDimScan,
  kDimOps,
};
inline constexpr const char* kDimemasOpNames[kDimOps] = {
    "barrier",    "bcast",    "gather",    "gatherv", "scatter",   "scatterv",       "allgather",
    "allgatherv", "alltoall", "alltoallv", "reduce",  "allreduce", "reduce_scatter", "scan"};
// Table 3: the parameters the paper found to model the SGI Origin's MPI.
inline constexpr std::array<DimemasRow, kDimOps> kDimemasTable3 = {{
    {{DimemasPhase::kLinear, DimemasPhase::kMax}, {DimemasPhase::kLinear, DimemasPhase::kMax}},  // Barrier
    {{DimemasPhase::kLog, DimemasPhase::kMax}, {DimemasPhase::kNone, DimemasPhase::kMax}},       // Bcast
    {{DimemasPhase::kLog, DimemasPhase::kMean}, {DimemasPhase::kNone, DimemasPhase::kMax}},      // Gather
    {{DimemasPhase::kLog, DimemasPhase::kMean}, {DimemasPhase::kNone, DimemasPhase::kMax}},      // Gatherv
    {{DimemasPhase::kNone, DimemasPhase::kMax}, {DimemasPhase::kLog, DimemasPhase::kMean}},      // Scatter
    {{DimemasPhase::kNone, DimemasPhase::kMax}, {DimemasPhase::kLog, DimemasPhase::kMean}},      // Scatterv
    {{DimemasPhase::kLog, DimemasPhase::kMean}, {DimemasPhase::kLog, DimemasPhase::kMean}},      // Allgather
    {{DimemasPhase::kLog, DimemasPhase::kMean}, {DimemasPhase::kLog, DimemasPhase::kMean}},      // Allgatherv
    {{DimemasPhase::kLog, DimemasPhase::kMean}, {DimemasPhase::kLog, DimemasPhase::kMax}},       // Alltoall
    {{DimemasPhase::kLog, DimemasPhase::kMean}, {DimemasPhase::kLog, DimemasPhase::kMax}},       // Alltoallv
    {{DimemasPhase::kLog, DimemasPhase::kTwiceMax}, {DimemasPhase::kNone, DimemasPhase::kMax}},  // Reduce
    {{DimemasPhase::kLog, DimemasPhase::kTwiceMax}, {DimemasPhase::kLog, DimemasPhase::kMax}},   // Allreduce
    {{DimemasPhase::kLog, DimemasPhase::kTwiceMax}, {DimemasPhase::kLog, DimemasPhase::kMin}},   // Reduce_scatter
    {{DimemasPhase::kLog, DimemasPhase::kMax}, {DimemasPhase::kLog, DimemasPhase::kMax}},        // Scan
}};

// Algorithm per collective: "auto" (the default selection by communicator size and message
// size) or a name from the collective registry (`mgen info` lists them).
struct CollectiveConfig {
  // Whose rules "auto" follows: "mpich" (the default: MPICH 4.0.2's default choices; mgen
  // implements MPICH's ABI, so users compare with their MPICH), "ompi" (Open MPI 4.1.6's fixed
  // decision rules, coll/tuned) or "mgen" (mgen's own rules from before issue 20, kept for
  // comparison with earlier predictions).
  std::string selector = "mpich";
  // "algorithms": "auto" picks by size as below; "dimemas": "auto" means Dimemas's collective
  // model (the "dimemas" entry of every registry), with `dimemas` as its Table 3.
  std::string model = "algorithms";
  std::string barrier = "auto";
  std::string bcast = "auto";
  std::string reduce = "auto";
  std::string allreduce = "auto";
  std::string gather = "auto";
  std::string scatter = "auto";
  std::string allgather = "auto";
  std::string alltoall = "auto";
  std::string reduce_scatter = "auto";
  std::string scan = "auto";
  std::array<DimemasRow, kDimOps> dimemas = kDimemasTable3;
};

}  // namespace mgen::mpi
