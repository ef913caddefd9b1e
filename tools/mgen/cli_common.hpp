// Pieces every `mgen` subcommand shares: machine selection, reports, error exits.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mgen/config/machine.hpp"

namespace mgen::cli {

// -c/--config and --set, attached to a subcommand.
struct MachineOptions {
  std::string config_path;
  std::vector<std::string> overrides;
  void attach(CLI::App& app);
  config::MachineConfig load() const;
};

// Writes `report` to `path` (pretty-printed); "-" means standard output.
void write_report(const std::string& path, const nlohmann::json& report);

// The machine as JSON, for reports.
nlohmann::json machine_json(const config::MachineConfig& machine);

// Subcommands: each registers itself on `app` and returns the function to run when chosen.
using Runner = std::function<int()>;
Runner add_info(CLI::App& app);
Runner add_traffic(CLI::App& app);
Runner add_run(CLI::App& app);
Runner add_trace(CLI::App& app);
Runner add_record(CLI::App& app);

}  // namespace mgen::cli
