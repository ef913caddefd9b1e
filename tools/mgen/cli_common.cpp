#include "cli_common.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iostream>

#include "mgen/config/units.hpp"

namespace mgen::cli {

void MachineOptions::attach(CLI::App& app) {
  app.add_option("-c,--config", config_path, "machine file (TOML); the built-in default machine when omitted");
  // One value per --set, so that `--set k=v PROGRAM` leaves PROGRAM alone.
  app.add_option("--set", overrides, "override a machine key, e.g. --set router.routing=adaptive (repeatable)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
}

config::MachineConfig MachineOptions::load() const {
  return config_path.empty() ? config::load_default(overrides) : config::load_machine(config_path, overrides);
}

void write_report(const std::string& path, const nlohmann::json& report) {
  if (path == "-") {
    std::cout << report.dump(2) << "\n";
    return;
  }
  std::ofstream out(path);
  if (!out) throw std::runtime_error(fmt::format("cannot write report to {}", path));
  out << report.dump(2) << "\n";
}

nlohmann::json machine_json(const config::MachineConfig& m) {
  const net::NetworkConfig& n = m.network;
  nlohmann::json bw = nlohmann::json::array();
  for (const auto& b : n.topology.link_bandwidth)
    bw.push_back(b.bytes_per_s());
  return {
      {"name", m.name},
      {"description", m.description},
      {"source", m.source},
      {"backend", n.backend},
      {"analytic", {{"nic_contention", n.analytic.nic_contention}}},
      {"flow", {{"reference", n.flow.reference}}},
      {"topology",
       {{"kind", n.topology.kind},
        {"dims", n.topology.dims},
        {"channels", n.topology.channels},
        {"down", n.topology.down},
        {"up", n.topology.up},
        {"nodes_per_router", n.topology.nodes_per_router},
        {"link_bandwidth_Bps", bw},
        {"link_latency_ps", n.topology.link_latency.count_ps()}}},
      {"router",
       {{"routing", n.router.routing},
        {"vcs", n.router.vcs},
        {"vc_buffer_B", n.router.vc_buffer.count()},
        {"routing_delay_ps", n.router.routing_delay.count_ps()},
        {"vc_alloc_delay_ps", n.router.vc_alloc_delay.count_ps()},
        {"switch_alloc_delay_ps", n.router.switch_alloc_delay.count_ps()},
        {"switch_delay_ps", n.router.switch_delay.count_ps()},
        {"switch_bandwidth_Bps", n.router.switch_bandwidth.bytes_per_s()},
        {"arbitration", n.router.arbitration}}},
      {"nic",
       {{"nics_per_node", n.nic.nics_per_node},
        {"link_bandwidth_Bps", n.nic.link_bandwidth.bytes_per_s()},
        {"link_latency_ps", n.nic.link_latency.count_ps()},
        {"dma_bandwidth_Bps", n.nic.dma_bandwidth.bytes_per_s()},
        {"dma_latency_ps", n.nic.dma_latency.count_ps()},
        {"packet_payload_B", n.nic.packet_payload.count()},
        {"packet_header_B", n.nic.packet_header.count()},
        {"rx_buffer_B", n.nic.rx_buffer.count()}}},
  };
}

}  // namespace mgen::cli
