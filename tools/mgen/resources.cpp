#include "resources.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "mgen/config/units.hpp"
#include "mgen/net/backend.hpp"
#include "mgen/net/topology.hpp"
#include "mgen/net/topology_size.hpp"

namespace mgen::cli {
namespace {

namespace fs = std::filesystem;

// Measured figures: peak RSS (VmHWM) of `mgen info` and `mgen run -q -n 2` on tori of 262,144
// routers in three shapes (64x64x64 with 1 and 4 nodes per router, 512x512), whose differences
// separate the cost per port from the cost per endpoint; rounded up. Per router, per port
// (terminal ports included) and per endpoint, by backend, the network as `mgen info` and
// `mgen traffic` build it: the topology (a PortLink per port), routing and the backend's state
// (the packet backend: VCs, credit rings, statistics, link queues per port).
struct NetworkFigures {
  const char* backend;
  uint64_t per_router, per_port, per_endpoint;
};
constexpr NetworkFigures kNetwork[] = {
    {"packet", 16, 280, 170},  // measured 265 per port, 157 per endpoint
    {"flow", 64, 200, 300},
    {"analytic", 16, 80, 32},
    {"dimemas", 16, 80, 32},
};
// What a run adds: the report's LinkInfo (with its name) per port, the World's state per endpoint
// (measured 114 and 115 B over `mgen info` with the packet backend).
constexpr uint64_t kRunPerPort = 120;
constexpr uint64_t kRunPerEndpoint = 120;
// Per rank of a run: its World state, its stack's touched pages, the report's row (measured
// 11.0 KiB per rank from 8,000 to 32,000 ranks of an MGEN program).
constexpr uint64_t kRankBytes = 16 * 1024;
// Per private copy of a recompiled program (ranks 1 up), beyond the file's size, which the copy
// maps: its written pages and page tables (measured 34.6 KiB per rank from 1,000 to 4,000 ranks
// of a 16.4 KiB program, of which 11 KiB are the rank's own).
constexpr uint64_t kCopyBytes = 16 * 1024;
// The process itself: libraries, the engine, the machine's description.
constexpr uint64_t kBaseBytes = 64ull << 20;

// Memory mappings (/proc/self/maps lines) per private copy of a program module (measured: 5, the
// module's segments), and per rank stack while stacks have guard pages (a guard page splits the
// stacks' reservation: the stack and its guard are two mappings; measured 7 per rank in all at
// 1,000 and 4,000 ranks). StackPool (libmgen/runtime) guards its stacks while they fit under
// vm.max_map_count (StackPool::guards_fit), and otherwise maps them as one, unguarded.
constexpr uint64_t kMapsPerCopy = 5;
constexpr uint64_t kMapsPerGuardedStack = 2;
// Other mappings a run adds (the helpers' stacks, the allocator's arenas, late libraries).
constexpr uint64_t kMapsSlack = 1024;

std::string gib(uint64_t bytes) {
  if (bytes >= (1ull << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1ull << 30));
  return fmt::format("{:.0f} MiB", static_cast<double>(bytes) / (1ull << 20));
}

// A number from a one-line kernel file ("max" or unreadable: nullopt).
std::optional<uint64_t> read_number(const fs::path& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text)) return std::nullopt;
  try {
    size_t used = 0;
    const unsigned long long v = std::stoull(text, &used);
    if (used != text.size()) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The cgroup (v2) directory of this process, from /proc/self/cgroup's "0::/path".
std::optional<fs::path> cgroup_dir() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("0::")) return fs::path("/sys/fs/cgroup") / fs::path(line.substr(3)).relative_path();
  }
  return std::nullopt;
}

uint64_t mappings_now() {
  std::ifstream in("/proc/self/maps");
  uint64_t n = 0;
  std::string line;
  while (std::getline(in, line))
    ++n;
  return n;
}

const NetworkFigures& figures_of(const std::string& backend) {
  for (const NetworkFigures& f : kNetwork) {
    if (backend == f.backend) return f;
  }
  return kNetwork[0];  // the largest
}

std::string what_the_machine_is(const config::MachineConfig& m, const net::TopologySize& s) {
  return fmt::format("machine '{}' ({} routers, {} ports, {} endpoints)", m.name, s.routers, s.ports, s.endpoints);
}

// The answer when `need` bytes do not fit; `reserved` is address space taken but not touched
// (the ranks' stacks), which counts only under `ulimit -v`.
void refuse_memory(const std::string& what, uint64_t need, uint64_t reserved, bool force, const std::string& smaller) {
  if (force) return;
  const HostMemory have = host_memory();
  if (have.address_space) need += reserved;
  if (need <= have.bytes) return;
  const std::string of_which =
      have.address_space && reserved ? fmt::format(" (of which {} of stack reservations)", gib(reserved)) : "";
  throw ResourceError(fmt::format(
      "{} needs about {} of memory{}; this computer has {} available ({}): {}, or add --force to try anyway", what,
      gib(need), of_which, gib(have.bytes), have.source, smaller));
}

}  // namespace

HostMemory host_memory() {
  HostMemory h;
  {
    std::ifstream in("/proc/meminfo");
    std::string key;
    uint64_t kib = 0;
    std::string unit;
    while (in >> key >> kib) {
      std::getline(in, unit);
      if (key == "MemAvailable:") {
        h.bytes = kib * 1024;
        h.source = "MemAvailable in /proc/meminfo";
        break;
      }
    }
    if (h.source.empty()) h.bytes = uint64_t{1} << 62;
  }
  // A cgroup limit counts what the group already uses; walk up, the tightest limit wins.
  if (std::optional<fs::path> dir = cgroup_dir()) {
    for (fs::path d = *dir; d.string().size() >= std::string("/sys/fs/cgroup").size(); d = d.parent_path()) {
      const std::optional<uint64_t> max = read_number(d / "memory.max");
      const std::optional<uint64_t> used = read_number(d / "memory.current");
      if (max && used) {
        const uint64_t left = *max > *used ? *max - *used : 0;
        if (left < h.bytes) {
          h.bytes = left;
          h.source = fmt::format("the cgroup limit {}/memory.max less its use", d.string());
        }
      }
      if (d == d.parent_path()) break;
    }
  }
  // cgroup v1: one hierarchy for memory.
  const fs::path v1 = "/sys/fs/cgroup/memory";
  if (const std::optional<uint64_t> max = read_number(v1 / "memory.limit_in_bytes")) {
    const uint64_t used = read_number(v1 / "memory.usage_in_bytes").value_or(0);
    const uint64_t left = *max > used ? *max - used : 0;
    if (left < h.bytes) {
      h.bytes = left;
      h.source = "the cgroup limit memory.limit_in_bytes less its use";
    }
  }
  // `ulimit -v` bounds the address space; what is already mapped is taken.
  struct rlimit as {};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    uint64_t mapped = 0;
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
      if (key == "VmSize:") {
        status >> mapped;
        mapped *= 1024;
        break;
      }
      std::getline(status, key);
    }
    const uint64_t left = as.rlim_cur > mapped ? as.rlim_cur - mapped : 0;
    if (left < h.bytes) {
      h.bytes = left;
      h.source = "ulimit -v less what is mapped";
      h.address_space = true;
    }
  }
  if (const char* env = std::getenv("MGEN_MEMORY_SHARE")) {
    const long share = std::strtol(env, nullptr, 10);
    if (share > 1) {
      h.bytes /= static_cast<uint64_t>(share);
      h.source += fmt::format(", a 1/{} share (MGEN_MEMORY_SHARE: mgen sweep runs {} at a time)", share, share);
    }
  }
  return h;
}

uint64_t network_bytes(const config::MachineConfig& m, uint32_t ranks) {
  const net::TopologySize s = net::topology_size(m.network);
  std::string backend = m.network.backend;
  if (backend == "auto") backend = ranks == 0 ? "packet" : net::auto_backend(ranks, m.network.topology.kind);
  const NetworkFigures& f = figures_of(backend);
  uint64_t bytes = s.routers * f.per_router + s.ports * f.per_port + s.endpoints * f.per_endpoint;
  if (ranks > 0) bytes += s.ports * kRunPerPort + s.endpoints * kRunPerEndpoint;
  return bytes;
}

void check_machine_memory(const config::MachineConfig& m, bool force) {
  const net::TopologySize s = net::topology_size(m.network);
  refuse_memory(fmt::format("the network of {}", what_the_machine_is(m, s)), kBaseBytes + network_bytes(m, 0), 0, force,
                "model a smaller machine");
}

void check_partitions_memory(const config::MachineConfig& m, uint32_t copies, bool force) {
  const net::TopologySize s = net::topology_size(m.network);
  refuse_memory(
      fmt::format("{} partitions, each a whole copy of the network of {},", copies, what_the_machine_is(m, s)),
      kBaseBytes + uint64_t{copies} * network_bytes(m, 0), 0, force, "use fewer threads or processes");
}

void check_job(const config::MachineConfig& m, const mpi::JobConfig& job, const fs::path& program, bool force) {
  const net::TopologySize s = net::topology_size(m.network);
  // Places: the same rule as the run itself (World), before a program is copied per rank.
  if (job.placement == mpi::Placement::kMap) {
    if (job.node_of_rank.size() != job.ranks) {
      throw std::invalid_argument(
          fmt::format("--placement: the rank map gives {} nodes for {} ranks", job.node_of_rank.size(), job.ranks));
    }
    for (uint32_t r = 0; r < job.ranks; ++r) {
      if (job.node_of_rank[r] >= s.nodes) {
        throw std::invalid_argument(
            fmt::format("--placement: rank {} is mapped to node {}; the machine has nodes 0 to {}", r,
                        job.node_of_rank[r], s.nodes - 1));
      }
    }
  } else {
    const uint64_t nodes_used = (uint64_t{job.ranks} + job.procs_per_node - 1) / job.procs_per_node;
    if (nodes_used > s.nodes) {
      throw std::invalid_argument(fmt::format(
          "-n: {} ranks at {} per node need {} nodes; the machine ({}) has {}: at most {} ranks at {} per node "
          "(--ppn sets ranks per node)",
          job.ranks, job.procs_per_node, nodes_used, m.name, s.nodes, s.nodes * job.procs_per_node,
          job.procs_per_node));
    }
  }

  // Memory: the network, the ranks, a private copy of a recompiled program per rank.
  std::error_code ec;
  const uint64_t file = program.empty() ? 0 : fs::file_size(program, ec);
  const uint64_t copies = program.empty() ? 0 : job.ranks - 1;
  const uint64_t need = kBaseBytes + network_bytes(m, job.ranks) + uint64_t{job.ranks} * kRankBytes +
                        copies * ((ec ? 0 : file) + kCopyBytes);
  refuse_memory(fmt::format("{} ranks{} on {}", job.ranks,
                            copies ? fmt::format(" ({} copies of {}, {} each)", job.ranks, program.filename().string(),
                                                 config::format_bytes(simcore::Bytes(file)))
                                   : "",
                            what_the_machine_is(m, s)),
                need, uint64_t{job.ranks} * (job.stack_bytes + 4096), force, "use fewer ranks");

  // Mappings: every copy of the program maps its segments; guarded stacks two each.
  const std::optional<uint64_t> limit = read_number("/proc/sys/vm/max_map_count");
  const uint64_t others = mappings_now() + copies * kMapsPerCopy + kMapsSlack;
  const bool guarded = !limit || others + uint64_t{job.ranks} * kMapsPerGuardedStack <= *limit;
  const uint64_t maps = others + (guarded ? uint64_t{job.ranks} * kMapsPerGuardedStack : 1);
  if (!force && limit && maps > *limit) {
    // Headroom of a quarter, rounded up to a thousand.
    const uint64_t suggest = (maps + maps / 4 + 999) / 1000 * 1000;
    throw ResourceError(fmt::format(
        "-n {}: {} ranks need about {} memory mappings ({} per copy of {}, one copy per rank, and {} per rank "
        "stack); the kernel allows {} (vm.max_map_count): raise it with `sudo sysctl -w vm.max_map_count={}`, "
        "use fewer ranks, or add --force to try anyway",
        job.ranks, job.ranks, maps, kMapsPerCopy,
        program.empty() ? std::string("the program") : program.filename().string(), guarded ? kMapsPerGuardedStack : 0,
        *limit, suggest));
  }
}

}  // namespace mgen::cli
