// mgen validate: every reproduction of the source papers' published numbers and figures, run on
// the machine presets in configs/. Prints one row per checked quantity (figure, paper value,
// mgen value, error, pass/fail) and per qualitative claim, writes the figures as PNGs with
// gnuplot (--plots DIR), and exits 1 if any reproduction fails.
//
// The programs are small MGEN programs written here as lambdas; each row says where the
// paper's value comes from. --quick trims the sweeps (fewer ranks, sizes and repetitions) so
// that CI can run the whole suite in a couple of minutes; every check still runs.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "install_paths.hpp"
#include "mgen/mgen.h"
#include "mpich.hpp"
#include "validate.hpp"

namespace fs = std::filesystem;

namespace mgen::cli {
namespace validate {

static mpi::MachineSetup setup_of(const config::MachineConfig& m) {
  return mpi::MachineSetup{m.network, m.mpi, m.node, m.collectives};
}

mpi::RunReport simulate(const config::MachineConfig& m, uint32_t ranks, const std::function<void(int, int)>& body,
                        uint32_t ppn, const std::vector<uint32_t>& nodes) {
  mpi::JobConfig job;
  job.ranks = ranks;
  job.procs_per_node = ppn;
  job.stack_bytes = 64 * 1024;
  job.measure_compute = false;
  if (!nodes.empty()) {
    job.placement = mpi::Placement::kMap;
    job.node_of_rank = nodes;
  }
  const mpi::RunReport r = mpi::run_job(setup_of(m), job,
                                        [&body](int, char**) {
                                          int rank = 0, size = 0;
                                          MGEN_Comm_rank(MGEN_COMM_WORLD, &rank);
                                          MGEN_Comm_size(MGEN_COMM_WORLD, &size);
                                          body(rank, size);
                                        },
                                        {"validate"});
  if (!r.ok) throw std::runtime_error(fmt::format("a validation run on {} failed: {}", m.name, r.error));
  return r;
}

std::vector<uint32_t> powers_of_two(uint32_t from, uint32_t to) {
  std::vector<uint32_t> out;
  for (uint32_t p = from; p <= to; p *= 2)
    out.push_back(p);
  return out;
}

}  // namespace validate

namespace {

using namespace validate;

// ---------------------------------------------------------------- the suite

struct Reproduction {
  const char* name;
  const char* what;
  void (*run)(Context&);
};
const Reproduction kReproductions[] = {
    {"ppt-latency", "PPT §6, Fig. 6: Hopper 4-byte latencies and their histogram", ppt_latency},
    {"ppt-throughput", "PPT Fig. 8: MPI throughput between two Hopper nodes, 1/2/4 per node", ppt_throughput},
    {"ppt-allreduce", "PPT Fig. 7: MPI_Allreduce duration against ranks and size", ppt_allreduce},
    {"nsim-random-ring", "NSIM-ACE Fig. 1: random-ring put bandwidth, 16 and 256 nodes", nsim_random_ring},
    {"nsim-barrier", "NSIM-ACE Fig. 2: ring and recursive-doubling barriers", nsim_barrier},
    {"breaking-band", "Breaking Band §6-7, Fig. 17: latency, injection, what-if", breaking_band},
    {"dimemas", "Dimemas §3, Tables 1-3: T = L + S/B and the collective model", dimemas},
    {"zipper", "Leiden Zipper §3.3, Fig. 6: the forwarder's bandwidth and latency", zipper},
    {"flow", "the flow backend against the packet backend: halos, all-to-all, allreduce, random ring, NAS",
     flow_vs_packet},
};

void write_plot(const Plot& p, const fs::path& dir) {
  const fs::path data = dir / (p.file + ".dat");
  const GnuplotInput in = gnuplot_input(p, data.string(), (dir / p.file).string());
  std::ofstream(data) << in.data;
  const fs::path gp = dir / (p.file + ".gp");
  std::ofstream(gp) << in.script << "\n";
  if (std::system(fmt::format("gnuplot '{}'", gp.string()).c_str()) != 0) {
    throw std::runtime_error("gnuplot failed (is gnuplot installed?)");
  }
  fs::remove(data);
  fs::remove(gp);
}

struct ValidateCli {
  std::string only, plots, configs = machine_files_dir();
  std::vector<std::string> sets;
  bool quick = false, list = false;
};

int run_validate(const ValidateCli& o) {
  if (o.list) {
    for (const Reproduction& r : kReproductions)
      fmt::print("{:18} {}\n", r.name, r.what);
    return 0;
  }
  Context c;
  c.configs = o.configs;
  c.quick = o.quick;
  c.sets = o.sets;
  // A --set of no machine key is refused before anything runs; its value is read (and a bad one
  // named) by each machine it is applied to, presets and the default machine alike.
  for (const std::string& s : c.sets) {
    const std::optional<std::string> key = config::override_key(s);
    if (!key) bad_option("--set", "needs KEY=VALUE", s);
    const auto& keys = config::key_reference();
    if (std::none_of(keys.begin(), keys.end(), [&](const config::KeyDoc& k) { return *key == k.key; }))
      bad_option("--set", fmt::format("no machine key '{}' (mgen info --keys lists them)", *key), s);
  }
  bool any = false;
  for (const Reproduction& r : kReproductions) {
    if (!o.only.empty() && o.only != r.name) continue;
    any = true;
    const size_t before = c.rows.size();
    try {
      r.run(c);
    } catch (const std::exception& e) {
      c.rows.push_back(Row{r.name, "the reproduction ran", "-", "error", e.what(), false});
    }
    if (isatty(STDERR_FILENO)) std::fprintf(stderr, "%s: %zu checks\n", r.name, c.rows.size() - before);
  }
  if (!any) throw std::invalid_argument(fmt::format("--only: no reproduction named '{}' (see --list)", o.only));
  size_t fw = 6, qw = 8, pw = 5, mw = 4;
  for (const Row& r : c.rows) {
    fw = std::max(fw, r.figure.size());
    qw = std::max(qw, r.quantity.size());
    pw = std::max(pw, r.paper.size());
    mw = std::max(mw, r.mgen.size());
  }
  if (!c.sets.empty()) fmt::print("every machine with --set {}\n\n", fmt::join(c.sets, " --set "));
  fmt::print("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {:<6}  {}\n", "figure", fw, "quantity", qw, "paper", pw, "mgen", mw,
             "result", "error / evidence");
  size_t failed = 0;
  for (const Row& r : c.rows) {
    failed += r.pass ? 0 : 1;
    fmt::print("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {:<6}  {}\n", r.figure, fw, r.quantity, qw, r.paper, pw, r.mgen, mw,
               r.pass ? "pass" : "FAIL", r.error);
  }
  fmt::print("\n{} of {} reproductions pass\n", c.rows.size() - failed, c.rows.size());
  if (!o.plots.empty()) {
    fs::create_directories(o.plots);
    for (const Plot& p : c.plots) {
      write_plot(p, o.plots);
      fmt::print("plot: {}\n", (fs::path(o.plots) / p.file).string());
    }
  }
  return failed ? 1 : 0;
}

}  // namespace

Runner add_validate(CLI::App& app) {
  auto* sub = app.add_subcommand("validate", "rerun every reproduction of the source papers and compare");
  auto o = std::make_shared<ValidateCli>();
  sub->add_option("--only", o->only, "run one reproduction (see --list)");
  sub->add_option("--plots", o->plots, "write the figures as PNG files into DIR (gnuplot)");
  sub->add_option("--configs", o->configs, "directory of the machine presets")->capture_default_str();
  sub->add_option("--set", o->sets,
                  "override a machine key in every machine the reproductions load, e.g. --set "
                  "router.arbitration=age (repeatable; a reproduction's own settings, such as the backends "
                  "it compares, come after and win)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  sub->add_flag("--quick", o->quick, "smaller sweeps (CI); every check still runs");
  sub->add_flag("--list", o->list, "list the reproductions and exit");
  return [o] {
    refuse_launch("validate");
    return run_validate(*o);
  };
}

}  // namespace mgen::cli
