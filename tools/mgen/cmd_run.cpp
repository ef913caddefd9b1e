// mgen run -n N [options] PROGRAM [args]: runs an MGEN program or a recompiled MPI program
// (mgen-cc) on the modelled machine and
// reports the predicted time, where each rank spent it, and how the network was used.
#include <dlfcn.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

#include "cli_common.hpp"
#include "mgen/config/units.hpp"
#include "mgen/mpi/run.hpp"
#include "mpich.hpp"
#include "otf2.hpp"
#include "pie_module.hpp"
#include "resources.hpp"

namespace mgen::cli {
namespace {

namespace fs = std::filesystem;

struct RunCli {
  JobOptions job;
  bool ignore_compute = false;
};

// PROGRAM as given, with ".so" added, or next to the mgen binary (build/examples/random_ring).
fs::path resolve_program(const std::string& name) {
  std::vector<fs::path> candidates = {name, name + ".so"};
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && fs::path(name).is_relative()) {
    candidates.push_back(exe.parent_path() / name);
    candidates.push_back(exe.parent_path() / (name + ".so"));
  }
  for (const fs::path& p : candidates) {
    if (fs::is_regular_file(p, ec)) return p;
  }
  throw std::invalid_argument(
      fmt::format("program '{}' not found (looked for {}.so here and next to mgen)", name, name));
}

using MgenMain = int (*)(int, char**);
// The program's copy of libmgen_rank.a runs the rank's atexit/on_exit handlers (absent when the
// program registers none).
using ExitHandlers = void (*)(int);

// A loaded program: an MGEN program (one copy; MGEN_Main) or a recompiled MPI program (main;
// one copy per rank, so that every rank has its own global and static variables).
struct Program {
  MgenMain mgen = nullptr;
  std::vector<MgenMain> mains;  // per rank, MPI programs
  std::vector<ExitHandlers> exit_handlers;
};

// Refuses, before dlopen runs anything of it, a file that is no program of mgen's: not an ELF
// file at all (a script, a source file), or one linked with MPICH's library (built with mpicc:
// loading it would bring a second MPI into the process).
void check_module(const fs::path& path) {
  const std::string text = file_bytes(path);
  if (!text.starts_with("\x7f"
                        "ELF")) {
    throw std::invalid_argument(fmt::format(
        "{} is not a program mgen can run (not an ELF file): build MPI programs with `mgen-cc app.c -o app`, MGEN "
        "programs with mgen_add_program",
        path.string()));
  }
  for (const char* mpi : {"libmpich.so", "libmpi.so"}) {
    if (text.find(mpi) != std::string::npos) {
      throw std::invalid_argument(
          fmt::format("{} was not built with mgen-cc (it is linked with MPICH's {}: built with mpicc): rebuild it "
                      "with `mgen-cc SOURCES -o {}`",
                      path.string(), mpi, path.filename().string()));
    }
  }
}

void* open_module(const fs::path& path, const fs::path& given) {
  // Programs stay loaded for the life of the process: their code runs in every rank.
  const LoadableModule module(fs::absolute(path));
  void* handle = dlopen(module.path().c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::string why = dlerror();
    const size_t u = why.find("undefined symbol: ");
    if (u != std::string::npos) {
      why = fmt::format("it needs {}, which neither libmgen nor its libraries provide", why.substr(u + 18));
    } else if (why.find("cannot dynamically load") != std::string::npos) {
      // An executable (gcc, or mpicc without MPICH's library): mgen-cc makes a loadable module.
      throw std::invalid_argument(
          fmt::format("{} was not built with mgen-cc ({}): rebuild it with `mgen-cc SOURCES -o {}`", given.string(),
                      why.substr(why.rfind(": ") + 2), given.filename().string()));
    }
    throw std::invalid_argument(fmt::format("cannot load {}: {}", given.string(), why));
  }
  return handle;
}

// The private copies of a program's module for ranks 1 to N-1 (the dynamic loader maps each
// distinct file once). Each copy is an anonymous memory file (memfd) opened as
// /proc/self/fd/N: no file system is touched. Copies written to a temporary directory on a
// disk file system cost the kernel an inode each, allocated past the recently deleted ones, so
// 1,024 copies took about a second of system time (docs/PERFORMANCE.md). The loader also
// knows a module by the name it was opened with, so every memfd stays open (its number, and
// so its name, unique) until all copies are loaded; the soft limit on open files is raised for
// that while and restored after. Where memfds are not available, or a name was still taken by
// a module loaded earlier in this process, the copy is a file in $TMPDIR as before.
class RankCopies {
 public:
  RankCopies(const fs::path& path, uint32_t ranks) : path_(path), bytes_(file_bytes(path)) {
    rlimit lim{};
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0) {
      const rlim_t need = rlim_t{ranks} + 256;
      if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < need) {
        rlimit raised = lim;
        raised.rlim_cur = lim.rlim_max == RLIM_INFINITY ? need : std::min(need, lim.rlim_max);
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0) restore_ = lim;
      }
    }
  }
  ~RankCopies() {
    for (int fd : fds_)
      close(fd);
    if (restore_) setrlimit(RLIMIT_NOFILE, &*restore_);
    if (!dir_.empty()) {
      std::error_code ec;
      fs::remove_all(dir_, ec);
    }
  }
  RankCopies(const RankCopies&) = delete;
  RankCopies& operator=(const RankCopies&) = delete;

  // Loads rank r's copy; `first` is the module rank 0 runs.
  void* load(uint32_t r, void* first) {
    void* h = load_memfd(first);
    return h != nullptr ? h : load_file(r);
  }

 private:
  void* load_memfd(void* first) {
    if (!memfd_ok_) return nullptr;
    const int fd = memfd_create("mgen-rank", MFD_CLOEXEC);
    if (fd < 0) {
      memfd_ok_ = false;
      return nullptr;
    }
    fds_.push_back(fd);
    for (size_t done = 0; done < bytes_.size();) {
      const ssize_t n = write(fd, bytes_.data() + done, bytes_.size() - done);
      if (n <= 0) {
        memfd_ok_ = false;
        return nullptr;
      }
      done += static_cast<size_t>(n);
    }
    void* h = open_module(fmt::format("/proc/self/fd/{}", fd), path_);
    if (h == first || !loaded().insert(h).second) {
      // The name belonged to a module loaded before in this process (the loader handed that
      // one back, one reference more).
      dlclose(h);
      return nullptr;
    }
    return h;
  }

  void* load_file(uint32_t r) {
    if (dir_.empty()) {
      const char* tmp = std::getenv("TMPDIR");
      std::string dir = (fs::path(tmp ? tmp : "/tmp") / "mgen-ranks-XXXXXX").string();
      if (mkdtemp(dir.data()) == nullptr)
        throw std::runtime_error("cannot create a temporary directory for rank copies");
      dir_ = dir;
    }
    const fs::path copy = fs::path(dir_) / fmt::format("rank{}.so", r);
    fs::copy_file(path_, copy);
    void* h = open_module(copy, path_);
    fs::remove(copy);
    return h;
  }

  // Every rank copy this process has loaded, for all jobs it runs.
  static std::set<void*>& loaded() {
    static std::set<void*> handles;
    return handles;
  }

  fs::path path_;
  std::string bytes_;
  std::vector<int> fds_;
  std::optional<rlimit> restore_;
  bool memfd_ok_ = true;
  std::string dir_;
};

// `handle` is the program opened once (open_module), which serves rank 0.
Program load_program(void* handle, const fs::path& path, uint32_t ranks) {
  Program p;
  if (void* sym = dlsym(handle, "MGEN_Main")) {
    p.mgen = reinterpret_cast<MgenMain>(sym);
    return p;
  }
  void* main_sym = dlsym(handle, "main");
  if (main_sym == nullptr) {
    throw std::invalid_argument(fmt::format(
        "{} defines neither MGEN_Main nor main (build MGEN programs with mgen_add_program, MPI programs with mgen-cc)",
        path.string()));
  }
  // Per-rank globals: the dynamic loader maps each distinct file once, so rank r > 0 loads a
  // private copy (RankCopies). mgen-cc links with -Bsymbolic, so each copy's code refers to its
  // own data.
  p.mains.assign(ranks, reinterpret_cast<MgenMain>(main_sym));
  p.exit_handlers.assign(ranks, reinterpret_cast<ExitHandlers>(dlsym(handle, "mgen_rank_exit_handlers")));
  if (ranks == 1) return p;
  RankCopies copies(path, ranks);
  for (uint32_t r = 1; r < ranks; ++r) {
    void* h = copies.load(r, handle);
    void* main_r = dlsym(h, "main");
    p.mains[r] = reinterpret_cast<MgenMain>(main_r);
    // Fault messages name the program, not the copy's file.
    if (Dl_info info{}; main_r != nullptr && dladdr(main_r, &info) != 0)
      mpi::name_module(info.dli_fbase, path.filename().string());
    p.exit_handlers[r] = reinterpret_cast<ExitHandlers>(dlsym(h, "mgen_rank_exit_handlers"));
  }
  return p;
}

}  // namespace

void JobOptions::attach(CLI::App& sub, bool with_ranks) {
  // -n and --ppn: at least one; the machine's places are checked once it is known (check_job).
  const CLI::Validator kRanks = check::whole(1, std::numeric_limits<uint32_t>::max());
  // A fiber's stack: 16 KiB at least (StackPool's own floor, which would otherwise raise a
  // smaller value silently), 1 GiB at most.
  const CLI::Validator kStack = check::size(16 * 1024, 1ull << 30);
  machine.attach(sub);
  if (with_ranks) sub.add_option("-n,--ranks", ranks, "number of MPI ranks")->required()->check(kRanks);
  sub.add_option("--ppn", ppn, "ranks per node (default: the machine's node.procs_per_node)")->check(kRanks);
  sub.add_option("--placement", placement, "rank to node placement: block, round_robin, or a file of node numbers");
  sub.add_option("--stack", stack,
                 "stack size of each rank (default: 8MiB for recompiled MPI programs, a process's usual limit, "
                 "of which only the pages used cost memory; 256KiB for MGEN programs, replay and NAS)")
      ->check(kStack);
  sub.add_option("--report", report, "write a JSON report to FILE ('-' for stdout)");
  sub.add_option("--timeline", timeline, "write a Chrome/Perfetto trace of every rank's calls to FILE");
  sub.add_option("--paraver", paraver,
                 "write the predicted run as a Paraver trace: PREFIX.prv, PREFIX.pcf and PREFIX.row (states, MPI "
                 "call events, every message)");
  sub.add_option("--links-csv", links_csv, "write every link's bytes, packets, busy time and utilisation as CSV");
  sub.add_option("--plot", plot,
                 "draw pictures with gnuplot: PREFIX-ranks.png (each rank's compute, communication and waiting) "
                 "and PREFIX-links.png (link utilisation on the topology)");
  sub.add_flag("--calls", calls, "print each rank's MPI calls by function: calls, bytes sent, time inside");
  sub.add_option("--otf2", otf2,
                 "write the predicted run as an OTF2 archive DIR/traces.otf2 (Vampir, otf2-print): regions per "
                 "call, point-to-point and collective events, the simulated clock in picoseconds");
  attach_partition_options(sub, partition_model, partitions);
  sub.add_option("--threads,-j", threads,
                 "cut the network and the ranks on it into T partitions of equal rank counts, one thread each "
                 "(packet backend; MGEN programs, NAS and replay); the predictions are the one-thread run's to "
                 "the picosecond (default 1)")
      ->check(check::whole(1, 1024));
  sub.add_flag("-q,--quiet", quiet, "no summary and no progress line");
}

void JobOptions::first_process_writes() {
  const Mpich* launch = current_launch();
  if (launch == nullptr || launch->rank() == 0) return;
  report.clear();
  links_csv.clear();
  plot.clear();
}

void attach_partition_options(CLI::App& sub, bool& model, std::string& counts) {
  sub.add_flag("--partition-model", model,
               "after the run, what a packet network partitioned over cores would gain: windows, events per window, "
               "imbalance and speedups for 2, 4, ..., 1024 blocks of routers");
  sub.add_option("--partitions", counts, "--partition-model for these block counts, e.g. 2,4,16")->type_name("LIST");
}

// --partitions' counts: a comma list of counts from 2, or the default 2, 4, ..., 1024.
std::vector<uint32_t> partition_counts(const std::string& list) {
  std::vector<uint32_t> out;
  if (list.empty()) {
    for (uint32_t p = 2; p <= 1024; p *= 2)
      out.push_back(p);
    return out;
  }
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || end != item.data() + item.size() || ec != std::errc() || v < 2 || v > (1u << 24)) {
      bad_option("--partitions", fmt::format("'{}' is not a partition count from 2", item), list);
    }
    out.push_back(static_cast<uint32_t>(v));
  }
  return out;
}

// The run stops before the kernel's out-of-memory killer would end it: at what this process
// holds now plus what this computer can still give it (less a twentieth), or at
// MGEN_MEMORY_LIMIT (a size; 0 turns the check off). Under `ulimit -v` an allocation fails
// instead, which the run reports as it is.
static void set_memory_limit(mpi::JobConfig& job) {
  if (const char* env = std::getenv("MGEN_MEMORY_LIMIT")) {
    try {
      job.memory_limit = std::string(env) == "0" ? 0 : config::parse_bytes(env).count();
    } catch (const std::exception& e) {
      throw std::invalid_argument(fmt::format("MGEN_MEMORY_LIMIT: {}", e.what()));
    }
    job.memory_source = "MGEN_MEMORY_LIMIT";
    return;
  }
  const HostMemory have = host_memory();
  if (have.address_space || have.bytes == 0) return;
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  job.memory_limit =
      static_cast<uint64_t>(resident) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) + have.bytes / 20 * 19;
  job.memory_source = have.source;
}

mpi::JobConfig make_job(const JobOptions& o, const config::MachineConfig& m) {
  mpi::JobConfig job;
  if (o.ranks == 0) throw std::invalid_argument("-n: a job needs at least one rank");
  job.ranks = o.ranks;
  job.procs_per_node = o.ppn ? o.ppn : m.node.procs_per_node;
  job.stack_bytes = o.stack.empty() ? kSmallStack : config::parse_bytes(o.stack).count();
  job.timeline = !o.timeline.empty() || !o.paraver.empty();
  job.message_log = !o.paraver.empty();
  job.call_log = !o.otf2.empty();
  if (o.partition_model || !o.partitions.empty()) job.partition_model = partition_counts(o.partitions);
  job.threads = o.threads;
  job.transport = current_launch();  // under mpiexec: partitions over its processes too
  if (job.threads > 1 || job.transport) {
    if (!job.partition_model.empty()) {
      throw std::invalid_argument("--partition-model measures a serial run: leave out --threads (and mpiexec)");
    }
    // This process's partitions, times the launch's processes on this computer.
    const uint32_t here =
        job.threads * static_cast<uint32_t>(job.transport ? std::max(1, env_int("MPI_LOCALNRANKS", 1)) : 1);
    check_partitions_memory(m, here, o.machine.force);
  }
  set_memory_limit(job);
  if (o.placement == "block") {
    job.placement = mpi::Placement::kBlock;
  } else if (o.placement == "round_robin") {
    job.placement = mpi::Placement::kRoundRobin;
  } else {
    // A file with one node number per rank (whitespace separated, # comments).
    std::ifstream in(o.placement);
    if (!in)
      throw std::invalid_argument(
          fmt::format("--placement: '{}' is neither block, round_robin nor a readable file", o.placement));
    job.placement = mpi::Placement::kMap;
    std::string line;
    for (int lineno = 1; std::getline(in, line); ++lineno) {
      line = line.substr(0, line.find('#'));
      std::istringstream words(line);
      std::string w;
      while (words >> w) {
        uint64_t v = 0;
        const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
        if (end != w.data() + w.size() || ec != std::errc() || v > std::numeric_limits<uint32_t>::max())
          throw std::invalid_argument(fmt::format("{}:{}: '{}' is not a node number", o.placement, lineno, w));
        job.node_of_rank.push_back(static_cast<uint32_t>(v));
      }
    }
  }
  return job;
}

namespace {
double wall_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

ProgressReporter::ProgressReporter(bool quiet)
    : quiet_(quiet), tty_(isatty(STDERR_FILENO) != 0), start_(wall_now()), last_(start_) {
  if (!quiet_ && tty_) line_ = std::make_unique<TerminalLine>();
  // MGEN_PROGRESS_INTERVAL: seconds between lines when standard error is not a terminal.
  if (const char* env = std::getenv("MGEN_PROGRESS_INTERVAL")) {
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (end != env && *end == '\0' && v >= 0) {
      interval_ = v;
    } else if (!quiet_) {
      std::cerr << fmt::format(
          "mgen: ignoring MGEN_PROGRESS_INTERVAL='{}' (not a number of seconds >= 0); "
          "using {} s\n",
          env, interval_);
    }
  }
}

ProgressReporter::~ProgressReporter() = default;  // the line erases itself

mpi::Progress ProgressReporter::callback() {
  return [this](const mpi::ProgressInfo& p) {
    // The simulation calls back every 65,536 events: a terminal's line is redrawn five times a
    // second at most.
    const double now = wall_now();
    if (line_ && now - last_draw_ < 0.2) return;
    last_draw_ = now;
    // On a terminal (a row of 80 columns) the advice, short, takes the place of the counts.
    const std::string note = flow_cost_note(p.network, line_ != nullptr);
    if (line_ && !note.empty()) {
      show(fmt::format("simulated {}; {}", seconds(p.simulated_s), note));
    } else {
      show(fmt::format("simulated {}, {} events, {} ranks finished{}{}", seconds(p.simulated_s), p.events,
                       p.ranks_finished, note.empty() ? "" : "; ", note));
    }
  };
}

// Dense exchanges of small messages (all-to-alls of a few KiB, NAS FT and IS) make each start or
// end re-solve hundreds to thousands of flows on the flow backend, where bulk transfers and
// nearest-neighbour codes re-solve a few (docs/PERFORMANCE.md, "Flow backend"). Past both
// thresholds the packet backend is likely the cheaper of the two contention-aware models.
double flows_per_message(const net::NetworkTotals& t) {
  return static_cast<double>(t.flows_resolved) / static_cast<double>(std::max<uint64_t>(1, t.messages_injected));
}

std::string flow_cost_note(const net::NetworkTotals& t, bool brief) {
  constexpr uint64_t kMinResolved = 5'000'000;  // below this the run is short whatever the ratio
  constexpr double kPerMessage = 100;
  const double per_message = flows_per_message(t);
  if (t.flows_resolved < kMinResolved || per_message < kPerMessage) return "";
  const auto n = static_cast<uint64_t>(per_message);
  if (brief) return fmt::format("flow re-solves {} flows/message: packet may be faster", n);
  return fmt::format(
      "the flow backend re-solves {} flows per message here (dense small messages): the packet backend may be "
      "faster (--set network.backend=packet)",
      n);
}

void ProgressReporter::show(const std::string& what) {
  if (quiet_) return;
  if (line_) {
    line_->draw("  " + what);
    return;
  }
  const double now = wall_now();
  if (now - last_ < interval_) return;
  last_ = now;
  std::cerr << fmt::format("progress: {}, {:.0f} s wall\n", what, now - start_);
}

std::string backend_label(const net::NetworkConfig& n, const std::string& answered) {
  const std::string name = answered.empty() ? n.backend : answered;
  // "auto" names its rule, and after a run what it chose.
  const std::string rule = fmt::format("packet, or flow beyond {} ranks on fat trees", net::kAutoPacketRanks);
  const std::string how = n.backend != "auto" ? ""
                          : answered.empty()  ? fmt::format(" ({})", rule)
                                              : fmt::format(", chosen by auto: {}", rule);
  if (!n.analytic.nic_contention) return name + how;
  if (name == "analytic") return "analytic, NIC contention";
  return name + how + "; analytic.nic_contention ignored";
}

std::string seconds(double s) {
  return config::format_time(simcore::Time::ps(static_cast<int64_t>(s * 1e12 + 0.5)));
}

void print_summary(const std::string& program, const config::MachineConfig& m, const mpi::JobConfig& job,
                   const mpi::RunReport& r, const std::string& command) {
  fmt::print("mgen {}: {} ranks of {} on {} (backend {}), {} rank(s) per node\n", command, job.ranks, program, m.name,
             backend_label(m.network, r.backend), job.procs_per_node);
  fmt::print("predicted time   {}\n", seconds(r.predicted_s()));
  double compute = 0, overhead = 0, wait = 0;
  const mpi::RankReport* slowest = &r.ranks.front();
  for (const mpi::RankReport& k : r.ranks) {
    compute += k.compute_s();
    overhead += k.overhead_s();
    wait += k.wait_s();
    if (k.finish_s() > slowest->finish_s()) slowest = &k;
  }
  const double total = std::max(1e-300, compute + overhead + wait);
  fmt::print("ranks            compute {:.1f}% | communication {:.1f}% | waiting {:.1f}% (of rank time, all ranks)\n",
             100 * compute / total, 100 * overhead / total, 100 * wait / total);
  fmt::print("slowest rank     {}: finished at {}, compute {}, communication {}, waiting {}\n", slowest->rank,
             seconds(slowest->finish_s()), seconds(slowest->compute_s()), seconds(slowest->overhead_s()),
             seconds(slowest->wait_s()));
  fmt::print("messages         {} ({} within nodes), {} payload bytes; {} packets, {} packet hops\n", r.messages,
             r.intra_node_messages, r.bytes, r.network.packets, r.network.packet_hops);
  std::vector<const net::LinkInfo*> links;
  for (const net::LinkInfo& l : r.links) {
    if (l.stats.bytes) links.push_back(&l);
  }
  std::stable_sort(links.begin(), links.end(), [](auto* a, auto* b) { return a->stats.busy > b->stats.busy; });
  if (!links.empty() && r.drained_s() > 0) {
    fmt::print("busiest links   ");
    for (size_t i = 0; i < std::min<size_t>(3, links.size()); ++i) {
      fmt::print(" {} ({:.2f}){}", links[i]->name, links[i]->stats.busy.seconds() / r.drained_s(),
                 i + 1 < std::min<size_t>(3, links.size()) ? "," : "");
    }
    fmt::print("\n");
    const double load = links.front()->stats.busy.seconds() / r.drained_s();
    if (m.network.backend == "analytic" && load > 1.0) {
      fmt::print(
          "                 (a load above 1 means more traffic than the link can carry, which the\n"
          "                 analytic backend does not turn into delay there; the packet backend does)\n");
    }
  }
  if (r.network.solves > 0 || r.network.mice > 0) {
    fmt::print("flow sharing     {} max-min solves re-solved {} flows ({:.1f} per message)\n", r.network.solves,
               r.network.flows_resolved, flows_per_message(r.network));
    if (r.network.mice > 0) {
      fmt::print("                 mice: {} messages of one packet and at most {} B took their share unsolved\n",
                 r.network.mice, m.network.flow.mouse_bytes.count());
    }
    if (r.network.paced_solves > 0) {
      // Pacing is an approximation: say how much of the run it touched.
      const double mean = r.network.paced_waits == 0
                              ? 0.0
                              : r.network.paced_wait_sum.seconds() / static_cast<double>(r.network.paced_waits) * 1e9;
      fmt::print("                 paced: {} starts and ends waited {:.1f} ns on average for {} shared solves\n",
                 r.network.paced_waits, mean, r.network.paced_solves);
    }
    if (const std::string note = flow_cost_note(r.network); !note.empty()) fmt::print("                 {}\n", note);
    // Flows have no buffers. On tori and meshes, where routes pass through many routers, the
    // packet routers' input FIFOs fill under dense traffic and hold back flows that max-min keeps
    // going (docs/validation.md, "Buffers").
    const std::string& kind = m.network.topology.kind;
    if (kind == "torus" || kind == "mesh") {
      fmt::print(
          "                 flows model no router buffers: with 16 KiB per VC, dense exchanges on a torus\n"
          "                 took up to 2x longer on the packet backend (docs/validation.md, \"Buffers\");\n"
          "                 this {} has {} per VC\n",
          kind, config::format_bytes(m.network.router.vc_buffer));
    }
  }
  fmt::print("simulation       {} events in {:.3f} s wall ({:.2f} M events/s)\n", r.events, r.wall_s,
             r.wall_s > 0 ? static_cast<double>(r.events) / r.wall_s * 1e-6 : 0.0);
  if (r.partitions > 1) {
    fmt::print(
        "partitioned      {} partitions on {} thread(s) x {} process(es): {} windows, partition 0 waited {:.2f} s for "
        "the others\n",
        r.partitions, r.partitions / r.processes, r.processes, r.windows, r.sync_wall_s);
  }
  if (!r.partition_model.empty()) {
    fmt::print("{}", net::PartitionModel::table(r.partition_model, r.events, r.partition_network_events, r.wall_s,
                                                r.partition_model_s));
  }
}

int failure_exit_status(const mpi::RunReport& r) {
  switch (r.status) {
    case mpi::RunStatus::kCrashed:
      return 4;
    case mpi::RunStatus::kInterrupted:
      return 128 + r.signal;
    default:
      return 3;
  }
}

int report_failure(const std::string& command, const mpi::RunReport& r) {
  const std::string end = r.error.ends_with('\n') ? "" : "\n";
  switch (r.status) {
    case mpi::RunStatus::kCrashed:
      std::cerr << "mgen " << command << ": a rank's program crashed: " << r.error << end;
      break;
    case mpi::RunStatus::kInterrupted:
      std::cerr << "mgen " << command << ": " << r.error << end;
      break;
    default:
      std::cerr << "mgen " << command
                << (command == "replay" ? ": the replay failed: " : ": the simulated job failed: ") << r.error << end;
      break;
  }
  return failure_exit_status(r);
}

void write_traces(const JobOptions& o, const config::MachineConfig& m, const mpi::RunReport& r) {
  if (!o.timeline.empty()) write_timeline(o.timeline, r);
  if (!o.paraver.empty()) write_paraver(o.paraver, m, r);
  if (!o.otf2.empty()) write_otf2(o.otf2, m, r);
}

// Chrome / Perfetto trace: one track per rank, one slice per MGEN call.
void write_timeline(const std::string& path, const mpi::RunReport& r) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error(fmt::format("cannot write the timeline to {}", path));
  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  for (const mpi::RankReport& k : r.ranks) {
    out << (first ? "" : ",\n")
        << fmt::format(
               "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":{},\"args\":{{\"name\":\"rank {}\"}}}}",
               k.rank, k.rank);
    first = false;
  }
  for (const mpi::TimelineEvent& e : r.timeline) {
    out << fmt::format(",\n{{\"name\":\"{}\",\"ph\":\"X\",\"pid\":0,\"tid\":{},\"ts\":{:.6f},\"dur\":{:.6f}}}", e.name,
                       e.rank, e.start_s * 1e6, (e.end_s - e.start_s) * 1e6);
  }
  out << "\n]}\n";
}

namespace {

// MPIEXEC_TIMEOUT, as MPICH's mpiexec (hydra) reads it: the job's wall-clock limit in seconds.
// When it expires the run stops at once with hydra's words, so a program that spins (on
// MPI_Wtime, say) ends as it would under mpiexec.
char timeout_message[160];
size_t timeout_message_len = 0;

void on_timeout(int) {
  (void)!write(STDERR_FILENO, timeout_message, timeout_message_len);
  _exit(124);  // as timeout(1)
}

void arm_wall_clock_limit() {
  const char* env = std::getenv("MPIEXEC_TIMEOUT");
  if (env == nullptr) return;
  char* end = nullptr;
  const long v = std::strtol(env, &end, 10);
  if (end == env || *end != '\0' || v <= 0) return;  // as hydra: only a positive number of seconds
  const std::string m =
      fmt::format("mgen run: APPLICATION TIMED OUT: the job ran longer than MPIEXEC_TIMEOUT={} s (wall clock)\n", v);
  timeout_message_len = std::min(m.size(), sizeof timeout_message);
  std::memcpy(timeout_message, m.data(), timeout_message_len);
  std::signal(SIGALRM, on_timeout);
  alarm(static_cast<unsigned>(v));
}

int run(const RunCli& o, const std::vector<std::string>& rest) {
  if (rest.empty()) throw std::invalid_argument("mgen run needs a PROGRAM");
  const config::MachineConfig m = o.job.machine.load();
  const fs::path program = resolve_program(rest[0]);
  mpi::JobConfig job = make_job(o.job, m);
  job.measure_compute = !o.ignore_compute;
  // Places, memory and mappings before a copy per rank is made: an MGEN program (MGEN_Main) is
  // loaded once, a recompiled one (main) once per rank, so the first copy tells which it is.
  check_module(program);
  void* first = open_module(program, program);
  const bool mgen_program = dlsym(first, "MGEN_Main") != nullptr;
  // A recompiled program was written for a process's stack (8 MiB by default on Linux).
  if (o.job.stack.empty() && !mgen_program) job.stack_bytes = kProgramStack;
  check_job(m, job, mgen_program ? fs::path() : program, o.job.machine.force);
  const Program prog = building(fmt::format("loading {} for {} ranks", program.filename().string(), job.ranks),
                                [&] { return load_program(first, program, job.ranks); });
  const mpi::MachineSetup setup{m.network, m.mpi, m.node, m.collectives};
  mpi::RankMain main;
  if (prog.mgen != nullptr) {
    // A non-zero return fails the run, naming the rank, as main's does.
    main = [entry = prog.mgen](int argc, char** argv) {
      mpi::mpi_program_status(entry(argc, argv), false, "MGEN_Main");
    };
  } else {
    // As a process ends: main returns or calls exit(), the atexit/on_exit handlers run (they
    // may still call MPI), and a non-zero status fails the run, naming the rank.
    main = [&prog](int argc, char** argv) {
      const auto rank = static_cast<size_t>(mpi::current_rank());
      mpi::mpi_program_begin();
      int status = 0;
      bool by_exit = false;
      try {
        status = prog.mains[rank](argc, argv);
      } catch (const mpi::ProgramExit& e) {
        mpi::forget_unwound_frames();
        status = e.code;
        by_exit = true;
      }
      for (bool more = prog.exit_handlers[rank] != nullptr; more;) {
        try {
          prog.exit_handlers[rank](status);
          more = false;
        } catch (const mpi::ProgramExit& e) {  // exit() inside a handler: the others still run
          mpi::forget_unwound_frames();
          if (e.code != 0) {
            status = e.code;
            by_exit = true;
          }
        }
      }
      mpi::mpi_program_end();
      mpi::mpi_program_status(status, by_exit);
    };
  }
  arm_wall_clock_limit();
  const mpi::RunReport r = building(fmt::format("running {} ranks", job.ranks), [&] {
    ProgressReporter progress(o.job.quiet);
    return mpi::run_job(setup, job, main, rest, progress.callback());
  });
  const std::string name = program.stem().string();
  if (!o.job.report.empty()) write_json_report(o.job.report, name, m, job, r, "run");
  write_traces(o.job, m, r);
  write_job_outputs(o.job, m, r, name);
  if (!r.ok) return report_failure("run", r);
  if (!o.job.quiet) print_summary(name, m, job, r, "run");
  if (o.job.calls) print_function_table(r, true);
  return 0;
}

}  // namespace

Runner add_run(CLI::App& app) {
  auto* sub = app.add_subcommand("run", "run an MGEN program on the modelled machine and predict its time");
  auto o = std::make_shared<RunCli>();
  o->job.attach(*sub, true);
  sub->add_flag("--ignore-compute", o->ignore_compute,
                "MPI programs: do not charge measured CPU time between MPI calls (only MPI_Comp counts)");
  sub->prefix_command();  // PROGRAM and everything after it belong to the program
  return [o, sub] {
    return run_launched("run", [&] {
      o->job.first_process_writes();
      return run(*o, sub->remaining());
    });
  };
}

}  // namespace mgen::cli
