// `mgen calibrate`'s data and its fit: the micro-benchmark results (calib.c's output) and the
// machine-model parameters that reproduce them on one node.
//
// The model fitted is mgen's own (libmgen/core/protocols.cpp, node_memory.cpp), written here in
// closed form for a blocking ping-pong between two ranks of one node:
//
//   eager (bytes <= E):  T = o_s + o_r + L + (bytes + env) / R(bytes + env)
//   rendezvous:          T = o_s + o_r + 3 L + env / R(env) + ... (two control copies, then the data)
//
// with o_s, o_r the send and receive overheads, L the node's copy latency, env the envelope and
// R(size) the copy rate for that size (node.memory_bandwidth, or node.memory_bandwidth_by_size's
// row). The fit takes o_s from the measured cost of posting an Isend, picks the largest eager
// threshold where the time more than doubles between two sizes (a fixed cost added: the
// rendezvous handshake), fits the small sizes' line (intercept and rate), gives every larger size
// the rate it needs (rows merged where they agree), and splits the small-message time between L
// and o_r by the message rate of streamed small messages (the receiver completes one per o_r). A
// stream's time per message is not the ping-pong's copy time (MPICH's copies pipeline through
// shared cells): node.copy_gap_by_size carries it, fitted by next_gaps against mgen's own runs
// of the streaming benchmark (cmd_calibrate.cpp iterates). The fit reads the
// fastest batch of each measurement (each batch averages many repetitions): on a shared computer a batch that another
// process interrupted is slower, never faster; and a ping-pong time is made non-decreasing in the size (a size slower
// than a larger one was interrupted). Everything else is measured directly: poll and MPI_Wtime costs, the dense and
// STREAM kernels' rates.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace mgen::calibrate {

// One benchmark result: the median of batches and its quartiles (calib.c's units: microseconds
// for times, MB/s for rates, GFlop/s).
struct Sample {
  double value = 0, p25 = 0, p75 = 0;
  int batches = 0;
  double best = 0;  // the fastest batch: least time or highest rate

  double spread() const { return value > 0 ? (p75 - p25) / value : 0; }  // interquartile / median
};

struct Measurements {
  int ranks = 0;
  std::vector<std::pair<uint64_t, Sample>> pingpong;  // bytes -> one-way time (us)
  std::vector<std::pair<uint64_t, Sample>> stream;    // bytes -> MB/s
  std::vector<std::pair<uint64_t, Sample>> copy;      // bytes -> MB/s (memcpy)
  std::map<std::string, Sample> overhead;             // wtime, iprobe, isend, irecv: us per call
  std::map<std::string, Sample> compute;              // gflops (GFlop/s), stream (MB/s)
  std::map<std::string, Sample> kernel;               // dense, triad: us per repetition
  bool complete = false;                              // the "end" line was seen
};

// Reads calib.c's output (BEST, the sixth field, may be missing: then the value stands for it); throws
// std::runtime_error naming `source` and the line on bad input. Lines before the "calib" header (a launcher's messages)
// are skipped.
Measurements parse(std::istream& in, const std::string& source);
// One line of it, for a reader that shows progress as lines arrive; false if not a result line.
bool parse_line(const std::string& line, Measurements& m, const std::string& where);

struct Residual {
  uint64_t bytes = 0;
  double measured = 0, model = 0;  // us
  double error() const { return measured > 0 ? model / measured - 1 : 0; }
};

struct Fit {
  // [mpi]
  double send_overhead_ns = 0, recv_overhead_ns = 0, poll_overhead_ns = 0, wtime_overhead_ns = 0;
  uint64_t eager_threshold = 0, envelope = 64;
  // [node]
  double latency_ns = 0;
  double bandwidth = 0;                                        // bytes per second, copies up to the first row
  std::vector<std::pair<uint64_t, double>> bandwidth_by_size;  // (from bytes, bytes per second)
  // node.copy_gap_by_size: (copy bytes, ns) per streamed size, the time per message the
  // receiving rank takes in a stream (next_gaps); empty: one copy engine per node.
  std::vector<std::pair<uint64_t, double>> gap_by_size;
  double gflops = 0;
  double stream_bandwidth = 0;      // bytes per second per rank, every rank at once
  std::vector<Residual> residuals;  // every ping-pong point, the closed form against the measurement
  std::vector<std::string> notes;   // what the fit had to clamp or could not do
};

struct FitOptions {
  uint64_t envelope = 64;
  double jump_ratio = 2.1;        // a step from one size to the next that more than doubles the time (x 2.1)
  double eager_tolerance = 0.03;  // without such a step: the eager sizes' line fits within this
  uint64_t small_limit = 1024;    // the small-message line is fitted up to this size
  double merge_tolerance = 0.03;  // neighbouring rendezvous rates closer than this share a row
  uint64_t eager_threshold = 0;   // nonzero: use this instead of finding the knee
  // What mgen's own run of the streaming benchmark adds per message beyond o_r at the smallest
  // size (the window's acknowledgement and its first message's latency, shared out; from a first
  // check): o_r is the measured time per message less this.
  double stream_extra_ns = 0;
};

Fit fit(const Measurements& m, const FitOptions& options = {});

// The streaming gaps for the next check, from the measurement and mgen's run of the benchmarks
// on `f` (its gap_by_size the gaps that run had). Where the simulated stream was faster than
// the measured one and had no gap, the gap starts at the measured time per message; where it had
// one, the gap moves by the difference (the stream's time per message follows its gap one for
// one while the gap binds), never below zero. Rows are keyed by the copy's size (an eager
// message's includes the envelope); a row just above the largest eager copy keeps the first
// rendezvous gap from reaching down into eager sizes. Empty when no size needs a gap.
std::vector<std::pair<uint64_t, double>> next_gaps(const Measurements& real, const Measurements& sim, const Fit& f);

// The closed form above: one-way ping-pong time in us for `bytes` on the fitted node.
double pingpong_model_us(const Fit& f, uint64_t bytes);

// Writes the measurements and the fit as synthetic calib.c output (for tests): the inverse of
// parse for the ping-pong and overhead lines.
std::string to_lines(const Measurements& m);

}  // namespace mgen::calibrate
