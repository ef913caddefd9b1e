#include "nas.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "kernels.hpp"

namespace mgen::nas {
namespace {

int as_count(uint64_t bytes) {
  if (bytes > static_cast<uint64_t>(INT_MAX)) {
    throw std::invalid_argument(fmt::format("a message of {} bytes is beyond MPI's int counts", bytes));
  }
  return static_cast<int>(bytes);
}

// Reductions: doubles when the element is 8 bytes (NPB's dp_type), else bytes.
MGEN_Datatype element(uint32_t type_size, uint64_t& count) {
  if (type_size == 8) return MGEN_DOUBLE;
  if (type_size == 4) return MGEN_INT;
  count *= type_size;
  return MGEN_BYTE;
}

}  // namespace

Rank::Rank() {
  MGEN_Comm_rank(MGEN_COMM_WORLD, &rank_);
  MGEN_Comm_size(MGEN_COMM_WORLD, &size_);
}

void Rank::send(int dest, uint64_t bytes, int tag, MGEN_Comm c) {
  tally.add(Tally::kSend, bytes);
  MGEN_Send(nullptr, as_count(bytes), MGEN_BYTE, dest, tag, c);
}

void Rank::recv(int source, uint64_t bytes, int tag, MGEN_Comm c) {
  tally.add(Tally::kRecv, bytes);
  MGEN_Recv(nullptr, as_count(bytes), MGEN_BYTE, source, tag, c, MGEN_STATUS_IGNORE);
}

MGEN_Request Rank::isend(int dest, uint64_t bytes, int tag, MGEN_Comm c) {
  tally.add(Tally::kIsend, bytes);
  MGEN_Request r = MGEN_REQUEST_NULL;
  MGEN_Isend(nullptr, as_count(bytes), MGEN_BYTE, dest, tag, c, &r);
  return r;
}

MGEN_Request Rank::irecv(int source, uint64_t bytes, int tag, MGEN_Comm c) {
  tally.add(Tally::kIrecv, bytes);
  MGEN_Request r = MGEN_REQUEST_NULL;
  MGEN_Irecv(nullptr, as_count(bytes), MGEN_BYTE, source, tag, c, &r);
  return r;
}

void Rank::sendrecv(int dest, uint64_t send_bytes, int source, uint64_t recv_bytes, int tag, MGEN_Comm c) {
  tally.add(Tally::kSendrecv, send_bytes);
  MGEN_Sendrecv(nullptr, as_count(send_bytes), MGEN_BYTE, dest, tag, nullptr, as_count(recv_bytes), MGEN_BYTE, source,
                tag, c, MGEN_STATUS_IGNORE);
}

void Rank::wait(MGEN_Request& r) {
  tally.add(Tally::kWait, 0);
  MGEN_Wait(&r, MGEN_STATUS_IGNORE);
}

void Rank::waitall(std::vector<MGEN_Request>& rs) {
  tally.add(Tally::kWaitall, 0);
  MGEN_Waitall(static_cast<int>(rs.size()), rs.data(), MGEN_STATUSES_IGNORE);
  rs.clear();
}

void Rank::barrier(MGEN_Comm c) {
  tally.add(Tally::kBarrier, 0);
  MGEN_Barrier(c);
}

void Rank::bcast(uint64_t count, uint32_t type_size, int root, MGEN_Comm c) {
  tally.add(Tally::kBcast, count * type_size);
  MGEN_Bcast(nullptr, as_count(count * type_size), MGEN_BYTE, root, c);
}

void Rank::reduce(uint64_t count, uint32_t type_size, int root, MGEN_Comm c) {
  tally.add(Tally::kReduce, count * type_size);
  uint64_t n = count;
  const MGEN_Datatype t = element(type_size, n);
  MGEN_Reduce(nullptr, nullptr, as_count(n), t, MGEN_SUM, root, c);
}

void Rank::allreduce(uint64_t count, uint32_t type_size, MGEN_Comm c) {
  tally.add(Tally::kAllreduce, count * type_size);
  uint64_t n = count;
  const MGEN_Datatype t = element(type_size, n);
  MGEN_Allreduce(nullptr, nullptr, as_count(n), t, MGEN_SUM, c);
}

void Rank::allreduce(const std::vector<int32_t>& values, std::vector<int32_t>& sums, MGEN_Comm c) {
  tally.add(Tally::kAllreduce, 4 * values.size());
  sums.resize(values.size());
  MGEN_Allreduce(values.data(), sums.data(), as_count(values.size()), MGEN_INT, MGEN_SUM, c);
}

void Rank::alltoall(const std::vector<int32_t>& send, std::vector<int32_t>& recv, MGEN_Comm c) {
  tally.add(Tally::kAlltoall, 4);
  recv.resize(send.size());
  MGEN_Alltoall(send.data(), 1, MGEN_INT, recv.data(), 1, MGEN_INT, c);
}

void Rank::alltoall(uint64_t bytes_per_rank, MGEN_Comm c) {
  tally.add(Tally::kAlltoall, bytes_per_rank);
  MGEN_Alltoall(nullptr, as_count(bytes_per_rank), MGEN_BYTE, nullptr, as_count(bytes_per_rank), MGEN_BYTE, c);
}

void Rank::alltoallv(const std::vector<uint64_t>& send_bytes, const std::vector<uint64_t>& recv_bytes, MGEN_Comm c) {
  uint64_t total = 0;
  std::vector<int> sc(send_bytes.size()), sd(send_bytes.size()), rc(recv_bytes.size()), rd(recv_bytes.size());
  uint64_t at = 0;
  for (size_t i = 0; i < send_bytes.size(); ++i) {
    sc[i] = as_count(send_bytes[i]);
    sd[i] = as_count(at);
    at += send_bytes[i];
    total += send_bytes[i];
  }
  at = 0;
  for (size_t i = 0; i < recv_bytes.size(); ++i) {
    rc[i] = as_count(recv_bytes[i]);
    rd[i] = as_count(at);
    at += recv_bytes[i];
  }
  tally.add(Tally::kAlltoallv, total, at);
  MGEN_Alltoallv(nullptr, sc.data(), sd.data(), MGEN_BYTE, nullptr, rc.data(), rd.data(), MGEN_BYTE, c);
}

void Rank::allgather(uint64_t bytes_per_rank, MGEN_Comm c) {
  tally.add(Tally::kAllgather, bytes_per_rank);
  MGEN_Allgather(nullptr, as_count(bytes_per_rank), MGEN_BYTE, nullptr, as_count(bytes_per_rank), MGEN_BYTE, c);
}

void Rank::gather(uint64_t bytes_per_rank, int root, MGEN_Comm c) {
  tally.add(Tally::kGather, bytes_per_rank);
  MGEN_Gather(nullptr, as_count(bytes_per_rank), MGEN_BYTE, nullptr, as_count(bytes_per_rank), MGEN_BYTE, root, c);
}

MGEN_Comm Rank::split(MGEN_Comm parent, int color, int key) {
  tally.add(Tally::kCommSplit, 0);
  MGEN_Comm out = MGEN_COMM_NULL;
  MGEN_Comm_split(parent, color, key, &out);
  return out;
}

MGEN_Comm Rank::dup(MGEN_Comm parent) {
  tally.add(Tally::kCommDup, 0);
  MGEN_Comm out = MGEN_COMM_NULL;
  MGEN_Comm_dup(parent, &out);
  return out;
}

void Rank::compute(double flops, double bytes) {
  if (flops > 0 || bytes > 0) MGEN_Comp_work(flops, bytes);
}

void Rank::timer_start() {
  start_ = MGEN_Wtime();
}

void Rank::timer_stop() {
  timed_ += MGEN_Wtime() - start_;
}

// ---------------------------------------------------------------- registry and runs

const std::vector<std::unique_ptr<Kernel>>& kernels() {
  static const std::vector<std::unique_ptr<Kernel>> all = make_kernels();
  return all;
}

const Kernel* find(const std::string& name) {
  for (const auto& k : kernels()) {
    if (name == k->name()) return k.get();
  }
  return nullptr;
}

bool power_of_two(int n) {
  return n > 0 && (n & (n - 1)) == 0;
}

bool square(int n) {
  int r = 0;
  while ((r + 1) * (r + 1) <= n)
    ++r;
  return n > 0 && r * r == n;
}

std::string check_class(const char* kernel, char cls, const char* classes) {
  for (const char* c = classes; *c; ++c) {
    if (*c == cls) return "";
  }
  return fmt::format("{} has classes {} (got '{}')", kernel, classes, cls);
}

Result simulate(const Kernel& k, const Problem& p, const mpi::MachineSetup& machine, mpi::JobConfig job,
                const mpi::Progress& progress) {
  const std::string why = k.check(p);
  if (!why.empty()) throw std::invalid_argument(why);
  job.ranks = static_cast<uint32_t>(p.ranks);
  job.measure_compute = false;
  Result out;
  out.tallies.resize(static_cast<size_t>(p.ranks));
  std::vector<double> timed(static_cast<size_t>(p.ranks), 0);
  const mpi::RankMain main = [&](int, char**) {
    Rank r;
    k.run(p, r);
    out.tallies[static_cast<size_t>(r.rank())] = std::move(r.tally);
    timed[static_cast<size_t>(r.rank())] = r.timed();
  };
  out.report = mpi::run_job(machine, job, main, {k.name()}, progress);
  if (job.transport) {
    // A job over the processes of an mpiexec: each rank's figures are in the process that ran
    // it, zero in the others; summed word for word, every process gets them all.
    static_assert(std::is_trivially_copyable_v<Tally> && sizeof(Tally) % sizeof(uint64_t) == 0);
    constexpr size_t kWords = sizeof(Tally) / sizeof(uint64_t);
    std::vector<uint64_t> words(timed.size() * (1 + kWords));
    std::memcpy(words.data(), timed.data(), timed.size() * sizeof(double));
    std::memcpy(words.data() + timed.size(), out.tallies.data(), out.tallies.size() * sizeof(Tally));
    job.transport->sum(words);
    std::memcpy(timed.data(), words.data(), timed.size() * sizeof(double));
    std::memcpy(static_cast<void*>(out.tallies.data()), words.data() + timed.size(),
                out.tallies.size() * sizeof(Tally));
  }
  out.time_s = *std::max_element(timed.begin(), timed.end());
  out.timed_s = timed;
  // NPB's operation count covers its N timed iterations; a shorter run did K of them. (Pro rata:
  // where NPB counts a fixed part once, as FT's first FFT, a shorter run's Mop/s is approximate.
  // sample() recomputes Mop/s from the extrapolated time and does not use these.)
  const int n = k.iterations(p);
  const double share = p.iterations > 0 && n > 0 ? static_cast<double>(timed_iterations(p, n)) / n : 1.0;
  out.mops_total = out.time_s > 0 ? k.mops(p) * share / out.time_s : 0;
  return out;
}

double extrapolate(double t_k, double t_2k, int k, int n) {
  return t_k + static_cast<double>(n - k) * (t_2k - t_k) / k;
}

Sampled sample(const Kernel& k, const Problem& p, int sample_iterations, const mpi::MachineSetup& machine,
               const mpi::JobConfig& job, const mpi::Progress& progress) {
  if (sample_iterations <= 0) throw std::invalid_argument("--sample: the number of iterations must be positive");
  Sampled s;
  s.k = sample_iterations;
  s.iterations = k.iterations(p);
  Problem q = p;
  q.iterations = 0;
  if (s.iterations <= 2 * static_cast<int64_t>(s.k)) {
    s.longer = simulate(k, q, machine, job, progress);
    s.time_s = s.longer.time_s;
    s.mops_total = s.longer.mops_total;
    return s;
  }
  s.extrapolated = true;
  q.iterations = s.k;
  s.shorter = simulate(k, q, machine, job, progress);
  if (!s.shorter.report.ok) return s;  // a failed run (deadlock, bad call): nothing to extrapolate
  q.iterations = 2 * s.k;
  s.longer = simulate(k, q, machine, job, progress);
  s.time_s = extrapolate(s.shorter.time_s, s.longer.time_s, s.k, s.iterations);
  s.mops_total = s.time_s > 0 ? k.mops(p) / s.time_s : 0;
  return s;
}

}  // namespace mgen::nas
