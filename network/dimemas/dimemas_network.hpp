// Dimemas's point-to-point model (Girona, Labarta & Badia 2000, §3): a message of S bytes takes
//     T = L + S/B
// on an idle machine. Contention is modelled by resources, not by a topology: a transfer needs
// one output link of the sending node, one input link of the receiving node (with half-duplex
// links both come from the node's one pool) and one of the machine's buses (the bisection).
// A message waits the latency L, then for all three resources at once, then holds them for
// S/B; it is sent and delivered when the transfer ends.
//
// Waiting messages start in the order they became ready (ties: injection order); a later
// message whose resources are free does not wait behind an earlier one that is still blocked.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "mgen/net/backend.hpp"

namespace mgen::net {

class DimemasNetwork final : public Backend {
 public:
  enum EventKind : uint16_t {
    kReady,  // data = slot: the latency has passed, the message asks for resources
    kDone,   // data = slot: the transfer ends
    kKindCount,
  };

  explicit DimemasNetwork(const BackendContext& context);

  void inject(EndpointId src, EndpointId dst, Bytes size, uint64_t cookie) override;
  void dispatch(const simcore::Event& e) override;
  NetworkTotals totals() const override { return totals_; }
  uint64_t in_flight() const override { return live_; }
  // Messages waiting for a link or a bus, for deadlock reports (there should never be any).
  std::string describe_stuck(size_t limit) const override;

 private:
  struct Message {
    uint64_t cookie = 0;
    EndpointId src = 0, dst = 0;
    uint64_t bytes = 0;
    Time injected;
  };
  bool try_start(uint32_t slot);

  simcore::Engine& engine_;
  const Topology& topo_;
  MessageSink& sink_;
  simcore::KindRange kinds_;
  DimemasConfig config_;
  std::vector<uint32_t> out_free_, in_free_;  // per node; with half duplex in_free_ is unused
  uint32_t buses_free_ = 0;
  std::vector<Message> messages_;
  std::vector<uint32_t> free_slots_;
  std::deque<uint32_t> waiting_;
  uint64_t live_ = 0;
  NetworkTotals totals_;
};

}  // namespace mgen::net
