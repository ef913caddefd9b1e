// Rank runtime cost: N ranks on a modelled machine each do `iterations` ring exchanges
// (MGEN_Sendrecv of 8 bytes to the next rank), the pattern of NSIM-ACE's ring put program.
// Reports wall time per blocking call, events per second and resident memory per rank.
// One configuration per process: bench/run_rank_bench.sh.
#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <string>

#include "mgen/config/machine.hpp"
#include "mgen/mgen.h"
#include "mgen/mpi/run.hpp"

namespace {

long rss_kib(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::string(field).size()));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t ranks = 1024, iterations = 10, ppn = 1;
  std::string stack = "64KiB";
  std::vector<std::string> overrides;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "-n")
      ranks = static_cast<uint32_t>(std::stoul(argv[i + 1]));
    else if (a == "--iterations")
      iterations = static_cast<uint32_t>(std::stoul(argv[i + 1]));
    else if (a == "--ppn")
      ppn = static_cast<uint32_t>(std::stoul(argv[i + 1]));
    else if (a == "--stack")
      stack = argv[i + 1];
    else if (a == "--set")
      overrides.emplace_back(argv[i + 1]);
    else {
      fmt::print(stderr, "usage: bench_ranks [-n N] [--iterations K] [--ppn P] [--stack SIZE] [--set KEY=VALUE]...\n");
      return 2;
    }
  }
  try {
    const mgen::config::MachineConfig m = mgen::config::load_default(overrides);
    mgen::mpi::JobConfig job;
    job.ranks = ranks;
    job.procs_per_node = ppn;
    job.stack_bytes = 65536;
    if (stack == "128KiB") job.stack_bytes = 131072;
    const long before = rss_kib("VmRSS:");
    const auto start = std::chrono::steady_clock::now();
    const mgen::mpi::RunReport r =
        mgen::mpi::run_job({m.network, m.mpi, m.node, m.collectives}, job,
                           [iterations](int, char**) {
                             int rank, size;
                             MGEN_Comm_rank(MGEN_COMM_WORLD, &rank);
                             MGEN_Comm_size(MGEN_COMM_WORLD, &size);
                             long out = rank, in = 0;
                             for (uint32_t i = 0; i < iterations; ++i) {
                               MGEN_Sendrecv(&out, 1, MGEN_LONG, (rank + 1) % size, 0, &in, 1, MGEN_LONG,
                                             (rank + size - 1) % size, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
                             }
                           },
                           {"bench"});
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const long peak = rss_kib("VmHWM:");
    if (!r.ok) {
      fmt::print(stderr, "bench_ranks: {}\n", r.error);
      return 1;
    }
    const double calls = static_cast<double>(ranks) * iterations;
    fmt::print(
        "ranks {:>7}  ppn {:>2}  calls {:>9.0f}  wall {:7.2f} s  {:6.2f} us/call  {:5.2f} M events/s  "
        "peak {:6.0f} MiB  {:5.1f} KiB/rank  predicted {:.3f} us\n",
        ranks, ppn, calls, wall, wall / calls * 1e6, static_cast<double>(r.events) / wall * 1e-6,
        static_cast<double>(peak) / 1024, static_cast<double>(peak - before) / ranks, r.predicted_s() * 1e6);
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_ranks: {}\n", e.what());
    return 1;
  }
  return 0;
}
