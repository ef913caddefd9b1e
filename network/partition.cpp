#include "mgen/net/partition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <limits>
#include <stdexcept>
#include <thread>

#include "mgen/net/config.hpp"

namespace mgen::net {

using simcore::Time;

PartitionPlan block_routers(const Topology& topology, uint32_t parts, const std::vector<uint32_t>& weight) {
  const uint32_t routers = topology.routers();
  PartitionPlan plan;
  plan.parts = parts;
  plan.router_part.assign(routers, 0);
  uint64_t total = 0;
  for (uint32_t r = 0; r < routers; ++r)
    total += weight.empty() ? 1 : weight[r];
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
  return plan;
}

uint32_t loaded_routers(const Topology& topology, const std::vector<uint32_t>& weight) {
  uint32_t loaded = 0;
  for (uint32_t r = 0; r < topology.routers(); ++r)
    loaded += weight.empty() || weight[r] > 0;
  return loaded;
}

PartitionPlan cut_routers(const Topology& topology, uint32_t parts, const std::vector<uint32_t>& weight) {
  const uint32_t loaded = loaded_routers(topology, weight);
  if (parts == 0 || parts > loaded) {
    throw std::invalid_argument(
        fmt::format("cannot cut the network into {} partitions: {} router(s) carry the load", parts, loaded));
  }
  PartitionPlan plan = block_routers(topology, parts, weight);
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
// sleep on the generation counter. Each thread brings a time; every thread leaves with the
// least of them (the next window's start is agreed in the same meeting).
class Barrier {
 public:
  // Spinning only helps while every thread has a core of its own.
  explicit Barrier(uint32_t n) : n_(n), spins_(n <= std::thread::hardware_concurrency() ? 4000 : 0) {}
  int64_t arrive(int64_t mine) {
    const uint32_t gen = gen_.load(std::memory_order_acquire);
    for (int64_t seen = min_.load(std::memory_order_relaxed);
         mine < seen && !min_.compare_exchange_weak(seen, mine, std::memory_order_relaxed);) {
    }
    if (count_.fetch_add(1, std::memory_order_acq_rel) + 1 == n_) {
      // The last to arrive: every other thread's time is in min_ (their increments came after).
      result_ = min_.exchange(std::numeric_limits<int64_t>::max(), std::memory_order_acq_rel);
      count_.store(0, std::memory_order_relaxed);
      gen_.fetch_add(1, std::memory_order_release);
      gen_.notify_all();
      return result_;
    }
    for (int spin = 0; spin < spins_; ++spin) {
      if (gen_.load(std::memory_order_acquire) != gen) return result_;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    while (gen_.load(std::memory_order_acquire) == gen)
      gen_.wait(gen, std::memory_order_acquire);
    // Read before arriving again: the next generation cannot end without this thread.
    return result_;
  }

 private:
  const uint32_t n_;
  const int spins_;
  std::atomic<uint32_t> count_{0};
  std::atomic<uint32_t> gen_{0};
  std::atomic<int64_t> min_{std::numeric_limits<int64_t>::max()};
  int64_t result_ = 0;
};

// The bytes one process sends another in a window: its earliest time (the least it brought to
// the meeting of its threads), then per (source, destination) pair of partitions, in order, the
// two indices, a length and the packed crossings. `out[l][j]`: what local partition l packed for
// partition j (emptied here); `in[j][k]`: what partition k of another process sent local
// partition j. Returns the least time of every process.
int64_t swap_with_processes(PartitionTransport& transport, uint32_t local, uint32_t first, int64_t earliest,
                            std::vector<std::vector<std::string>>& out, std::vector<std::vector<std::string>>& in) {
  const uint32_t processes = transport.size();
  std::vector<std::string> to(processes);
  for (uint32_t q = 0; q < processes; ++q) {
    if (q == transport.rank()) continue;
    to[q].append(reinterpret_cast<const char*>(&earliest), sizeof earliest);
    for (uint32_t l = 0; l < local; ++l) {
      for (uint32_t j = q * local; j < (q + 1) * local; ++j) {
        const uint32_t head[2] = {first + l, j};
        const uint64_t n = out[l][j].size();
        to[q].append(reinterpret_cast<const char*>(head), sizeof head);
        to[q].append(reinterpret_cast<const char*>(&n), sizeof n);
        to[q].append(out[l][j]);
        out[l][j].clear();
      }
    }
  }
  int64_t all = earliest;
  for (const std::string& bytes : transport.exchange(to)) {
    if (bytes.empty()) continue;  // this process's own slot
    std::string_view rest(bytes);
    int64_t theirs = 0;
    std::memcpy(&theirs, rest.data(), sizeof theirs);
    rest.remove_prefix(sizeof theirs);
    all = std::min(all, theirs);
    while (!rest.empty()) {
      uint32_t head[2];
      uint64_t n = 0;
      std::memcpy(head, rest.data(), sizeof head);
      std::memcpy(&n, rest.data() + sizeof head, sizeof n);
      rest.remove_prefix(sizeof head + sizeof n);
      in[head[1] - first][head[0]].assign(rest.data(), n);
      rest.remove_prefix(n);
    }
  }
  return all;
}

}  // namespace

WindowStats run_windows(const PartitionLayout& layout, Time lookahead, Time limit, const PartitionHooks& hooks) {
  WindowStats stats;
  const uint32_t parts = layout.parts, local = layout.local, first = layout.first();
  PartitionTransport* const transport = layout.transport;
  if (parts != local * (transport ? transport->size() : 1))
    throw std::logic_error("partition layout: parts != local partitions x processes");

  Time start = Time::max();
  for (uint32_t i = 0; i < local; ++i)
    start = simcore::min(start, hooks.next_time(first + i));
  if (transport) start = Time::ps(transport->min(start.count_ps()));
  if (start == Time::max() || start > limit) {
    for (uint32_t i = 0; hooks.done && i < local; ++i)
      hooks.done(first + i);  // nothing to run: on the calling thread
    return stats;
  }

  Barrier barrier(local);
  // Per window parity: out[p][i][j], what local partition i packed for partition j; in[p][j][k],
  // what partition k of another process sent local partition j. Two sets, so that a thread
  // packing the next window never writes what a slower one still takes from this one: the
  // next window cannot end before every thread has taken this one's.
  std::vector<std::vector<std::string>> out[2], in[2];
  for (int p = 0; p < 2; ++p) {
    out[p].assign(local, std::vector<std::string>(parts));
    in[p].assign(local, std::vector<std::string>(parts));
  }
  int64_t earliest_all = 0;  // with a transport: written by the first thread between barriers
  std::atomic<bool> stopped_by_failure{false};
  std::vector<std::exception_ptr> errors(local);
  double waited = 0;
  uint64_t windows = 0;
  constexpr int64_t kFailed = -1;  // a time no partition brings unless it failed

  // Every thread computes the same window sequence from the same agreed times.
  auto worker = [&](uint32_t i) {
    const uint32_t me = first + i;
    Time w = start;
    for (int parity = 0;; parity ^= 1) {
      const Time end = lookahead == Time::max() || w > Time::max() - lookahead ? Time::max() : w + lookahead;
      const Time until = simcore::min(end == Time::max() ? Time::max() : end - Time::ps(1), limit);
      // This partition's earliest pending event and the earliest thing it sends another.
      int64_t mine = kFailed;
      if (!errors[i]) {
        try {
          hooks.run(me, until);
          Time next = hooks.next_time(me);
          for (uint32_t j = 0; j < parts; ++j) {
            if (j != me) next = simcore::min(next, hooks.pack(me, j, out[parity][i][j]));
          }
          mine = next.count_ps();
        } catch (...) {
          errors[i] = std::current_exception();
        }
      }
      auto t0 = std::chrono::steady_clock::now();
      int64_t earliest = barrier.arrive(mine);
      if (i == 0) waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (transport) {
        // The first thread swaps the crossings with the other processes (MPI_THREAD_FUNNELED),
        // each process's least time in front of its bytes; a failure anywhere is a time of -1.
        if (i == 0) {
          t0 = std::chrono::steady_clock::now();
          try {
            earliest_all = swap_with_processes(*transport, local, first, earliest, out[parity], in[parity]);
          } catch (...) {
            // The other threads still meet this one; the caller ends the launch (MPI_Abort).
            if (!errors[0]) errors[0] = std::current_exception();
            earliest_all = kFailed;
          }
          waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        }
        barrier.arrive(0);
        earliest = earliest_all;
      }
      if (earliest == kFailed) {  // every thread and process stops after the same window
        stopped_by_failure = true;
        return;
      }
      if (!errors[i]) {
        try {
          for (uint32_t k = 0; k < parts; ++k) {
            if (k == me) continue;
            std::string& bytes = k >= first && k < first + local ? out[parity][k - first][me] : in[parity][i][k];
            hooks.take(me, bytes, end);
            bytes.clear();
          }
        } catch (...) {
          errors[i] = std::current_exception();  // the next window's meeting stops everyone
        }
      }
      if (i == 0) {
        ++windows;
        if (hooks.between && !errors[0]) {
          try {
            hooks.between(windows);
          } catch (...) {
            errors[0] = std::current_exception();
          }
        }
      }
      if (earliest == Time::max().count_ps() || end == Time::max()) {
        // Nothing pending anywhere, and nothing crossed: the run is over (a take that failed
        // still counts: its error is rethrown below).
        return;
      }
      w = simcore::max(end, Time::ps(earliest));
      if (w > limit) return;
    }
  };
  // A partition's last act on its thread, whatever happened in the windows.
  auto worker_then_done = [&](uint32_t i) {
    worker(i);
    if (!hooks.done) return;
    try {
      hooks.done(first + i);
    } catch (...) {
      if (!errors[i]) errors[i] = std::current_exception();
    }
  };
  // The threads start together once all exist: one that cannot be created leaves none waiting.
  std::atomic<int> go{0};  // 1: run, -1: give up
  std::vector<std::thread> threads;
  try {
    threads.reserve(local - 1);
    for (uint32_t i = 1; i < local; ++i) {
      threads.emplace_back([&, i] {
        go.wait(0);
        if (go.load() == 1) worker_then_done(i);
      });
    }
  } catch (...) {
    go = -1;
    go.notify_all();
    for (std::thread& t : threads)
      t.join();
    throw;
  }
  go = 1;
  go.notify_all();
  worker_then_done(0);
  for (std::thread& t : threads)
    t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  if (stopped_by_failure) throw std::runtime_error("a partition of another process failed");
  stats.windows = windows;
  stats.sync_wall_s = waited;
  return stats;
}

}  // namespace mgen::net
