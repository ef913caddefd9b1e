// NAS Parallel Benchmarks as predicted workloads: each kernel is a skeleton that makes the MPI
// calls NPB 3.3's MPI version makes (same process-count rules, process grids, partners,
// message sizes, counts and collectives, per class) and models its computation by operation
// counts (floating-point operations and memory traffic) that the machine's node model turns
// into time. The derivation of each kernel is in nas/README.md.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mgen/mgen.h"
#include "mgen/mpi/run.hpp"

namespace mgen::nas {

// The problem a kernel runs: class (S, W, A, B, C, D, E) and number of processes.
struct Problem {
  char cls = 'S';
  int ranks = 1;
  // Timed iterations to simulate; 0 means NPB's count for the class. Fewer iterations feed
  // the extrapolation of `mgen nas --sample` (sampled()).
  int iterations = 0;
};

// The timed iterations a kernel runs for `p`: NPB's `npb`, or p.iterations when that is fewer.
inline int timed_iterations(const Problem& p, int npb) {
  return p.iterations > 0 && p.iterations < npb ? p.iterations : npb;
}

// What one rank's skeleton did at the MPI level, by call ("send", "isend", "recv", "irecv",
// "allreduce", "alltoallv", ...): number of calls and payload bytes, where bytes are the
// call's count times its datatype size (the send side where a call has two; the sum over
// destinations for v-forms). Tests compare these with the closed forms of nas/README.md.
// Counted in fixed slots: LU class D makes two billion calls, each counted.
struct Tally {
  enum Call : uint8_t {
    kSend,
    kRecv,
    kIsend,
    kIrecv,
    kSendrecv,
    kWait,
    kWaitall,
    kBarrier,
    kBcast,
    kReduce,
    kAllreduce,
    kAlltoall,
    kAlltoallv,
    kAllgather,
    kGather,
    kCommSplit,
    kCommDup,
    kCalls
  };
  static constexpr std::array<const char*, kCalls> kNames = {
      "send",   "recv",      "isend",    "irecv",     "sendrecv",  "wait",   "waitall",    "barrier", "bcast",
      "reduce", "allreduce", "alltoall", "alltoallv", "allgather", "gather", "comm_split", "comm_dup"};

  void add(Call c, uint64_t sent, uint64_t received = 0) {
    ++calls_[c];
    bytes_[c] += sent;
    received_[c] += received;
  }
  uint64_t calls_of(const std::string& c) const { return calls_[slot(c)]; }
  uint64_t bytes_of(const std::string& c) const { return bytes_[slot(c)]; }
  // The receive side, where it depends on the data (alltoallv: the sum over sources).
  uint64_t received_of(const std::string& c) const { return received_[slot(c)]; }
  // The calls made at least once, in kNames order.
  std::vector<std::string> used() const {
    std::vector<std::string> out;
    for (size_t i = 0; i < kCalls; ++i) {
      if (calls_[i] > 0) out.emplace_back(kNames[i]);
    }
    return out;
  }

 private:
  // A name outside kNames has slot kCalls, which counts nothing.
  static size_t slot(const std::string& c) {
    size_t i = 0;
    while (i < kCalls && c != kNames[i])
      ++i;
    return i;
  }
  std::array<uint64_t, kCalls + 1> calls_{}, bytes_{}, received_{};
};

// A rank's view while its skeleton runs: MPI calls on null buffers (sizes only), counted in
// `tally`; modelled computation; NPB's timer around the timed part.
class Rank {
 public:
  Rank();
  int rank() const { return rank_; }
  int size() const { return size_; }
  Tally tally;

  // Point-to-point on MGEN_COMM_WORLD unless a communicator is given; sizes in bytes.
  void send(int dest, uint64_t bytes, int tag, MGEN_Comm c = MGEN_COMM_WORLD);
  void recv(int source, uint64_t bytes, int tag, MGEN_Comm c = MGEN_COMM_WORLD);
  MGEN_Request isend(int dest, uint64_t bytes, int tag, MGEN_Comm c = MGEN_COMM_WORLD);
  MGEN_Request irecv(int source, uint64_t bytes, int tag, MGEN_Comm c = MGEN_COMM_WORLD);
  void sendrecv(int dest, uint64_t send_bytes, int source, uint64_t recv_bytes, int tag, MGEN_Comm c = MGEN_COMM_WORLD);
  void wait(MGEN_Request& r);
  void waitall(std::vector<MGEN_Request>& rs);  // and empties it

  // Collectives: `count` elements of `type_size` bytes (reductions use MGEN_SUM on doubles,
  // or on bytes when the size is not 8).
  void barrier(MGEN_Comm c = MGEN_COMM_WORLD);
  void bcast(uint64_t count, uint32_t type_size, int root, MGEN_Comm c = MGEN_COMM_WORLD);
  void reduce(uint64_t count, uint32_t type_size, int root, MGEN_Comm c = MGEN_COMM_WORLD);
  void allreduce(uint64_t count, uint32_t type_size, MGEN_Comm c = MGEN_COMM_WORLD);
  // With data (IS's bucket counts): the element-wise sum of 4-byte ints into `sums`.
  void allreduce(const std::vector<int32_t>& values, std::vector<int32_t>& sums, MGEN_Comm c = MGEN_COMM_WORLD);
  // With data: send[j] to process j, recv[j] from it (one int each).
  void alltoall(const std::vector<int32_t>& send, std::vector<int32_t>& recv, MGEN_Comm c = MGEN_COMM_WORLD);
  void alltoall(uint64_t bytes_per_rank, MGEN_Comm c = MGEN_COMM_WORLD);
  void alltoallv(const std::vector<uint64_t>& send_bytes, const std::vector<uint64_t>& recv_bytes,
                 MGEN_Comm c = MGEN_COMM_WORLD);
  void allgather(uint64_t bytes_per_rank, MGEN_Comm c = MGEN_COMM_WORLD);
  void gather(uint64_t bytes_per_rank, int root, MGEN_Comm c = MGEN_COMM_WORLD);
  MGEN_Comm split(MGEN_Comm parent, int color, int key);  // counted as "comm_split"
  MGEN_Comm dup(MGEN_Comm parent);                        // counted as "comm_dup"

  // Modelled computation: `flops` floating-point operations and `bytes` of memory traffic,
  // timed by the node's roofline (MGEN_Comp_work).
  void compute(double flops, double bytes);

  // NPB's timer around the timed part (timer_start(1) ... timer_stop(1)).
  void timer_start();
  void timer_stop();
  double timed() const { return timed_; }

 private:
  int rank_ = 0, size_ = 1;
  double start_ = 0, timed_ = 0;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual const char* name() const = 0;  // "cg", as on the command line
  // "" if the kernel runs class p.cls on p.ranks processes; else the rule it breaks.
  virtual std::string check(const Problem& p) const = 0;
  // Timed iterations, as NPB prints them.
  virtual int iterations(const Problem& p) const = 0;
  // NPB's operation count of the timed part in millions (the numerator of its Mop/s).
  virtual double mops(const Problem& p) const = 0;
  // One rank's whole run: setup, then the timed part between timer_start() and timer_stop().
  virtual void run(const Problem& p, Rank& r) const = 0;
};

// The kernels, in NPB's order (EP, IS, CG, MG, FT, LU, BT, SP, as far as written).
const std::vector<std::unique_ptr<Kernel>>& kernels();
// The kernel called `name`, or null.
const Kernel* find(const std::string& name);
// Common rules: the class letter is one of `classes`; ranks is a power of two; a square.
std::string check_class(const char* kernel, char cls, const char* classes);
bool power_of_two(int n);
bool square(int n);

struct Result {
  mpi::RunReport report;
  std::vector<Tally> tallies;   // per rank
  std::vector<double> timed_s;  // per rank: its timed part
  double time_s = 0;            // NPB's time: the slowest rank's timed part
  double mops_total = 0;        // NPB's Mop/s total
};

// Runs kernel `k` for problem `p` (job.ranks is set from p.ranks). Throws
// std::invalid_argument if k.check(p) fails.
Result simulate(const Kernel& k, const Problem& p, const mpi::MachineSetup& machine, mpi::JobConfig job,
                const mpi::Progress& progress = {});

// A prediction of the whole timed part from two shorter runs, of K and 2K timed iterations:
//     T(N) = T(K) + (N - K) (T(2K) - T(K)) / K.
// What the timed part costs once (start-up, the last iteration's norms, pipeline drain)
// cancels; the cost of one iteration is taken to be the same from iteration K on. With N <= 2K
// there is nothing to extrapolate and `longer` is the full run. If the K run fails (its
// report is not ok) the 2K run is not made and `longer` stays empty.
struct Sampled {
  int k = 0, iterations = 0;  // K and NPB's N
  bool extrapolated = false;
  Result shorter, longer;  // the runs of K and 2K iterations (longer: the whole run if not extrapolated)
  double time_s = 0, mops_total = 0;
};
Sampled sample(const Kernel& k, const Problem& p, int sample_iterations, const mpi::MachineSetup& machine,
               const mpi::JobConfig& job, const mpi::Progress& progress = {});
// The extrapolation above, on its own.
double extrapolate(double t_k, double t_2k, int k, int n);

}  // namespace mgen::nas
