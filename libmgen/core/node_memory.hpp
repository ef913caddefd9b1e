// A node's memory in front of the network backend (a decorator with the network's contract:
// inject, owns, dispatch, and the sink told when each message was sent and delivered). A
// message between two endpoints of one node is a copy through that node's memory, serialised on
// the node's copy engine: it starts when the engine is free, takes its bytes at
// node.memory_bandwidth (or node.memory_bandwidth_by_size's rate for its size), and is sent and delivered
// node.memory_latency after the copy ends. With node.copy_gap_by_size there is no engine: while
// copies into a rank follow each other closely it takes in one per gap of its size (a stream's
// time per message, which the copy's length need not be: copies pipeline, or share the memory's
// bandwidth). Closely: the copy comes before the last one is delivered, or the rank has sent
// nothing since that one started. A copy into a rank that has answered (a ping-pong's) starts
// at once, and copies into different ranks overlap.
// Every other message goes to the network. The protocols above never ask which
// one carried it.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "mgen/mpi/config.hpp"
#include "mgen/net/network.hpp"

namespace mgen::mpi {

class NodeMemory {
 public:
  NodeMemory(simcore::Engine& engine, net::NetworkModel& network, const NodeConfig& node, net::MessageSink& sink);

  // At engine.now(), like NetworkModel::inject.
  // src_rank, dst_rank: the ranks sending and taking the message in (node.copy_gap_by_size).
  void inject(net::EndpointId src, net::EndpointId dst, uint32_t src_rank, uint32_t dst_rank, simcore::Bytes size,
              uint64_t cookie);
  bool owns(uint16_t kind) const {
    return network_.owns(kind) || kinds_.contains(kind);
  }  // network first: most events are its
  void dispatch(const simcore::Event& e);
  // The partition model's owner of `e` (NetworkModel::event_router; a copy: its destination's).
  uint32_t event_router(const simcore::Event& e) const {
    if (network_.owns(e.kind)) return network_.event_router(e);
    return e.target < network_.topology().endpoints() ? network_.topology().endpoint_router(e.target) : net::kNoId;
  }

  uint64_t copies() const { return copies_; }  // messages that stayed inside a node

 private:
  enum Kind : uint16_t { kCopyDone, kKindCount };  // data = cookie (canonical: copy number << 32 | cookie)

  simcore::Engine& engine_;
  net::NetworkModel& network_;
  net::MessageSink& sink_;
  simcore::Bandwidth bandwidth_;
  std::vector<std::pair<simcore::Bytes, simcore::Bandwidth>> by_size_;
  std::vector<std::pair<simcore::Bytes, simcore::Time>> gap_by_size_;
  simcore::Time gap(simcore::Bytes size) const;
  void schedule_done(simcore::Time at, net::NodeId node, net::EndpointId dst, uint64_t cookie);
  struct Into {               // with gaps, per rank
    simcore::Time next;       // the earliest start of its next copy while copies follow closely
    simcore::Time delivered;  // when its last copy is delivered
    bool sent = false;        // it has sent a message since its last copy started
  };
  std::vector<Into> into_;
  simcore::Time latency_;
  simcore::KindRange kinds_;
  bool canonical_;                      // the network's events are canonical: so are these
  std::vector<simcore::Time> free_at_;  // per node: when its copy engine is free
  std::vector<uint32_t> node_copies_;   // canonical: per node, the copies it has started
  uint64_t copies_ = 0;
};

}  // namespace mgen::mpi
