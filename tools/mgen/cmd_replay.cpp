// mgen replay DIR: replays recorded traces (mgen record) on the modelled machine and reports
// like mgen run; --time-shift compares recorded and simulated call durations (PPT §7).
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <map>

#include "cli_common.hpp"
#include "mgen/trace/reader.hpp"
#include "mgen/trace/replay.hpp"
#include "mpich.hpp"
#include "otf2.hpp"
#include "resources.hpp"

namespace mgen::cli {
namespace {

struct ReplayCli {
  JobOptions job;
  std::string dir;
  double cpu_scale = 0;  // 0: the machine's node.cpu_scale
  std::string compute = "cpu";
  bool time_shift = false;
  std::string schedule;
  std::string durations;
};

// Recorded against simulated call durations, per MPI function (the numbers behind PPT Fig. 11).
void print_durations(const std::vector<trace::CallTiming>& ts) {
  struct Sum {
    uint64_t n = 0;
    double recorded = 0, simulated = 0;
  };
  std::map<std::string, Sum> by;
  for (const trace::CallTiming& t : ts) {
    Sum& s = by[t.call];
    ++s.n;
    s.recorded += t.recorded;
    s.simulated += t.simulated;
  }
  fmt::print("\n{:<24} {:>9} {:>14} {:>14} {:>8}\n", "call", "calls", "recorded mean", "simulated mean", "ratio");
  for (const auto& [name, s] : by) {
    if (s.recorded == 0 && s.simulated == 0) continue;
    const double n = static_cast<double>(s.n);
    fmt::print("{:<24} {:>9} {:>14} {:>14} {:>8}\n", name, s.n, seconds(s.recorded / n), seconds(s.simulated / n),
               s.recorded > 0 ? fmt::format("{:.2f}", s.simulated / s.recorded) : std::string("-"));
  }
}

int replay(const ReplayCli& o) {
  const config::MachineConfig m = o.job.machine.load();
  const ReplaySource source(o.dir);  // an OTF2 archive: its calls as mgen traces (otf2_import.cpp)
  const std::string traces = source.dir().string();
  JobOptions jo = o.job;
  jo.ranks = 1;  // replaced by the traces' rank count
  mpi::JobConfig job = make_job(jo, m);
  {
    // One file per rank: the job's places and memory are checked before any trace is read.
    mpi::JobConfig sized = job;
    sized.ranks = static_cast<uint32_t>(trace::trace_files(traces).size());
    if (sized.ranks > 0) check_job(m, sized, {}, o.job.machine.force);
  }
  trace::ReplayOptions opt;
  opt.cpu_scale = o.cpu_scale > 0 ? o.cpu_scale : m.node.cpu_scale;  // 0: not given (--cpu-scale refuses 0)
  if (o.compute != "cpu" && o.compute != "wall") {
    throw std::invalid_argument(fmt::format("--compute: '{}' is neither cpu nor wall", o.compute));
  }
  opt.wall_compute = o.compute == "wall";
  const std::string schedule = o.time_shift ? "shifted" : o.schedule.empty() ? "compute" : o.schedule;
  if (schedule == "compute") {
    opt.schedule = trace::Schedule::kCompute;
  } else if (schedule == "recorded") {
    opt.schedule = trace::Schedule::kRecorded;
  } else if (schedule == "shifted") {
    opt.schedule = trace::Schedule::kShifted;
  } else {
    throw std::invalid_argument(fmt::format("--schedule: '{}' is none of compute, recorded, shifted", o.schedule));
  }
  opt.durations = o.time_shift || !o.durations.empty() || opt.schedule != trace::Schedule::kCompute;
  if (current_launch() && (o.time_shift || !o.durations.empty())) {
    throw std::invalid_argument(
        "--time-shift and --durations compare every rank's calls, which the processes of an mpiexec each hold a part "
        "of: run the replay in one process (--threads T on its own)");
  }
  const trace::ReplayResult res = building("replaying " + o.dir, [&] {
    ProgressReporter progress(o.job.quiet);
    return trace::replay({m.network, m.mpi, m.node, m.collectives}, job, traces, opt, progress.callback());
  });
  job.ranks = static_cast<uint32_t>(res.report.ranks.size());
  const std::string name = std::filesystem::path(o.dir).filename().string();
  const mpi::RunReport& r = res.report;
  if (!o.job.report.empty()) {
    nlohmann::json extra = {{"recorded_run_s", res.recorded_s}, {"incomplete_ranks", res.incomplete_ranks}};
    write_json_report(o.job.report, name, m, job, r, "replay", extra);
  }
  write_traces(o.job, m, r);
  write_job_outputs(o.job, m, r, name);
  if (!o.durations.empty()) {
    std::ofstream out(o.durations);
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", o.durations));
    out << "rank,index,call,recorded_start_s,recorded_s,simulated_start_s,simulated_s\n";
    for (const trace::CallTiming& t : res.durations) {
      out << fmt::format("{},{},{},{:.9f},{:.9f},{:.9f},{:.9f}\n", t.rank, t.index, t.call, t.recorded_start,
                         t.recorded, t.simulated_start, t.simulated);
    }
  }
  if (!res.note.empty()) std::cerr << "mgen replay: note: " << res.note << "\n";
  if (res.incomplete_ranks > 0) {
    std::cerr << fmt::format("mgen replay: {} rank(s) died in the recorded run; they replay up to where they stopped\n",
                             res.incomplete_ranks);
  }
  if (!r.ok) return report_failure("replay", r);
  if (!o.job.quiet) {
    print_summary(name, m, job, r, "replay");
    fmt::print("recorded run     {} (MPI_Init to MPI_Finalize, slowest rank); predicted / recorded = {:.3f}\n",
               seconds(res.recorded_s), res.recorded_s > 0 ? r.predicted_s() / res.recorded_s : 0.0);
    if (opt.durations) print_durations(res.durations);
  }
  if (o.job.calls) print_function_table(r, true);
  return 0;
}

}  // namespace

Runner add_replay(CLI::App& app) {
  auto* sub = app.add_subcommand("replay", "replay recorded traces (mgen record) on the modelled machine");
  auto o = std::make_shared<ReplayCli>();
  sub->add_option("TRACES", o->dir,
                  "directory of traces written by mgen record, or an OTF2 archive (Score-P's DIR/traces.otf2, "
                  "or DIR holding it)")
      ->required();
  o->job.attach(*sub, false);
  sub->add_option("--cpu-scale", o->cpu_scale,
                  "factor on the recorded computation: target CPU time / recording CPU time (default: the "
                  "machine's node.cpu_scale)")
      ->check(check::positive(1e6));  // as node.cpu_scale in a machine file
  sub->add_option("--compute", o->compute, "computation between calls from the recorded cpu (default) or wall time");
  sub->add_option("--schedule", o->schedule,
                  "when calls start: compute (after the recorded computation; default), recorded (at their "
                  "recorded times), shifted (recorded, with PPT's time shift)");
  sub->add_flag("--time-shift", o->time_shift, "--schedule shifted, and compare recorded and simulated durations");
  sub->add_option("--durations", o->durations, "write every call's recorded and simulated duration to FILE (CSV)");
  return [o] {
    return run_launched("replay", [&] {
      o->job.first_process_writes();
      return replay(*o);
    });
  };
}

}  // namespace mgen::cli
