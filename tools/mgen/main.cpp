// mgen: predict how MPI applications perform on parallel machines you do not have.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <string_view>
#include <vector>

#include "cli_common.hpp"
#include "huge_pages.hpp"
#include "mgen/config/units.hpp"
#include "mgen/net/config.hpp"
#include "mgen/trace/reader.hpp"
#include "mpich.hpp"
#include "resources.hpp"

namespace {

int run_mgen(int argc, char** argv) {
  CLI::App app{"mgen: performance prediction of MPI applications on modelled parallel machines"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "mgen 0.1.0");
  std::vector<std::pair<CLI::App*, mgen::cli::Runner>> commands;
  auto add = [&](auto adder) {
    const size_t before = app.get_subcommands({}).size();
    mgen::cli::Runner run = adder(app);
    commands.emplace_back(app.get_subcommands({})[before], std::move(run));
  };
  add(mgen::cli::add_info);
  add(mgen::cli::add_traffic);
  add(mgen::cli::add_run);
  add(mgen::cli::add_record);
  add(mgen::cli::add_trace);
  add(mgen::cli::add_replay);
  add(mgen::cli::add_nas);
  add(mgen::cli::add_whatif);
  add(mgen::cli::add_sweep);
  add(mgen::cli::add_validate);
  add(mgen::cli::add_calibrate);
  std::vector<char*> args(argv, argv + argc);
  mgen::cli::drop_sweep_separator(args);
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::ValidationError& e) {
    // A numeric option's value refused by its check (cli_common.hpp): bad input, as below.
    std::cerr << "mgen: error: " << e.what() << "\n";
    return 2;
  } catch (const CLI::ConversionError& e) {
    std::cerr << "mgen: error: " << e.what() << "\n";
    return 2;
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    for (auto& [sub, run] : commands) {
      if (sub->parsed()) return run();
    }
  } catch (const mgen::cli::JobFailed& e) {
    std::cerr << "mgen: " << e.what() << (std::string(e.what()).ends_with('\n') ? "" : "\n");
    return e.status;
  } catch (const mgen::cli::ResourceError& e) {
    std::cerr << "mgen: error: " << e.what() << "\n";
    return 2;
  } catch (const mgen::cli::OutOfMemory& e) {
    std::cerr << "mgen: error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "mgen: error: out of memory (std::bad_alloc); see the memory limits of this computer: ulimit -v, "
                 "cgroups, free memory\n";
    return 1;
  } catch (const mgen::config::Error& e) {
    std::cerr << "mgen: error: " << e.what() << "\n";
    return 2;
  } catch (const mgen::net::ConfigError& e) {
    std::cerr << "mgen: error: " << e.key() << ": " << e.what() << "\n";
    return 2;
  } catch (const mgen::trace::TraceError& e) {
    std::cerr << "mgen: error: " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "mgen: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "mgen: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  mgen::cli::restart_with_huge_pages(argv);
  const int status = run_mgen(argc, argv);
  // A process of an mpiexec launch that fails before the launch is set up (a bad option, a
  // refused command) must not end before mpiexec has forwarded its stdin (mpich.hpp).
  if (status != 0) mgen::cli::outlive_stdin_forwarding();
  return status;
}
