// mgen whatif -c MACHINE: the Breaking Band breakdown of the machine's [host] table (Zambre et
// al., ICPP 2019): each component's share of the latency and injection overhead, then the
// what-if of §7 (Fig. 17): the speedup when one component or group is reduced by Y%.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "mgen/host/breakdown.hpp"
#include "mpich.hpp"

namespace mgen::cli {
namespace {

using host::Breakdown;
using host::Model;

struct WhatIfCli {
  MachineOptions machine;
  std::string reductions = "10,30,50,70,90";
  std::string component;
  std::string plot;
};

// "10,30,50" as fractions 0.1, 0.3, 0.5.
std::vector<double> parse_reductions(const std::string& list) {
  std::vector<double> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    double v = -1;
    try {
      size_t used = 0;
      v = std::stod(item, &used);
      if (used != item.size()) v = -1;
    } catch (const std::exception&) {
      v = -1;
    }
    if (!(v >= 0 && v <= 100))
      bad_option("--reductions", fmt::format("'{}' is not a percentage from 0 to 100", item), list);
    out.push_back(v / 100);
  }
  if (out.empty()) throw std::invalid_argument("--reductions needs a list such as 10,30,50,70,90");
  return out;
}

// A share of a model, or "-" when none of the members appears in it.
std::string share(const Breakdown& b, const std::vector<size_t>& members, Model m) {
  double part = 0;
  bool appears = false;
  for (size_t i : members) {
    part += b.components()[i].in(m);
    appears = appears || b.components()[i].weight[static_cast<size_t>(m)] != 0;
  }
  return appears ? fmt::format("{:.2f}%", 100 * part / b.total(m)) : "-";
}

void print_breakdown(const Breakdown& b, uint32_t unsignaled_interval) {
  fmt::print("{:<22} {:<45} {:<14} {:>9} {:>9} {:>10}\n", "component", "paper term", "source", "ns", "latency",
             "injection");
  for (size_t i = 0; i < b.components().size(); ++i) {
    const host::Component& c = b.components()[i];
    fmt::print("{:<22} {:<45} {:<14} {:>9.2f} {:>9} {:>10}\n", c.name, c.paper, c.source, c.ns,
               share(b, {i}, Model::kLatency), share(b, {i}, Model::kInjection));
  }
  fmt::print("\n{:<22} {:<60} {:>9} {:>9} {:>10}\n", "group", "", "ns", "latency", "injection");
  for (const host::Group& g : b.groups()) {
    double ns = 0;
    for (size_t i : g.members)
      ns += b.components()[i].ns;
    fmt::print("{:<22} {:<60} {:>9.2f} {:>9} {:>10}\n", g.name, g.paper, ns, share(b, g.members, Model::kLatency),
               share(b, g.members, Model::kInjection));
  }
  fmt::print(
      "\n(latency, injection: share of the component's weighted part in the §6 model; PCIe counts twice in the\n"
      " latency, LLP_prog once per {} sends in the injection (unsignaled completions); -: not in that model)\n\n",
      unsignaled_interval);
  for (Model m : {Model::kLatency, Model::kInjection, Model::kLlpLatency, Model::kLlpInjection})
    fmt::print("{:<45} {:>9.2f} ns\n", host::model_name(m), b.total(m));
}

// Rows for one model: the named components (or all with a part in it) by reduction.
void print_what_if(const Breakdown& b, Model m, const std::vector<std::string>& rows,
                   const std::vector<double>& reductions) {
  fmt::print("\nwhat-if: speedup of the {} ({:.2f} ns), and the time saved\n", host::model_name(m), b.total(m));
  fmt::print("{:<22}", "reduced by");
  for (double r : reductions)
    fmt::print(" {:>15}", fmt::format("{:g}%", 100 * r));
  fmt::print("\n");
  for (const std::string& name : rows) {
    fmt::print("{:<22}", name);
    for (double r : reductions) {
      const host::WhatIf w = b.what_if(name, r, m);
      fmt::print(" {:>15}", fmt::format("{:.3f} ({:.2f}%)", w.speedup(), 100 * w.saved()));
    }
    fmt::print("\n");
  }
}

// One PNG: the time saved (the paper's "speedup by X%") against the reduction, a line per row.
void plot(const Breakdown& b, Model m, const std::vector<std::string>& rows, const std::vector<double>& reductions,
          const std::string& png, const std::string& title) {
  const std::string data = png + ".dat";
  {
    std::ofstream out(data);
    for (double r : reductions) {
      out << 100 * r;
      for (const std::string& name : rows)
        out << " " << 100 * b.what_if(name, r, m).saved();
      out << "\n";
    }
  }
  std::string series;
  for (size_t i = 0; i < rows.size(); ++i) {
    series += fmt::format("{}'{}' using 1:{} with linespoints title '{}'", i == 0 ? "" : ", ", data, i + 2, rows[i]);
  }
  const std::string script = fmt::format(
      "set terminal pngcairo size 800,600 noenhanced; set output '{}'; set title '{}';"
      "set xlabel 'reduction in the component (%)'; set ylabel 'speedup of the {} (% time saved)';"
      "set key left top; set grid; plot {}",
      png, title, m == Model::kInjection ? "injection overhead" : "latency", series);
  const std::string cmd = fmt::format("gnuplot -e \"{}\"", script);
  const int status = std::system(cmd.c_str());
  std::remove(data.c_str());
  if (status != 0) throw std::runtime_error("gnuplot failed (is gnuplot installed?)");
  fmt::print("plot: {}\n", png);
}

int run_whatif(const WhatIfCli& o) {
  const config::MachineConfig m = o.machine.load();
  if (!m.host) {
    throw std::invalid_argument(
        fmt::format("machine '{}' has no [host] table: `mgen whatif` needs the Breaking Band components (see "
                    "configs/thunderx2-cx4.toml and `mgen info --keys`)",
                    m.name));
  }
  const Breakdown b(*m.host);
  const std::vector<double> reductions = parse_reductions(o.reductions);
  if (!o.component.empty()) b.resolve(o.component);  // an unknown name fails before any output

  fmt::print("Breaking Band breakdown of {} ({})\n\n", m.name, m.source);
  print_breakdown(b, m.host->unsignaled_interval);
  for (Model model : {Model::kInjection, Model::kLatency}) {
    std::vector<std::string> rows;
    if (!o.component.empty()) {
      rows.push_back(o.component);
    } else {
      for (const std::string& name : b.names()) {
        if (b.part(name, model) > 0) rows.push_back(name);
      }
    }
    print_what_if(b, model, rows, reductions);
  }

  if (o.plot.empty()) return 0;
  fmt::print("\n");
  if (!o.component.empty()) {
    plot(b, Model::kInjection, {o.component}, reductions, o.plot + "-injection.png",
         fmt::format("{}: reducing {} (injection)", m.name, o.component));
    plot(b, Model::kLatency, {o.component}, reductions, o.plot + "-latency.png",
         fmt::format("{}: reducing {} (latency)", m.name, o.component));
    return 0;
  }
  // The four panels of Fig. 17.
  plot(b, Model::kInjection, {"hlp", "hlp_post", "hlp_tx_prog", "llp", "llp_post", "pio_copy"}, reductions,
       o.plot + "-a.png", fmt::format("(a) {}: overall injection, CPU components", m.name));
  plot(b, Model::kLatency, {"hlp", "hlp_post", "hlp_rx_prog", "llp", "llp_post", "llp_prog", "pio_copy"}, reductions,
       o.plot + "-b.png", fmt::format("(b) {}: end-to-end latency, CPU components", m.name));
  plot(b, Model::kLatency, {"io", "pcie", "rc_to_mem"}, reductions, o.plot + "-c.png",
       fmt::format("(c) {}: end-to-end latency, I/O (integrated NIC)", m.name));
  plot(b, Model::kLatency, {"network", "wire", "switch"}, reductions, o.plot + "-d.png",
       fmt::format("(d) {}: end-to-end latency, network", m.name));
  return 0;
}

}  // namespace

Runner add_whatif(CLI::App& app) {
  auto* sub = app.add_subcommand("whatif",
                                 "Breaking Band host breakdown and what-if: mgen whatif -c configs/thunderx2-cx4.toml");
  auto o = std::make_shared<WhatIfCli>();
  o->machine.attach(*sub);
  sub->add_option("--reductions", o->reductions, "reductions in percent, e.g. 10,30,50,70,90 (the default, Fig. 17)");
  sub->add_option("--component", o->component,
                  "only this component or group (pio_copy, llp_post, hlp, io, network, switch, ...)");
  sub->add_option("--plot", o->plot,
                  "write PNG plots PREFIX-a..d.png like Fig. 17 (with --component: PREFIX-injection/latency.png)");
  return [o] {
    refuse_launch("whatif");
    return run_whatif(*o);
  };
}

}  // namespace mgen::cli
