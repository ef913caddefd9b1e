// The JSON report of a run, a replay and a NAS prediction (docs/report-format.md), the machine
// block every command's report carries, the per-link CSV and the per-function tables.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "cli_common.hpp"

namespace mgen::cli {

namespace {

nlohmann::json time_json(simcore::Time t) {
  return t.count_ps();
}

nlohmann::json by_size_json(const auto& rows, auto&& value) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [size, v] : rows)
    out.push_back({size.count(), value(v)});
  return out;
}

nlohmann::json collectives_json(const mpi::CollectiveConfig& c) {
  // Each collective's row in the machine file's words ("LOG 2MAX LOG MAX", Dimemas's Table 3).
  nlohmann::json dimemas = nlohmann::json::object();
  static constexpr const char* kModels[] = {"0", "CT", "LIN", "LOG"};
  static constexpr const char* kSizes[] = {"MAX", "MIN", "MEAN", "2MAX", "S+R"};
  for (size_t op = 0; op < mpi::kDimOps; ++op) {
    const mpi::DimemasRow& row = c.dimemas[op];
    dimemas[mpi::kDimemasOpNames[op]] = fmt::format("{} {} {} {}", kModels[row.in.model], kSizes[row.in.size],
                                                    kModels[row.out.model], kSizes[row.out.size]);
  }
  return {{"selector", c.selector},
          {"model", c.model},
          {"algorithms",
           {{"barrier", c.barrier},
            {"bcast", c.bcast},
            {"reduce", c.reduce},
            {"allreduce", c.allreduce},
            {"gather", c.gather},
            {"scatter", c.scatter},
            {"allgather", c.allgather},
            {"alltoall", c.alltoall},
            {"reduce_scatter", c.reduce_scatter},
            {"scan", c.scan}}},
          {"dimemas", dimemas}};
}

nlohmann::json host_json(const host::HostConfig& h) {
  return {{"md_setup_ps", time_json(h.md_setup)},
          {"md_barrier_ps", time_json(h.md_barrier)},
          {"dbc_barrier_ps", time_json(h.dbc_barrier)},
          {"pio_copy_ps", time_json(h.pio_copy)},
          {"llp_post_misc_ps", time_json(h.llp_post_misc)},
          {"llp_prog_ps", time_json(h.llp_prog)},
          {"busy_post_ps", time_json(h.busy_post)},
          {"measurement_update_ps", time_json(h.measurement_update)},
          {"pcie_ps", time_json(h.pcie)},
          {"wire_ps", time_json(h.wire)},
          {"switch_ps", time_json(h.switch_)},
          {"rc_to_mem_ps", time_json(h.rc_to_mem)},
          {"mpich_isend_ps", time_json(h.mpich_isend)},
          {"ucp_isend_ps", time_json(h.ucp_isend)},
          {"mpich_irecv_callback_ps", time_json(h.mpich_irecv_callback)},
          {"ucp_irecv_callback_ps", time_json(h.ucp_irecv_callback)},
          {"mpich_after_progress_ps", time_json(h.mpich_after_progress)},
          {"post_prog_ps", time_json(h.post_prog)},
          {"unsignaled_interval", h.unsignaled_interval},
          {"busy_post_amortized_ps", time_json(h.busy_post_amortized)},
          {"derive", h.derive}};
}

// A function's line: calls, bytes, simulated time inside it.
nlohmann::json function_json(uint64_t calls, uint64_t bytes, simcore::Time time) {
  return {{"calls", calls}, {"bytes", bytes}, {"time_ps", time.count_ps()}, {"time_s", time.seconds()}};
}

}  // namespace

nlohmann::json machine_json(const config::MachineConfig& m) {
  const net::NetworkConfig& n = m.network;
  nlohmann::json bw = nlohmann::json::array();
  for (const auto& b : n.topology.link_bandwidth)
    bw.push_back(b.bytes_per_s());
  const mpi::NodeConfig& node = m.node;
  const mpi::MpiConfig& mpi = m.mpi;
  return {
      {"name", m.name},
      {"description", m.description},
      {"source", m.source},
      {"backend", n.backend},
      {"analytic", {{"nic_contention", n.analytic.nic_contention}}},
      {"flow", {{"reference", n.flow.reference}}},
      {"dimemas",
       {{"latency_ps", time_json(n.dimemas.latency)},
        {"bandwidth_Bps", n.dimemas.bandwidth.bytes_per_s()},
        {"buses", n.dimemas.buses},
        {"input_links", n.dimemas.input_links},
        {"output_links", n.dimemas.output_links},
        {"half_duplex", n.dimemas.half_duplex}}},
      {"topology",
       {{"kind", n.topology.kind},
        {"dims", n.topology.dims},
        {"channels", n.topology.channels},
        {"down", n.topology.down},
        {"up", n.topology.up},
        {"crossbar_nodes", n.topology.crossbar_nodes},
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
        {"arbitration", n.router.arbitration},
        {"dateline", n.router.dateline},
        {"reference", n.router.reference},
        {"trains", n.router.trains}}},
      {"nic",
       {{"nics_per_node", n.nic.nics_per_node},
        {"link_bandwidth_Bps", n.nic.link_bandwidth.bytes_per_s()},
        {"link_latency_ps", n.nic.link_latency.count_ps()},
        {"dma_bandwidth_Bps", n.nic.dma_bandwidth.bytes_per_s()},
        {"dma_latency_ps", n.nic.dma_latency.count_ps()},
        {"packet_payload_B", n.nic.packet_payload.count()},
        {"packet_header_B", n.nic.packet_header.count()},
        {"rx_buffer_B", n.nic.rx_buffer.count()},
        {"transport", n.nic.transport},
        {"response_B", n.nic.response_bytes.count()}}},
      {"node",
       {{"procs_per_node", node.procs_per_node},
        {"memory_bandwidth_Bps", node.memory_bandwidth.bytes_per_s()},
        {"memory_latency_ps", time_json(node.memory_latency)},
        {"memory_bandwidth_by_size",
         by_size_json(node.memory_bandwidth_by_size, [](const auto& b) { return b.bytes_per_s(); })},
        {"copy_gap_by_size", by_size_json(node.copy_gap_by_size, [](const auto& t) { return t.count_ps(); })},
        {"cpu_scale", node.cpu_scale},
        {"flop_rate", node.flop_rate},
        {"stream_bandwidth_Bps", node.stream_bandwidth.bytes_per_s()}}},
      {"mpi",
       {{"eager_threshold_B", mpi.eager_threshold.count()},
        {"envelope_B", mpi.envelope.count()},
        {"send_overhead_ps", time_json(mpi.send_overhead)},
        {"recv_overhead_ps", time_json(mpi.recv_overhead)},
        {"rdma_overhead_ps", time_json(mpi.rdma_overhead)},
        {"poll_overhead_ps", time_json(mpi.poll_overhead)},
        {"wtime_overhead_ps", time_json(mpi.wtime_overhead)},
        {"send_progress_overhead_ps", time_json(mpi.send_progress_overhead)}}},
      {"collectives", collectives_json(m.collectives)},
      {"host", m.host ? host_json(*m.host) : nlohmann::json(nullptr)},
  };
}

std::vector<FunctionTotal> function_totals(const mpi::RunReport& r) {
  std::map<std::string, FunctionTotal> by_name;
  for (const mpi::RankReport& k : r.ranks) {
    for (const mpi::FunctionReport& f : k.functions) {
      FunctionTotal& t = by_name[f.name];
      t.name = f.name;
      t.calls += f.calls;
      t.bytes += f.bytes;
      t.time += f.time;
      ++t.ranks;
    }
  }
  std::vector<FunctionTotal> out;
  for (auto& [name, t] : by_name)
    out.push_back(std::move(t));
  return out;
}

void write_json_report(const std::string& path, const std::string& program, const config::MachineConfig& m,
                       const mpi::JobConfig& job, const mpi::RunReport& r, const std::string& command,
                       const nlohmann::json& extra) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const mpi::RankReport& k : r.ranks) {
    nlohmann::json functions = nlohmann::json::object();  // (keys in order of name)
    for (const mpi::FunctionReport& f : k.functions)
      functions[f.name] = function_json(f.calls, f.bytes, f.time);
    ranks.push_back({{"rank", k.rank},
                     {"node", k.node},
                     {"finish_s", k.finish_s()},
                     {"compute_s", k.compute_s()},
                     {"communication_s", k.overhead_s()},
                     {"wait_s", k.wait_s()},
                     {"finish_ps", k.finish.count_ps()},
                     {"compute_ps", k.compute.count_ps()},
                     {"communication_ps", k.overhead.count_ps()},
                     {"wait_ps", k.wait.count_ps()},
                     {"messages", k.messages},
                     {"bytes", k.bytes},
                     {"calls", k.calls},
                     {"functions", functions}});
  }
  nlohmann::json functions = nlohmann::json::object();
  for (const FunctionTotal& t : function_totals(r)) {
    nlohmann::json f = function_json(t.calls, t.bytes, t.time);
    f["ranks"] = t.ranks;
    functions[t.name] = std::move(f);
  }
  nlohmann::json links = nlohmann::json::array();
  for (const net::LinkInfo& l : r.links) {
    if (l.stats.bytes == 0) continue;
    links.push_back({{"link", l.name},
                     {"bandwidth_Bps", l.bandwidth.bytes_per_s()},
                     {"bytes", l.stats.bytes},
                     {"packets", l.stats.packets},
                     {"busy_s", l.stats.busy.seconds()},
                     {"busy_ps", l.stats.busy.count_ps()},
                     {"utilization", r.drained_s() > 0 ? l.stats.busy.seconds() / r.drained_s() : 0.0}});
  }
  nlohmann::json report = {{"command", command},
                           {"program", program},
                           {"ok", r.ok},
                           {"status", mpi::status_name(r.status)},
                           {"signal", r.signal},
                           {"error", r.error},
                           {"predicted_time_s", r.predicted_s()},
                           {"backend", r.backend},
                           {"drained_s", r.drained_s()},
                           {"predicted_ps", r.predicted.count_ps()},
                           {"drained_ps", r.drained.count_ps()},
                           {"ranks", job.ranks},
                           {"procs_per_node", job.procs_per_node},
                           {"wall_s", r.wall_s},
                           {"events", r.events},
                           {"messages", r.messages},
                           {"intra_node_messages", r.intra_node_messages},
                           {"bytes", r.bytes},
                           {"packets", r.network.packets},
                           {"packet_hops", r.network.packet_hops},
                           {"machine", machine_json(m)},
                           {"functions", functions},
                           {"per_rank", ranks},
                           {"links", links}};
  if (!r.partition_model.empty()) {
    report["partition_model"] =
        partition_model_json(r.partition_model, r.events, r.partition_network_events, r.partition_model_s);
  }
  if (r.partitions > 1) {
    report["partitioned"] = {{"partitions", r.partitions},
                             {"processes", r.processes},
                             {"windows", r.windows},
                             {"sync_wall_s", r.sync_wall_s}};
  }
  if (r.network.solves > 0 || r.network.mice > 0) {  // the flow backend's sharing work
    report["flow_solves"] = r.network.solves;
    report["flows_resolved"] = r.network.flows_resolved;
    report["flow_paced_solves"] = r.network.paced_solves;
    report["flow_paced_waits"] = r.network.paced_waits;
    report["flow_paced_wait_s"] = r.network.paced_wait_sum.seconds();
    report["flow_mice"] = r.network.mice;
  }
  report.update(extra);
  write_report(path, report);
}

nlohmann::json partition_model_json(const std::vector<net::PartitionModel::Row>& rows, uint64_t events,
                                    uint64_t network_events, double model_s) {
  nlohmann::json out_rows = nlohmann::json::array();
  for (const net::PartitionModel::Row& row : rows) {
    out_rows.push_back(
        {{"partitions", row.partitions},
         {"fits", row.fits},
         {"loaded_routers", row.loaded},
         {"lookahead_ps",
          row.lookahead == simcore::Time::max() ? nlohmann::json(nullptr) : nlohmann::json(row.lookahead.count_ps())},
         {"windows", row.windows},
         {"events_per_window", row.events_per_window},
         {"imbalance", row.imbalance},
         {"critical_events", row.critical},
         {"work_speedup", row.work_speedup}});
  }
  return {{"events", events}, {"network_events", network_events}, {"model_s", model_s}, {"rows", out_rows}};
}

void write_links_csv(const std::string& path, const std::vector<net::LinkInfo>& links, double elapsed_s) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error(fmt::format("cannot write link statistics to {}", path));
  out << "link,bandwidth_Bps,bytes,packets,busy_s,utilization\n";
  for (const net::LinkInfo& l : links) {
    out << fmt::format("\"{}\",{},{},{},{:.9g},{:.6f}\n", l.name, l.bandwidth.bytes_per_s(), l.stats.bytes,
                       l.stats.packets, l.stats.busy.seconds(),
                       elapsed_s > 0 ? l.stats.busy.seconds() / elapsed_s : 0.0);
  }
  if (!out) throw std::runtime_error(fmt::format("cannot write link statistics to {}", path));
}

void write_job_outputs(const JobOptions& o, const config::MachineConfig& m, const mpi::RunReport& r,
                       const std::string& program) {
  if (!o.links_csv.empty()) write_links_csv(o.links_csv, r.links, r.drained_s());
  if (!o.plot.empty()) plot_run(o.plot, m, r, program);
}

void print_function_table(const mpi::RunReport& r, bool per_rank) {
  auto row = [](const std::string& name, uint64_t calls, uint64_t bytes, simcore::Time time) {
    fmt::print("  {:<24} {:>12} {:>16} {:>14}\n", name, calls, bytes, seconds(time.seconds()));
  };
  auto header = [] {
    fmt::print("  {:<24} {:>12} {:>16} {:>14}\n", "function", "calls", "bytes sent", "time in call");
  };
  fmt::print("calls by function, all ranks:\n");
  header();
  for (const FunctionTotal& t : function_totals(r))
    row(t.name, t.calls, t.bytes, t.time);
  if (!per_rank) return;
  for (const mpi::RankReport& k : r.ranks) {
    fmt::print("rank {} (node {}): {} calls\n", k.rank, k.node, k.calls);
    header();
    std::vector<const mpi::FunctionReport*> sorted;
    for (const mpi::FunctionReport& f : k.functions)
      sorted.push_back(&f);
    std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->name < b->name; });
    for (const mpi::FunctionReport* f : sorted)
      row(f->name, f->calls, f->bytes, f->time);
  }
}

}  // namespace mgen::cli
