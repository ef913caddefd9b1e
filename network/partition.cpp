#include "mgen/net/partition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
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

namespace {

// The bytes one process sends another in a window: per (source, destination) pair of
// partitions, in order, the two indices, a length and the packed crossings.
void put_block(std::string& out, uint32_t from, uint32_t to, const std::string& bytes) {
  const uint32_t head[2] = {from, to};
  const uint64_t n = bytes.size();
  out.append(reinterpret_cast<const char*>(head), sizeof head);
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  out.append(bytes);
}

}  // namespace

WindowStats run_windows(const PartitionLayout& layout, Time lookahead, Time limit, const PartitionHooks& hooks) {
  WindowStats stats;
  const uint32_t parts = layout.parts, local = layout.local, first = layout.first();
  PartitionTransport* const transport = layout.transport;
  const uint32_t processes = transport ? transport->size() : 1;
  if (parts != local * processes) throw std::logic_error("partition layout: parts != local partitions x processes");

  Time start = Time::max();
  for (uint32_t i = 0; i < local; ++i)
    start = simcore::min(start, hooks.next_time(first + i));
  if (transport) start = Time::ps(transport->min(start.count_ps()));
  if (start == Time::max() || start > limit) return stats;

  Barrier barrier(local);
  // out[i][j]: what local partition i packed for partition j; in[j][k]: what partition k (in
  // another process) sent local partition j.
  std::vector<std::vector<std::string>> out(local, std::vector<std::string>(parts));
  std::vector<std::vector<std::string>> in(local, std::vector<std::string>(parts));
  std::vector<Time> next(local, Time::max());
  Time earliest_all = Time::max();  // written by the first thread between barriers
  std::vector<std::exception_ptr> errors(local);
  std::atomic<bool> failed{false};
  double waited = 0;
  uint64_t windows = 0;

  auto wait = [&](uint32_t i) {
    const auto t0 = std::chrono::steady_clock::now();
    barrier.wait();
    if (i == 0) waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  auto guarded = [&](uint32_t i, auto&& body) {
    if (failed.load(std::memory_order_relaxed)) return;
    try {
      body();
    } catch (...) {
      errors[i] = std::current_exception();
      failed = true;
    }
  };
  // Every thread computes the same window sequence from the same published times.
  auto worker = [&](uint32_t i) {
    const uint32_t me = first + i;
    Time w = start;
    for (;;) {
      const Time end = lookahead == Time::max() || w > Time::max() - lookahead ? Time::max() : w + lookahead;
      const Time until = simcore::min(end == Time::max() ? Time::max() : end - Time::ps(1), limit);
      guarded(i, [&] {
        hooks.run(me, until);
        for (uint32_t j = 0; j < parts; ++j) {
          if (j != me) hooks.pack(me, j, out[i][j]);
        }
      });
      wait(i);
      if (transport && i == 0) {
        // One exchange between processes, by the first thread (MPI_THREAD_FUNNELED). A process
        // whose partitions failed still takes part, so that no other waits for it forever;
        // the error ends the run after this window.
        std::vector<std::string> to(processes);
        for (uint32_t q = 0; q < processes; ++q) {
          if (q == transport->rank()) continue;
          for (uint32_t l = 0; l < local; ++l)
            for (uint32_t j = q * local; j < (q + 1) * local; ++j) {
              put_block(to[q], first + l, j, out[l][j]);
              out[l][j].clear();
            }
        }
        const auto t0 = std::chrono::steady_clock::now();
        const std::vector<std::string> got = transport->exchange(to);
        waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        for (const std::string& bytes : got) {
          std::string_view rest(bytes);
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
        wait(i);
      } else if (transport) {
        wait(i);
      }
      guarded(i, [&] {
        for (uint32_t k = 0; k < parts; ++k) {
          if (k == me) continue;
          std::string& bytes = k >= first && k < first + local ? out[k - first][me] : in[i][k];
          hooks.take(me, bytes, end);
          bytes.clear();
        }
        next[i] = hooks.next_time(me);
      });
      wait(i);
      Time earliest = Time::max();
      if (transport) {
        // A failure anywhere ends the run everywhere: the minimum is then -1.
        if (i == 0) {
          Time mine = Time::max();
          for (uint32_t k = 0; k < local; ++k)
            mine = simcore::min(mine, next[k]);
          const auto t0 = std::chrono::steady_clock::now();
          earliest_all = Time::ps(transport->min(failed.load() ? -1 : mine.count_ps()));
          waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          if (earliest_all < Time::zero()) failed = true;
        }
        wait(i);
        earliest = earliest_all;
      } else {
        for (uint32_t k = 0; k < local; ++k)
          earliest = simcore::min(earliest, next[k]);
      }
      if (failed.load(std::memory_order_relaxed)) return;
      if (i == 0) {
        ++windows;
        if (hooks.between && !errors[0]) {
          try {  // the others may be in the next window already: an error ends the run at its end
            hooks.between(windows);
          } catch (...) {
            errors[0] = std::current_exception();
          }
        }
      }
      if (earliest == Time::max() || end == Time::max()) return;
      w = simcore::max(end, earliest);
      if (w > limit) return;
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(local - 1);
  for (uint32_t i = 1; i < local; ++i)
    threads.emplace_back(worker, i);
  worker(0);
  for (std::thread& t : threads)
    t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  if (failed) throw std::runtime_error("another process of the launch failed");
  stats.windows = windows;
  stats.sync_wall_s = waited;
  return stats;
}

}  // namespace mgen::net
