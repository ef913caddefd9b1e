#include "mgen/net/partition_model.hpp"

#include "mgen/net/partition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace mgen::net {

using simcore::Time;

PartitionModel::PartitionModel(const Topology& topology, const std::vector<uint32_t>& counts,
                               const std::vector<uint32_t>& weight) {
  pending_.reserve(kBatch);
  const uint32_t loaded = loaded_routers(topology, weight);
  loaded_ = loaded;
  std::vector<uint32_t> kept;
  for (uint32_t p : counts) {
    if (p > loaded) {
      too_many_.push_back(p);
    } else if (p >= 2) {
      kept.push_back(p);
    }
  }
  for (uint32_t p : kept) {
    // The cut a partitioned run makes (partition.hpp): blocks of equal weight, and the lookahead.
    PartitionPlan plan = block_routers(topology, p, weight);
    Level l;
    l.partitions = p;
    l.block = std::move(plan.router_part);
    l.lookahead = plan.lookahead;
    l.count.assign(p, 0);
    levels_.push_back(std::move(l));
  }
}

void PartitionModel::close(Level& l) {
  if (!l.open) return;
  // The other events spread evenly: the busiest block takes its share of them too.
  l.critical += static_cast<double>(l.busiest) + static_cast<double>(l.other) / l.partitions;
  ++l.windows;
  for (uint32_t b : l.touched)
    l.count[b] = 0;
  l.touched.clear();
  l.other = 0;
  l.busiest = 0;
  l.open = false;
}

void PartitionModel::process() {
  const auto start = std::chrono::steady_clock::now();
  for (const Seen& e : pending_) {
    ++events_;
    network_events_ += e.router != kNoRouter;
  }
  for (Level& l : levels_) {
    for (const Seen& e : pending_) {
      if (l.open && e.t >= l.window_end) close(l);
      if (!l.open) {
        // A window starts at the earliest pending event; with no cut link (lookahead max) the
        // whole run is one window.
        l.open = true;
        l.window_end = l.lookahead == Time::max() ? Time::max() : e.t + l.lookahead;
      }
      if (e.router == kNoRouter) {
        ++l.other;
        continue;
      }
      const uint32_t b = l.block[e.router];
      if (l.count[b]++ == 0) l.touched.push_back(b);
      l.busiest = std::max(l.busiest, l.count[b]);
    }
  }
  pending_.clear();
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void PartitionModel::require_packet(const std::string& backend) {
  if (backend == "packet") return;
  throw std::invalid_argument(
      fmt::format("--partition-model models the partitioned packet network; this run's backend is {} (--set "
                  "network.backend=packet)",
                  backend));
}

double PartitionModel::Row::speedup(double event_s, double sync_s) const {
  const double serial = static_cast<double>(events) * event_s;
  const double parallel = critical * event_s + static_cast<double>(windows) * sync_s;
  return parallel > 0 ? serial / parallel : 0;
}

std::vector<PartitionModel::Row> PartitionModel::rows() {
  process();
  std::vector<Row> out;
  for (Level& l : levels_) {
    close(l);
    Row r;
    r.partitions = l.partitions;
    r.lookahead = l.lookahead;
    r.windows = l.windows;
    r.events = events_;
    r.critical = l.critical;
    r.events_per_window = l.windows ? static_cast<double>(events_) / static_cast<double>(l.windows) : 0;
    const double mean = static_cast<double>(events_) / l.partitions;  // summed over windows
    r.imbalance = mean > 0 ? l.critical / mean : 0;
    r.work_speedup = l.critical > 0 ? static_cast<double>(events_) / l.critical : 0;
    r.loaded = loaded_;
    out.push_back(r);
  }
  for (uint32_t p : too_many_) {
    Row r;
    r.partitions = p;
    r.fits = false;
    r.loaded = loaded_;
    r.events = events_;
    out.push_back(r);
  }
  return out;
}

std::string PartitionModel::table(const std::vector<Row>& rs, uint64_t events, uint64_t network_events, double wall_s,
                                  double model_s) {
  const double per_event = events ? std::max(0.0, wall_s - model_s) / static_cast<double>(events) : 0;
  std::string out = fmt::format(
      "partition model  {} events ({:.1f}% owned by a router), {:.0f} ns each in this run (the model's own {:.2f} s "
      "left out);\n                 routers cut into contiguous blocks of equal load\n",
      events, events ? 100.0 * static_cast<double>(network_events) / static_cast<double>(events) : 0.0, per_event * 1e9,
      model_s);
  out += fmt::format("  {:>10} {:>10} {:>12} {:>13} {:>10} {:>13} {:>12} {:>12}\n", "partitions", "lookahead",
                     "windows", "events/window", "imbalance", "speedup: work", "sync 1 us", "sync 10 us");
  for (const Row& r : rs) {
    if (!r.fits) {
      out += fmt::format("  {:>10} more blocks than the {} routers holding the job: not modelled\n", r.partitions,
                         r.loaded);
      continue;
    }
    const std::string la =
        r.lookahead == Time::max() ? "none cut" : fmt::format("{:.3g} ns", r.lookahead.seconds() * 1e9);
    out += fmt::format("  {:>10} {:>10} {:>12} {:>13.1f} {:>10.2f} {:>13.2f} {:>12.2f} {:>12.2f}\n", r.partitions, la,
                       r.windows, r.events_per_window, r.imbalance, r.work_speedup, r.speedup(per_event, 1e-6),
                       r.speedup(per_event, 1e-5));
  }
  out +=
      "  (imbalance: the busiest block's events over the mean, summed over windows; speedup: serial time over\n"
      "   the busiest blocks' time plus one synchronisation of 1 or 10 us per window; unowned events spread "
      "evenly)\n";
  return out;
}

}  // namespace mgen::net
