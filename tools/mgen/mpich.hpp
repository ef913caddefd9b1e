// MPICH's library for mgen itself, when an mpiexec of MPICH starts it: `mgen sweep` shares its
// configurations over the launch's processes, `mgen traffic` cuts the network over them
// (mgen/net/partition.hpp). The library is opened with dlopen(RTLD_LOCAL), for this command
// only: the rank programs `mgen run` loads keep libmgen's MPI. The handles are MPICH's ABI
// constants.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mgen/net/partition.hpp"

namespace mgen::cli {

// An environment variable as an integer, or `fallback`.
int env_int(const char* name, int fallback);

// The processes of the mpiexec that started this one (MPICH's Hydra sets PMI_SIZE); 1 when not
// started by one. `command` names the caller in messages. Open MPI's mpiexec is refused.
int launch_size(const char* command);

// Commands that run their jobs whole (validate, whatif) are not cut over processes: started by
// an mpiexec of more than one process, each process would run the same jobs again. Refused
// (std::invalid_argument, exit 2), saying what does spread over processes; only the launch's
// first process says it, the others stop without a word.
void refuse_launch(const char* command);

// Under an mpiexec launch (PMI_SIZE set), waits 200 ms; else returns at once. MPICH's mpiexec
// (hydra 4.0) forwards its standard input to rank 0's proxy once the processes have started
// (from /dev/null: one empty message). When every process of that proxy has exited first, the
// write meets a closed socket and SIGPIPE kills mpiexec before it passes on the output it holds:
// status 141, nothing said, about 1 launch in 100 on a busy machine. A process that exits
// without MPI_Init (whose exchange with mpiexec takes longer) calls this first.
void outlive_stdin_forwarding();

class Mpich;

// A job command (run, nas, replay) under an mpiexec of several processes: runs `body` with the
// launch's MPICH open (current_launch()), the job's partitions spread over the processes. The
// first process prints; the others' standard output and error are closed. An error in any
// process ends the launch (MPI_Abort, status 2 for bad input, else 1) with its message. Without
// a launch, just runs `body`.
int run_launched(const char* command, const std::function<int()>& body);
// The launch the running job command is part of, or null.
Mpich* current_launch();

class Mpich final : public net::PartitionTransport {
 public:
  // `command` prefixes the messages ("sweep", "traffic").
  explicit Mpich(const char* command);
  ~Mpich() override;
  Mpich(const Mpich&) = delete;
  Mpich& operator=(const Mpich&) = delete;

  uint32_t rank() const override;
  uint32_t size() const override;
  std::vector<std::string> exchange(const std::vector<std::string>& out) override;
  int64_t min(int64_t value) override;
  void sum(std::vector<uint64_t>& values) override;
  // Every process's `mine`, concatenated in rank order, on every process.
  std::string gather(const std::string& mine) override;
  // Ends every process of the launch (one that stops alone would leave the others waiting).
  [[noreturn]] void abort(int status) const;

 private:
  template <class F>
  F sym(const char* name);
  const char* command_;
  void* lib_ = nullptr;
  int (*init_thread_)(int*, char***, int, int*) = nullptr;
  int (*finalize_)() = nullptr;
  int (*rank_)(int, int*) = nullptr;
  int (*size_)(int, int*) = nullptr;
  int (*allgather_)(const void*, int, int, void*, int, int, int) = nullptr;
  int (*allgatherv_)(const void*, int, int, void*, const int*, const int*, int, int) = nullptr;
  int (*alltoall_)(const void*, int, int, void*, int, int, int) = nullptr;
  int (*alltoallv_)(const void*, const int*, const int*, int, void*, const int*, const int*, int, int) = nullptr;
  int (*allreduce_)(const void*, void*, int, int, int, int) = nullptr;
  int (*abort_)(int, int) = nullptr;
  uint32_t rank_value_ = 0, size_value_ = 1;
};

}  // namespace mgen::cli
