#include <fmt/format.h>

#include "analytic/zero_load.hpp"
#include "mgen/net/network.hpp"

namespace mgen::net {

void validate(const NetworkConfig& c) {
  if (c.backend != "auto" && find_backend(c.backend) == nullptr) {
    std::string known;
    for (const BackendEntry& e : backend_registry())
      known += fmt::format("{}{}", known.empty() ? "auto, " : ", ", e.name);
    throw ConfigError("network.backend", fmt::format("unknown backend '{}' (known: {})", c.backend, known));
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

NetworkModel::NetworkModel(simcore::Engine& engine, const NetworkConfig& config, MessageSink& sink, bool link_stats)
    : config_(config),
      topology_(Topology::build(config)),
      routing_(topology_, config.router),
      entry_(find_backend(config.backend == "auto" ? "packet" : config.backend)),
      oracle_(std::make_unique<ZeroLoadModel>(config_, topology_, routing_)) {
  if (entry_ == nullptr) validate(config_);  // names the unknown backend
  config_.backend = entry_->name;
  kinds_ = engine.reserve_kinds(entry_->event_kinds);
  backend_ = entry_->make(BackendContext{engine, config_, topology_, routing_, sink, kinds_, link_stats});
  // Only an idle engine can change its calendar: a model built beside pending events keeps it.
  if (engine.idle()) engine.set_bucket_shift(entry_->bucket_shift);
}

NetworkModel::~NetworkModel() = default;

void NetworkModel::join_partition(const PartitionPlan& plan, uint32_t part) {
  if (!backend_->partitionable()) {
    throw ConfigError("network.backend", fmt::format("the {} backend cannot be partitioned over threads (only the "
                                                     "packet backend, outside router.reference mode)",
                                                     entry_->name));
  }
  backend_->join_partition(plan, part);
}

NetworkModel::ZeroLoad NetworkModel::zero_load(EndpointId src, EndpointId dst, Bytes size) const {
  const ZeroLoadModel::Timing t = oracle_->zero_load(src, dst, size, Time::zero());
  return ZeroLoad{t.sent, t.delivered, t.router_hops};
}

std::vector<LinkInfo> NetworkModel::links() const {
  // A backend without router links reports every link idle.
  const std::vector<LinkStats>* router = backend_->router_link_stats();
  const std::vector<LinkStats> idle(router ? 0 : topology_.total_ports());
  const std::vector<LinkStats>& stats = router ? *router : idle;
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
      LinkInfo info{std::move(name), stats[topology_.port_base(r) + p], l.bandwidth, r, l.peer};
      info.to_nic = l.kind == PeerKind::kEndpoint;
      if (!info.to_nic) {
        info.dim = l.dim;
        info.dir = l.dir;
        info.wraps = l.dateline;
      }
      out.push_back(std::move(info));
    }
  }
  if (const std::vector<LinkStats>* nics = backend_->nic_link_stats()) {
    const std::vector<LinkStats>& nic = *nics;
    for (EndpointId e = 0; e < topology_.endpoints(); ++e) {
      LinkInfo info{fmt::format("nic {} -> router {}", e, topology_.endpoint_router(e)), nic[e],
                    topology_.endpoint_bandwidth(), e, topology_.endpoint_router(e)};
      info.from_nic = true;
      out.push_back(std::move(info));
    }
  }
  return out;
}

}  // namespace mgen::net
