// The Breaking Band equations (Zambre et al., ICPP 2019, §4.2, §4.3 and §6) as weighted sums of
// the components of Table 1, and the linear what-if of §7.
#include "mgen/host/breakdown.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace mgen::host {
namespace {

// Weights in the order injection, latency, LLP injection, LLP latency.
using Weights = std::array<double, kModels>;

std::string normalized(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '/' || c == ' ') continue;  // "I/O" is io
    out += c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

const char* model_name(Model m) {
  switch (m) {
    case Model::kInjection:
      return "overall injection overhead (§6, eq. 2)";
    case Model::kLatency:
      return "end-to-end latency (§6)";
    case Model::kLlpInjection:
      return "LLP injection overhead (§4.2, eq. 1)";
    case Model::kLlpLatency:
      return "LLP latency (§4.3)";
  }
  return "?";
}

const char* category_name(Category c) {
  switch (c) {
    case Category::kCpu:
      return "CPU";
    case Category::kIo:
      return "I/O";
    case Category::kNetwork:
      return "network";
  }
  return "?";
}

Breakdown::Breakdown(const HostConfig& c) {
  const double interval = c.unsignaled_interval == 0 ? 1.0 : static_cast<double>(c.unsignaled_interval);
  auto add = [this](const char* name, const char* paper, const char* source, Category cat, double ns, Weights w) {
    components_.push_back(Component{name, paper, source, cat, ns, w});
    return components_.size() - 1;
  };
  auto ns = [](Time t) { return t.nanoseconds(); };
  const Category cpu = Category::kCpu;

  // Initiator: HLP_post, then LLP_post (both in every model that has them once).
  const size_t mpich_isend =
      add("mpich_isend", "MPI_Isend in MPICH", "§5, Table 1", cpu, ns(c.mpich_isend), {1, 1, 0, 0});
  const size_t ucp_isend = add("ucp_isend", "MPI_Isend in UCP", "§5, Table 1", cpu, ns(c.ucp_isend), {1, 1, 0, 0});
  std::vector<size_t> llp_post;
  llp_post.push_back(add("md_setup", "Message descriptor setup", "§4.1, Table 1", cpu, ns(c.md_setup), {1, 1, 1, 1}));
  llp_post.push_back(
      add("md_barrier", "Barrier for message descriptor", "§4.1, Table 1", cpu, ns(c.md_barrier), {1, 1, 1, 1}));
  llp_post.push_back(
      add("dbc_barrier", "Barrier for DoorBell counter", "§4.1, Table 1", cpu, ns(c.dbc_barrier), {1, 1, 1, 1}));
  llp_post.push_back(add("pio_copy", "PIO copy (64 bytes)", "§4.1, Table 1", cpu, ns(c.pio_copy), {1, 1, 1, 1}));
  llp_post.push_back(
      add("llp_post_misc", "Miscellaneous in LLP_post", "§4.1, Table 1", cpu, ns(c.llp_post_misc), {1, 1, 1, 1}));
  // Post_prog = HLP_tx_prog + LLP_prog / c (§6: less than a nanosecond of it is in the LLP,
  // because UCX signals one completion per c sends).
  const double llp_tx_prog = ns(c.llp_prog) / interval;
  const size_t hlp_tx_prog = add("hlp_tx_prog", "HLP_tx_prog (Post_prog - LLP_prog/c)", "§6", cpu,
                                 ns(c.post_prog) - llp_tx_prog, {1, 0, 0, 0});
  const size_t misc =
      add("busy_post_amortized", "Misc: busy posts per operation", "§6", cpu, ns(c.busy_post_amortized), {1, 0, 0, 0});
  // The wire path: PCIe on each node, the network, the RC writing the payload on the target.
  const size_t pcie =
      add("pcie", "PCIe for a 64-byte payload", "§4.3, Table 1", Category::kIo, ns(c.pcie), {0, 2, 0, 2});
  const size_t wire = add("wire", "Wire", "§4.3, Table 1", Category::kNetwork, ns(c.wire), {0, 1, 0, 1});
  const size_t sw = add("switch", "Switch", "§4.3, Table 1", Category::kNetwork, ns(c.switch_), {0, 1, 0, 1});
  const size_t rc = add("rc_to_mem", "RC-to-MEM(8B)", "§4.3, Table 1", Category::kIo, ns(c.rc_to_mem), {0, 1, 0, 1});
  // Target: the successful poll, then the HLP's reception.
  const size_t llp_prog = add("llp_prog", "LLP_prog", "§4.1, Table 1", cpu, ns(c.llp_prog), {1.0 / interval, 1, 1, 1});
  const size_t mpich_cb = add("mpich_irecv_callback", "Callback for a completed MPI_Irecv in MPICH", "§6, Table 1", cpu,
                              ns(c.mpich_irecv_callback), {0, 1, 0, 0});
  const size_t ucp_cb = add("ucp_irecv_callback", "Callback for a completed MPI_Irecv in UCP", "§6, Table 1", cpu,
                            ns(c.ucp_irecv_callback), {0, 1, 0, 0});
  const size_t mpich_after = add("mpich_after_progress", "MPICH after a successful ucp_worker_progress", "§6", cpu,
                                 ns(c.mpich_after_progress), {0, 1, 0, 0});
  // The LLP injection benchmark's own Misc (§4.2).
  const size_t busy = add("busy_post", "Busy post", "§4.2, Table 1", cpu, ns(c.busy_post), {0, 0, 1, 0});
  const size_t update =
      add("measurement_update", "Measurement update", "§4.2, Table 1", cpu, ns(c.measurement_update), {0, 0, 1, 0});

  auto join = [](std::initializer_list<std::vector<size_t>> parts) {
    std::vector<size_t> out;
    for (const auto& p : parts)
      out.insert(out.end(), p.begin(), p.end());
    return out;
  };
  const std::vector<size_t> hlp_post{mpich_isend, ucp_isend};
  const std::vector<size_t> hlp_rx_prog{mpich_cb, ucp_cb, mpich_after};
  groups_ = {
      {"hlp_post", "HLP_post", hlp_post},
      {"llp_post", "LLP_post", llp_post},
      {"post", "Post = HLP_post + LLP_post", join({hlp_post, llp_post})},
      {"hlp_rx_prog", "HLP_rx_prog", hlp_rx_prog},
      {"hlp", "HLP", join({hlp_post, {hlp_tx_prog}, hlp_rx_prog})},
      {"llp", "LLP", join({llp_post, {llp_prog}})},
      {"llp_misc", "Misc in Inj_overhead (§4.2)", {busy, update}},
      {"cpu", "CPU", join({hlp_post, llp_post, {hlp_tx_prog, misc, llp_prog}, hlp_rx_prog, {busy, update}})},
      {"io", "I/O (Integrated NIC)", {pcie, rc}},
      {"network", "Network = Wire + Switch", {wire, sw}},
  };
}

double Breakdown::total(Model m) const {
  double sum = 0;
  for (const Component& c : components_)
    sum += c.in(m);
  return sum;
}

std::vector<std::string> Breakdown::names() const {
  std::vector<std::string> out;
  for (const Component& c : components_)
    out.push_back(c.name);
  for (const Group& g : groups_)
    out.push_back(g.name);
  return out;
}

std::vector<size_t> Breakdown::resolve(std::string_view name) const {
  const std::string want = normalized(name);
  for (size_t i = 0; i < components_.size(); ++i) {
    if (components_[i].name == want) return {i};
  }
  for (const Group& g : groups_) {
    if (g.name == want || normalized(g.paper) == want) return g.members;
  }
  // Paper spellings of single components: "RC-to-MEM", "PIO", "HLP_tx_prog".
  if (want == "rc_to_mem(8b)") return resolve("rc_to_mem");
  if (want == "pio") return resolve("pio_copy");
  std::string known;
  for (const std::string& n : names())
    known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown host component '" + std::string(name) + "' (known: " + known + ")");
}

double Breakdown::part(std::string_view name, Model m) const {
  double sum = 0;
  for (size_t i : resolve(name))
    sum += components_[i].in(m);
  return sum;
}

WhatIf Breakdown::what_if(std::string_view name, double reduction, Model m) const {
  if (!(reduction >= 0 && reduction <= 1)) throw std::invalid_argument("a reduction is between 0% and 100%");
  const double before = total(m);
  return WhatIf{before, before - reduction * part(name, m)};
}

SimulationParams derive_simulation(const HostConfig& c) {
  SimulationParams p;
  const Time llp_post = c.md_setup + c.md_barrier + c.dbc_barrier + c.pio_copy + c.llp_post_misc;
  p.send_overhead = c.mpich_isend + c.ucp_isend + llp_post;
  p.send_progress_overhead = c.post_prog + c.busy_post_amortized;
  p.recv_overhead = c.llp_prog + c.mpich_irecv_callback + c.ucp_irecv_callback + c.mpich_after_progress;
  // Halves are exact to the picosecond for the paper's values (two decimals of a ns); an odd
  // picosecond count would lose one.
  p.dma_latency = c.pcie + Time::ps(c.rc_to_mem.count_ps() / 2);
  p.nic_link_latency = Time::ps(c.wire.count_ps() / 2);
  p.switch_latency = c.switch_;
  return p;
}

}  // namespace mgen::host
