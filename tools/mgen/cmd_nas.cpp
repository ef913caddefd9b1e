// mgen nas KERNEL|all --class X -n N: NAS Parallel Benchmark skeletons (nas/) on the modelled
// machine, reported as mgen run does and as NPB prints its results; --sweep-ranks for
// strong-scaling studies (optionally plotted with gnuplot).
#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include "cli_common.hpp"
#include "mpich.hpp"
#include "nas.hpp"
#include "resources.hpp"

namespace mgen::cli {
namespace {

struct NasCli {
  JobOptions job;
  std::string kernel;
  std::string cls = "S";
  std::string sweep;
  int sample = 0;  // --sample K: extrapolate from K and 2K timed iterations
};

std::string known_kernels() {
  std::string s;
  for (const auto& k : nas::kernels())
    s += (s.empty() ? "" : ", ") + std::string(k->name());
  return s;
}

const nas::Kernel& kernel(const std::string& name) {
  const nas::Kernel* k = nas::find(name);
  if (k == nullptr) {
    throw std::invalid_argument(fmt::format("unknown NAS kernel '{}' (mgen has: {}, or all)", name, known_kernels()));
  }
  return *k;
}

char class_letter(const std::string& s) {
  if (s.size() != 1 || std::string("SWABCDE").find(static_cast<char>(std::toupper(s[0]))) == std::string::npos) {
    throw std::invalid_argument(fmt::format("--class: '{}' is not one of S, W, A, B, C, D, E", s));
  }
  return static_cast<char>(std::toupper(s[0]));
}

// A whole run, or with --sample K the extrapolation from runs of K and 2K timed iterations.
nas::Sampled predict(const NasCli& o, const nas::Kernel& k, const nas::Problem& p, const config::MachineConfig& m) {
  JobOptions jo = o.job;
  jo.ranks = static_cast<uint32_t>(p.ranks);
  const mpi::JobConfig job = make_job(jo, m);
  check_job(m, job, {}, o.job.machine.force);
  const mpi::MachineSetup setup{m.network, m.mpi, m.node, m.collectives};
  nas::Sampled s;
  building(fmt::format("running {} class {} on {} ranks", k.name(), p.cls, p.ranks), [&] {
    ProgressReporter progress(o.job.quiet);
    if (o.sample > 0) {
      s = nas::sample(k, p, o.sample, setup, job, progress.callback());
    } else {
      s.longer = nas::simulate(k, p, setup, job, progress.callback());
      s.iterations = k.iterations(p);
      s.time_s = s.longer.time_s;
      s.mops_total = s.longer.mops_total;
    }
  });
  for (const nas::Result* r : {&s.shorter, &s.longer}) {
    if (r->report.ranks.empty()) continue;  // the shorter run was not needed
    if (!r->report.ok) {
      const std::string what = r->report.status == mpi::RunStatus::kFailed ? "the simulated run failed: " : "";
      throw JobFailed(what + r->report.error, failure_exit_status(r->report));
    }
  }
  return s;
}

// The --report entry for --sample: null without it; with it, whether NPB's time was extrapolated
// and from which runs.
nlohmann::json sampled_json(const NasCli& o, const nas::Sampled& s) {
  if (o.sample <= 0) return nullptr;
  nlohmann::json j{{"extrapolated", s.extrapolated}, {"iterations", o.sample}, {"npb_iterations", s.iterations}};
  if (s.extrapolated) {
    j["time_s"] = s.shorter.time_s;
    j["iterations_2"] = 2 * s.k;
    j["time_2_s"] = s.longer.time_s;
  }
  return j;
}

// NPB's own summary block.
void print_npb(const nas::Kernel& k, const nas::Problem& p, const nas::Sampled& r) {
  std::string upper = k.name();
  for (char& c : upper)
    c = static_cast<char>(std::toupper(c));
  fmt::print("\n {} Benchmark Completed (predicted by mgen).\n", upper);
  fmt::print(" Class           = {:>24}\n", p.cls);
  fmt::print(" Iterations      = {:>24}\n", k.iterations(p));
  fmt::print(" Time in seconds = {:>24.2f}\n", r.time_s);
  fmt::print(" Total processes = {:>24}\n", p.ranks);
  fmt::print(" Mop/s total     = {:>24.2f}\n", r.mops_total);
  fmt::print(" Mop/s/process   = {:>24.2f}\n", r.mops_total / p.ranks);
  if (r.extrapolated) {
    fmt::print(" Time extrapolated from {} and {} iterations\n", r.k, 2 * r.k);
  }
  fmt::print(" Verification    = {:>24}\n\n", "NOT PERFORMED (skeleton)");
}

// The table note of an extrapolated row, with its separating spaces.
std::string extrapolated_note(const nas::Sampled& r) {
  return r.extrapolated ? fmt::format("  extrapolated from {} and {} iterations", r.k, 2 * r.k) : "";
}

std::vector<int> parse_ranks(const std::string& list) {
  std::vector<int> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    int n = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), n);
    if (item.empty() || end != item.data() + item.size() || ec != std::errc() || n <= 0) {
      bad_option("--sweep-ranks",
                 fmt::format("'{}' is not a rank count from 1 to {}", item, std::numeric_limits<int>::max()), list);
    }
    out.push_back(n);
  }
  if (out.empty()) throw std::invalid_argument("--sweep-ranks needs a list such as 16,64,256");
  return out;
}

int sweep(const NasCli& o, const nas::Kernel& k, char cls, const config::MachineConfig& m) {
  const std::vector<int> counts = parse_ranks(o.sweep);
  for (int n : counts) {
    const std::string why = k.check({cls, n});
    if (!why.empty()) throw std::invalid_argument(why);
  }
  fmt::print("{} class {} on {}: strong scaling\n", k.name(), cls, m.name);
  fmt::print("{:>8} {:>14} {:>14} {:>10} {:>11}\n", "ranks", "time (s)", "Mop/s total", "speedup", "efficiency");
  std::vector<std::pair<int, double>> points;
  for (int n : counts) {
    const nas::Sampled r = predict(o, k, {cls, n}, m);
    points.emplace_back(n, r.time_s);
    const double speedup = points.front().second / r.time_s;
    const double eff = speedup * points.front().first / n;
    fmt::print("{:>8} {:>14.6f} {:>14.2f} {:>10.2f} {:>10.1f}%{}\n", n, r.time_s, r.mops_total, speedup, 100 * eff,
               extrapolated_note(r));
  }
  if (!o.job.plot.empty()) {
    const std::string data = o.job.plot + ".dat";
    {
      std::ofstream out(data);
      for (auto [n, t] : points)
        out << n << " " << t << " " << points.front().second * points.front().first / n << "\n";
    }
    const std::string script = fmt::format(
        "set terminal pngcairo size 800,600 noenhanced; set output '{}';"
        "set title '{} class {} on {}'; set logscale xy 2; set xlabel 'processes'; set ylabel 'time (s)';"
        "set grid; plot '{}' using 1:2 with linespoints title 'predicted', '' using 1:3 with lines dt 2 title "
        "'ideal'",
        o.job.plot, k.name(), cls, m.name, data);
    const std::string cmd = fmt::format("gnuplot -e \"{}\"", script);
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("gnuplot failed (is gnuplot installed?)");
    std::remove(data.c_str());
    fmt::print("plot: {}\n", o.job.plot);
  }
  return 0;
}

int run_all(const NasCli& o, char cls, const config::MachineConfig& m) {
  fmt::print("NAS class {} on {} processes, {}\n", cls, o.job.ranks, m.name);
  fmt::print("{:<6} {:>12} {:>14} {:>14}\n", "kernel", "time (s)", "Mop/s total", "Mop/s/process");
  for (const auto& k : nas::kernels()) {
    const nas::Problem p{cls, static_cast<int>(o.job.ranks)};
    const std::string why = k->check(p);
    if (!why.empty()) {
      fmt::print("{:<6} {:>12} {:>14} {:>14}  {}\n", k->name(), "-", "-", "-", why);
      continue;
    }
    const nas::Sampled r = predict(o, *k, p, m);
    fmt::print("{:<6} {:>12.6f} {:>14.2f} {:>14.2f}{}\n", k->name(), r.time_s, r.mops_total, r.mops_total / p.ranks,
               extrapolated_note(r));
  }
  return 0;
}

int run_nas(const NasCli& o) {
  const char cls = class_letter(o.cls);
  const config::MachineConfig m = o.job.machine.load();
  if (o.kernel == "all") {
    if (o.job.ranks == 0) throw std::invalid_argument("-n: at least one process");
    return run_all(o, cls, m);
  }
  const nas::Kernel& k = kernel(o.kernel);
  if (!o.sweep.empty()) return sweep(o, k, cls, m);
  const nas::Problem p{cls, static_cast<int>(o.job.ranks)};
  const std::string why = k.check(p);
  if (!why.empty()) throw std::invalid_argument(why);
  const nas::Sampled s = predict(o, k, p, m);
  const nas::Result& r = s.longer;  // the run whose details are reported
  JobOptions jo = o.job;
  const mpi::JobConfig job = make_job(jo, m);
  const std::string name = fmt::format("nas-{}.{}", k.name(), cls);
  if (!o.job.report.empty()) {
    write_json_report(o.job.report, name, m, job, r.report, "nas",
                      {{"kernel", k.name()},
                       {"class", std::string(1, cls)},
                       {"npb_time_s", s.time_s},
                       {"mops_total", s.mops_total},
                       {"mops_per_process", s.mops_total / p.ranks},
                       {"sampled", sampled_json(o, s)}});
  }
  write_traces(o.job, m, r.report);
  write_job_outputs(o.job, m, r.report, name);
  if (!o.job.quiet) {
    print_summary(name, m, job, r.report, "nas");
    if (s.extrapolated) {
      fmt::print("sampled          {} of {} timed iterations simulated (above); {} took {}, {} took {}\n", 2 * s.k,
                 s.iterations, s.k, seconds(s.shorter.time_s), 2 * s.k, seconds(s.longer.time_s));
      fmt::print("                 NPB's time extrapolated to {} iterations: {}\n", s.iterations, seconds(s.time_s));
    } else if (o.sample > 0) {
      fmt::print("sampled          no: {} runs {} timed iterations, not more than 2 x {}; simulated whole\n", k.name(),
                 s.iterations, o.sample);
    }
    print_npb(k, p, s);
  }
  if (o.job.calls) print_function_table(r.report, true);
  return 0;
}

}  // namespace

Runner add_nas(CLI::App& app) {
  auto* sub = app.add_subcommand("nas", "predict a NAS Parallel Benchmark: mgen nas cg --class C -n 1024");
  auto o = std::make_shared<NasCli>();
  sub->add_option("KERNEL", o->kernel, "ep, is, cg, mg, ft, lu, bt, sp, or all")->required();
  sub->add_option("--class", o->cls, "problem class: S, W, A, B, C, D, E (default S)");
  o->job.attach(*sub, false);
  sub->add_option("-n,--ranks", o->job.ranks, "number of processes")
      ->check(check::whole(1, std::numeric_limits<int>::max()));
  sub->add_option("--sweep-ranks", o->sweep, "strong scaling over these process counts, e.g. 16,64,256");
  sub->add_option("--sample", o->sample,
                  "simulate K and 2K timed iterations and extrapolate NPB's time to all of them "
                  "(fast class D/E predictions)")
      ->check(check::whole(1, std::numeric_limits<int>::max()));
  return [o] {
    if (o->sweep.empty() && o->job.ranks == 0) throw std::invalid_argument("mgen nas needs -n N (or --sweep-ranks)");
    return run_launched("nas", [&] {
      o->job.first_process_writes();
      return run_nas(*o);
    });
  };
}

}  // namespace mgen::cli
