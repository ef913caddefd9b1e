#include "cli_common.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>

#include "install_paths.hpp"
#include "mgen/config/units.hpp"
#include "resources.hpp"

namespace mgen::cli {

void bad_option(const std::string& option, const std::string& why, const std::string& got) {
  throw std::invalid_argument(fmt::format("{}: {} (got {})", option, why, got));
}

namespace check {
namespace {

// The Validator's answer: empty when the value is good.
std::string refuse(const std::string& why, const std::string& got) {
  return fmt::format("{} (got {})", why, got);
}

// The whole text as a double (strtod: also "nan", "inf", "1e3"), or nullopt.
std::optional<double> number_of(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

CLI::Validator whole(uint64_t lo, uint64_t hi) {
  const std::string why = hi == std::numeric_limits<uint64_t>::max()
                              ? fmt::format("must be a whole number of at least {}", lo)
                              : fmt::format("must be a whole number from {} to {}", lo, hi);
  return CLI::Validator(
      [lo, hi, why](std::string& text) {
        uint64_t v = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, v);
        if (text.empty() || ptr != end || ec == std::errc::invalid_argument) return refuse(why, text);
        if (ec == std::errc::result_out_of_range || v < lo || v > hi) return refuse(why, text);
        return std::string();
      },
      "", "whole");
}

CLI::Validator positive(double hi) {
  const std::string why = fmt::format("must be a positive number, at most {:g}", hi);
  return CLI::Validator(
      [hi, why](std::string& text) {
        const std::optional<double> v = number_of(text);
        if (!v || !std::isfinite(*v) || !(*v > 0) || *v > hi) return refuse(why, text);
        return std::string();
      },
      "", "positive");
}

CLI::Validator fraction(bool zero_allowed, const std::string& what) {
  const std::string why = fmt::format("must be {} {}", what, zero_allowed ? "from 0 to 1" : "in (0, 1]");
  return CLI::Validator(
      [zero_allowed, why](std::string& text) {
        const std::optional<double> v = number_of(text);
        if (!v || !(zero_allowed ? *v >= 0 : *v > 0) || !(*v <= 1)) return refuse(why, text);
        return std::string();
      },
      "", "fraction");
}

CLI::Validator size(uint64_t lo, uint64_t hi) {
  const std::string why =
      fmt::format("must be a size from {} to {}, such as 256KiB", config::format_bytes(simcore::Bytes(lo)),
                  config::format_bytes(simcore::Bytes(hi)));
  return CLI::Validator(
      [lo, hi, why](std::string& text) {
        try {
          const uint64_t v = config::parse_bytes(text).count();
          if (v < lo || v > hi) return refuse(why, text);
        } catch (const config::UnitError& e) {
          return refuse(e.what(), text);
        }
        return std::string();
      },
      "", "size");
}

CLI::Validator duration(bool zero_allowed) {
  return CLI::Validator(
      [zero_allowed](std::string& text) {
        try {
          const simcore::Time t = config::parse_time(text);
          if (!zero_allowed && t == simcore::Time::zero()) {
            return refuse("must be a time above zero, such as 50us", text);
          }
        } catch (const config::UnitError& e) {
          return refuse(e.what(), text);
        }
        return std::string();
      },
      "", "duration");
}

}  // namespace check

void MachineOptions::attach(CLI::App& app) {
  app.add_option("-c,--config", config_path,
                 "machine file (TOML), or the name of a shipped one (hopper, nsim-ace-ib...); the built-in default "
                 "machine when omitted");
  // One value per --set, so that `--set k=v PROGRAM` leaves PROGRAM alone.
  app.add_option("--set", overrides, "override a machine key, e.g. --set router.routing=adaptive (repeatable)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  app.add_flag("--force", force,
               "go ahead although the machine or job looks too large for this computer's memory or the kernel's "
               "map-count limit (the estimates are refused otherwise, with their figures)");
}

config::MachineConfig MachineOptions::load() const {
  // The network's memory is estimated after the keys are read and before the machine is built
  // to check it: a machine file of millions of routers is refused here, not by the kernel.
  const config::BeforeBuild estimate = [this](const config::MachineConfig& m) { check_machine_memory(m, force); };
  return building("reading the machine", [&] {
    return config_path.empty() ? config::load_default(overrides, estimate)
                               : config::load_machine(find_machine_file(config_path), overrides, estimate);
  });
}

void write_report(const std::string& path, const nlohmann::json& body) {
  nlohmann::json report = body;
  report["format"] = "mgen-report";
  report["format_version"] = kReportFormatVersion;
  if (path == "-") {
    std::cout << report.dump(2) << "\n";
    return;
  }
  std::ofstream out(path);
  if (!out) throw std::runtime_error(fmt::format("cannot write report to {}", path));
  out << report.dump(2) << "\n";
  if (!out) throw std::runtime_error(fmt::format("cannot write report to {}", path));
}

}  // namespace mgen::cli
