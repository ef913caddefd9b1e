// The network backend contract and the backend registry.
//
// A backend turns injected messages into the two callbacks of MessageSink (sent, delivered) at
// the right simulated times, using only the engine (its own block of event kinds), the machine's
// topology and routing, and its configuration. Every backend implements exactly this interface;
// NetworkModel owns one, chosen by name from backend_registry(). Adding a backend is one folder
// under network/ plus one row in network/backends.cpp (and `mgen info` lists it).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mgen/net/config.hpp"
#include "mgen/net/routing.hpp"
#include "mgen/net/topology.hpp"
#include "mgen/simcore/engine.hpp"

namespace mgen::net {

struct PartitionPlan;

class MessageSink {
 public:
  virtual ~MessageSink() = default;
  // The last packet of the message has left the source NIC (the send buffer is reusable).
  virtual void on_message_sent(uint64_t cookie, Time t) = 0;
  // Every byte of the message is in the destination's memory.
  virtual void on_message_delivered(uint64_t cookie, Time t) = 0;
  // Partitioned runs (mgen/net/partition.hpp): a message injected here for an endpoint of
  // another partition. The sink may describe it in bytes (appended to `out`, at the injection);
  // the destination partition's sink gets them in take_message, before the message can arrive
  // there, and returns the cookie its reports of the message carry. By default the cookie
  // crosses as it is.
  virtual void pack_message(uint64_t /*cookie*/, std::string& /*out*/) {}
  virtual uint64_t take_message(uint64_t cookie, std::string_view /*bytes*/) { return cookie; }
};

struct LinkStats {
  uint64_t bytes = 0;  // wire bytes, headers included
  uint64_t packets = 0;
  Time busy;  // sum over packets of (tail departure - head departure)
};

struct NetworkTotals {
  uint64_t messages_injected = 0;
  uint64_t messages_delivered = 0;
  uint64_t packets = 0;
  uint64_t packet_hops = 0;  // router-to-router and router-to-NIC link traversals
  uint64_t payload_bytes = 0;
  Time latency_sum;  // message injection to delivery
  Time latency_max;
  // The packet backend: the latest time a packet's payload was in its destination's memory (an
  // FMA response: reached its NIC). The same in every mode (reference, per packet, router steps,
  // partitioned), unlike the time of the last event, which a router step or a spare wake-up sets.
  Time last_arrival;
  // The flow backend's sharing work (zero for the others): max-min solves, and the flows they
  // re-solved in all. Per message, it says what the traffic costs that backend: a few flows for
  // bulk transfers, hundreds to thousands for dense exchanges of small messages.
  uint64_t solves = 0;
  uint64_t flows_resolved = 0;
  // Its pacing (FlowConfig::solve_pace): the solves followed by a quiet time, the starts and
  // ends that waited for a paced solve, and their waits in all.
  uint64_t paced_solves = 0;
  uint64_t paced_waits = 0;
  Time paced_wait_sum;
  // The mice (FlowConfig::mouse_bytes): one-packet messages timed without a solve.
  uint64_t mice = 0;
};

// What a backend is built from. The references outlive the backend.
struct BackendContext {
  simcore::Engine& engine;
  const NetworkConfig& config;
  const Topology& topology;
  const Routing& routing;
  MessageSink& sink;
  simcore::KindRange kinds;  // the event kinds the backend may schedule, reserved for it
  // Keep per-link statistics (router_link_stats, nic_link_stats). Off only where nobody reads
  // them: the traffic generator's benchmark mode.
  bool link_stats = true;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // A message of `size` bytes from `src` to `dst` at engine.now(); 0 bytes still costs a header.
  virtual void inject(EndpointId src, EndpointId dst, Bytes size, uint64_t cookie) = 0;
  // One of the backend's own events (its kind is in the context's range).
  virtual void dispatch(const simcore::Event& e) = 0;
  // Starts loading the state `e` will touch (a hint: changes nothing).
  virtual void prefetch(const simcore::Event& /*e*/) const {}
  virtual NetworkTotals totals() const = 0;
  // Per router output port (topology.port_base(r) + port): what crossed it. Null when the
  // backend has no router links (the links are then reported idle).
  virtual const std::vector<LinkStats>* router_link_stats() const { return nullptr; }
  // Per endpoint: its NIC's injection link, or null when the backend does not model it.
  virtual const std::vector<LinkStats>* nic_link_stats() const { return nullptr; }
  // Packets (or messages) injected and not yet delivered: non-zero on an idle engine is deadlock.
  virtual uint64_t in_flight() const = 0;
  // Where undelivered traffic is stuck, for deadlock reports (at most `limit` lines).
  virtual std::string describe_stuck(size_t /*limit*/) const { return ""; }
  // The router whose block a partitioned run would handle `e` in (its own router, or the
  // router of the endpoint it concerns): the partition model (partition_model.hpp). kNoId when
  // the backend has no such notion.
  virtual uint32_t event_router(const simcore::Event& /*e*/) const { return kNoId; }

  // Partitioned runs (mgen/net/partition.hpp). A backend that supports them drives only the
  // routers of partition `part` of `plan` (which outlives it), their NICs and endpoints; what it
  // would do to another partition's routers or endpoints waits in an outbox for that partition.
  virtual bool partitionable() const { return false; }
  // Every event the backend schedules is canonical (Engine::schedule_canonical): same-time
  // events run in an order of their own, not in the order the code scheduled them. The layers
  // above (node memory, the MPI world) then schedule canonically too, so that a job's
  // predictions do not depend on the order in which simultaneous events were scheduled (which
  // a partitioned run changes).
  virtual bool canonical() const { return false; }
  virtual void join_partition(const PartitionPlan& /*plan*/, uint32_t /*part*/) {}
  // The end of the window being run: nothing may be decided at or after it that a crossing not
  // yet taken could change.
  virtual void set_window_end(Time /*end*/) {}
  // Appends to `out` what this partition sent partition `to` during the window (as bytes, which
  // may cross to another process of the same build), and forgets it. Returns the earliest time
  // at which what it packed can make `to` act (Time::max() if never): the next window starts no
  // later than the earliest such time or pending event of any partition.
  virtual Time pack_crossings(uint32_t /*to*/, std::string& /*out*/) { return Time::max(); }
  // Applies what another partition's pack_crossings packed for this one, at the end of the
  // window that ended at `window_end`.
  virtual void take_crossings(std::string_view /*bytes*/, Time /*window_end*/) {}
};

struct BackendEntry {
  const char* name;
  const char* description;
  uint16_t event_kinds;   // how many event kinds the engine reserves for it
  unsigned bucket_shift;  // the calendar's bucket width, 2^shift ps, suited to its event spacing
  std::unique_ptr<Backend> (*make)(const BackendContext& context);
};

// network.backend = "auto" (the default): the packet model, except for jobs of more than
// kAutoPacketRanks ranks on a fat tree or crossbar, which get the flow model (contention at
// message-level cost; NAS kernels within 1% of the packet model, every case of the validation
// table within 8.3%, docs/validation.md). On meshes and tori the flow model is optimistic under
// heavy load (up to 50% with 16 KiB per VC: the routers' buffers fill and stall the traffic
// behind them, which max-min sharing does not model; docs/validation.md, "Buffers"), so auto
// keeps the packet model there at every size. Never a contention-blind backend: analytic and
// dimemas are only used when named. A NetworkModel built without a job (the traffic
// generator) resolves "auto" to the packet model.
inline constexpr uint64_t kAutoPacketRanks = 256;
inline const char* auto_backend(uint64_t ranks, const std::string& topology_kind) {
  const bool tree = topology_kind == "fattree" || topology_kind == "crossbar";
  return tree && ranks > kAutoPacketRanks ? "flow" : "packet";
}

// Every backend, in the order `mgen info` lists them (network/backends.cpp).
const std::vector<BackendEntry>& backend_registry();
// The entry named `name`, or null.
const BackendEntry* find_backend(std::string_view name);

}  // namespace mgen::net
