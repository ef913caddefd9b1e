// mgen info: what machine is modelled, and what the tool knows how to model.
#include <fmt/format.h>

#include <iostream>
#include <map>

#include "cli_common.hpp"
#include "huge_pages.hpp"
#include "mgen/config/units.hpp"
#include "mgen/host/breakdown.hpp"
#include "mgen/mpi/run.hpp"
#include "mgen/net/network.hpp"
#include "mgen/runtime/compute_clock.hpp"
#include "mgen/traffic/traffic.hpp"
#include "resources.hpp"

namespace mgen::cli {
namespace {

using config::format_bandwidth;
using config::format_bytes;
using config::format_time;

struct NullSink : net::MessageSink {
  void on_message_sent(uint64_t, simcore::Time) override {}
  void on_message_delivered(uint64_t, simcore::Time) override {}
};

// The packet model's routers and NICs (the analytic backend shares them).
void print_routers_and_nics(const net::NetworkModel& net, const net::NetworkConfig& c) {
  fmt::print("routing     {}, {} VC(s) x {} per input port, {} arbitration\n", net.routing().name(),
             net.routing().vcs(), format_bytes(c.router.vc_buffer), c.router.arbitration);
  fmt::print("router      RC {} + VA {} + SA {} + ST {}, crossbar {} per port\n", format_time(c.router.routing_delay),
             format_time(c.router.vc_alloc_delay), format_time(c.router.switch_alloc_delay),
             format_time(c.router.switch_delay), format_bandwidth(c.router.switch_bandwidth));
  fmt::print("NIC         link {} latency {}, DMA {} latency {}, packets {} + {} header, receive buffer {}\n",
             format_bandwidth(c.nic.link_bandwidth), format_time(c.nic.link_latency),
             format_bandwidth(c.nic.dma_bandwidth), format_time(c.nic.dma_latency), format_bytes(c.nic.packet_payload),
             format_bytes(c.nic.packet_header), format_bytes(c.nic.rx_buffer));
}

// The active selector's decision table, and the per-collective names that override it.
void print_collective_selection(const mpi::CollectiveConfig& c) {
  fmt::print("collective selection: selector \"{}\" (collectives.selector: mpich, ompi, mgen){}\n", c.selector,
             c.model == "dimemas" ? "; model \"dimemas\": auto means Dimemas's collective model" : "");
  const std::map<std::string, std::string> configured = {
      {"barrier", c.barrier},     {"bcast", c.bcast},       {"reduce", c.reduce},
      {"allreduce", c.allreduce}, {"gather", c.gather},     {"scatter", c.scatter},
      {"allgather", c.allgather}, {"alltoall", c.alltoall}, {"reduce_scatter", c.reduce_scatter},
      {"scan", c.scan},           {"exscan", c.scan}};
  std::string last;
  for (const auto& row : mpi::collective_decisions(c.selector)) {
    const bool first = row.collective != last;
    last = row.collective;
    const std::string& name = configured.at(row.collective);
    if (name != "auto") {
      if (first) fmt::print("  {:15} configured: {}\n", row.collective, name);
      continue;
    }
    fmt::print("  {:15} {:44} -> {}\n", first ? row.collective : "", row.when, row.algorithm);
  }
}

int run_info(const MachineOptions& machine_options, const std::string& report_path, bool keys) {
  if (keys) {
    for (const config::KeyDoc& k : config::key_reference())
      fmt::print("{:28} {}\n", k.key, k.meaning);
    return 0;
  }
  const config::MachineConfig m = machine_options.load();
  simcore::Engine engine;
  NullSink sink;
  const net::NetworkModel net = building(fmt::format("building the network of machine '{}'", m.name),
                                         [&] { return net::NetworkModel(engine, m.network, sink); });
  const net::Topology& t = net.topology();
  const net::NetworkConfig& c = m.network;

  // Farthest endpoint from endpoint 0 and the nearest one on another router.
  net::EndpointId far = 0, near = 0;
  uint32_t far_hops = 0, near_hops = ~0u;
  for (net::EndpointId e = 1; e < t.endpoints(); ++e) {
    const uint32_t h = t.router_hops(0, e);
    if (h > far_hops) far_hops = h, far = e;
    if (t.node_of(e) != t.node_of(0) && h < near_hops) near_hops = h, near = e;
  }
  const auto near_t = net.zero_load(0, near, simcore::Bytes(8));
  const auto far_t = net.zero_load(0, far, simcore::Bytes(8));

  std::string bws;
  for (const auto& b : c.topology.link_bandwidth)
    bws += (bws.empty() ? "" : ", ") + format_bandwidth(b);
  fmt::print("machine     {} — {}\n", m.name, m.description);
  fmt::print("source      {}\n", m.source);
  fmt::print("backend     {}\n", backend_label(c));
  fmt::print("topology    {}\n", t.describe());
  fmt::print("            {} routers, {} nodes, {} endpoints ({} NIC(s) per node)\n", t.routers(), t.nodes(),
             t.endpoints(), t.nics_per_node());
  fmt::print("            {} router-to-router links (one way) at {}, latency {}\n", t.router_links(), bws,
             format_time(c.topology.link_latency));
  fmt::print("            diameter {} router hops, bisection {}\n", t.diameter(),
             format_bandwidth(t.bisection_bandwidth()));
  if (c.backend == "dimemas") {
    const net::DimemasConfig& d = c.dimemas;
    fmt::print("dimemas     T = L + S/B: L {}, B {}, {} buses, {} in / {} out {}-duplex link(s) per node\n",
               format_time(d.latency), format_bandwidth(d.bandwidth),
               d.buses == 0 ? std::string("unlimited") : std::to_string(d.buses), d.input_links, d.output_links,
               d.half_duplex ? "half" : "full");
  } else {
    print_routers_and_nics(net, c);
  }
  if (m.host) {
    const host::Breakdown b(*m.host);
    fmt::print("host        Breaking Band breakdown: latency {:.2f} ns, injection overhead {:.2f} ns (mgen whatif)\n",
               b.total(host::Model::kLatency), b.total(host::Model::kInjection));
    if (m.host->derive) {
      fmt::print(
          "            derived: MPI send {} + send progress {}, receive {}; NIC DMA and link latencies, switch\n",
          format_time(m.mpi.send_overhead), format_time(m.mpi.send_progress_overhead),
          format_time(m.mpi.recv_overhead));
    }
  }
  if (c.backend != "dimemas") {
    fmt::print("zero load   8 B message: {} to the nearest other node ({} hop(s)), {} to the farthest ({} hop(s))\n",
               format_time(near_t.delivered), near_t.router_hops, format_time(far_t.delivered), far_t.router_hops);
  }
  // Of this computer, not of the machine: where the ranks' buffers live.
  fmt::print("this host   application heap: {}\n", heap_pages());
  // What measuring a recompiled program's compute costs here (compute_clock.hpp).
  const runtime::ComputeClockInfo& clk = runtime::compute_clock_info();
  fmt::print("this host   measured compute: {}\n", clk.method);
  fmt::print(
      "            clock read {:.0f} ns (thread CPU clock {:.0f} ns); per MPI call bias {:.0f} ns subtracted, "
      "noise {:.0f} ns; across a context switch bias {:.0f} ns, noise {:.0f} ns\n",
      clk.clock_read_ns, clk.cpu_read_ns, clk.bias_ns, clk.noise_ns, clk.switch_bias_ns, clk.switch_noise_ns);

  fmt::print("\nregistered topologies\n");
  for (const auto& e : net::topology_registry())
    fmt::print("  {:12} {}\n", e.name, e.description);
  fmt::print("registered routings\n");
  for (const auto& e : net::routing_registry()) {
    fmt::print("  {:12} [{}] {}\n", e.name, e.for_cube ? "mesh, torus" : "fat tree, crossbar", e.description);
  }
  fmt::print("network backends\n");
  for (const auto& e : net::backend_registry())
    fmt::print("  {:12} {}\n", e.name, e.description);
  fmt::print("collective algorithms (select with [collectives] or --set collectives.NAME=ALGO)\n");
  for (const auto& a : mpi::collective_algorithms()) {
    fmt::print("  {:15} {:20} {}\n", a.collective, a.name, a.description);
  }
  print_collective_selection(m.collectives);
  fmt::print("traffic patterns\n");
  for (const auto& e : traffic::pattern_registry())
    fmt::print("  {:12} {}\n", e.name, e.description);

  if (!report_path.empty()) {
    nlohmann::json j = {{"command", "info"},
                        {"machine", machine_json(m)},
                        {"routers", t.routers()},
                        {"nodes", t.nodes()},
                        {"endpoints", t.endpoints()},
                        {"router_links", t.router_links()},
                        {"diameter_hops", t.diameter()},
                        {"bisection_Bps", t.bisection_bandwidth().bytes_per_s()},
                        {"routing", net.routing().name()},
                        {"zero_load_8B_nearest_ps", near_t.delivered.count_ps()},
                        {"zero_load_8B_farthest_ps", far_t.delivered.count_ps()}};
    write_report(report_path, j);
  }
  return 0;
}

}  // namespace

Runner add_info(CLI::App& app) {
  auto* sub = app.add_subcommand("info", "summarise the modelled machine and list registered models");
  auto machine = std::make_shared<MachineOptions>();
  auto report = std::make_shared<std::string>();
  auto keys = std::make_shared<bool>(false);
  machine->attach(*sub);
  sub->add_option("--report", *report, "write a JSON summary to FILE ('-' for stdout)");
  sub->add_flag("--keys", *keys, "list every key a machine file may set");
  return [=] { return run_info(*machine, *report, *keys); };
}

}  // namespace mgen::cli
