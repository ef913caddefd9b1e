// Scaling aids for recompiled programs (<mgen/mpix.h>), after SimGrid SMPI's
// SMPI_SHARED_MALLOC and SMPI_SAMPLE_* (Degomme et al., "Simulating MPI applications: the
// SMPI approach", IEEE TPDS 2017): shared buffers, so that P ranks' payloads need the memory
// of one, and loop sampling, so that a compute loop runs a few iterations for real and is
// charged their mean for the rest. docs/mpi-coverage.md ("Scaling aids") lists the caveats.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "core/world.hpp"
#include "mgen/mpix.h"
#include "mpi/shim.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;

namespace {

// One sampled loop: the durations measured so far.
struct Sample {
  uint64_t count = 0;
  double sum_ps = 0, sum_sq_ps = 0;  // for the mean and the relative standard deviation
  bool converged = false;            // enough samples: the body is skipped from now on

  mgen::simcore::Time mean() const {
    return mgen::simcore::Time::ps(count ? std::llround(sum_ps / static_cast<double>(count)) : 0);
  }
  void add(double ps, int iters, double threshold) {
    ++count;
    sum_ps += ps;
    sum_sq_ps += ps * ps;
    if (count >= static_cast<uint64_t>(iters)) converged = true;
    // SMPI's early stop: once the samples vary little relative to their mean.
    if (threshold > 0 && count >= 2) {
      const double n = static_cast<double>(count), m = sum_ps / n;
      const double var = std::max(0.0, (sum_sq_ps - n * m * m) / (n - 1));
      if (m > 0 && std::sqrt(var) / m < threshold) converged = true;
    }
  }
};

// Where a sampled loop is: its source position, and for local sampling the rank.
using SampleKey = std::tuple<std::string, int, int>;  // file, line, rank (-1: global)

struct Scaling : World::Extension {
  explicit Scaling(World&) {}
  std::map<SampleKey, Sample> samples;
  // A body running for real, per rank: its sample and when it started (rank clock).
  std::map<std::pair<int, SampleKey>, mgen::simcore::Time> running;
};

Scaling& scaling() {
  static const char key = 0;
  return scope().world().extension<Scaling>(&key);
}

SampleKey sample_key(const char* file, int line, int global) {
  // Every rank's iterations feed one global sample, which partitions cannot share.
  if (global && scope().world().partitioned()) {
    scope().world().fail(
        fmt::format("rank {}: MGEN_SAMPLE_GLOBAL pools every rank's iterations, which a partitioned "
                    "run (--threads, mpiexec) cannot: sample per rank, or run it in one partition",
                    scope().rank().id));
  }
  return {file != nullptr ? file : "", line, global ? -1 : static_cast<int>(scope().rank().id)};
}

}  // namespace

extern "C" {

void* MGEN_Shared_malloc(size_t size, const char* file, int line) {
  void* p = nullptr;
  call("MGEN_SHARED_MALLOC", MPI_COMM_WORLD, [&] {
    p = scope().world().shared_buffers().allocate(fmt::format("{}:{}", file != nullptr ? file : "", line), size);
    return MPI_SUCCESS;
  });
  return p;
}

void* MGEN_Shared_malloc_key(size_t size, const char* key) {
  void* p = nullptr;
  call("MGEN_SHARED_MALLOC_KEY", MPI_COMM_WORLD, [&] {
    if (key == nullptr) fail(MPI_ERR_ARG, "the key is NULL");
    p = scope().world().shared_buffers().allocate(std::string("key:") + key, size);
    return MPI_SUCCESS;
  });
  return p;
}

void MGEN_Shared_free(void* ptr) {
  call("MGEN_SHARED_FREE", MPI_COMM_WORLD, [&] {
    if (ptr == nullptr) return MPI_SUCCESS;
    if (!scope().world().shared_buffers().release(ptr)) {
      fail(MPI_ERR_ARG, fmt::format("{} is not a buffer from MGEN_SHARED_MALLOC", ptr));
    }
    return MPI_SUCCESS;
  });
}

int MGEN_Shared_contains(const void* ptr) {
  int yes = 0;
  call("MGEN_Shared_contains", MPI_COMM_WORLD, [&] {
    yes = scope().world().shared_buffers().contains(ptr) ? 1 : 0;
    return MPI_SUCCESS;
  });
  return yes;
}

// The call itself charges the CPU time measured since the previous MPI call, so the rank's
// clock here is where the body starts (or, in MGEN_Sample_end, ends).
int MGEN_Sample_begin(const char* file, int line, int global, int iters, double threshold) {
  int run = 0;
  call("MGEN_SAMPLE", MPI_COMM_WORLD, [&] {
    if (iters < 1) fail(MPI_ERR_ARG, fmt::format("{} sampled iterations (at least 1)", iters));
    if (!(threshold >= 0)) fail(MPI_ERR_ARG, fmt::format("sampling threshold {} (0 or more)", threshold));
    Scaling& s = scaling();
    const SampleKey key = sample_key(file, line, global);
    Sample& sample = s.samples[key];
    Rank& r = scope().rank();
    if (sample.converged) {
      scope().world().compute(r, sample.mean());
      return MPI_SUCCESS;
    }
    // A body left by `break` never ended; its start is simply replaced.
    s.running[{static_cast<int>(r.id), key}] = r.clock;
    run = 1;
    return MPI_SUCCESS;
  });
  return run;
}

int MGEN_Sample_end(const char* file, int line, int global, int iters, double threshold) {
  call("MGEN_SAMPLE", MPI_COMM_WORLD, [&] {
    Scaling& s = scaling();
    const SampleKey key = sample_key(file, line, global);
    Rank& r = scope().rank();
    auto it = s.running.find({static_cast<int>(r.id), key});
    if (it == s.running.end()) fail(MPI_ERR_OTHER, "MGEN_SAMPLE: the end of a sampled body that did not start");
    const double ps = static_cast<double>((r.clock - it->second).count_ps());
    s.running.erase(it);
    s.samples[key].add(ps, iters, threshold);
    return MPI_SUCCESS;
  });
  return 0;
}

}  // extern "C"
