#include "mgen/traffic/traffic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <limits>
#include <memory>
#include <stdexcept>

namespace mgen::traffic {

using net::EndpointId;
using simcore::Event;

namespace {

constexpr uint64_t kMeasuredBit = 1ULL << 63;
// Events between two progress calls (TrafficOptions::progress), as World::run counts them.
constexpr uint64_t kProgressEvents = 1 << 20;

uint64_t splitmix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double uniform01(uint64_t& state) {
  return static_cast<double>(splitmix(state) >> 11) * 0x1.0p-53;
}

bool is_cube(const net::Topology& t) {
  return t.kind() == net::TopologyKind::kTorus || t.kind() == net::TopologyKind::kMesh;
}

class Generator : public net::MessageSink {
 public:
  Generator(const net::NetworkConfig& config, const TrafficOptions& options)
      : options_(options),
        net_(engine_, config, *this, options.steady_events == 0),  // a benchmark reports no links
        generate_(engine_.reserve_kinds(1)[0]) {
    const net::Topology& t = net_.topology();
    const uint64_t payload =
        options.message_size.count() ? options.message_size.count() : config.nic.packet_payload.count();
    size_ = Bytes(payload);
    const uint64_t packets = (payload + config.nic.packet_payload.count() - 1) / config.nic.packet_payload.count();
    wire_bytes_ = payload + std::max<uint64_t>(1, packets) * config.nic.packet_header.count();
    // Mean gap between messages so that they fill `load` of the injection link.
    mean_gap_ps_ = static_cast<double>(simcore::transfer_time(Bytes(wire_bytes_), t.endpoint_bandwidth()).count_ps()) /
                   options.load;
    rng_.resize(t.endpoints());
    for (EndpointId e = 0; e < t.endpoints(); ++e)
      rng_[e] = options.seed * 0x2545f4914f6cdd1dULL + e;
    window_start_ = options.warmup;
    window_end_ = options.warmup + options.measure;
    if (options.steady_events) window_end_ = Time::max();  // sources never stop
  }

  TrafficResult run() {
    const auto wall_start = std::chrono::steady_clock::now();
    const net::Topology& t = net_.topology();
    destination(options_.pattern, t, 0, 0, options_);  // reject a bad pattern before simulating
    for (EndpointId e = 0; e < t.endpoints(); ++e)
      schedule_next(e, Time::zero());
    if (options_.steady_events) return run_steady(wall_start);
    const Time limit = window_end_ + options_.drain_limit;
    // Router steps end at the limit, as a partitioned run's do: nothing past it is simulated.
    net_.set_window_end(limit + Time::ps(1));
    std::unique_ptr<net::PartitionModel> model;
    if (!options_.partition_model.empty()) {
      net::PartitionModel::require_packet(net_.backend_name());
      std::vector<uint32_t> weight(t.routers(), 0);  // every endpoint sends
      for (EndpointId e = 0; e < t.endpoints(); ++e)
        ++weight[t.endpoint_router(e)];
      model = std::make_unique<net::PartitionModel>(t, options_.partition_model, weight);
    }
    // Sources stop at the end of the window; the run goes on until the network has delivered
    // everything (or the drain limit), so that where it ends depends on no order of events at
    // one picosecond: a network cut into partitions ends where a serial run does.
    auto step = [this, &model, &t](const Event& ev) {
      if (model) [[unlikely]]
        model->observe(ev.time, net_.owns(ev.kind) ? net_.event_router(ev) : t.endpoint_router(ev.target));
      handle(ev);
    };
    if (options_.progress) {
      uint64_t countdown = kProgressEvents;
      engine_.run(
          [&](const Event& ev) {
            step(ev);
            if (--countdown == 0) {
              countdown = kProgressEvents;
              options_.progress(engine_.now().seconds(), engine_.events_processed());
            }
          },
          prefetch(), limit);
    } else {
      engine_.run(step, prefetch(), limit);
    }

    TrafficResult r = summarize({this}, limit);
    if (model) {
      r.partition_model = model->rows();
      r.partition_network_events = model->network_events();
      r.partition_model_s = model->seconds();
    }
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return r;
  }

  // The network cut into partitions, options.threads per process of the launch (one thread
  // each; mgen/net/partition.hpp): each partition's generator drives the sources of its
  // endpoints.
  static TrafficResult run_partitioned(const net::NetworkConfig& config, const TrafficOptions& options) {
    const auto wall_start = std::chrono::steady_clock::now();
    net::PartitionLayout layout;
    layout.local = options.threads;
    layout.transport = options.transport;
    layout.parts = layout.local * (options.transport ? options.transport->size() : 1);
    const uint32_t first = layout.first();
    std::vector<std::unique_ptr<Generator>> gens;
    for (uint32_t i = 0; i < layout.local; ++i)
      gens.push_back(std::make_unique<Generator>(config, options));
    const net::Topology& t = gens[0]->net_.topology();
    destination(options.pattern, t, 0, 0, options);  // reject a bad pattern before simulating
    std::vector<uint32_t> weight(t.routers(), 0);    // every endpoint sends
    for (EndpointId e = 0; e < t.endpoints(); ++e)
      ++weight[t.endpoint_router(e)];
    const net::PartitionPlan plan = net::cut_routers(t, layout.parts, weight);
    for (uint32_t i = 0; i < layout.local; ++i) {
      Generator& g = *gens[i];
      g.net_.join_partition(plan, first + i);
      for (EndpointId e = 0; e < t.endpoints(); ++e) {
        if (plan.router_part[t.endpoint_router(e)] == first + i) g.schedule_next(e, Time::zero());
      }
    }
    const Time limit = gens[0]->window_end_ + options.drain_limit;
    // Per local partition, after each window (progress lines, read while the others run on).
    std::vector<std::atomic<uint64_t>> events(layout.local);
    std::vector<std::atomic<int64_t>> now(layout.local);
    uint64_t reported = 0;
    net::PartitionHooks hooks;
    hooks.next_time = [&](uint32_t i) { return gens[i - first]->engine_.next_time(); };
    hooks.run = [&](uint32_t i, Time until) {
      Generator& g = *gens[i - first];
      g.net_.set_window_end(simcore::min(until, limit) + Time::ps(1));
      g.engine_.run([&g](const Event& ev) { g.handle(ev); }, g.prefetch(), until);
      events[i - first].store(g.engine_.events_processed(), std::memory_order_relaxed);
      now[i - first].store(g.engine_.now().count_ps(), std::memory_order_relaxed);
    };
    hooks.pack = [&](uint32_t i, uint32_t j, std::string& out) { return gens[i - first]->net_.pack_crossings(j, out); };
    hooks.take = [&](uint32_t i, std::string_view bytes, Time end) {
      gens[i - first]->net_.take_crossings(bytes, end);
    };
    hooks.between = [&](uint64_t) {
      if (!options.progress) return;
      uint64_t sum = 0;
      int64_t least = std::numeric_limits<int64_t>::max();
      for (uint32_t i = 0; i < layout.local; ++i) {
        sum += events[i].load(std::memory_order_relaxed);
        least = std::min(least, now[i].load(std::memory_order_relaxed));
      }
      if (sum - reported < kProgressEvents) return;
      reported = sum;
      options.progress(Time::ps(least).seconds(), sum);
    };
    const net::WindowStats windows = net::run_windows(layout, plan.lookahead, limit, hooks);
    std::vector<Generator*> all;
    for (auto& g : gens)
      all.push_back(g.get());
    TrafficResult r = summarize(all, limit, options.transport);
    r.partitions = layout.parts;
    r.processes = options.transport ? options.transport->size() : 1;
    r.windows = windows.windows;
    r.sync_wall_s = windows.sync_wall_s;
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return r;
  }

  // What one run reports, from the generators of its partitions (one in a serial run); with a
  // transport, of every process's partitions (the same result in every process).
  static TrafficResult summarize(const std::vector<Generator*>& gens, Time limit,
                                 net::PartitionTransport* transport = nullptr) {
    const Generator& g0 = *gens[0];
    TrafficResult r;
    r.offered = g0.options_.load;
    uint64_t window_wire_bytes = 0, busy = 0;
    std::vector<int64_t> latencies;
    Time last;
    for (const Generator* g : gens) {
      window_wire_bytes += g->window_wire_bytes_;
      r.measured += g->measured_;
      latencies.insert(latencies.end(), g->latencies_.begin(), g->latencies_.end());
      busy += !g->engine_.idle();
      // Where a drained run ends: its last source, report or arrival (not its last event: router
      // steps and spare wake-ups fall at times that depend on the mode and the partitioning).
      last = simcore::max(last, simcore::max(g->last_activity_, g->net_.totals().last_arrival));
      r.events += g->engine_.events_processed();
      r.packet_hops += g->net_.totals().packet_hops;
      net::add_links(r.links, g->net_.links());
    }
    if (transport) {
      // Sums over the processes; the latest activity as the least of its negation.
      std::vector<uint64_t> sums = {window_wire_bytes, r.measured, busy, r.events, r.packet_hops};
      for (const net::LinkInfo& l : r.links) {
        sums.push_back(l.stats.bytes);
        sums.push_back(l.stats.packets);
        sums.push_back(static_cast<uint64_t>(l.stats.busy.count_ps()));
      }
      transport->sum(sums);
      window_wire_bytes = sums[0];
      r.measured = sums[1];
      busy = sums[2];
      r.events = sums[3];
      r.packet_hops = sums[4];
      for (size_t i = 0; i < r.links.size(); ++i) {
        r.links[i].stats.bytes = sums[5 + 3 * i];
        r.links[i].stats.packets = sums[6 + 3 * i];
        r.links[i].stats.busy = Time::ps(static_cast<int64_t>(sums[7 + 3 * i]));
      }
      last = Time::ps(-transport->min(-last.count_ps()));
      const std::string mine(reinterpret_cast<const char*>(latencies.data()), latencies.size() * sizeof(int64_t));
      const std::string every = transport->gather(mine);
      latencies.resize(every.size() / sizeof(int64_t));
      std::memcpy(latencies.data(), every.data(), latencies.size() * sizeof(int64_t));
    }
    r.accepted = static_cast<double>(window_wire_bytes) / g0.capacity(g0.window_end_ - g0.window_start_);
    r.completed = latencies.size();
    if (!latencies.empty()) {
      std::sort(latencies.begin(), latencies.end());
      auto pct = [&](double q) {
        const size_t i = std::min(latencies.size() - 1, static_cast<size_t>(q * static_cast<double>(latencies.size())));
        return static_cast<double>(latencies[i]) * 1e-3;
      };
      double sum = 0;
      for (int64_t l : latencies)
        sum += static_cast<double>(l);
      r.latency_mean_ns = sum / static_cast<double>(latencies.size()) * 1e-3;
      r.latency_p50_ns = pct(0.50);
      r.latency_p90_ns = pct(0.90);
      r.latency_p99_ns = pct(0.99);
      r.latency_max_ns = static_cast<double>(latencies.back()) * 1e-3;
    }
    r.saturated = r.completed < r.measured || r.accepted < 0.9 * r.offered;
    r.simulated = busy == 0 ? last : limit;  // drained, or stopped at the limit
    return r;
  }

  // Benchmark mode: warm up for options_.warmup of simulated time, then time a fixed number of
  // events. Only the event count is checked per event; the clocks are read twice.
  TrafficResult run_steady(std::chrono::steady_clock::time_point wall_start) {
    engine_.run([this](const Event& ev) { handle(ev); }, prefetch(), options_.warmup);
    const uint64_t events0 = engine_.events_processed();
    const uint64_t hops0 = net_.totals().packet_hops;
    const Time sim0 = engine_.now();
    steady_bytes_ = 0;
    counting_ = true;
    const auto wall0 = std::chrono::steady_clock::now();
    const std::clock_t cpu0 = std::clock();
    const uint64_t stop_at = events0 + options_.steady_events;
    engine_.run(
        [&](const Event& ev) {
          handle(ev);
          if (engine_.events_processed() >= stop_at) engine_.stop();
        },
        prefetch(), Time::max());
    const std::clock_t cpu1 = std::clock();
    const auto wall1 = std::chrono::steady_clock::now();
    TrafficResult r;
    r.offered = options_.load;
    r.steady_events = engine_.events_processed() - events0;
    r.steady_hops = net_.totals().packet_hops - hops0;
    r.steady_simulated = engine_.now() - sim0;
    r.steady_wall_s = std::chrono::duration<double>(wall1 - wall0).count();
    r.steady_cpu_s = static_cast<double>(cpu1 - cpu0) / CLOCKS_PER_SEC;
    const double bytes = capacity(r.steady_simulated);
    r.steady_accepted = bytes > 0 ? static_cast<double>(steady_bytes_) / bytes : 0;
    r.accepted = r.steady_accepted;
    finish(r, wall_start);
    return r;
  }

  void handle(const Event& ev) {
    if (net_.owns(ev.kind)) {
      net_.dispatch(ev);
    } else {
      generate(ev.target);
    }
  }
  // The engine's prefetch hook: the network loads an upcoming event's state early.
  struct Prefetch {
    const net::NetworkModel* net;
    void operator()(const Event& ev) const { net->prefetch(ev); }
  };
  Prefetch prefetch() const { return Prefetch{&net_}; }
  // Wire bytes every injection link together could carry in `span`.
  double capacity(Time span) const {
    const net::Topology& t = net_.topology();
    return static_cast<double>(t.endpoints()) * static_cast<double>(t.endpoint_bandwidth().bytes_per_s()) *
           span.seconds();
  }
  // The totals every run reports.
  void finish(TrafficResult& r, std::chrono::steady_clock::time_point wall_start) const {
    r.events = engine_.events_processed();
    r.packet_hops = net_.totals().packet_hops;
    r.simulated = engine_.now();
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  }

  void on_message_sent(uint64_t, Time t) override { last_activity_ = simcore::max(last_activity_, t); }

  void on_message_delivered(uint64_t cookie, Time t) override {
    last_activity_ = simcore::max(last_activity_, t);
    if (counting_) {
      steady_bytes_ += wire_bytes_;
      return;
    }
    if (t >= window_start_ && t < window_end_) window_wire_bytes_ += wire_bytes_;
    if (cookie & kMeasuredBit) {
      latencies_.push_back((t - Time::ps(static_cast<int64_t>(cookie & ~kMeasuredBit))).count_ps());
    }
  }

 private:
  void schedule_next(EndpointId e, Time from) {
    // Poisson arrivals: exponential gaps.
    const double gap = -std::log(1.0 - uniform01(rng_[e])) * mean_gap_ps_;
    const Time next = from + Time::ps(std::max<int64_t>(1, std::llround(gap)));
    if (next < window_end_) engine_.schedule(next, generate_, e);
  }

  void generate(EndpointId src) {
    const Time now = engine_.now();
    last_activity_ = now;
    const EndpointId dst = destination(options_.pattern, net_.topology(), src, splitmix(rng_[src]), options_);
    uint64_t cookie = static_cast<uint64_t>(now.count_ps());
    if (now >= window_start_ && now < window_end_) {
      cookie |= kMeasuredBit;
      ++measured_;
    }
    net_.inject(src, dst, size_, cookie);
    schedule_next(src, now);
  }

  TrafficOptions options_;
  simcore::Engine engine_;
  net::NetworkModel net_;
  uint16_t generate_;  // the event kind of the next message from an endpoint (target = endpoint)
  Bytes size_;
  uint64_t wire_bytes_ = 0;
  double mean_gap_ps_ = 0;
  std::vector<uint64_t> rng_;
  Time window_start_, window_end_;
  Time last_activity_;  // the last message generated, sent or delivered
  uint64_t measured_ = 0, window_wire_bytes_ = 0;
  std::vector<int64_t> latencies_;
  bool counting_ = false;      // benchmark mode, after the warm-up
  uint64_t steady_bytes_ = 0;  // wire bytes delivered since then
};

}  // namespace

const std::vector<PatternEntry>& pattern_registry() {
  static const std::vector<PatternEntry> table = {
      {"uniform", "each message to an endpoint drawn uniformly from all others"},
      {"transpose", "b-bit endpoint index rotated by b/2 bits (matrix transpose when b is even)"},
      {"bitcomp", "endpoint i sends to N-1-i (bit complement for powers of two)"},
      {"neighbor", "torus/mesh: the next router in X (wrapping); trees: the next endpoint"},
      {"hotspot", "a share of messages (hotspot_fraction) to one endpoint, the rest uniform"},
  };
  return table;
}

uint32_t destination(const std::string& pattern, const net::Topology& t, uint32_t src, uint64_t random,
                     const TrafficOptions& options) {
  const uint32_t n = t.endpoints();
  auto uniform_other = [&](uint64_t r) -> uint32_t {
    if (n == 1) return src;
    const uint32_t pick = static_cast<uint32_t>(r % (n - 1));
    return pick >= src ? pick + 1 : pick;
  };
  if (pattern == "uniform") return uniform_other(random);
  if (pattern == "bitcomp") return n - 1 - src;
  if (pattern == "transpose") {
    if (!std::has_single_bit(n)) {
      throw std::invalid_argument(fmt::format("transpose needs a power-of-two number of endpoints, not {}", n));
    }
    const uint32_t bits = static_cast<uint32_t>(std::countr_zero(n));
    const uint32_t half = bits / 2;
    if (half == 0) return src;
    return ((src << half) | (src >> (bits - half))) & (n - 1);
  }
  if (pattern == "neighbor") {
    if (is_cube(t) && t.dims()[0] > 1) {
      const uint32_t per_router = t.terminals_per_router();
      const net::RouterId r = src / per_router;
      const uint32_t x = t.coord(r, 0);
      const net::RouterId next = x + 1 == t.dims()[0] ? r - x : r + 1;
      return next * per_router + src % per_router;
    }
    return (src + 1) % n;
  }
  if (pattern == "hotspot") {
    if (options.hotspot >= n) {
      throw std::invalid_argument(fmt::format("hotspot endpoint {} does not exist ({} endpoints)", options.hotspot, n));
    }
    const double u = static_cast<double>(random >> 11) * 0x1.0p-53;
    if (u < options.hotspot_fraction) return options.hotspot;
    return uniform_other(random * 0x9e3779b97f4a7c15ULL + 1);
  }
  std::string known;
  for (const PatternEntry& p : pattern_registry())
    known += std::string(known.empty() ? "" : ", ") + p.name;
  throw std::invalid_argument(fmt::format("unknown traffic pattern '{}' (known: {})", pattern, known));
}

TrafficResult run_traffic(const net::NetworkConfig& network, const TrafficOptions& options) {
  if (!(options.load > 0) || options.load > 10) {
    throw std::invalid_argument(fmt::format("offered load {} is outside (0, 10]", options.load));
  }
  if (options.measure <= Time::zero()) throw std::invalid_argument("the measurement window must be positive");
  if (options.threads == 0) throw std::invalid_argument("the number of threads must be at least 1");
  if (options.threads > 1 || options.transport) {
    if (options.steady_events) throw std::invalid_argument("benchmark mode runs on one thread");
    if (!options.partition_model.empty()) {
      throw std::invalid_argument("the partition model measures a serial run: it does not combine with threads");
    }
    return Generator::run_partitioned(network, options);
  }
  Generator g(network, options);
  return g.run();
}

}  // namespace mgen::traffic
