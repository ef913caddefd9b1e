// Configuration of the MPI layer and the host node, filled from the machine file's [mpi],
// [node] and [collectives] tables (config/ is the only place that reads them).
#pragma once

#include <cstdint>
#include <string>

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
};

struct NodeConfig {
  uint32_t procs_per_node = 1;  // default for `mgen run --ppn`
  // Messages between ranks of one node are copies in memory, not network traffic.
  Bandwidth memory_bandwidth = Bandwidth::gigabytes_per_second(10);
  Time memory_latency = Time::ns(300);
  // Recompiled MPI programs: measured CPU time between MPI calls is multiplied by this to
  // give the target CPU's compute time (0.5: the target is twice as fast as this host).
  double cpu_scale = 1.0;
  // The roofline of one rank's computation (MGEN_Comp_work, the NAS skeletons): sustained
  // floating-point rate and memory bandwidth of one core.
  double flop_rate = 2e9;
  Bandwidth stream_bandwidth = Bandwidth::gigabytes_per_second(4);
};

// Algorithm per collective: "auto" (the default selection by communicator size and message
// size) or a name from the collective registry (`mgen info` lists them).
struct CollectiveConfig {
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
};

}  // namespace mgen::mpi
