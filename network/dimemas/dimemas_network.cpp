#include "dimemas/dimemas_network.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace mgen::net {

DimemasNetwork::DimemasNetwork(const BackendContext& c)
    : engine_(c.engine),
      topo_(c.topology),
      sink_(c.sink),
      kinds_(c.kinds),
      config_(c.config.dimemas),
      out_free_(c.topology.endpoints(), c.config.dimemas.output_links),
      in_free_(c.topology.endpoints(), c.config.dimemas.input_links),
      buses_free_(c.config.dimemas.buses) {}

void DimemasNetwork::inject(EndpointId src, EndpointId dst, Bytes size, uint64_t cookie) {
  if (src >= topo_.endpoints() || dst >= topo_.endpoints()) {
    throw std::out_of_range(
        fmt::format("inject from endpoint {} to {}: the machine has {} endpoints", src, dst, topo_.endpoints()));
  }
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(messages_.size());
    messages_.emplace_back();
  }
  messages_[slot] = Message{cookie, src, dst, size.count(), engine_.now()};
  ++live_;
  ++totals_.messages_injected;
  ++totals_.packets;
  ++totals_.packet_hops;
  totals_.payload_bytes += size.count();
  engine_.schedule(engine_.now() + config_.latency, kinds_[kReady], dst, 0, slot);
}

bool DimemasNetwork::try_start(uint32_t slot) {
  const Message& m = messages_[slot];
  const bool unlimited_buses = config_.buses == 0;
  if (!unlimited_buses && buses_free_ == 0) return false;
  if (config_.half_duplex) {
    // One pool of links per node serves both directions (a node's message to itself takes one).
    if (out_free_[m.src] == 0 || out_free_[m.dst] == 0) return false;
    --out_free_[m.src];
    if (m.dst != m.src) --out_free_[m.dst];
  } else {
    if (out_free_[m.src] == 0 || in_free_[m.dst] == 0) return false;
    --out_free_[m.src];
    --in_free_[m.dst];
  }
  if (!unlimited_buses) --buses_free_;
  engine_.schedule(engine_.now() + simcore::transfer_time(Bytes(m.bytes), config_.bandwidth), kinds_[kDone], m.dst, 0,
                   slot);
  return true;
}

void DimemasNetwork::dispatch(const simcore::Event& e) {
  const uint32_t slot = static_cast<uint32_t>(e.data);
  if (e.kind == kinds_[kReady]) {
    // Every waiting message is blocked on something already taken (each release retries them
    // all), so a newcomer that finds its resources free takes nothing anyone could use now.
    if (!try_start(slot)) waiting_.push_back(slot);
    return;
  }
  if (e.kind != kinds_[kDone]) {
    throw std::logic_error(fmt::format("Dimemas network got an event of unknown kind {}", e.kind));
  }
  const Message m = messages_[slot];
  if (config_.half_duplex) {
    ++out_free_[m.src];
    if (m.dst != m.src) ++out_free_[m.dst];
  } else {
    ++out_free_[m.src];
    ++in_free_[m.dst];
  }
  if (config_.buses != 0) ++buses_free_;
  const Time latency = e.time - m.injected;
  ++totals_.messages_delivered;
  totals_.latency_sum += latency;
  totals_.latency_max = simcore::max(totals_.latency_max, latency);
  --live_;
  free_slots_.push_back(slot);
  // Freed resources go to the waiting messages in order.
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    if (config_.buses != 0 && buses_free_ == 0) break;
    if (try_start(*it)) {
      it = waiting_.erase(it);
    } else {
      ++it;
    }
  }
  sink_.on_message_sent(m.cookie, e.time);
  sink_.on_message_delivered(m.cookie, e.time);
}

std::string DimemasNetwork::describe_stuck(size_t limit) const {
  std::string out;
  size_t n = 0;
  for (uint32_t slot : waiting_) {
    if (n++ == limit) break;
    const Message& m = messages_[slot];
    out += fmt::format("  message of {} B from node {} to node {} waits for a link or a bus\n", m.bytes, m.src, m.dst);
  }
  return out;
}

}  // namespace mgen::net
