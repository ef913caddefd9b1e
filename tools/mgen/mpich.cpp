#include "mpich.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>

#include "mgen/config/machine.hpp"

namespace mgen::cli {

namespace {
constexpr int kCommWorld = 0x44000000;
constexpr int kChar = 0x4c000101;
constexpr int kInt = 0x4c000405;
constexpr int kInt64 = 0x4c00083a;
constexpr int kUint64 = 0x4c00083e;
constexpr int kOpMin = 0x58000002;
constexpr int kOpSum = 0x58000003;
constexpr int kThreadFunneled = 1;

// How long a process of an mpiexec launch that is about to end lets the launcher catch up:
// forward its stdin (outlive_stdin_forwarding) or pass on a line before MPI_Abort (run_launched).
constexpr std::chrono::milliseconds kLauncherGrace{200};

int count_of(size_t bytes) {
  if (bytes > static_cast<size_t>(std::numeric_limits<int>::max())) {
    throw std::runtime_error(fmt::format("{} bytes to send at once: more than one MPI call carries", bytes));
  }
  return static_cast<int>(bytes);
}
}  // namespace

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

int launch_size(const char* command) {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") && !std::getenv("PMI_SIZE")) {
    throw std::invalid_argument(fmt::format(
        "{}: started by Open MPI's mpiexec; mgen speaks MPICH's ABI: launch it with MPICH's (mpiexec.mpich)", command));
  }
  return env_int("PMI_SIZE", 1);
}

void outlive_stdin_forwarding() {
  if (std::getenv("PMI_SIZE") == nullptr) return;
  std::this_thread::sleep_for(kLauncherGrace);
}

void refuse_launch(const char* command) {
  const int size = launch_size(command);
  if (size <= 1) return;
  if (env_int("PMI_RANK", 0) != 0) {
    outlive_stdin_forwarding();
    std::exit(2);
  }
  throw std::invalid_argument(
      fmt::format("{}: started by mpiexec with {} processes, but it runs its jobs in one process (each would run "
                  "them all again); run it without mpiexec. Over an mpiexec's processes: mgen run, nas and replay "
                  "cut a job, mgen traffic cuts the network, mgen sweep shares its configurations",
                  command, size));
}

namespace {
Mpich* g_launch = nullptr;
}  // namespace

Mpich* current_launch() {
  return g_launch;
}

int run_launched(const char* command, const std::function<int()>& body) {
  if (launch_size(command) <= 1) return body();
  Mpich mpi(command);
  // The first process speaks for the launch; the others' output would repeat it.
  const int err = dup(STDERR_FILENO);
  if (mpi.rank() != 0 && (!std::freopen("/dev/null", "w", stdout) || !std::freopen("/dev/null", "w", stderr))) {
    mpi.abort(1);
  }
  g_launch = &mpi;
  try {
    const int status = body();
    g_launch = nullptr;
    return status;
  } catch (const std::exception& e) {
    // The others may be waiting for this one in a collective: end the launch. Every process
    // that fails says why (bad input may be one process's own: a file missing on its machine).
    const bool usage = dynamic_cast<const std::invalid_argument*>(&e) || dynamic_cast<const net::ConfigError*>(&e) ||
                       dynamic_cast<const config::Error*>(&e);
    const std::string line = fmt::format("mgen: error: {} (process {} of the launch)\n", e.what(), mpi.rank());
    if (err >= 0 && write(err, line.data(), line.size()) < 0) {
      // Nothing left to tell it with.
    }
    // mpiexec forwards a process's output through its proxy, which MPI_Abort kills: give it a
    // moment to pass the line on (without it, about one failing launch in four said nothing).
    std::this_thread::sleep_for(kLauncherGrace);
    mpi.abort(usage ? 2 : 1);
  }
}

Mpich::Mpich(const char* command) : command_(command) {
  for (const char* name : {"libmpich.so.12", "libmpich.so"}) {
    lib_ = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib_) break;
  }
  if (!lib_) {
    throw std::runtime_error(fmt::format(
        "{}: started by mpiexec, but MPICH's library (libmpich.so.12) cannot be opened: apt-get install libmpich12",
        command));
  }
  init_thread_ = sym<int (*)(int*, char***, int, int*)>("MPI_Init_thread");
  finalize_ = sym<int (*)()>("MPI_Finalize");
  rank_ = sym<int (*)(int, int*)>("MPI_Comm_rank");
  size_ = sym<int (*)(int, int*)>("MPI_Comm_size");
  allgather_ = sym<int (*)(const void*, int, int, void*, int, int, int)>("MPI_Allgather");
  allgatherv_ = sym<int (*)(const void*, int, int, void*, const int*, const int*, int, int)>("MPI_Allgatherv");
  alltoall_ = sym<int (*)(const void*, int, int, void*, int, int, int)>("MPI_Alltoall");
  alltoallv_ =
      sym<int (*)(const void*, const int*, const int*, int, void*, const int*, const int*, int, int)>("MPI_Alltoallv");
  allreduce_ = sym<int (*)(const void*, void*, int, int, int, int)>("MPI_Allreduce");
  abort_ = sym<int (*)(int, int)>("MPI_Abort");
  // Only the thread that called this makes MPI calls (partitioned runs' other threads do not).
  int provided = 0;
  if (init_thread_(nullptr, nullptr, kThreadFunneled, &provided) != 0) {
    throw std::runtime_error(fmt::format("{}: MPI_Init_thread failed", command));
  }
  if (provided < kThreadFunneled) {
    throw std::runtime_error(fmt::format("{}: this MPICH gives no thread support (MPI_THREAD_FUNNELED)", command));
  }
  int r = 0, s = 1;
  rank_(kCommWorld, &r);
  size_(kCommWorld, &s);
  rank_value_ = static_cast<uint32_t>(r);
  size_value_ = static_cast<uint32_t>(s);
}

Mpich::~Mpich() {
  finalize_();
}

template <class F>
F Mpich::sym(const char* name) {
  void* p = dlsym(lib_, name);
  if (!p) throw std::runtime_error(fmt::format("{}: MPICH's library has no {}", command_, name));
  return reinterpret_cast<F>(p);
}

uint32_t Mpich::rank() const {
  return rank_value_;
}
uint32_t Mpich::size() const {
  return size_value_;
}

void Mpich::abort(int status) const {
  abort_(kCommWorld, status);
  std::_Exit(status);
}

std::vector<std::string> Mpich::exchange(const std::vector<std::string>& out) {
  const int n = static_cast<int>(size_value_);
  std::vector<int> send_counts(n), recv_counts(n), send_offsets(n), recv_offsets(n);
  std::string send;
  for (int q = 0; q < n; ++q) {
    send_offsets[q] = count_of(send.size());
    send_counts[q] = count_of(out[q].size());
    send += out[q];
  }
  alltoall_(send_counts.data(), 1, kInt, recv_counts.data(), 1, kInt, kCommWorld);
  size_t total = 0;
  for (int q = 0; q < n; ++q) {
    recv_offsets[q] = count_of(total);
    total += static_cast<size_t>(recv_counts[q]);
  }
  std::string recv(total, '\0');
  alltoallv_(send.data(), send_counts.data(), send_offsets.data(), kChar, recv.data(), recv_counts.data(),
             recv_offsets.data(), kChar, kCommWorld);
  std::vector<std::string> in(n);
  for (int q = 0; q < n; ++q)
    in[q] = recv.substr(static_cast<size_t>(recv_offsets[q]), static_cast<size_t>(recv_counts[q]));
  return in;
}

int64_t Mpich::min(int64_t value) {
  int64_t out = 0;
  allreduce_(&value, &out, 1, kInt64, kOpMin, kCommWorld);
  return out;
}

void Mpich::sum(std::vector<uint64_t>& values) {
  std::vector<uint64_t> out(values.size());
  allreduce_(values.data(), out.data(), count_of(values.size()), kUint64, kOpSum, kCommWorld);
  values = std::move(out);
}

std::string Mpich::gather(const std::string& mine) {
  const int n = static_cast<int>(size_value_);
  const int len = count_of(mine.size());
  std::vector<int> lens(n), offsets(n);
  allgather_(&len, 1, kInt, lens.data(), 1, kInt, kCommWorld);
  size_t total = 0;
  for (int r = 0; r < n; ++r) {
    offsets[r] = count_of(total);
    total += static_cast<size_t>(lens[r]);
  }
  std::string all(total, '\0');
  allgatherv_(mine.data(), len, kChar, all.data(), lens.data(), offsets.data(), kChar, kCommWorld);
  return all;
}

}  // namespace mgen::cli
