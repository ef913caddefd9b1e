// Plain configuration structs for the network model, with the defaults of the built-in
// machine. They are filled from TOML in exactly one place (config/); nothing here knows TOML.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "mgen/simcore/units.hpp"

namespace mgen::net {

using simcore::Bandwidth;
using simcore::Bytes;
using simcore::Time;

// A semantic error in a configuration, naming the dotted key it concerns so the config layer
// can point at the file and line where that key was written.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string key, const std::string& message) : std::runtime_error(message), key_(std::move(key)) {}
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

struct TopologyConfig {
  // "torus", "mesh", "fattree" or "crossbar" (see `mgen info` for the registry).
  std::string kind = "torus";

  // torus / mesh: routers per dimension (1 to 6 dimensions).
  std::vector<uint32_t> dims{8, 8, 8};
  // Parallel links per direction in each dimension (Gemini: 2 in X and Z, 1 in Y). Empty = 1.
  std::vector<uint32_t> channels;
  // Bandwidth of one router-to-router link, per dimension (one value = every dimension).
  std::vector<Bandwidth> link_bandwidth{Bandwidth::gigabytes_per_second(10)};
  Time link_latency = Time::ns(20);
  // Nodes attached to each router (Gemini: 2).
  uint32_t nodes_per_router = 1;

  // fattree: an extended generalized fat tree XGFT(h; m_1..m_h; 1, w_2..w_h).
  // down[l-1] = children per switch at level l; up[l-1] = parents of each level-l switch
  // (length h-1). A k-ary n-tree is down = [k]*n, up = [k]*(n-1).
  std::vector<uint32_t> down;
  std::vector<uint32_t> up;
  // crossbar: the number of nodes on the single switch.
  uint32_t crossbar_nodes = 0;
};

struct RouterConfig {
  // A name from the routing registry valid for the topology ("dor", "hashed", "adaptive",
  // "dmodk", "random", "adaptive_up"); empty = the topology's default.
  std::string routing;
  uint32_t vcs = 2;                // virtual channels per input port
  Bytes vc_buffer = Bytes(16384);  // buffer per virtual channel
  Time routing_delay = Time::ns(4);
  Time vc_alloc_delay = Time::ns(4);
  Time switch_alloc_delay = Time::ns(4);
  Time switch_delay = Time::ns(20);                                  // switch traversal
  Bandwidth switch_bandwidth = Bandwidth::gigabytes_per_second(20);  // per crossbar port
  std::string arbitration = "round_robin";                           // or "age"
  // Dateline virtual channels on tori. Turning them off makes dimension-order routing on a
  // torus deadlock-prone; it exists to demonstrate exactly that, never for real studies.
  bool dateline = true;
  // Slow reference mode (the idea of SST's VERIFY_DECLOCKING): credits travel as events and
  // every output and NIC that might have work is woken, nothing suppressed. Same timing model,
  // so a test can check that the fast path's lazy credits and skipped wake-ups change nothing.
  bool reference = false;
  // Router steps (docs/network-model.md, "Router steps"; the key is named after the packet
  // trains they replaced): a router runs everything due before its horizon in one event.
  // Exact; false gives one event per packet and hop.
  bool trains = true;
};

// What a packet's head spends in a router before it may leave: the pipeline stages RC, VA,
// SA and ST. Its tail pays only the switch traversal.
inline Time head_delay(const RouterConfig& r) {
  return r.routing_delay + r.vc_alloc_delay + r.switch_alloc_delay + r.switch_delay;
}

struct NicConfig {
  uint32_t nics_per_node = 1;
  Bandwidth link_bandwidth = Bandwidth::gigabytes_per_second(10);  // NIC <-> router link
  Time link_latency = Time::ns(50);
  Bandwidth dma_bandwidth = Bandwidth::gigabytes_per_second(20);  // host memory <-> NIC, each way
  Time dma_latency = Time::zero();
  Bytes packet_payload = Bytes(2048);
  Bytes packet_header = Bytes(32);
  Bytes rx_buffer = Bytes(65536);  // ejection buffer, freed as packets are written to memory
  // "packets": a message is a train of packets. "fma": Gemini's Fast Memory Access puts (PPT
  // §5): every packet (a put request) is answered by a `response_bytes` packet from the
  // destination NIC back to the source NIC, which loads the reverse path.
  std::string transport = "packets";
  Bytes response_bytes = Bytes(9);
};

// The Dimemas backend's machine (Girona et al. 2000, §3): T = L + S/B per message, with the
// node's links and the machine's buses as the only shared resources.
struct DimemasConfig {
  Time latency = Time::us(25);
  Bandwidth bandwidth = Bandwidth::bytes_per_second(87500000);
  uint32_t buses = 0;                          // transfers the network carries at once; 0 = unlimited
  uint32_t input_links = 1, output_links = 1;  // per node
  bool half_duplex = false;                    // a node's links carry one transfer at a time, in either direction
};

// The analytic backend's one shared resource, off by default (the zero-load oracle has none).
struct AnalyticConfig {
  // Messages leave and enter each NIC one after another, in injection order: ranks sharing a
  // NIC, and one rank's many sends, share its bandwidth. Nothing is shared inside the network.
  bool nic_contention = false;
};

// The flow backend (network/flow/): max-min fair flows on the packet model's routes.
struct FlowConfig {
  // Reference mode: every change re-solves every flow from scratch instead of only the flows
  // it reaches, so a test can check that incremental sharing changes nothing.
  bool reference = false;
  // Slack of the incremental solver: where a solve meets the flows it holds fixed, a resource
  // still counts as full at (1 - tolerance) of its capacity, so a small change in what the
  // solved flows use there does not pull the flows bottlenecked there (and theirs, and so on)
  // into the solve. The condition is on the resource's state, not on the change, so slack
  // cannot build up past it. 0 is exact max-min, which under dense all-to-all traffic re-solves
  // most flows in flight at every start; at most 0.01 (docs/network-model.md).
  double tolerance = 0.01;
  // Pacing of dense solves (docs/network-model.md, "Pacing"): after a solve, starts and ends
  // wait for the next solve until the smaller of solve_pace x (flows in flight) and pace_share x
  // (the mean time the flows it re-solved still need) has passed. The first bounds the solver's
  // work per simulated time (a solve re-solves at most the flows in flight); the second bounds
  // the error: capacity a finished flow leaves idle until the next solve is at most about
  // pace_share / 2 of a resource's throughput. solve_pace = 0: every change is solved at once.
  // Pacing follows only a solve that re-solved at least pace_from flows: cheap solves need no
  // pacing, and batching them makes larger sets (more of the max-min ripple at once), while
  // latency-bound exchanges (pairwise steps, rings) would add up the waits.
  Time solve_pace = Time::ps(100);
  double pace_share = 0.02;
  uint64_t pace_from = 256;
  // Mice (docs/network-model.md, "Mice"): a one-packet message of at most mouse_bytes (rendezvous
  // requests and answers, small eager messages) does not enter the max-min solve. It takes the
  // share it would get on each resource as it starts, one after another with the mice before it
  // there, and leaves the other flows' rates alone. 0 = every message is solved.
  Bytes mouse_bytes = Bytes(256);
  // Head-of-line waits (docs/network-model.md, "Head-of-line waits"): a router input serves one
  // packet at a time, and its head packet waits while another input uses its output. An input
  // with flows to two or more outputs that other inputs also feed has its capacity divided by
  // 1 + hol_wait x (the mean over its flows of 1 - 1/n, n the inputs feeding that flow's output).
  // Fitted to the packet model (router input FIFOs, round robin); 0 = pure max-min.
  // Deterministic routings only.
  double hol_wait = 0.29;
  // Not a machine key: the solver numbers its rounds with 32-bit epochs and renumbers every
  // mark once they come within a solve's worth of this limit (a long run passes 2^32 rounds:
  // FT class D at 4,096 ranks makes hundreds of millions of solves). Tests lower it so that the
  // renumbering runs every few solves.
  uint32_t epoch_limit = UINT32_MAX;
};

struct NetworkConfig {
  // "auto" (packet; flow for more than kAutoPacketRanks ranks on fat trees), "packet", "flow",
  // "analytic" or "dimemas" (mgen/net/backend.hpp).
  std::string backend = "auto";
  TopologyConfig topology;
  RouterConfig router;
  NicConfig nic;
  DimemasConfig dimemas;
  AnalyticConfig analytic;
  FlowConfig flow;
};

// Checks values that no topology builder could make sense of; throws ConfigError.
void validate(const NetworkConfig& config);

}  // namespace mgen::net
