// Replaying recorded traces on the modelled machine: one fiber per rank issues the recorded
// calls through libmgen's MPI layer, in order, with the recorded sizes, peers, tags,
// communicators and request dependencies.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "mgen/mpi/run.hpp"

namespace mgen::trace {

// When each call starts.
enum class Schedule {
  kCompute,   // after the recorded computation since the previous call (times the CPU factor)
  kRecorded,  // at its recorded start time, or at once if the simulation is already later
  kShifted,   // as kRecorded, but lateness shifts every later start by as much (PPT §7)
};

struct ReplayOptions {
  Schedule schedule = Schedule::kCompute;
  bool wall_compute = false;  // kCompute: the recorded wall time between calls, not CPU time
  double cpu_scale = 1.0;     // kCompute: factor on the recorded computation
  bool durations = false;     // collect every call's recorded and simulated duration
};

// A call's recorded and simulated timing (seconds from the first rank's MPI_Init).
struct CallTiming {
  uint32_t rank = 0;
  uint64_t index = 0;
  std::string call;
  double recorded_start = 0, recorded = 0;
  double simulated_start = 0, simulated = 0;
};

struct ReplayResult {
  mpi::RunReport report;
  std::vector<CallTiming> durations;  // with ReplayOptions::durations, by rank then index
  uint32_t incomplete_ranks = 0;      // traces without MPI_Finalize (replayed as far as they go)
  // The recorded run's length: from MPI_Init's return to MPI_Finalize's, slowest rank.
  double recorded_s = 0;
  std::string note;  // about the trace set (TraceSet::note), for the user
};

// Reads and checks every trace of `dir` first (a corrupt or truncated one, or a set that is not
// one run's, throws TraceError),
// then replays them: `job.ranks` is taken from the traces.
ReplayResult replay(const mpi::MachineSetup& machine, mpi::JobConfig job, const std::filesystem::path& dir,
                    const ReplayOptions& options, const mpi::Progress& progress = {});

}  // namespace mgen::trace
