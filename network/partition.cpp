#include "mgen/net/partition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <stdexcept>
#include <thread>

#include "mgen/net/config.hpp"

namespace mgen::net {

using simcore::Time;

PartitionPlan cut_routers(const Topology& topology, uint32_t parts, const std::vector<uint32_t>& weight) {
  const uint32_t routers = topology.routers();
  PartitionPlan plan;
  plan.parts = parts;
  plan.router_part.assign(routers, 0);
  uint64_t total = 0;
  uint32_t loaded = 0;
  for (uint32_t r = 0; r < routers; ++r) {
    const uint32_t w = weight.empty() ? 1 : weight[r];
    total += w;
    loaded += w > 0;
  }
  if (parts == 0 || parts > loaded) {
    throw std::invalid_argument(
        fmt::format("cannot cut the network into {} partitions: {} router(s) carry the load", parts, loaded));
  }
  // Router r's partition: where the weight before it falls among `parts` equal shares.
  uint64_t before = 0;
  for (uint32_t r = 0; r < routers; ++r) {
    plan.router_part[r] = static_cast<uint32_t>(std::min<uint64_t>(parts - 1, before * parts / total));
    before += weight.empty() ? 1 : weight[r];
  }
  for (uint32_t r = 0; r < routers; ++r) {
    for (uint32_t port = 0; port < topology.ports(r); ++port) {
      const PortLink& link = topology.link(r, port);
      if (link.kind == PeerKind::kRouter && plan.router_part[link.peer] != plan.router_part[r]) {
        plan.lookahead = simcore::min(plan.lookahead, link.latency);
      }
    }
  }
  if (plan.lookahead == Time::zero()) {
    throw ConfigError(
        "topology.link_latency",
        "cannot partition a network whose links between partitions have no latency (topology.link_latency = 0): "
        "nothing could run ahead of a window's end");
  }
  return plan;
}

namespace {

// A barrier for a few threads that meet every few hundred microseconds: spin briefly, then
// sleep on the generation counter.
class Barrier {
 public:
  // Spinning only helps while every thread has a core of its own.
  explicit Barrier(uint32_t n) : n_(n), spins_(n <= std::thread::hardware_concurrency() ? 4000 : 0) {}
  void wait() {
    const uint32_t gen = gen_.load(std::memory_order_acquire);
    if (count_.fetch_add(1, std::memory_order_acq_rel) + 1 == n_) {
      count_.store(0, std::memory_order_relaxed);
      gen_.fetch_add(1, std::memory_order_release);
      gen_.notify_all();
      return;
    }
    for (int spin = 0; spin < spins_; ++spin) {
      if (gen_.load(std::memory_order_acquire) != gen) return;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    while (gen_.load(std::memory_order_acquire) == gen)
      gen_.wait(gen, std::memory_order_acquire);
  }

 private:
  const uint32_t n_;
  const int spins_;
  std::atomic<uint32_t> count_{0};
  std::atomic<uint32_t> gen_{0};
};

}  // namespace

WindowStats run_windows(uint32_t parts, Time lookahead, Time limit, const std::function<Time(uint32_t)>& next_time,
                        const std::function<void(uint32_t, Time)>& run,
                        const std::function<void(uint32_t, Time)>& exchange,
                        const std::function<void(uint64_t)>& between) {
  WindowStats stats;
  Time start = Time::max();
  for (uint32_t i = 0; i < parts; ++i)
    start = simcore::min(start, next_time(i));
  if (start == Time::max() || start > limit) return stats;

  Barrier barrier(parts);
  std::vector<Time> next(parts, Time::max());
  std::vector<std::exception_ptr> errors(parts);
  std::atomic<bool> failed{false};
  double waited = 0;
  uint64_t windows = 0;

  // Every thread computes the same window sequence from the same published times.
  auto worker = [&](uint32_t i) {
    Time w = start;
    for (;;) {
      const Time end = lookahead == Time::max() || w > Time::max() - lookahead ? Time::max() : w + lookahead;
      const Time until = simcore::min(end == Time::max() ? Time::max() : end - Time::ps(1), limit);
      if (!failed.load(std::memory_order_relaxed)) {
        try {
          run(i, until);
        } catch (...) {
          errors[i] = std::current_exception();
          failed = true;
        }
      }
      auto t0 = std::chrono::steady_clock::now();
      barrier.wait();
      if (i == 0) waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!failed.load(std::memory_order_relaxed)) {
        try {
          exchange(i, end);
          next[i] = next_time(i);
        } catch (...) {
          errors[i] = std::current_exception();
          failed = true;
        }
      }
      t0 = std::chrono::steady_clock::now();
      barrier.wait();
      if (i == 0) waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (failed.load(std::memory_order_relaxed)) return;
      Time earliest = Time::max();
      for (uint32_t k = 0; k < parts; ++k)
        earliest = simcore::min(earliest, next[k]);
      if (i == 0) {
        ++windows;
        if (between && !errors[0]) {
          try {  // the others are already in the next window: an error ends the run after it
            between(windows);
          } catch (...) {
            errors[0] = std::current_exception();
            failed = true;
          }
        }
      }
      if (earliest == Time::max() || end == Time::max()) return;
      w = simcore::max(end, earliest);
      if (w > limit) return;
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(parts - 1);
  for (uint32_t i = 1; i < parts; ++i)
    threads.emplace_back(worker, i);
  worker(0);
  for (std::thread& t : threads)
    t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  stats.windows = windows;
  stats.sync_wall_s = waited;
  return stats;
}

}  // namespace mgen::net
