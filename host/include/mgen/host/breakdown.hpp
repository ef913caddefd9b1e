// The Breaking Band models (Zambre et al., ICPP 2019): injection overhead and latency of a small
// message composed from the host, I/O and network components of a HostConfig, and the what-if
// analysis of §7 (reduce one component by Y%, what do injection and latency gain?).
//
// Every model is a weighted sum of components, because the paper's components never overlap
// (§7: "their executions do not overlap"), so a reduction of any of them shortens the sum by
// exactly its own share and the what-if is linear.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mgen/host/config.hpp"

namespace mgen::host {

// The paper's four equations.
enum class Model : uint8_t {
  kInjection,  // §6 eq. 2: overall injection overhead, Post + Post_prog + Misc
  kLatency,    // §6: end-to-end latency, HLP_post + LLP_post + 2 PCIe + Network + RC-to-MEM + LLP_prog + HLP_rx_prog
  kLlpInjection,  // §4.2 eq. 1: the LLP alone, LLP_post + LLP_prog + Misc
  kLlpLatency,    // §4.3: the LLP alone, LLP_post + 2 PCIe + Network + RC-to-MEM + LLP_prog
};
inline constexpr size_t kModels = 4;
const char* model_name(Model m);  // "overall injection overhead (§6, eq. 2)", ...

// Fig. 15's three categories.
enum class Category : uint8_t { kCpu, kIo, kNetwork };
const char* category_name(Category c);  // "CPU", "I/O", "network"

struct Component {
  std::string name;    // "pio_copy": its [host] key (hlp_tx_prog is derived, §6)
  std::string paper;   // "PIO copy (64 bytes)": the paper's term
  std::string source;  // "§4.1, Table 1"
  Category category = Category::kCpu;
  double ns = 0;
  // How many times the component appears in each model: 2 for PCIe in the latency (one on
  // each node), 1/c for LLP_prog in the overall injection (unsignaled completions, §6).
  std::array<double, kModels> weight{};
  double in(Model m) const { return weight[static_cast<size_t>(m)] * ns; }
};

// A named set of components, as the paper and its Fig. 17 group them (LLP_post, HLP, I/O...).
struct Group {
  std::string name;   // "llp_post"
  std::string paper;  // "LLP_post"
  std::vector<size_t> members;
};

// One what-if: the model's time before and after the reduction.
struct WhatIf {
  double before_ns = 0;
  double after_ns = 0;
  double speedup() const { return before_ns / after_ns; }
  // The fraction of time saved: what the paper reports as "speeds up by X%" (§7: a 70% cut of
  // the switch "corresponds to a substantial speedup (5.45%)" = 75.6 ns of 1387.02 ns).
  double saved() const { return 1 - after_ns / before_ns; }
};

class Breakdown {
 public:
  explicit Breakdown(const HostConfig& config);

  const std::vector<Component>& components() const { return components_; }
  const std::vector<Group>& groups() const { return groups_; }
  double total(Model m) const;
  // A component's or group's part of a model, in ns.
  double part(std::string_view name, Model m) const;
  // Every member of `name` (a component, a group, or a paper term such as "LLP_post", "I/O",
  // "RC-to-MEM"; case-insensitive) reduced by `reduction` (0 to 1; 0.3 = 30%).
  WhatIf what_if(std::string_view name, double reduction, Model m) const;
  // The component indices `name` stands for; throws std::invalid_argument naming the known
  // names when it stands for nothing.
  std::vector<size_t> resolve(std::string_view name) const;
  // Component and group names, in table order.
  std::vector<std::string> names() const;

 private:
  std::vector<Component> components_;
  std::vector<Group> groups_;
};

// What the simulation takes from the breakdown (config/ applies it when [host] derive = true).
// The MPI layer charges send_overhead before a message leaves, recv_overhead after it has
// arrived, and send_progress_overhead when a wait finds a send complete; the network adds the
// NIC's DMA latency on each side, the NIC links and the switch in between. So the simulated
// one-way latency of a small message is, term by term, the paper's §6 latency:
//   send_overhead        = HLP_post + LLP_post                       (initiator CPU)
//   2 x dma_latency      = 2 PCIe + RC-to-MEM(8B)                    (split evenly, see below)
//   2 x nic_link_latency = Wire
//   switch_latency       = Switch (the router's whole pipeline)
//   recv_overhead        = LLP_prog + HLP_rx_prog                    (target CPU)
// plus the packet's serialization, which the paper's Wire already contains. The send side's
// DMA latency is really PCIe and the receive side's PCIe + RC-to-MEM; mgen's NIC has one DMA
// latency for both, so RC-to-MEM is split evenly: each one-way trip gets the exact sum.
// send_progress_overhead = Post_prog + Misc (§6) makes a window of sends cost the overall
// injection overhead per message; it is off the latency's critical path, as in the paper.
struct SimulationParams {
  Time send_overhead;
  Time send_progress_overhead;
  Time recv_overhead;
  Time dma_latency;
  Time nic_link_latency;
  Time switch_latency;
};
SimulationParams derive_simulation(const HostConfig& config);

}  // namespace mgen::host
