// The pieces of `mgen validate` (cmd_validate.cpp) that its reproductions share: result rows,
// plots, the run context and a helper to simulate a small MGEN program on a preset.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cli_common.hpp"
#include "mgen/net/network.hpp"
#include "validate_plot.hpp"

namespace mgen::cli::validate {

struct Row {
  std::string figure, quantity;
  std::string paper, mgen, error;  // as printed
  bool pass = false;
};

struct Context {
  std::string configs;
  bool quick = false;
  std::vector<Row> rows;
  std::vector<Plot> plots;

  // Machine keys set on the command line (--set), applied to every machine a reproduction loads
  // before its own settings (so that a comparison's backend choice still wins).
  std::vector<std::string> sets;

  config::MachineConfig machine(const std::string& file, const std::vector<std::string>& overrides = {}) const {
    return config::load_machine((std::filesystem::path(configs) / file).string(), with_sets(overrides));
  }
  // The built-in default machine, likewise.
  config::MachineConfig default_machine(const std::vector<std::string>& overrides) const {
    return config::load_default(with_sets(overrides));
  }
  std::vector<std::string> with_sets(const std::vector<std::string>& overrides) const {
    std::vector<std::string> all = sets;
    all.insert(all.end(), overrides.begin(), overrides.end());
    return all;
  }
  // A published number: passes when |mgen - paper| <= tolerance x paper.
  void number(const std::string& figure, const std::string& quantity, double paper, double mgen_value, double tolerance,
              const std::string& unit) {
    const double err = paper == 0 ? std::abs(mgen_value) : (mgen_value - paper) / paper;
    rows.push_back(
        Row{figure, quantity, fmt::format("{:.4g} {}", paper, unit), fmt::format("{:.4g} {}", mgen_value, unit),
            fmt::format("{:+.2f}% (<= {:g}%)", 100 * err, 100 * tolerance), std::abs(err) <= tolerance + 1e-12});
  }
  // A published qualitative statement and the numbers that decide it.
  void claim(const std::string& figure, const std::string& statement, bool holds, const std::string& evidence) {
    rows.push_back(Row{figure, statement, "holds", holds ? "holds" : "does not hold", evidence, holds});
  }
};

// Runs `body(rank, size)` on `ranks` ranks; `nodes` maps rank -> node (empty: block placement
// at `ppn` per node). Throws if the simulated job fails.
mpi::RunReport simulate(const config::MachineConfig& m, uint32_t ranks, const std::function<void(int, int)>& body,
                        uint32_t ppn = 1, const std::vector<uint32_t>& nodes = {});

// The machine's network on its own, for zero-load times and hop counts.
struct Oracle : net::MessageSink {
  explicit Oracle(const config::MachineConfig& m) : net(engine, m.network, *this) {}
  void on_message_sent(uint64_t, simcore::Time) override {}
  void on_message_delivered(uint64_t, simcore::Time) override {}
  simcore::Engine engine;
  net::NetworkModel net;
};

std::vector<uint32_t> powers_of_two(uint32_t from, uint32_t to);

// The reproductions (validate_papers.cpp, validate_zipper.cpp).
void ppt_latency(Context& c);
void ppt_throughput(Context& c);
void ppt_allreduce(Context& c);
void nsim_random_ring(Context& c);
void nsim_barrier(Context& c);
void breaking_band(Context& c);
void dimemas(Context& c);
void zipper(Context& c);
// The flow backend against the packet backend (validate_flow.cpp).
void flow_vs_packet(Context& c);

}  // namespace mgen::cli::validate
