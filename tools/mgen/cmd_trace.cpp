// mgen trace dump|stats: look into recorded traces (docs/trace-format.md).
// mgen record: run an MPICH program under mpiexec with the recorder preloaded.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>

#include "cli_common.hpp"
#include "mgen/config/units.hpp"
#include "mgen/trace/reader.hpp"

namespace mgen::cli {
namespace {

namespace fs = std::filesystem;
using trace::Op;
using trace::Reader;
using trace::Record;

// A directory of traces, or one trace file.
std::vector<fs::path> inputs(const std::string& path) {
  if (fs::is_regular_file(path)) return {path};
  trace::TraceSet set = trace::trace_set(path);
  if (!set.note.empty()) std::cerr << "mgen trace: note: " << set.note << "\n";
  return std::move(set.files);
}

std::string ns(uint64_t v) {
  return config::format_time(simcore::Time::ps(static_cast<int64_t>(v) * 1000));
}

// A record's fields as `key=value` words, from its row of the call table: first the call's own
// fields in encoding order (the payload bytes once, where its first size field stands), then
// its requests and how they completed.
std::string describe(const Record& r) {
  using trace::Field;
  const trace::CallRow& row = trace::call_row(r.op);
  std::string f, tail;
  auto add = [](std::string& to, const std::string& s) { to += " " + s; };
  bool bytes = false;
  for (Field k : row.fields()) {
    switch (k) {
      case Field::kComm:
        if (r.comm >= 0) add(f, fmt::format("comm={}", r.comm));
        break;
      case Field::kParent:
        add(f, fmt::format("parent={}", r.comm));
        break;
      case Field::kNewComm:
        add(f, fmt::format("new={}", r.new_comm));
        break;
      case Field::kMembers:
        add(f, fmt::format("members={}", r.counts.size()));
        break;
      case Field::kDest:
        add(f, fmt::format("dest={}", r.peer));
        break;
      case Field::kSource:
        add(f, fmt::format("source={}", r.peer));
        break;
      case Field::kSource2:
        add(f, fmt::format("source={}", r.peer2));
        break;
      case Field::kTag:
        add(f, fmt::format("tag={}", r.tag));
        break;
      case Field::kTag2:
        add(f, fmt::format("tag={}", r.tag2));
        break;
      case Field::kRoot:
        add(f, fmt::format("root={}", r.root));
        break;
      case Field::kCount:
      case Field::kTypeSize:
      case Field::kCounts:
        if (!bytes) {
          add(f, fmt::format("{}={}", row.cls == trace::CallClass::kRecv ? "capacity" : "bytes", trace::call_bytes(r)));
        }
        bytes = true;
        break;
      case Field::kFlag:
        add(f, fmt::format("flag={}", r.flag ? 1 : 0));
        break;
      case Field::kRequest:
        if (r.request >= 0) add(tail, fmt::format("req={}", r.request));
        break;
      case Field::kRequests:
      case Field::kOneRequest: {
        std::string ids;
        for (int64_t q : r.requests)
          ids += (ids.empty() ? "" : ",") + std::to_string(q);
        if (!ids.empty()) add(tail, fmt::format("reqs={}", ids));
        break;
      }
      case Field::kIndex:
        if (r.index >= 0) add(tail, fmt::format("index={}", r.index));
        break;
      case Field::kSomeCompletions: {  // which ones: sends complete without a status to show
        std::string which;
        for (const trace::Completion& c : r.done)
          which += (which.empty() ? "" : ",") + std::to_string(c.index);
        add(tail, fmt::format("done={}", which.empty() ? "none" : which));
      }
        [[fallthrough]];
      case Field::kCompletions:
      case Field::kCompletionsIfFlag:
      case Field::kCompletionAtIndex:
        for (const trace::Completion& c : r.done) {
          if (c.receive) {
            add(tail, fmt::format("[{}: from {} tag {} {} B]", c.index, c.status.source, c.status.tag, c.status.bytes));
          }
        }
        break;
      case Field::kStatusIfFlag:
        if (!r.flag) break;
        [[fallthrough]];
      case Field::kStatus:
        add(tail, fmt::format("[from {} tag {} {} B]", r.status.source, r.status.tag, r.status.bytes));
        break;
      default:  // modes and names are in the call's name; counts and type sizes in its bytes
        break;
    }
  }
  return f + tail;
}

int dump(const std::string& path, int only_rank) {
  for (const fs::path& file : inputs(path)) {
    Reader reader(file);
    const trace::Header& h = reader.header();
    if (only_rank >= 0 && h.rank != static_cast<uint32_t>(only_rank)) continue;
    fmt::print("# {}: rank {} of {}, run {}, recorded on {}\n", file.string(), h.rank, h.size,
               h.version == 1 ? std::string("id unknown (format version 1)") : trace::run_id_hex(h.run_id), h.host);
    Record r;
    uint64_t i = 0;
    while (reader.next(r)) {
      fmt::print("{} {:>6} {:<22} compute {:>9} (wall {:>9}) in call {:>9}{}\n", h.rank, i++,
                 trace::call_name(r, reader), ns(r.dt_cpu), ns(r.dt_wall), ns(r.dur), describe(r));
    }
    if (!reader.complete()) fmt::print("# rank {}: the trace ends without MPI_Finalize (the rank died)\n", h.rank);
  }
  return 0;
}

struct FnStats {
  uint64_t calls = 0, bytes = 0, in_call_ns = 0;
};

int stats(const std::string& path, bool per_rank, const std::string& report) {
  const std::vector<fs::path> files = inputs(path);  // the set is checked before the table starts
  std::map<std::string, FnStats> total;
  nlohmann::json ranks = nlohmann::json::array();
  fmt::print("{:>5} {:>9} {:>12} {:>12} {:>12} {:>12}  {}\n", "rank", "calls", "bytes", "compute(cpu)", "compute(wall)",
             "in MPI", "complete");
  uint32_t incomplete = 0;
  uint64_t longest = 0;  // the slowest rank's span
  for (const fs::path& file : files) {
    Reader reader(file);
    std::map<std::string, FnStats> mine;
    uint64_t calls = 0, bytes = 0, cpu = 0, wall = 0, in_mpi = 0;
    // The run as the application sees it: from MPI_Init's return to MPI_Finalize's entry, so
    // that neither MPICH's start-up nor its tear-down counts (what a replay predicts).
    uint64_t span = 0;
    Record r;
    while (reader.next(r)) {
      if (r.op != Op::kInit) span += r.dt_wall + (r.op == Op::kFinalize ? 0 : r.dur);
      FnStats& f = mine[trace::call_name(r, reader)];
      ++f.calls;
      f.bytes += trace::call_bytes(r);
      f.in_call_ns += r.dur;
      ++calls;
      bytes += trace::call_bytes(r);
      cpu += r.dt_cpu;
      wall += r.dt_wall;
      in_mpi += r.dur;
    }
    if (!reader.complete()) ++incomplete;
    longest = std::max(longest, span);
    fmt::print("{:>5} {:>9} {:>12} {:>12} {:>12} {:>12}  {}\n", reader.header().rank, calls, bytes, ns(cpu), ns(wall),
               ns(in_mpi), reader.complete() ? "yes" : "NO (rank died)");
    nlohmann::json fns = nlohmann::json::object();
    for (const auto& [name, f] : mine) {
      FnStats& t = total[name];
      t.calls += f.calls;
      t.bytes += f.bytes;
      t.in_call_ns += f.in_call_ns;
      fns[name] = {{"calls", f.calls}, {"bytes", f.bytes}, {"in_call_s", static_cast<double>(f.in_call_ns) * 1e-9}};
    }
    if (per_rank) {
      for (const auto& [name, f] : mine)
        fmt::print("      {:<26} {:>9} calls {:>14} bytes {:>12} in the call\n", name, f.calls, f.bytes,
                   ns(f.in_call_ns));
    }
    ranks.push_back({{"rank", reader.header().rank},
                     {"calls", calls},
                     {"bytes", bytes},
                     {"compute_cpu_s", static_cast<double>(cpu) * 1e-9},
                     {"compute_wall_s", static_cast<double>(wall) * 1e-9},
                     {"in_mpi_s", static_cast<double>(in_mpi) * 1e-9},
                     {"span_s", static_cast<double>(span) * 1e-9},
                     {"complete", reader.complete()},
                     {"functions", fns}});
  }
  fmt::print("\n{:<26} {:>10} {:>16} {:>12}\n", "function (all ranks)", "calls", "bytes", "in the call");
  nlohmann::json fns = nlohmann::json::object();
  for (const auto& [name, f] : total) {
    fmt::print("{:<26} {:>10} {:>16} {:>12}\n", name, f.calls, f.bytes, ns(f.in_call_ns));
    fns[name] = {{"calls", f.calls}, {"bytes", f.bytes}, {"in_call_s", static_cast<double>(f.in_call_ns) * 1e-9}};
  }
  fmt::print("\nrun {} (MPI_Init's return to MPI_Finalize's entry, slowest rank)\n", ns(longest));
  if (incomplete)
    fmt::print("\n{} rank(s) died before MPI_Finalize; their traces end where they stopped\n", incomplete);
  if (!report.empty()) {
    write_report(report, {{"command", "trace stats"},
                          {"span_s", static_cast<double>(longest) * 1e-9},
                          {"functions", fns},
                          {"ranks", ranks}});
  }
  return 0;
}

// ---------------------------------------------------------------- mgen record

struct RecordCli {
  uint32_t ranks = 4;
  std::string out = "mgen-trace";
  std::string mpiexec = "mpiexec";
};

fs::path preload_library() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (const fs::path& p :
       {exe.parent_path() / "libmgen-preload.so", exe.parent_path() / "../lib/libmgen-preload.so"}) {
    if (fs::is_regular_file(p, ec)) return fs::canonical(p);
  }
  throw std::runtime_error("libmgen-preload.so not found next to mgen (build it: the mgen_preload target)");
}

int record(const RecordCli& o, const std::vector<std::string>& rest) {
  if (rest.empty()) throw std::invalid_argument("mgen record needs a PROGRAM (after --)");
  if (o.ranks == 0) throw std::invalid_argument("-n: at least one rank");
  const fs::path lib = preload_library();
  fs::create_directories(o.out);
  for (const auto& e : fs::directory_iterator(o.out)) {  // a fresh recording: no stale ranks
    if (e.path().extension() == ".mgt") fs::remove(e.path());
  }
  std::vector<std::string> args = {o.mpiexec,
                                   "-n",
                                   std::to_string(o.ranks),
                                   "-genv",
                                   "LD_PRELOAD",
                                   lib.string(),
                                   "-genv",
                                   "MGEN_TRACE_DIR",
                                   fs::absolute(o.out).string()};
  args.insert(args.end(), rest.begin(), rest.end());
  std::vector<char*> argv;
  for (std::string& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    execvp(argv[0], argv.data());
    std::cerr << "mgen record: cannot run " << o.mpiexec << ": " << std::strerror(errno) << "\n";
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(o.out)) {
    if (e.path().extension() == ".mgt") files.push_back(e.path());
  }
  std::cerr << fmt::format("mgen record: {} trace file(s) in {}{}\n", files.size(), o.out,
                           rc == 0 ? "" : fmt::format(" (the program exited with status {})", rc));
  return rc == 0 ? 0 : 4;
}

}  // namespace

Runner add_trace(CLI::App& app) {
  auto* sub = app.add_subcommand("trace", "look into recorded traces");
  sub->require_subcommand(1);
  auto* d = sub->add_subcommand("dump", "print a trace as text, one call per line");
  auto* s = sub->add_subcommand("stats", "calls, bytes and compute per rank and per MPI function");
  auto path = std::make_shared<std::string>();
  auto rank = std::make_shared<int>(-1);
  auto per_rank = std::make_shared<bool>(false);
  auto report = std::make_shared<std::string>();
  d->add_option("TRACE", *path, "a trace directory (mgen record --out) or one rank's file")->required();
  d->add_option("--rank", *rank, "only this rank")->check(check::whole(0, std::numeric_limits<int>::max()));
  s->add_option("TRACE", *path, "a trace directory or one rank's file")->required();
  s->add_flag("--per-rank", *per_rank, "also the functions of every rank");
  s->add_option("--report", *report, "write the statistics as JSON to FILE ('-' for stdout)");
  return [=] { return d->parsed() ? dump(*path, *rank) : stats(*path, *per_rank, *report); };
}

Runner add_record(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "record",
      "run an MPI program (built with MPICH) under mpiexec with the trace recorder: mgen record -n 4 -- ./app");
  auto o = std::make_shared<RecordCli>();
  sub->add_option("-n,--ranks", o->ranks, "number of MPI processes (default 4)")
      ->check(check::whole(1, std::numeric_limits<uint32_t>::max()));
  sub->add_option("--out", o->out, "directory for the traces (default mgen-trace)");
  sub->add_option("--mpiexec", o->mpiexec, "MPICH's launcher (default mpiexec)");
  auto cmd = std::make_shared<std::vector<std::string>>();
  sub->add_option("PROGRAM", *cmd, "the program and its arguments (after --)")->required();
  return [o, cmd] { return record(*o, *cmd); };
}

}  // namespace mgen::cli
