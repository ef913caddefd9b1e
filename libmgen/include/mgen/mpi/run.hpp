// Running an MPI job on a modelled machine: the entry point `mgen run` (and tests) use.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mgen/mpi/config.hpp"
#include "mgen/net/config.hpp"
#include "mgen/net/network.hpp"
#include "mgen/net/partition.hpp"
#include "mgen/net/partition_model.hpp"

namespace mgen::mpi {

enum class Placement : uint8_t { kBlock, kRoundRobin, kMap };

struct JobConfig {
  uint32_t ranks = 1;
  uint32_t procs_per_node = 1;
  Placement placement = Placement::kBlock;
  std::vector<uint32_t> node_of_rank;  // kMap: node of each rank
  size_t stack_bytes = 256 * 1024;
  bool timeline = false;
  // Record every point-to-point message, collective traffic included (Paraver output).
  bool message_log = false;
  // Record every rank's MPI calls with their point-to-point and collective operations (OTF2
  // output: RunReport::call_log).
  bool call_log = false;
  // Recompiled MPI programs: charge the CPU time a rank spends between MPI calls (times
  // node.cpu_scale) as computation. Off: only MPI_Comp / MGEN_Comp advance a rank's clock.
  bool measure_compute = true;
  // Replay: every buffer is null and only sizes travel, so the MPI layer's null-buffer check
  // (MPI_ERR_BUFFER for a null buffer with a positive count) does not apply.
  bool sizes_only = false;
  // Resident memory at which the run stops with an error, before the kernel's out-of-memory
  // killer would end the process without a word (0: no limit). Checked between ranks every
  // 1,024 hand-overs and every 2^20 events, so a job whose programs allocate too much stops
  // in the pass that reaches it.
  uint64_t memory_limit = 0;
  std::string memory_source;  // where the limit comes from, for the message
  // The partition model (mgen/net/partition_model.hpp) for these partition counts: what a run
  // partitioned over that many cores would gain (packet backend only). Empty: not modelled.
  std::vector<uint32_t> partition_model;
  // Partitions of the job, one thread each (mgen/net/partition.hpp): the ranks go with their
  // routers, cut into blocks of equal rank counts; packet backend only; the predictions are the
  // serial run's to the picosecond. 1: serial. Not with partition_model.
  uint32_t threads = 1;
  // The other processes of an mpiexec launch, each running `threads` partitions of its own
  // (null: this process runs every partition). Every process gets the same report. Not with
  // timeline, message_log or call_log.
  net::PartitionTransport* transport = nullptr;
};

struct MachineSetup {
  net::NetworkConfig network;
  MpiConfig mpi;
  NodeConfig node;
  CollectiveConfig collectives;
};

// The program every rank runs (MGEN_Main, or a recompiled program's main).
using RankMain = std::function<void(int argc, char** argv)>;

// One function's line in a rank's table: how often the program called it, the payload bytes
// the rank posted to send, put or get inside it (a collective's algorithm messages included),
// and the simulated time spent inside it (communication overhead and waiting).
struct FunctionReport {
  std::string name;  // MPI_Send (recompiled programs, replay), MGEN_Send (MGEN programs, NAS)
  uint64_t calls = 0, bytes = 0;
  simcore::Time time;
};

struct RankReport {
  uint32_t rank = 0, node = 0;
  simcore::Time finish, compute, overhead, wait;
  double finish_s() const { return finish.seconds(); }
  double compute_s() const { return compute.seconds(); }
  double overhead_s() const { return overhead.seconds(); }
  double wait_s() const { return wait.seconds(); }
  uint64_t messages = 0, bytes = 0;
  uint64_t calls = 0;                     // the program's calls (the sum of functions' calls)
  std::vector<FunctionReport> functions;  // in order of first call
};

struct TimelineEvent {
  uint32_t rank;
  const char* name;
  double start_s, end_s;
};

// One message as Paraver draws it: logical (posted) and physical (moved) send and receive times.
struct MessageEvent {
  uint32_t src, dst;
  double send_posted_s, sent_s, recv_posted_s, received_s;
  uint64_t bytes;
  int tag;
  bool collective;  // traffic of a collective algorithm
};

// What a rank did inside MPI, for OTF2 output (JobConfig::call_log), in the rank's order and on
// its simulated clock: its outermost calls (enter, leave), the point-to-point operations they
// posted and the requests they completed, the collectives they joined. Ranks (peer, root) are
// ranks in the communicator, which is named by its context (RunReport::comms).
struct CallEvent {
  enum class Kind : uint8_t {
    kEnter,       // name: the call
    kLeave,       // name: the call
    kSend,        // peer: destination, tag, bytes, request
    kRecv,        // peer: source (-1: any), tag (-1: any), bytes: capacity, request
    kDone,        // request completed; a receive's source, tag and bytes (send: bytes = 0, peer = -2)
    kCollective,  // name: the family ("bcast"), peer: root (-1: none), bytes and own as checked
    kCommMade,    // comm: the parent; own: the new communicator's context, or ~0 (MPI_COMM_NULL)
  };
  Kind kind = Kind::kEnter;
  simcore::Time time;
  const char* name = nullptr;
  uint64_t comm = 0;
  int32_t peer = 0, tag = 0;
  uint64_t bytes = 0;
  // kCollective: this member's share of a v-form, or ~0; kSend/kRecv/kDone: the request slot.
  uint64_t own = 0;
  uint32_t comm_size = 0, comm_rank = 0;  // kCollective

  static CallEvent call(Kind k, const char* name) {
    CallEvent e;
    e.kind = k;
    e.name = name;
    return e;
  }
  static CallEvent p2p(Kind k, uint64_t comm, int peer, int tag, uint64_t bytes, uint64_t slot) {
    CallEvent e;
    e.kind = k;
    e.comm = comm;
    e.peer = peer;
    e.tag = tag;
    e.bytes = bytes;
    e.own = slot;
    return e;
  }
};
// A communicator the call log names: its context and its members' world ranks.
struct CommMembers {
  uint64_t context = 0;
  std::vector<uint32_t> world_ranks;
};

// How a run ended. kFailed: invalid MPI usage, a deadlock, a rank's non-zero exit status;
// kCrashed: a rank's program was killed by a signal (SIGSEGV, SIGFPE, abort(), a stack
// overflow...); kInterrupted: SIGINT or SIGTERM stopped it before the end.
enum class RunStatus : uint8_t { kOk, kFailed, kCrashed, kInterrupted };
const char* status_name(RunStatus s);  // "ok", "failed", "crashed", "interrupted"

struct RunReport {
  bool ok = true;
  RunStatus status = RunStatus::kOk;
  int signal = 0;           // kCrashed: the signal that killed the rank; kInterrupted: which one
  std::string error;        // the first error or the deadlock report
  std::string backend;      // the network backend that answered ("auto" resolved)
  simcore::Time predicted;  // when the last rank finished
  simcore::Time drained;    // when the last simulated event happened
  double predicted_s() const { return predicted.seconds(); }
  double drained_s() const { return drained.seconds(); }
  double wall_s = 0;
  uint64_t events = 0;
  uint64_t messages = 0, intra_node_messages = 0;
  uint64_t bytes = 0;
  net::NetworkTotals network;
  std::vector<RankReport> ranks;
  std::vector<net::LinkInfo> links;
  std::vector<TimelineEvent> timeline;           // when JobConfig::timeline
  std::vector<MessageEvent> message_log;         // when JobConfig::message_log, in order of receipt
  std::vector<std::vector<CallEvent>> call_log;  // when JobConfig::call_log, per rank
  std::vector<CommMembers> comms;                // the communicators call_log names
  // When JobConfig::partition_model: a row per partition count, and the network's share of
  // the events.
  std::vector<net::PartitionModel::Row> partition_model;
  uint64_t partition_network_events = 0;
  double partition_model_s = 0;  // the model's own wall time, part of wall_s
  // A partitioned run (JobConfig::threads): its partitions, and the windows they ran in.
  uint32_t partitions = 1;
  uint32_t processes = 1;
  uint64_t windows = 0;
  double sync_wall_s = 0;  // the first partition's wall time waiting for the others
};

// The collective algorithm registry, for `mgen info`: (collective, algorithm, description).
struct CollectiveAlgorithmInfo {
  std::string collective, name, description;
};
std::vector<CollectiveAlgorithmInfo> collective_algorithms();
// A selector's decision table ([collectives] selector), for `mgen info`: per collective, the
// conditions in the order they are tried, the first that holds naming the algorithm. Throws
// std::invalid_argument for an unknown selector.
struct CollectiveDecisionInfo {
  std::string collective, when, algorithm;
};
std::vector<CollectiveDecisionInfo> collective_decisions(const std::string& selector);

// The world rank of the calling fiber (inside a run), or -1.
int current_rank();
// Call first in a catch block that runs on a rank (AddressSanitizer builds need it; see
// runtime::forget_unwound_frames).
void forget_unwound_frames();

// Names the loaded module at `base` (dladdr's dli_fbase) in fault messages ("killed by SIGSEGV in
// main (NAME)"): `mgen run` loads each rank's private copy of a program from an anonymous file,
// whose own name (/proc/self/fd/N) means nothing to the user; NAME is the program's.
void name_module(const void* base, const std::string& name);

// Recompiled MPI programs: `mgen run` calls these on each rank around its main(), so that the
// CPU time before the first and after the last MPI call counts as computation.
void mpi_program_begin();
void mpi_program_end();
// Then with its exit status (the return value of `entry`, main or MGEN_Main, or what it passed
// to exit()): a non-zero one ends the run with an error naming the rank, as mpiexec reports a
// failed process.
void mpi_program_status(int status, bool by_exit, const char* entry = "main");

// Thrown through a rank's stack when a recompiled program calls exit(): that rank's main is
// over (mgen-cc links programs with --wrap=exit); mgen run then runs its exit handlers and
// reports the status (mpi_program_status).
struct ProgramExit {
  int code;
};

// Where a long run stands, passed now and then to a Progress callback.
struct ProgressInfo {
  double simulated_s = 0;
  uint64_t events = 0;
  uint32_t ranks_finished = 0;
  net::NetworkTotals network;
};
using Progress = std::function<void(const ProgressInfo&)>;

// Runs `main` on every rank. Bad jobs (more ranks than the machine holds, a bad rank map,
// unknown collective algorithms) throw std::invalid_argument; errors inside the run (invalid
// MPI usage, deadlock) come back in the report with ok = false.
RunReport run_job(const MachineSetup& machine, const JobConfig& job, const RankMain& main,
                  const std::vector<std::string>& args, const Progress& progress = {});

}  // namespace mgen::mpi
