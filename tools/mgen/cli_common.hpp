// Pieces every `mgen` subcommand shares: machine selection, reports, error exits.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mgen/config/machine.hpp"
#include "mgen/mpi/run.hpp"
#include "terminal_line.hpp"

namespace mgen::cli {

// Checks of numeric options. CLI11 runs a Validator on the text as given, before converting it,
// and reports "OPTION: MESSAGE"; main() prints that as "mgen: error: OPTION: MESSAGE" with exit
// status 2. Every message ends with what was given: "--ppn: must be a whole number from 1 to
// 4294967295 (got 0)". A value is refused, never replaced by a default.
namespace check {
CLI::Validator whole(uint64_t lo, uint64_t hi);  // a whole number in [lo, hi]
CLI::Validator positive(double hi);              // a finite number in (0, hi]
// A number in (0, 1], or [0, 1]; `what` names it in the message ("an offered load").
CLI::Validator fraction(bool zero_allowed, const std::string& what = "a number");
CLI::Validator size(uint64_t lo, uint64_t hi);  // bytes with a unit ("256KiB") in [lo, hi]
CLI::Validator duration(bool zero_allowed);     // a time with a unit ("20us"), > 0 or >= 0
}  // namespace check

// The same message for values checked after parsing (lists, ranges): throws
// std::invalid_argument("OPTION: WHY (got TEXT)").
[[noreturn]] void bad_option(const std::string& option, const std::string& why, const std::string& got);

// -c/--config, --set and --force, attached to a subcommand.
struct MachineOptions {
  std::string config_path;
  std::vector<std::string> overrides;
  // Skip the memory and map-count estimates (resources.hpp): run even when they say it will
  // not fit.
  bool force = false;
  void attach(CLI::App& app);
  config::MachineConfig load() const;
};

// How a job runs: machine, ranks and their placement, outputs. Shared by run and replay.
// Default stacks: recompiled MPI programs get what a Linux process gets by default; MGEN
// programs, replay and the NAS skeletons need little.
constexpr size_t kProgramStack = size_t{8} << 20;
constexpr size_t kSmallStack = size_t{256} << 10;

struct JobOptions {
  MachineOptions machine;
  uint32_t ranks = 0;
  uint32_t ppn = 0;  // 0: the machine's node.procs_per_node
  std::string placement = "block";
  std::string stack;  // empty: 8 MiB for recompiled MPI programs, 256 KiB otherwise (make_job)
  std::string report, timeline, paraver;
  std::string links_csv, plot;  // --links-csv FILE, --plot PREFIX
  bool calls = false;           // --calls: per-rank, per-function tables
  std::string otf2;             // DIR: the predicted run as an OTF2 archive (otf2.hpp)
  // --partition-model, --partitions LIST (which implies it): the counts to model.
  bool partition_model = false;
  std::string partitions;
  uint32_t threads = 1;  // --threads T: the job cut into T partitions, one thread each
  bool quiet = false;
  // -n is an option of `run` only (replay takes the rank count from the traces).
  void attach(CLI::App& app, bool with_ranks);
  // Under an mpiexec, every process but the first writes no file (the first writes them all).
  void first_process_writes();
};
mpi::JobConfig make_job(const JobOptions& o, const config::MachineConfig& m);
// --partitions' list ("" gives 2, 4, ..., 1024); refuses anything but counts from 2.
std::vector<uint32_t> partition_counts(const std::string& list);
// --partition-model and --partitions on a subcommand.
void attach_partition_options(CLI::App& sub, bool& model, std::string& counts);

// Progress of a simulation on standard error, unless quiet: on a terminal a line rewritten in
// place that the program's output never shares a row with (terminal_line.hpp; cleared by the
// destructor); otherwise (logs, batch jobs) one line a minute of wall time
// (MGEN_PROGRESS_INTERVAL seconds), so that an hour-long run shows it is moving.
class ProgressReporter {
 public:
  explicit ProgressReporter(bool quiet);
  ~ProgressReporter();
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;
  mpi::Progress callback();
  // Shows `what` ("simulated 1.2 ms, 3000000 events"): the terminal's line, or a log line.
  void show(const std::string& what);

 private:
  bool quiet_, tty_;
  std::unique_ptr<TerminalLine> line_;
  double start_ = 0, last_ = 0;  // wall seconds (steady clock)
  double last_draw_ = 0;         // the simulation's last redraw of the terminal's line
  double interval_ = 60;
};

// The flow backend's cost on this traffic: flows re-solved per message (0 on other backends);
// when it is high, the advice to try the packet backend (`brief`: in under 60 columns), else
// empty (other backends, bulk traffic, short runs).
double flows_per_message(const net::NetworkTotals& t);
std::string flow_cost_note(const net::NetworkTotals& t, bool brief = false);

// The end of a run or replay: the summary, the JSON report, the timeline.
std::string seconds(double s);
// The network backend as reports name it: "analytic, NIC contention" when that option is on, and
// a note when the option is set for a backend that ignores it. After a run, `answered` is the
// backend that answered (network.backend = "auto" resolved for the job's size).
std::string backend_label(const net::NetworkConfig& n, const std::string& answered = "");
void print_summary(const std::string& program, const config::MachineConfig& m, const mpi::JobConfig& job,
                   const mpi::RunReport& r, const std::string& command);
void write_json_report(const std::string& path, const std::string& program, const config::MachineConfig& m,
                       const mpi::JobConfig& job, const mpi::RunReport& r, const std::string& command,
                       const nlohmann::json& extra = nlohmann::json::object());
void write_timeline(const std::string& path, const mpi::RunReport& r);
// Paraver's trace of the run (paraver.cpp): PREFIX.prv (records), .pcf (names), .row (rows).
void write_paraver(const std::string& prefix, const config::MachineConfig& m, const mpi::RunReport& r);
// The traces a JobOptions asked for (--timeline, --paraver, --otf2).
void write_traces(const JobOptions& o, const config::MachineConfig& m, const mpi::RunReport& r);

// A run that did not succeed: what `mgen COMMAND` prints on standard error, and its exit status:
// 3 the job failed (invalid MPI usage, deadlock, a rank's non-zero exit status), 4 a rank's
// program crashed (killed by a signal), 128 + the signal when SIGINT or SIGTERM stopped it.
int report_failure(const std::string& command, const mpi::RunReport& r);
// Thrown where a failed run ends a command deeper down (mgen nas); main() prints and exits.
struct JobFailed : std::runtime_error {
  JobFailed(const std::string& message, int exit_status) : std::runtime_error(message), status(exit_status) {}
  int status;
};
int failure_exit_status(const mpi::RunReport& r);

// Writes `report` to `path` (pretty-printed); "-" means standard output.
void write_report(const std::string& path, const nlohmann::json& report);

// --partition-model's measurements as a report's `partition_model` object.
nlohmann::json partition_model_json(const std::vector<net::PartitionModel::Row>& rows, uint64_t events,
                                    uint64_t network_events, double model_s);

// The machine as JSON, for reports: every key the machine file can set (report.cpp).
nlohmann::json machine_json(const config::MachineConfig& machine);
// The version of the report format (docs/report-format.md); every report carries it.
constexpr int kReportFormatVersion = 1;

// What --links-csv, --plot and --calls ask for, after a run (report.cpp).
void write_job_outputs(const JobOptions& o, const config::MachineConfig& m, const mpi::RunReport& r,
                       const std::string& program);

// Runs gnuplot on a script file (plots.cpp); throws when gnuplot fails or is missing.
void gnuplot(const std::filesystem::path& script);

// --plot PREFIX (plots.cpp): PREFIX-ranks.png, PREFIX-links.png with gnuplot.
void plot_run(const std::string& prefix, const config::MachineConfig& m, const mpi::RunReport& r,
              const std::string& program);

// `mgen traffic --plot PREFIX` (plots.cpp): PREFIX-latency.png from the report's points.
void plot_traffic(const std::string& prefix, const nlohmann::json& points, const std::string& title);

// Per-function tables (report.cpp): each function's calls, bytes and time summed over ranks.
struct FunctionTotal {
  std::string name;
  uint64_t calls = 0, bytes = 0;
  simcore::Time time;
  uint32_t ranks = 0;  // how many ranks called it
};
std::vector<FunctionTotal> function_totals(const mpi::RunReport& r);  // by name
// The table over all ranks, then (per_rank) one per rank, on standard output.
void print_function_table(const mpi::RunReport& r, bool per_rank);
// Every link's bytes, packets, busy time and utilisation over `elapsed_s`, as CSV.
void write_links_csv(const std::string& path, const std::vector<net::LinkInfo>& links, double elapsed_s);

// Subcommands: each registers itself on `app` and returns the function to run when chosen.
using Runner = std::function<int()>;
Runner add_info(CLI::App& app);
Runner add_traffic(CLI::App& app);
Runner add_run(CLI::App& app);
Runner add_trace(CLI::App& app);
Runner add_record(CLI::App& app);
Runner add_replay(CLI::App& app);
Runner add_nas(CLI::App& app);
Runner add_whatif(CLI::App& app);
Runner add_sweep(CLI::App& app);
// `mgen sweep [OPTIONS] -- COMMAND ...`: the sweep takes its command from the first word that
// is not one of its options (prefix_command), so its `--` is dropped before parsing (after a
// `--` CLI11 would hand the command's words to the top level as unexpected). A `--` after the
// command word is the command's and stays.
void drop_sweep_separator(std::vector<char*>& args);
Runner add_validate(CLI::App& app);
Runner add_calibrate(CLI::App& app);

}  // namespace mgen::cli
