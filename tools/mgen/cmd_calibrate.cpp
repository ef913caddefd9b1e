// mgen calibrate: measure this host under MPICH (calibrate/calib.c, built with mpicc, run under
// mpiexec), fit the machine model's node and MPI parameters (calibrate/fit.cpp), write a
// commented machine file, and check it by running the same benchmarks under mgen on that file
// (built with mgen-cc): the file's own micro-benchmarks, measured against simulated.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <thread>
#include <tuple>

#include "calibrate/fit.hpp"
#include "cli_common.hpp"
#include "mgen/config/machine.hpp"
#include "mgen/config/units.hpp"

namespace mgen::calibrate {
extern const char* const kBenchmarkSource;  // calib.c, embedded by CMake (calib_source.cpp)
}

namespace mgen::cli {

namespace {

namespace fs = std::filesystem;
using calibrate::Fit;
using calibrate::FitOptions;
using calibrate::Measurements;

struct CalibrateCli {
  uint32_t ranks = 2;
  std::string out = "mgen-host.toml";
  std::string mpiexec = "mpiexec", mpicc = "mpicc";
  std::string from;    // fit saved benchmark output instead of measuring
  std::string save;    // keep the raw benchmark output here
  std::string plots;   // gnuplot pictures of measured vs simulated into this folder
  std::string table;   // measured vs simulated as TSV
  bool quick = false;  // up to 1 MiB, 5% spread, 12 batches at most
  bool check = true;   // run the benchmarks under mgen on the fitted file
  uint64_t max_bytes = 16 << 20;
  double batch_seconds = 0.002;
  std::string eager;  // the eager threshold to fit with, instead of finding the knee
};

// A program on PATH (or a path), or empty.
std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path p = fs::path(dir.empty() ? "." : dir) / name;
    if (access(p.c_str(), X_OK) == 0) return p.string();
  }
  return "";
}

fs::path next_to_mgen(const std::string& name) {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (const fs::path& p : {exe.parent_path() / name, exe.parent_path() / "../bin" / name})
    if (access(p.c_str(), X_OK) == 0) return p;
  throw std::runtime_error(name + " not found next to mgen");
}

// Runs argv with standard output read line by line into on_line; standard error passes
// through. Returns the exit status (128 + signal for a signal).
int run_lines(const std::vector<std::string>& args, const std::function<void(const std::string&)>& on_line,
              const std::vector<std::string>& env = {}) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::cout.flush();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    for (const std::string& e : env)
      putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> argv;
    for (const std::string& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "mgen calibrate: cannot run %s: %s\n", args[0].c_str(), std::strerror(errno));
    _exit(127);
  }
  close(fds[1]);
  std::string pending;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buf, static_cast<size_t>(n));
    for (size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
      on_line(pending.substr(0, nl));
      pending.erase(0, nl + 1);
    }
  }
  if (!pending.empty()) on_line(pending);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string describe_line(const std::string& line) {
  std::istringstream in(line);
  std::string what, key;
  double value = 0;
  in >> what >> key >> value;
  if (what == "pingpong") return fmt::format("ping-pong {} B: {:.3f} us", key, value);
  if (what == "stream") return fmt::format("streaming {} B: {:.0f} MB/s", key, value);
  if (what == "copy") return fmt::format("memcpy {} B: {:.0f} MB/s", key, value);
  if (what == "overhead") return fmt::format("MPI_{} costs {:.3f} us", key, value);
  if (what == "compute" || what == "kernel") return fmt::format("{} {}: {:.4g}", what, key, value);
  return line;
}

// Runs the benchmark program under `launcher` and reads its results, showing each as it comes.
Measurements benchmark(const std::vector<std::string>& launcher, const std::string& label, const std::string& save,
                       const std::vector<std::string>& env = {}) {
  Measurements m;
  std::ofstream raw;
  if (!save.empty()) {
    raw.open(save);
    if (!raw) throw std::runtime_error("cannot write " + save);
  }
  ProgressReporter progress(false);
  int n = 0;
  bool header = false;
  std::string last;
  const int rc = run_lines(
      launcher,
      [&](const std::string& line) {
        ++n;
        if (raw) raw << line << '\n';
        if (!header && line.rfind("calib ", 0) != 0) {
          std::cout << line << '\n';  // the launcher's own words
          return;
        }
        header = true;
        last = line;
        if (calibrate::parse_line(line, m, fmt::format("{} output line {}", label, n)))
          progress.show(fmt::format("{}: {}", label, describe_line(line)));
      },
      env);
  if (rc != 0 || !m.complete) {
    throw std::runtime_error(fmt::format("{}: the benchmarks {} (status {}){}", label,
                                         rc != 0 ? "failed" : "stopped before the end", rc,
                                         last.empty() ? "" : fmt::format("; last result: {}", last)));
  }
  return m;
}

std::string ns(double v) {
  return fmt::format("\"{:.1f}ns\"", std::max(0.0, v));
}
std::string gbs(double bytes_per_s) {
  return fmt::format("\"{:.4g}GB/s\"", bytes_per_s / 1e9);
}
std::string size_text(uint64_t b) {
  if (b >= (1u << 20) && b % (1u << 20) == 0) return fmt::format("{}MiB", b >> 20);
  if (b >= 1024 && b % 1024 == 0) return fmt::format("{}KiB", b >> 10);
  return fmt::format("{}B", b);
}

std::string host_name() {
  char name[256] = {0};
  gethostname(name, sizeof name - 1);
  return name;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) {
      const size_t c = line.find(':');
      if (c != std::string::npos) return line.substr(c + 2);
    }
  }
  return "unknown CPU";
}

double load_average() {
  double l = 0;
  std::ifstream("/proc/loadavg") >> l;
  return l;
}

constexpr int kCheckRuns = 4;  // mgen's runs of the benchmarks on the fitted file, at most

// The simulated run of the same benchmarks against the measured ones.
struct Comparison {
  std::vector<std::tuple<uint64_t, double, double>> pingpong, stream;  // bytes, measured, simulated
  double worst_pingpong = 0, worst_stream = 0;
  double stream_log_error = 0;  // the mean |log(simulated / measured)| of the streaming sizes
  uint64_t worst_pingpong_at = 0, worst_stream_at = 0;
};

Comparison compare(const Measurements& real, const Measurements& sim) {
  Comparison c;
  auto join = [](const auto& a, const auto& b, auto& out, double& worst, uint64_t& at) {
    for (const auto& [bytes, s] : a) {
      auto it = std::find_if(b.begin(), b.end(), [&](const auto& p) { return p.first == bytes; });
      if (it == b.end()) continue;
      out.emplace_back(bytes, s.best, it->second.best);  // the simulation's batches are all alike
      const double e = std::abs(it->second.best / s.best - 1);
      if (e > worst) {
        worst = e;
        at = bytes;
      }
    }
  };
  join(real.pingpong, sim.pingpong, c.pingpong, c.worst_pingpong, c.worst_pingpong_at);
  join(real.stream, sim.stream, c.stream, c.worst_stream, c.worst_stream_at);
  for (const auto& [bytes, meas, simv] : c.stream)
    c.stream_log_error += std::abs(std::log(simv / meas)) / static_cast<double>(c.stream.size());
  return c;
}

std::string machine_file(const CalibrateCli& o, const Measurements& m, const Fit& f, const Comparison* check) {
  const auto now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::string s;
  auto line = [&](const std::string& l) { s += l + "\n"; };
  if (o.from.empty()) {
    line(fmt::format("# {} measured by `mgen calibrate -n {}` on {} ({} x {}).", o.out, m.ranks, date,
                     std::thread::hardware_concurrency(), cpu_model()));
    line(fmt::format("# Load average at the end of the measurement: {:.2f}.", load_average()));
  } else {
    line(fmt::format("# {} fitted by `mgen calibrate --from {}` on {} ({} ranks measured; the measurement's", o.out,
                     o.from, date, m.ranks));
    line("# own date and load are wherever it was saved).");
  }
  line("# Every rank of a job runs on one node of this machine (node.procs_per_node), as they did under");
  line("# mpiexec; the network tables are the built-in default's and matter only for jobs spread over");
  line("# several nodes (add [topology], [router] and [nic] tables for a cluster of such nodes).");
  line("#");
  line("# Measured under MPICH: the median of batches and its spread (interquartile range / median), and");
  line("# the fastest batch, which the fit reads (a batch interrupted by another process is only slower):");
  for (const auto& [k, v] : m.overhead)
    line(fmt::format("#   MPI_{:<8} {:8.3f} us per call   spread {:4.1f}%   fastest {:8.3f}", k, v.value,
                     v.spread() * 100, v.best));
  for (const auto& [k, v] : m.compute)
    line(fmt::format("#   {:<12} {:8.4g} {}   spread {:4.1f}%   fastest {:8.4g}", k, v.value,
                     k == "gflops" ? "GFlop/s" : "MB/s   ", v.spread() * 100, v.best));
  line("#   ping-pong (one way), the model's closed form, and the simulated run of the same benchmark:");
  line("#       bytes     median us   spread   fastest us     model us    error    simulated us    error");
  for (const auto& r : f.residuals) {
    const auto sp =
        std::find_if(m.pingpong.begin(), m.pingpong.end(), [&](const auto& p) { return p.first == r.bytes; });
    std::string sim = "";
    if (check) {
      for (const auto& [b, meas, simv] : check->pingpong)
        if (b == r.bytes) sim = fmt::format("{:12.3f}  {:+6.1f}%", simv, (simv / meas - 1) * 100);
    }
    const bool found = sp != m.pingpong.end();
    line(fmt::format("#   {:9}  {:12.3f}   {:5.1f}%  {:11.3f}  {:11.3f}  {:+6.1f}%  {}", r.bytes,
                     found ? sp->second.value : 0.0, found ? sp->second.spread() * 100 : 0.0, r.measured, r.model,
                     r.error() * 100, sim));
  }
  line("#   streaming bandwidth (a window of Isends), MB/s: median, spread, fastest, simulated:");
  for (const auto& [b, v] : m.stream) {
    std::string sim = "";
    if (check) {
      for (const auto& [cb, meas, simv] : check->stream)
        if (cb == b) sim = fmt::format("{:12.1f}  {:+6.1f}%", simv, (simv / meas - 1) * 100);
    }
    line(fmt::format("#   {:9}  {:12.1f}   {:5.1f}%  {:11.1f}  {}", b, v.value, v.spread() * 100, v.best, sim));
  }
  line("#   memcpy on one rank, MB/s (for reference; node.memory_bandwidth is MPI's copy rate):");
  for (const auto& [b, v] : m.copy)
    line(fmt::format("#   {:9}  {:12.1f}   {:5.1f}%", b, v.value, v.spread() * 100));
  if (check) {
    line(fmt::format("# Check: worst ping-pong error {:.1f}% ({} bytes), worst streaming error {:.1f}% ({} bytes).",
                     check->worst_pingpong * 100, check->worst_pingpong_at, check->worst_stream * 100,
                     check->worst_stream_at));
  }
  for (const std::string& n : f.notes)
    line("# Fit note: " + n);
  line("");
  line("[machine]");
  line(fmt::format("name = \"{}\"", host_name()));
  line(fmt::format("description = \"{}: {} ranks on one node, calibrated {} by mgen calibrate\"", cpu_model(), m.ranks,
                   date));
  line("");
  line("[node]");
  line(fmt::format("procs_per_node = {}", m.ranks));
  line("# MPI's copies between ranks of the node: latency, the eager sizes' rate, the larger sizes' rates");
  line(fmt::format("memory_latency = {}", ns(f.latency_ns)));
  line(fmt::format("memory_bandwidth = {}", gbs(f.bandwidth)));
  if (!f.bandwidth_by_size.empty()) {
    std::string rows;
    for (const auto& [b, r] : f.bandwidth_by_size)
      rows += fmt::format("{}[\"{}\", {}]", rows.empty() ? "" : ", ", size_text(b), gbs(r));
    line(fmt::format("memory_bandwidth_by_size = [{}]", rows));
  }
  if (!f.gap_by_size.empty()) {
    line("# A rank takes in one message per this time (a stream's time per message: copies pipeline, so it");
    line("# is not the ping-pong's copy time), fitted to the streaming curve by mgen's own runs of it;");
    line("# copies into different ranks overlap");
    std::string rows;
    for (const auto& [b, g] : f.gap_by_size)
      rows += fmt::format("{}[{}, {}]", rows.empty() ? "" : ", ", b, ns(g));
    line(fmt::format("copy_gap_by_size = [{}]", rows));
  }
  line("# This computer is the target: a second of CPU time measured here (a replayed trace's, a recompiled");
  line("# program's) is a second on the target");
  line("cpu_scale = 1.0");
  line("# The roofline of modelled work (NAS skeletons, MGEN_Comp_work): a 96x96 dense kernel in cache and a");
  line("# STREAM triad, on every rank at once");
  line(fmt::format("gflops = {:.4g}", f.gflops > 0 ? f.gflops : 2.0));
  line(fmt::format("stream_bandwidth = {}", gbs(f.stream_bandwidth > 0 ? f.stream_bandwidth : 4e9)));
  line("");
  line("[mpi]");
  line(fmt::format("eager_threshold = \"{}\"", size_text(f.eager_threshold)));
  line(fmt::format("envelope = \"{}\"", size_text(f.envelope)));
  line(fmt::format("send_overhead = {}   # posting an 8-byte MPI_Isend", ns(f.send_overhead_ns)));
  line(fmt::format("recv_overhead = {}   # the small-message time the send, the copy and its latency leave",
                   ns(f.recv_overhead_ns)));
  line(fmt::format("poll_overhead = {}   # an MPI_Iprobe that finds nothing", ns(f.poll_overhead_ns)));
  line(fmt::format("wtime_overhead = {}  # MPI_Wtime", ns(f.wtime_overhead_ns)));
  return s;
}

void write_table(const std::string& path, const Comparison& c) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << "# benchmark\tbytes\tmeasured\tsimulated\terror\n";
  for (const auto& [b, meas, sim] : c.pingpong)
    out << fmt::format("pingpong_us\t{}\t{:.6g}\t{:.6g}\t{:+.4f}\n", b, meas, sim, sim / meas - 1);
  for (const auto& [b, meas, sim] : c.stream)
    out << fmt::format("stream_MBps\t{}\t{:.6g}\t{:.6g}\t{:+.4f}\n", b, meas, sim, sim / meas - 1);
}

void plot(const std::string& dir, const Comparison& c, const std::string& title) {
  fs::create_directories(dir);
  const fs::path data = fs::path(dir) / "calibrate.tsv";
  write_table(data.string(), c);
  const fs::path gp = fs::path(dir) / "calibrate.gp";
  std::ofstream s(gp);
  s << "set terminal pngcairo size 900,560 font ',11'\n"
    << "set logscale x 2\nset grid\nset key left top\nset xlabel 'message size (bytes)'\n"
    << "set format x '2^{%L}'\n"
    << fmt::format("set output '{}'\n", (fs::path(dir) / "calibrate_latency.png").string())
    << fmt::format("set title \"{}: ping-pong, one way\"\nset logscale y\nset ylabel 'time (us)'\n", title)
    << fmt::format(
           "plot '{0}' using 2:(strcol(1) eq 'pingpong_us' ? $3 : 1/0) with points pt 7 title 'measured (MPICH)', "
           "'{0}' using 2:(strcol(1) eq 'pingpong_us' ? $4 : 1/0) with linespoints pt 4 title 'simulated (mgen)'\n",
           data.string())
    << fmt::format("set output '{}'\n", (fs::path(dir) / "calibrate_bandwidth.png").string())
    << fmt::format("set title \"{}: streaming bandwidth\"\nset ylabel 'MB/s'\n", title)
    << fmt::format(
           "plot '{0}' using 2:(strcol(1) eq 'stream_MBps' ? $3 : 1/0) with points pt 7 title 'measured (MPICH)', "
           "'{0}' using 2:(strcol(1) eq 'stream_MBps' ? $4 : 1/0) with linespoints pt 4 title 'simulated (mgen)'\n",
           data.string());
  s.close();
  if (std::system(fmt::format("gnuplot '{}'", gp.string()).c_str()) != 0) {
    throw std::runtime_error("gnuplot failed on " + gp.string() + " (is gnuplot installed?)");
  }
}

int calibrate_host(const CalibrateCli& o) {
  const std::vector<std::string> args = {
      std::to_string(o.quick ? std::min<uint64_t>(o.max_bytes, 1 << 20) : o.max_bytes),
      fmt::format("{}", o.batch_seconds)};
  const std::vector<std::string> env =
      o.quick ? std::vector<std::string>{"MGEN_CALIB_TOL=0.05", "MGEN_CALIB_BATCHES=12"} : std::vector<std::string>{};
  const fs::path work = fs::temp_directory_path() / fmt::format("mgen-calibrate-{}", getpid());
  fs::create_directories(work);
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup{work};
  const fs::path source = work / "calib.c";
  std::ofstream(source) << calibrate::kBenchmarkSource;

  Measurements real;
  if (!o.from.empty()) {
    std::ifstream in(o.from);
    if (!in) throw std::invalid_argument("--from: cannot read " + o.from);
    try {
      real = calibrate::parse(in, o.from);
    } catch (const std::runtime_error& e) {
      throw std::invalid_argument(e.what());
    }
    if (!real.complete) throw std::invalid_argument(o.from + ": the benchmark output ends before its 'end' line");
  } else {
    std::vector<std::string> missing;
    const std::string mpicc = find_program(o.mpicc), mpiexec = find_program(o.mpiexec);
    if (mpicc.empty()) missing.push_back(o.mpicc + " (MPICH's compiler wrapper)");
    if (mpiexec.empty()) missing.push_back(o.mpiexec + " (MPICH's launcher)");
    if (!missing.empty()) {
      throw JobFailed(fmt::format("error: mgen calibrate measures this host under MPICH and cannot find {}; "
                                  "install MPICH (Debian: apt-get install mpich libmpich-dev) or name them with "
                                  "--mpicc and --mpiexec, or fit saved measurements with --from FILE",
                                  fmt::join(missing, " or ")),
                      2);
    }
    const fs::path exe = work / "calib";
    const std::string cc = fmt::format("'{}' -O2 -std=c11 -w -o '{}' '{}'", mpicc, exe.string(), source.string());
    if (std::system(cc.c_str()) != 0) throw JobFailed("error: calibrate: compiling the benchmarks failed: " + cc, 2);
    std::cerr << fmt::format("mgen calibrate: measuring {} ranks under {} (load average {:.2f}){}\n", o.ranks, mpiexec,
                             load_average(),
                             load_average() > 0.5 ? "; other work on this computer makes the measurement noisier" : "");
    real =
        benchmark({mpiexec, "-n", std::to_string(o.ranks), exe.string(), args[0], args[1]}, "measuring", o.save, env);
  }
  FitOptions options;
  if (!o.eager.empty()) options.eager_threshold = config::parse_bytes(o.eager).count();
  const Fit first_fit = calibrate::fit(real, options);

  // The file once without the check, so that the check can run on it.
  const std::string first = machine_file(o, real, first_fit, nullptr);
  {
    std::ofstream out(o.out);
    if (!out) throw std::invalid_argument("--out: cannot write " + o.out);
    out << first;
  }
  if (!o.check) {
    std::cout << fmt::format("mgen calibrate: wrote {} (not checked: --no-check)\n", o.out);
    return 0;
  }
  const fs::path sim_exe = work / "calib-mgen";
  const std::string cc = fmt::format("'{}' -O2 -std=c11 -w -o '{}' '{}'", next_to_mgen("mgen-cc").string(),
                                     sim_exe.string(), source.string());
  if (std::system(cc.c_str()) != 0)
    throw JobFailed("error: calibrate: compiling the benchmarks with mgen-cc failed: " + cc, 2);
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  std::vector<std::string> check_env = env;
  check_env.push_back("MGEN_CALIB_COMM_ONLY=1");  // no kernels: the check charges no computation
  // The streaming curve is fitted against mgen's own runs of it: the first run gives what the
  // benchmark adds per message beyond o_r (refit with it), the next ones move each size's gap
  // by the difference until the curve is within 2% or four runs are done.
  auto run = [&](const Fit& fitted, int n) {
    std::ofstream(o.out) << machine_file(o, real, fitted, nullptr);
    return benchmark({self.string(), "run", "-q", "--ignore-compute", "-c", o.out, "-n", std::to_string(real.ranks),
                      sim_exe.string(), args[0], args[1]},
                     fmt::format("checking (run {} of at most {})", n, kCheckRuns), "", check_env);
  };
  Fit f = first_fit;
  Measurements sim = run(f, 1);
  Comparison c = compare(real, sim);
  int runs = 1;
  if (!c.stream.empty()) {
    const auto& [bytes, measured, simulated] = *std::min_element(c.stream.begin(), c.stream.end());  // the smallest
    if (simulated > 0) {
      FitOptions opt = options;
      opt.stream_extra_ns = std::max(0.0, static_cast<double>(bytes) / simulated * 1e3 - f.recv_overhead_ns);
      f = calibrate::fit(real, opt);
    }
    while (runs < kCheckRuns) {
      f.gap_by_size = calibrate::next_gaps(real, sim, f);
      sim = run(f, ++runs);
      c = compare(real, sim);
      if (c.worst_stream <= 0.02) break;
    }
  }
  std::ofstream(o.out) << machine_file(o, real, f, &c);
  if (!o.table.empty()) write_table(o.table, c);
  if (!o.plots.empty()) plot(o.plots, c, fmt::format("{} ({} ranks)", host_name(), real.ranks));

  fmt::print("mgen calibrate: wrote {}\n", o.out);
  fmt::print("  node: copy latency {:.1f} ns, {:.3g} GB/s{}; {:.3g} GFlop/s and {:.3g} GB/s per rank\n", f.latency_ns,
             f.bandwidth / 1e9,
             f.bandwidth_by_size.empty() ? "" : fmt::format(" ({} rates for larger sizes)", f.bandwidth_by_size.size()),
             f.gflops, f.stream_bandwidth / 1e9);
  fmt::print("  streams: {} (mean streaming error {:.1f}% after {} runs of the check)\n",
             f.gap_by_size.empty() ? std::string("one copy engine per node")
                                   : fmt::format("{} per-message gaps", f.gap_by_size.size()),
             (std::exp(c.stream_log_error) - 1) * 100, runs);
  fmt::print("  mpi: send {:.1f} ns, receive {:.1f} ns, poll {:.1f} ns, eager up to {} bytes\n", f.send_overhead_ns,
             f.recv_overhead_ns, f.poll_overhead_ns, f.eager_threshold);
  fmt::print(
      "  check (the benchmarks run by mgen on the file): ping-pong within {:.1f}% (worst at {} bytes), "
      "streaming within {:.1f}% (worst at {} bytes)\n",
      c.worst_pingpong * 100, c.worst_pingpong_at, c.worst_stream * 100, c.worst_stream_at);
  for (const std::string& n : f.notes)
    fmt::print("  note: {}\n", n);
  return 0;
}

}  // namespace

Runner add_calibrate(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "calibrate", "measure this computer under MPICH and write a machine file that predicts it: mgen calibrate -n 2");
  auto o = std::make_shared<CalibrateCli>();
  sub->add_option("-n,--ranks", o->ranks, "MPI processes to measure, all on this computer (default 2)")
      ->check(check::whole(2, 1024));
  sub->add_option("--out", o->out, "the machine file to write (default mgen-host.toml)");
  sub->add_option("--mpiexec", o->mpiexec, "MPICH's launcher (default mpiexec)");
  sub->add_option("--mpicc", o->mpicc, "MPICH's C compiler wrapper (default mpicc)");
  sub->add_option("--from", o->from, "fit a saved benchmark output (--save) instead of measuring");
  sub->add_option("--save", o->save, "keep the benchmarks' raw output in FILE");
  sub->add_option("--table", o->table, "write measured and simulated curves as TSV to FILE");
  sub->add_option("--plots", o->plots, "draw measured against simulated curves with gnuplot into DIR");
  sub->add_option("--max-bytes", o->max_bytes, "largest message measured (default 16 MiB)")
      ->check(check::whole(64, 1u << 30));
  sub->add_option("--batch-seconds", o->batch_seconds, "length of one timed batch (default 0.002)")
      ->check(check::positive(10));
  sub->add_option("--eager-threshold", o->eager,
                  "fit with MPICH's eager threshold known (e.g. 8KiB, its MPIR_CVAR value) instead of finding the "
                  "step in the ping-pong curve")
      ->check(check::size(1, 1ull << 30));
  sub->add_flag("--quick", o->quick, "up to 1 MiB, stop at 5% spread or 12 batches (about a minute)");
  sub->add_flag("!--no-check", o->check, "do not run the benchmarks under mgen on the written file");
  return [o] { return calibrate_host(*o); };
}

}  // namespace mgen::cli
