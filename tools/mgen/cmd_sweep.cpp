// mgen sweep --set KEY=V1,V2 [--set ...] -- run|nas|replay|traffic ...: the cross product of the
// swept machine keys, each configuration an independent `mgen` process (local cores, or the
// processes of an `mpiexec` launch), and one CSV of every run's key figures, in configuration
// order whichever process ran it and whenever it finished.
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cli_common.hpp"
#include "mpich.hpp"

extern char** environ;

namespace mgen::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct SweepCli {
  std::vector<std::string> sets;
  std::string ranks;  // --ranks 16,64,256: the job's -n, swept first
  uint32_t jobs = 0;  // 0: one per core (one per process under mpiexec)
  std::string csv = "-";
  std::string plot;
  std::string keep;
  bool timing = false;
};

// The axis --ranks makes: its values go to the command as -n, not as --set.
constexpr const char* kRanksAxis = "ranks";

struct Axis {
  std::string key;
  std::vector<std::string> values;
};

// "1,2,[4,4],'a,b'" -> 1 | 2 | [4,4] | 'a,b': commas inside brackets or quotes belong to the value.
std::vector<std::string> split_values(const std::string& list) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  char quote = 0;
  for (char c : list) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  out.push_back(cur);
  return out;
}

std::vector<Axis> parse_axes(const std::vector<std::string>& sets, const std::string& ranks) {
  std::vector<Axis> axes;
  if (!ranks.empty()) {
    Axis a{kRanksAxis, split_values(ranks)};
    for (const std::string& v : a.values) {
      uint64_t n = 0;
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (v.empty() || end != v.data() + v.size() || ec != std::errc() || n == 0 || n > 0xffffffffu) {
        bad_option("--ranks", fmt::format("'{}' is not a rank count", v), ranks);
      }
    }
    axes.push_back(std::move(a));
  }
  for (const std::string& s : sets) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0) bad_option("--set", "needs KEY=V1,V2,...", s);
    Axis a{s.substr(0, eq), split_values(s.substr(eq + 1))};
    for (const std::string& v : a.values) {
      if (v.empty()) bad_option("--set", "an empty value in the list", s);
    }
    for (const Axis& b : axes) {
      if (b.key == a.key) bad_option("--set", "the key is swept twice", s);
    }
    axes.push_back(std::move(a));
  }
  if (axes.empty()) throw std::invalid_argument("--set: at least one KEY=V1,V2,... (or --ranks LIST) to sweep");
  return axes;
}

// Configuration i of the cross product: one value per axis, the last axis varying fastest.
std::vector<std::string> configuration(const std::vector<Axis>& axes, size_t i) {
  std::vector<std::string> v(axes.size());
  for (size_t a = axes.size(); a-- > 0;) {
    v[a] = axes[a].values[i % axes[a].values.size()];
    i /= axes[a].values.size();
  }
  return v;
}

// Configuration i as "key=value key=value", from axis `from` on.
std::string describe(const std::vector<Axis>& axes, size_t i, size_t from = 0) {
  std::string t;
  const std::vector<std::string> v = configuration(axes, i);
  for (size_t a = from; a < axes.size(); ++a)
    t += fmt::format("{}{}={}", t.empty() ? "" : " ", axes[a].key, v[a]);
  return t;
}

// The command after `--`: which subcommand, and what a sweep cannot take from it.
void check_command(const std::vector<std::string>& cmd, const std::vector<Axis>& axes) {
  if (cmd.empty())
    throw std::invalid_argument("sweep: which command? mgen sweep --set KEY=V1,V2 -- run|nas|replay|traffic ...");
  const std::string& sub = cmd[0];
  if (sub.starts_with("-")) {
    throw std::invalid_argument(fmt::format(
        "sweep: unknown option {} (mgen sweep --help lists them; the command to sweep comes after them)", sub));
  }
  if (sub != "run" && sub != "nas" && sub != "traffic" && sub != "replay") {
    throw std::invalid_argument(
        fmt::format("sweep: '{}' cannot be swept; the command after -- must be run, nas, replay or traffic", sub));
  }
  // `run`'s options that take a value: its first other word is PROGRAM, and the rest is the
  // program's own (a program may well take a --report of its own).
  const std::vector<std::string> valued{"-n",          "--ranks",     "-c",      "--config",   "--set",
                                        "--ppn",       "--placement", "--stack", "--timeline", "--paraver",
                                        "--links-csv", "--links",     "--plot",  "--otf2",     "--report"};
  const bool ranks_swept = !axes.empty() && axes.front().key == kRanksAxis;
  if (ranks_swept && (sub == "traffic" || sub == "replay")) {
    throw std::invalid_argument(fmt::format("sweep: --ranks sweeps a job's -n; {} takes no -n", sub));
  }
  for (size_t i = 1; i < cmd.size(); ++i) {
    const std::string& a = cmd[i];
    if (sub == "run" && !a.starts_with("-")) break;  // PROGRAM
    if (ranks_swept && (a == "-n" || a == "--ranks" || a.starts_with("--ranks=") || a.starts_with("-n"))) {
      throw std::invalid_argument(fmt::format("sweep: --ranks is swept and the command sets it too ({})", a));
    }
    if (a == "--report" || a.starts_with("--report=")) {
      throw std::invalid_argument(
          "sweep: the sweep writes each run's report itself; drop --report (--keep DIR keeps them)");
    }
    if (sub == "nas" && (a == "all" || a == "--sweep-ranks" || a.starts_with("--sweep-ranks="))) {
      throw std::invalid_argument(
          "sweep: one NAS job per configuration: not 'all' nor --sweep-ranks (run one sweep per rank count)");
    }
    for (const char* file : {"--links-csv", "--links", "--plot", "--timeline", "--paraver", "--otf2"}) {
      if (a == file || a.starts_with(std::string(file) + "=")) {
        throw std::invalid_argument(fmt::format(
            "sweep: every configuration would write the same {} file at once; run the configuration you want it "
            "for on its own",
            file));
      }
    }
    std::string set;
    if (a == "--set" && i + 1 < cmd.size()) set = cmd[i + 1];
    if (a.starts_with("--set=")) set = a.substr(6);
    for (const Axis& ax : axes) {
      if (set.starts_with(ax.key + "=")) {
        throw std::invalid_argument(fmt::format("sweep: {} is swept and also set in the command ({})", ax.key, set));
      }
    }
    if (sub == "run" && std::find(valued.begin(), valued.end(), a) != valued.end()) ++i;  // its value
  }
}

// The environment of a child: the launcher's process-manager variables removed, so that a
// child never takes itself for a process of the launch; and, when `share` runs use this
// computer at once, MGEN_MEMORY_SHARE (unless the user set it): each run's memory estimate and
// its stop before the out-of-memory killer count a 1/share part of the memory.
std::vector<std::string> child_environment(uint32_t share) {
  std::vector<std::string> env;
  if (share > 1 && !std::getenv("MGEN_MEMORY_SHARE")) env.push_back(fmt::format("MGEN_MEMORY_SHARE={}", share));
  for (char** e = environ; *e; ++e) {
    const std::string v = *e;
    if (v.starts_with("PMI_") || v.starts_with("PMIX_") || v.starts_with("HYDRA_") || v.starts_with("HYDI_") ||
        v.starts_with("OMPI_") || v.starts_with("MPI_LOCAL")) {
      continue;
    }
    env.push_back(v);
  }
  return env;
}

// The CSV's columns from a run's report: every job's, NAS's own, and traffic's per point. The
// rest of a report (per-rank tables, links, the machine) stays in its file: less to hold, and
// less to gather under mpiexec.
const std::vector<const char*> kJobFields{"backend", "predicted_time_s", "predicted_ps", "events", "messages",
                                          "bytes",   "packet_hops"};
const std::vector<const char*> kNasFields{"npb_time_s", "mops_total"};
const std::vector<const char*> kPointFields{"offered",        "accepted",  "latency_mean_ns", "latency_p50_ns",
                                            "latency_p99_ns", "saturated", "events",          "packet_hops"};
// `from`'s fields among `fields`, and its wall time (--timing).
json pick(const json& from, const std::vector<const char*>& fields) {
  json out = json::object();
  for (const char* f : fields) {
    if (from.contains(f)) out[f] = from[f];
  }
  if (from.contains("wall_s")) out["wall_s"] = from["wall_s"];
  return out;
}
json slim(const json& report) {
  if (!report.is_object()) return nullptr;
  std::vector<const char*> fields = kJobFields;
  fields.insert(fields.end(), kNasFields.begin(), kNasFields.end());
  json out = pick(report, fields);
  if (report.contains("points")) {
    out["points"] = json::array();
    for (const json& p : report["points"])
      out["points"].push_back(pick(p, kPointFields));
  }
  return out;
}

// SIGINT or SIGTERM while runs are going: the sweep stops its runs, reaps them and exits with
// 128 + the signal, instead of dying and leaving them running.
volatile sig_atomic_t g_stop_signal = 0;
void on_stop_signal(int sig) {
  g_stop_signal = sig;
}

struct Stopped {
  int signal;
};

// Handlers for the sweep's lifetime (without SA_RESTART: a signal interrupts the wait).
class StopSignals {
 public:
  StopSignals() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// The runs going: whatever ends the sweep early (a signal, an error) stops and reaps them.
struct Children {
  std::map<pid_t, size_t> running;  // pid -> configuration
  Children() = default;
  Children(const Children&) = delete;
  Children& operator=(const Children&) = delete;
  ~Children() {
    for (const auto& [pid, config] : running)
      kill(pid, SIGTERM);
    for (const auto& [pid, config] : running)
      waitpid(pid, nullptr, 0);
  }
};

struct Outcome {
  size_t index = 0;
  int status = 0;     // the child's exit status (128 + signal when killed)
  double cpu_s = 0;   // user + system CPU of the child
  json report;        // its JSON report, or null
  std::string error;  // the first line of its standard error when it failed
  std::string log;    // its standard error's file (kept when it failed)
};

// The configurations this process runs, `jobs` at a time; each writes its report and logs in
// `dir`.
std::vector<Outcome> run_configurations(const std::vector<size_t>& mine, const std::vector<Axis>& axes,
                                        const std::vector<std::string>& cmd, const fs::path& dir, uint32_t jobs,
                                        uint32_t share) {
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::vector<std::string> env_strings = child_environment(share);
  std::vector<char*> envp;
  for (const std::string& e : env_strings)
    envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  std::vector<Outcome> out;
  Children children;
  std::map<pid_t, size_t>& running = children.running;
  size_t next = 0, done = 0;
  auto start = [&](size_t i) {
    std::vector<std::string> args{self, cmd[0]};
    const std::vector<std::string> values = configuration(axes, i);
    for (size_t a = 0; a < axes.size(); ++a) {
      if (axes[a].key == kRanksAxis) {
        args.push_back("-n");
        args.push_back(values[a]);
      } else {
        args.push_back("--set");
        args.push_back(axes[a].key + "=" + values[a]);
      }
    }
    const fs::path report = dir / fmt::format("config-{}.json", i);
    fs::remove(report);  // a kept directory's earlier sweep must not answer for a run that fails
    args.push_back("--report");
    args.push_back(report.string());
    args.insert(args.end(), cmd.begin() + 1, cmd.end());
    std::vector<char*> argv;
    for (std::string& s : args)
      argv.push_back(s.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    const std::string out_log = (dir / fmt::format("config-{}.out", i)).string();
    const std::string err_log = (dir / fmt::format("config-{}.err", i)).string();
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, self.c_str(), &fa, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) throw std::runtime_error(fmt::format("sweep: cannot start {}: {}", self, std::strerror(rc)));
    running[pid] = i;
  };
  while (done < mine.size()) {
    if (g_stop_signal != 0) throw Stopped{g_stop_signal};
    while (running.size() < jobs && next < mine.size())
      start(mine[next++]);
    int wstatus = 0;
    rusage ru{};
    const pid_t pid = wait4(-1, &wstatus, 0, &ru);
    if (pid < 0) {
      if (errno == EINTR) continue;  // a signal: checked at the top
      throw std::runtime_error(fmt::format("sweep: waiting for runs: {}", std::strerror(errno)));
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;
    Outcome o;
    o.index = it->second;
    running.erase(it);
    o.log = (dir / fmt::format("config-{}.err", o.index)).string();
    o.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    o.cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
              static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
    std::ifstream report(dir / fmt::format("config-{}.json", o.index));
    if (report) {
      try {
        o.report = json::parse(report);
      } catch (const json::exception&) {
        o.report = nullptr;
      }
      o.report = slim(o.report);
    }
    if (o.status != 0) {
      std::ifstream err(dir / fmt::format("config-{}.err", o.index));
      // The first line naming an error, else the first line.
      for (std::string line; std::getline(err, line);) {
        const bool named = line.find("error") != std::string::npos;
        if (named || o.error.empty()) o.error = line;
        if (named) break;
      }
      if (o.error.empty()) o.error = fmt::format("exit status {}", o.status);
    }
    ++done;
    {
      const std::string what = describe(axes, o.index);
      std::string result = o.status != 0 ? "FAILED: " + o.error
                           : o.report.contains("predicted_time_s")
                               ? "predicted " + seconds(o.report["predicted_time_s"].get<double>())
                               : "done";
      fmt::print(stderr, "sweep: [{}/{}] config {}: {}: {} ({:.2f} s CPU)\n", done, mine.size(), o.index, what, result,
                 o.cpu_s);
    }
    out.push_back(std::move(o));
  }
  return out;
}

// ---------------------------------------------------------------- processes of an mpiexec launch

json outcome_json(const Outcome& o) {
  return json{{"index", o.index},   {"status", o.status}, {"cpu_s", o.cpu_s},
              {"report", o.report}, {"error", o.error},   {"log", o.log}};
}

Outcome outcome_from(const json& j) {
  Outcome o;
  o.index = j["index"].get<size_t>();
  o.status = j["status"].get<int>();
  o.cpu_s = j["cpu_s"].get<double>();
  o.report = j["report"];
  o.error = j["error"].get<std::string>();
  o.log = j["log"].get<std::string>();
  return o;
}

// ---------------------------------------------------------------- the CSV

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c == '\n' || c == '\r' ? ' ' : c;
  }
  return q + "\"";
}

std::string num(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return "";
  const json& v = j[key];
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number()) return fmt::format("{:.9g}", v.get<double>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_string()) return csv_field(v.get<std::string>());
  return csv_field(v.dump());
}

std::string status_text(const Outcome& o) {
  if (o.status == 0) return "ok";
  return fmt::format("failed({})", o.status);
}

// One table for every configuration, in configuration order. Jobs (run, nas): a row each;
// traffic: a row per offered load.
std::string make_csv(const std::string& sub, const std::vector<Axis>& axes, const std::vector<Outcome>& outcomes,
                     bool timing) {
  std::string head = "config";
  for (const Axis& a : axes)
    head += "," + csv_field(a.key);
  head += ",status";
  std::vector<const char*> fields = sub == "traffic" ? kPointFields : kJobFields;
  if (sub == "nas") fields.insert(fields.end(), kNasFields.begin(), kNasFields.end());
  for (const char* f : fields)
    head += std::string(",") + f;
  if (timing) head += ",wall_s,cpu_s";
  head += ",error\n";
  std::string out = head;
  for (const Outcome& o : outcomes) {
    std::string prefix = std::to_string(o.index);
    for (const std::string& v : configuration(axes, o.index))
      prefix += "," + csv_field(v);
    prefix += "," + status_text(o);
    // Jobs carry their wall time; traffic each point its own.
    auto tail = [&](const json& from) {
      std::string t;
      if (timing) t += "," + num(from, "wall_s") + fmt::format(",{:.3f}", o.cpu_s);
      return t + "," + csv_field(o.error) + "\n";
    };
    if (sub == "traffic" && o.report.is_object() && o.report.contains("points") && !o.report["points"].empty()) {
      for (const json& p : o.report["points"]) {
        std::string row = prefix;
        for (const char* f : fields)
          row += "," + num(p, f);
        out += row + tail(p);
      }
      continue;
    }
    std::string row = prefix;
    for (const char* f : fields)
      row += "," + num(o.report, f);
    out += row + tail(o.report);
  }
  return out;
}

// --plot PREFIX: PREFIX.png. Jobs: the prediction (NAS: NPB's time) at each value of the first
// swept key, a line per combination of the others. Traffic: mean latency against offered load,
// a line per configuration.
void plot_sweep(const std::string& prefix, const std::vector<std::string>& cmd, const std::vector<Axis>& axes,
                const std::vector<Outcome>& outcomes) {
  const bool traffic = cmd[0] == "traffic";
  const std::string data = prefix + ".dat";
  // Jobs: outcome x * lines + c is value x of the first key in line c.
  const size_t lines = traffic ? outcomes.size() : outcomes.size() / axes[0].values.size();
  std::vector<std::string> titles;
  {
    std::ofstream out(data);
    for (size_t c = 0; c < lines; ++c) {
      if (traffic) {
        titles.push_back(describe(axes, c));
        const json& r = outcomes[c].report;
        if (r.is_object() && r.contains("points")) {
          for (const json& p : r["points"])
            out << num(p, "offered") << " " << num(p, "latency_mean_ns") << "\n";
        }
      } else {
        titles.push_back(axes.size() > 1 ? describe(axes, c, 1) : "predicted");
        for (size_t x = 0; x < axes[0].values.size(); ++x) {
          const std::string y =
              num(outcomes[x * lines + c].report, cmd[0] == "nas" ? "npb_time_s" : "predicted_time_s");
          out << x << " \"" << axes[0].values[x] << "\" " << (y.empty() ? "NaN" : y) << "\n";
        }
      }
      out << "\n\n";
    }
  }
  auto quote_free = [](std::string t) {
    for (char& ch : t) {
      if (ch == '\'' || ch == '"') ch = ' ';
    }
    return t;
  };
  std::string plots;
  for (size_t c = 0; c < lines; ++c) {
    plots += fmt::format("{}'{}' index {} using {} with linespoints title '{}'", c ? ", " : "", data, c,
                         traffic ? "1:2" : "1:3:xtic(2)", quote_free(titles[c]));
  }
  std::string command;
  for (const std::string& w : cmd)
    command += (command.empty() ? "" : " ") + w;
  const std::string ylabel = traffic ? "mean latency (ns)" : cmd[0] == "nas" ? "NPB time (s)" : "predicted (s)";
  const std::string xlabel = traffic ? "offered load" : axes[0].key;
  const std::string script = prefix + ".gp";
  {
    std::ofstream gp(script);
    gp << fmt::format("set terminal pngcairo size 900,600 noenhanced\nset output '{}.png'\n", quote_free(prefix));
    gp << fmt::format("set xlabel '{}'\nset ylabel '{}'\n", quote_free(xlabel), ylabel);
    gp << fmt::format("set format y '%.4g'\nset grid\nset key outside bottom center\nset title 'mgen sweep: {}'\n",
                      quote_free(command));
    gp << "plot " << plots << "\n";
  }
  gnuplot(script);
  std::remove(script.c_str());
  std::remove(data.c_str());
}

int sweep_configurations(const SweepCli& o, const std::vector<std::string>& cmd, const std::vector<Axis>& axes,
                         size_t total, Mpich* mpi, int rank, int size);

int run_sweep(const SweepCli& o, const std::vector<std::string>& cmd) {
  const std::vector<Axis> axes = parse_axes(o.sets, o.ranks);
  check_command(cmd, axes);
  size_t total = 1;
  for (const Axis& a : axes)
    total *= a.values.size();

  const int launch = launch_size("sweep");
  std::unique_ptr<Mpich> mpi;
  int rank = 0, size = 1;
  if (launch > 1) {
    mpi = std::make_unique<Mpich>("sweep");
    rank = static_cast<int>(mpi->rank());
    size = static_cast<int>(mpi->size());
    if (size != launch) {
      fmt::print(stderr, "mgen: error: sweep: the launch has {} processes but MPICH counts {}\n", launch, size);
      mpi->abort(2);
    }
  }
  try {
    return sweep_configurations(o, cmd, axes, total, mpi.get(), rank, size);
  } catch (const std::exception& e) {
    if (!mpi) throw;
    fmt::print(stderr, "mgen: error: {} (process {} of the launch)\n", e.what(), rank);
    mpi->abort(1);
  }
}

// The sweep proper, once this process knows its place in the launch (mpi null: alone).
int sweep_configurations(const SweepCli& o, const std::vector<std::string>& cmd, const std::vector<Axis>& axes,
                         size_t total, Mpich* mpi, int rank, int size) {
  uint32_t jobs = o.jobs;
  if (jobs == 0) jobs = size > 1 ? 1 : std::max(1u, std::thread::hardware_concurrency());

  // Each process's share: configurations rank, rank + size, ...
  std::vector<size_t> mine;
  for (size_t i = static_cast<size_t>(rank); i < total; i += static_cast<size_t>(size))
    mine.push_back(i);

  fs::path dir;
  const bool keep = !o.keep.empty();
  if (keep) {
    dir = fs::path(o.keep);
    fs::create_directories(dir);
  } else {
    std::string tmpl = (fs::temp_directory_path() / "mgen-sweep.XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error(fmt::format("sweep: cannot make a directory in {}", tmpl));
    dir = tmpl;
  }
  if (rank == 0) {
    fmt::print(stderr, "sweep: {} configurations of `mgen {}`, {} at a time{}; logs in {}\n", total, cmd[0], jobs,
               size > 1 ? fmt::format(" in each of {} processes", size) : "", dir.string());
  }
  // Runs at once on this computer: this process's, times the launch's processes on this node.
  const int local = std::max(1, env_int("MPI_LOCALNRANKS", 1));
  const uint32_t share =
      static_cast<uint32_t>(std::min<size_t>(jobs, std::max<size_t>(mine.size(), 1))) * static_cast<uint32_t>(local);
  std::vector<Outcome> outcomes;
  try {
    const StopSignals signals;
    outcomes = run_configurations(mine, axes, cmd, dir, jobs, share);
  } catch (const Stopped& s) {
    // The runs were stopped and reaped (Children); their partial logs go with the directory
    // unless it is the user's.
    if (!keep) fs::remove_all(dir);
    fmt::print(stderr, "sweep: stopped by {}: the runs under way were stopped\n", strsignal(s.signal));
    return 128 + s.signal;
  }

  if (mpi) {
    std::string mine_text;
    for (const Outcome& oc : outcomes)
      mine_text += outcome_json(oc).dump() + "\n";
    const std::string all = mpi->gather(mine_text);
    if (rank != 0) {
      int worst = 0;
      for (const Outcome& oc : outcomes)
        worst = worst ? worst : oc.status;
      if (!keep && worst == 0) fs::remove_all(dir);  // a failed run's logs stay for rank 0's message
      return worst;
    }
    outcomes.clear();
    size_t pos = 0;
    while (pos < all.size()) {
      const size_t end = all.find('\n', pos);
      outcomes.push_back(outcome_from(json::parse(all.substr(pos, end - pos))));
      pos = end + 1;
    }
  }
  std::sort(outcomes.begin(), outcomes.end(), [](const Outcome& a, const Outcome& b) { return a.index < b.index; });

  const std::string csv = make_csv(cmd[0], axes, outcomes, o.timing);
  if (o.csv == "-") {
    fmt::print("{}", csv);
  } else {
    std::ofstream out(o.csv);
    if (!out) throw std::runtime_error(fmt::format("sweep: cannot write {}", o.csv));
    out << csv;
    fmt::print(stderr, "sweep: {} rows in {}\n", outcomes.size(), o.csv);
  }
  if (!o.plot.empty()) {
    plot_sweep(o.plot, cmd, axes, outcomes);
    fmt::print(stderr, "sweep: plot {}.png\n", o.plot);
  }
  int worst = 0;
  size_t failed = 0;
  for (const Outcome& oc : outcomes) {
    if (oc.status == 0) continue;
    ++failed;
    if (worst == 0) worst = oc.status;
    fmt::print(stderr, "sweep: config {} failed (exit status {}): {}\n  its log: {}\n", oc.index, oc.status, oc.error,
               oc.log);
  }
  if (failed > 0) {
    fmt::print(stderr, "sweep: {} of {} configurations failed\n", failed, total);
  } else if (!keep) {
    fs::remove_all(dir);
  }
  return worst;
}

}  // namespace

// The sweep's options that take a value (add_sweep): a `--` after one of them is its value.
const std::vector<std::string_view> kValued{"--set", "--ranks", "-j", "--jobs", "--csv", "--plot", "--keep"};

void drop_sweep_separator(std::vector<char*>& args) {
  if (args.size() < 2 || std::string_view(args[1]) != "sweep") return;
  for (size_t i = 2; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if (a == "--") {
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
    if (!a.starts_with("-")) return;  // the command word
    if (std::find(kValued.begin(), kValued.end(), a) != kValued.end()) ++i;
  }
}

Runner add_sweep(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "sweep",
      "run a command over the cross product of machine keys: mgen sweep --set router.vc_buffer=4KiB,16KiB -- run ...");
  auto o = std::make_shared<SweepCli>();
  sub->add_option("--set", o->sets,
                  "a key and its values, KEY=V1,V2,... (repeatable; commas inside [...] or quotes belong to a value)")
      ->type_name("KEY=V1,V2")
      ->allow_extra_args(false);
  sub->add_option("--ranks", o->ranks, "sweep the job's rank count (-n) over these, e.g. 16,64,256 (run, nas)")
      ->type_name("LIST");
  sub->add_option("-j,--jobs", o->jobs, "runs at a time in this process (default: one per core; 1 under mpiexec)")
      ->check(check::whole(1, 4096));
  sub->add_option("--csv", o->csv, "write the table to FILE (default '-': standard output)");
  sub->add_option("--plot", o->plot, "PREFIX.png: the prediction against the first swept key (gnuplot)");
  sub->add_option("--keep", o->keep, "keep every run's JSON report and logs in DIR");
  sub->add_flag("--timing", o->timing, "add wall_s and cpu_s columns (they differ from run to run)");
  // The command to sweep, from its first word on (run, nas, traffic), with or without `--`.
  sub->prefix_command();
  sub->allow_extras();
  sub->footer("The command: mgen sweep [OPTIONS] [--] run|nas|traffic ARGS...");
  return [o, sub] {
    std::vector<std::string> cmd = sub->remaining();
    if (!cmd.empty() && cmd[0] == "--") cmd.erase(cmd.begin());
    return run_sweep(*o, cmd);
  };
}

}  // namespace mgen::cli
