// The backend registry: one row per network backend (mgen/net/backend.hpp). `mgen info` prints
// it, network.backend names a row, and the tests sweep it.
#include <algorithm>
#include <memory>

#include "analytic/analytic_network.hpp"
#include "dimemas/dimemas_network.hpp"
#include "flow/flow_network.hpp"
#include "mgen/net/backend.hpp"
#include "packet/packet_network.hpp"

namespace mgen::net {

namespace {

template <class B>
std::unique_ptr<Backend> make(const BackendContext& context) {
  return std::make_unique<B>(context);
}

// Calendar buckets: packet hops come about a nanosecond apart, so 2^10 ps; the message-level
// backends schedule one or two events per message, spread wider, and run 5-10% faster with
// 2^14 ps (16 ns) buckets (docs/PERFORMANCE.md, "Event calendar").
constexpr unsigned kPacketBucketShift = 10, kMessageBucketShift = 14;

}  // namespace

const std::vector<BackendEntry>& backend_registry() {
  static const std::vector<BackendEntry> registry = {
      {"packet", "packet-level virtual cut-through routers with credit flow control (contention, congestion)",
       kPacketKindEnd, kPacketBucketShift, make<PacketNetwork>},
      {"analytic", "zero-load cut-through pipeline per message: no contention; the packet model's oracle",
       AnalyticNetwork::kKindCount, kMessageBucketShift, make<AnalyticNetwork>},
      {"flow", "max-min fair flows on the packet model's routes: contention at message-level cost",
       FlowNetwork::kKindCount, kMessageBucketShift, make<FlowNetwork>},
      {"dimemas", "Dimemas: T = L + S/B per message, contention only for node links and buses ([dimemas])",
       DimemasNetwork::kKindCount, kMessageBucketShift, make<DimemasNetwork>},
  };
  return registry;
}

const BackendEntry* find_backend(std::string_view name) {
  const auto& r = backend_registry();
  const auto it = std::find_if(r.begin(), r.end(), [&](const BackendEntry& e) { return e.name == name; });
  return it == r.end() ? nullptr : &*it;
}

}  // namespace mgen::net
