#include <fmt/format.h>

#include "analytic_network.hpp"
#include "dimemas_network.hpp"
#include "mgen/net/network.hpp"
#include "packet_network.hpp"

namespace mgen::net {

static_assert(uint16_t{kPacketKindEnd} <= uint16_t{kAnalyticSent}, "network event kinds overlap");
static_assert(uint16_t{kAnalyticKindEnd} <= uint16_t{kDimemasReady}, "network event kinds overlap");
static_assert(kDimemasKindEnd <= kNetworkKindEnd, "network event kinds overflow their range");

void validate(const NetworkConfig& c) {
  if (c.backend != "packet" && c.backend != "analytic" && c.backend != "dimemas") {
    throw ConfigError("network.backend",
                      fmt::format("unknown backend '{}' (known: packet, analytic, dimemas)", c.backend));
  }
  if (c.dimemas.bandwidth.is_zero()) throw ConfigError("dimemas.bandwidth", "bandwidth must be greater than zero");
  if (c.dimemas.input_links == 0 || c.dimemas.output_links == 0) {
    throw ConfigError(c.dimemas.input_links == 0 ? "dimemas.input_links" : "dimemas.output_links",
                      "a node needs at least one link each way");
  }
  if (c.dimemas.half_duplex && c.dimemas.input_links != c.dimemas.output_links) {
    throw ConfigError("dimemas.half_duplex", fmt::format("half-duplex links serve both directions, so input_links ({}) "
                                                         "and output_links ({}) must be equal",
                                                         c.dimemas.input_links, c.dimemas.output_links));
  }
  auto positive = [](Bandwidth bw, const char* key) {
    if (bw.is_zero()) throw ConfigError(key, "bandwidth must be greater than zero");
  };
  for (Bandwidth bw : c.topology.link_bandwidth)
    positive(bw, "topology.link_bandwidth");
  positive(c.nic.link_bandwidth, "nic.link_bandwidth");
  positive(c.nic.dma_bandwidth, "nic.dma_bandwidth");
  positive(c.router.switch_bandwidth, "router.switch_bandwidth");
  if (c.nic.nics_per_node < 1 || c.nic.nics_per_node > 64) {
    throw ConfigError("nic.nics_per_node", fmt::format("{} NICs per node; 1 to 64 allowed", c.nic.nics_per_node));
  }
  if (c.nic.packet_payload.count() < 1 || c.nic.packet_payload.count() > (1u << 24)) {
    throw ConfigError("nic.packet_payload", "packet payload must be between 1 byte and 16 MiB");
  }
  if (c.nic.packet_header.count() > (1u << 20)) throw ConfigError("nic.packet_header", "packet header above 1 MiB");
  const uint64_t packet = c.nic.packet_payload.count() + c.nic.packet_header.count();
  if (c.router.vc_buffer.count() < packet || c.router.vc_buffer.count() > (1u << 30)) {
    throw ConfigError("router.vc_buffer", fmt::format("a VC buffer of {} B cannot hold a whole {} B packet (virtual "
                                                      "cut-through needs at least one)",
                                                      c.router.vc_buffer.count(), packet));
  }
  if (c.nic.rx_buffer.count() < packet || c.nic.rx_buffer.count() > (1u << 30)) {
    throw ConfigError("nic.rx_buffer", fmt::format("a receive buffer of {} B cannot hold a whole {} B packet",
                                                   c.nic.rx_buffer.count(), packet));
  }
  if (c.nic.transport != "packets" && c.nic.transport != "fma") {
    throw ConfigError("nic.transport", fmt::format("unknown transport '{}' (known: packets, fma)", c.nic.transport));
  }
  if (c.nic.transport == "fma" && (c.nic.response_bytes.count() == 0 || c.nic.response_bytes.count() > packet)) {
    throw ConfigError("nic.response_bytes",
                      fmt::format("an FMA response of {} B must be between 1 B and a packet ({} B)",
                                  c.nic.response_bytes.count(), packet));
  }
  // FMA responses only load the reverse path: the analytic backend, which has no contention,
  // times a message the same with or without them; Dimemas's model has no packets at all.
  if (c.nic.transport == "fma" && c.backend == "dimemas") {
    throw ConfigError("nic.transport", "the fma transport is a packet transport; the dimemas backend has no packets");
  }
  if (c.router.arbitration != "round_robin" && c.router.arbitration != "age") {
    throw ConfigError("router.arbitration",
                      fmt::format("unknown arbitration '{}' (known: round_robin, age)", c.router.arbitration));
  }
}

NetworkModel::NetworkModel(simcore::Engine& engine, const NetworkConfig& config, MessageSink& sink)
    : config_(config), topology_(Topology::build(config)), routing_(topology_, config.router) {
  analytic_ = std::make_unique<AnalyticNetwork>(engine, config_, topology_, routing_, sink);
  if (config.backend == "packet") packet_ = std::make_unique<PacketNetwork>(engine, config_, topology_, routing_, sink);
  if (config.backend == "dimemas") dimemas_ = std::make_unique<DimemasNetwork>(engine, config_, topology_, sink);
  // Packet hops come about a nanosecond apart, so the calendar's buckets are 2^10 ps wide;
  // the message-level backends schedule one or two events per message, spread wider, and
  // run 5-10% faster with 2^14 ps (16 ns) buckets (docs/PERFORMANCE.md, "Event calendar").
  // Only an idle engine can change: a model built beside pending events keeps the width.
  if (engine.idle()) engine.set_bucket_shift(packet_ ? kPacketBucketShift : kMessageBucketShift);
}

NetworkModel::~NetworkModel() = default;

const char* NetworkModel::backend_name() const {
  return packet_ ? "packet" : dimemas_ ? "dimemas" : "analytic";
}

void NetworkModel::inject(EndpointId src, EndpointId dst, Bytes size, uint64_t cookie) {
  if (packet_) {
    packet_->inject(src, dst, size, cookie);
  } else if (dimemas_) {
    dimemas_->inject(src, dst, size, cookie);
  } else {
    analytic_->inject(src, dst, size, cookie);
  }
}

NetworkModel::ZeroLoad NetworkModel::zero_load(EndpointId src, EndpointId dst, Bytes size) const {
  const AnalyticNetwork::Timing t = analytic_->zero_load(src, dst, size, Time::zero());
  return ZeroLoad{t.sent, t.delivered, t.router_hops};
}

void NetworkModel::dispatch(const simcore::Event& e) {
  if (e.kind < kPacketKindEnd) {
    packet_->dispatch(e);
  } else if (e.kind >= kDimemasReady) {
    dimemas_->dispatch(e);
  } else {
    analytic_->dispatch(e);
  }
}

NetworkTotals NetworkModel::totals() const {
  return packet_ ? packet_->totals() : dimemas_ ? dimemas_->totals() : analytic_->totals();
}

uint64_t NetworkModel::packets_in_flight() const {
  return packet_    ? packet_->packets_in_flight()
         : dimemas_ ? dimemas_->messages_in_flight()
                    : analytic_->messages_in_flight();
}

std::string NetworkModel::describe_stuck(size_t limit) const {
  return packet_ ? packet_->describe_stuck(limit) : dimemas_ ? dimemas_->describe_waiting(limit) : "";
}

std::vector<LinkInfo> NetworkModel::links() const {
  const auto& stats = packet_ ? packet_->router_link_stats() : analytic_->router_link_stats();
  std::vector<LinkInfo> out;
  out.reserve(stats.size() + topology_.endpoints());
  static const char* kDimNames = "XYZUVW";
  for (RouterId r = 0; r < topology_.routers(); ++r) {
    for (uint32_t p = 0; p < topology_.ports(r); ++p) {
      const PortLink& l = topology_.link(r, p);
      if (l.kind == PeerKind::kUnconnected) continue;
      std::string name;
      if (l.kind == PeerKind::kEndpoint) {
        name = fmt::format("router {} -> nic {}", r, l.peer);
      } else if (topology_.kind() == TopologyKind::kTorus || topology_.kind() == TopologyKind::kMesh) {
        name = fmt::format("router {} {}{}{} -> router {}", r, l.dir ? '-' : '+', kDimNames[l.dim],
                           topology_.channels()[l.dim] > 1 ? fmt::format(".{}", l.channel) : "", l.peer);
      } else {
        name = fmt::format("router {} {} -> router {}", r, l.dim ? "up" : "down", l.peer);
      }
      out.push_back(LinkInfo{std::move(name), stats[topology_.port_base(r) + p], l.bandwidth});
    }
  }
  if (packet_) {
    const auto& nic = packet_->nic_link_stats();
    for (EndpointId e = 0; e < topology_.endpoints(); ++e) {
      out.push_back(LinkInfo{fmt::format("nic {} -> router {}", e, topology_.endpoint_router(e)), nic[e],
                             topology_.endpoint_bandwidth()});
    }
  }
  return out;
}

}  // namespace mgen::net
