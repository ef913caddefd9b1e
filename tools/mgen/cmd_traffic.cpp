// mgen traffic PATTERN: synthetic load on the modelled network; one load or a sweep that traces
// the latency-versus-offered-load curve up to saturation.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>

#include "cli_common.hpp"
#include "mgen/config/units.hpp"
#include "mgen/traffic/traffic.hpp"
#include "mpich.hpp"
#include "resources.hpp"

namespace mgen::cli {
namespace {

struct TrafficCli {
  MachineOptions machine;
  std::string pattern;
  double load = 0.3;
  std::string sweep;
  bool full_sweep = false;
  std::string size, warmup = "20us", measure = "50us", drain = "500us";
  uint64_t seed = 1;
  double hotspot_fraction = 1.0;
  uint32_t hotspot = 0;
  std::string report;
  std::string links_csv;
  std::string plot;
  bool partition_model = false;  // --partition-model, --partitions LIST (cli_common.hpp)
  std::string partitions;
  uint32_t threads = 1;
};

// The busiest links of a run, and the whole list as CSV on request.
nlohmann::json link_summary(const traffic::TrafficResult& r, size_t top) {
  std::vector<const net::LinkInfo*> sorted;
  double sum = 0;
  for (const net::LinkInfo& l : r.links) {
    sorted.push_back(&l);
    sum += l.stats.busy.seconds();
  }
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const net::LinkInfo* a, const net::LinkInfo* b) { return a->stats.busy > b->stats.busy; });
  nlohmann::json busiest = nlohmann::json::array();
  for (size_t i = 0; i < std::min(top, sorted.size()); ++i) {
    const net::LinkInfo& l = *sorted[i];
    busiest.push_back({{"link", l.name},
                       {"bytes", l.stats.bytes},
                       {"packets", l.stats.packets},
                       {"busy_ps", l.stats.busy.count_ps()},
                       {"utilization", r.simulated_s() > 0 ? l.stats.busy.seconds() / r.simulated_s() : 0}});
  }
  const double mean =
      r.links.empty() || r.simulated_s() <= 0 ? 0 : sum / static_cast<double>(r.links.size()) / r.simulated_s();
  return {{"mean_utilization", mean}, {"busiest", busiest}};
}

// "0.1:0.9:0.1" (start:stop:step) or "0.1,0.3,0.5": offered loads in (0, 1].
std::vector<double> parse_sweep(const std::string& text) {
  constexpr size_t kMaxPoints = 1000;
  std::vector<double> loads;
  auto number = [&](const std::string& s, const char* what) {
    char* end = nullptr;
    const double v = s.empty() ? 0 : std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !(v > 0) || !(v <= 1)) {
      bad_option("--sweep", fmt::format("{} '{}' is not a load in (0, 1]", what, s), text);
    }
    return v;
  };
  if (text.find(':') != std::string::npos) {
    const size_t a = text.find(':'), b = text.find(':', a + 1);
    if (b == std::string::npos || text.find(':', b + 1) != std::string::npos) {
      bad_option("--sweep", "takes START:STOP:STEP or a comma list", text);
    }
    const double start = number(text.substr(0, a), "START"), stop = number(text.substr(a + 1, b - a - 1), "STOP"),
                 step = number(text.substr(b + 1), "STEP");
    if (start > stop) bad_option("--sweep", fmt::format("START {} is above STOP {}", start, stop), text);
    if ((stop - start) / step + 1 > kMaxPoints) {
      bad_option("--sweep", fmt::format("STEP {} makes more than {} points", step, kMaxPoints), text);
    }
    for (int i = 0; start + i * step <= stop + 1e-9; ++i)
      loads.push_back(std::round((start + i * step) * 1e6) / 1e6);
  } else {
    size_t pos = 0;
    while (pos <= text.size()) {
      const size_t comma = std::min(text.find(',', pos), text.size());
      loads.push_back(number(text.substr(pos, comma - pos), "load"));
      pos = comma + 1;
    }
    if (loads.size() > kMaxPoints) bad_option("--sweep", fmt::format("more than {} loads", kMaxPoints), text);
  }
  return loads;
}

nlohmann::json result_json(const traffic::TrafficResult& r) {
  nlohmann::json j = {{"offered", r.offered},
                      {"accepted", r.accepted},
                      {"measured", r.measured},
                      {"completed", r.completed},
                      {"latency_mean_ns", r.latency_mean_ns},
                      {"latency_p50_ns", r.latency_p50_ns},
                      {"latency_p90_ns", r.latency_p90_ns},
                      {"latency_p99_ns", r.latency_p99_ns},
                      {"latency_max_ns", r.latency_max_ns},
                      {"saturated", r.saturated},
                      {"events", r.events},
                      {"packet_hops", r.packet_hops},
                      {"simulated_s", r.simulated_s()},
                      {"simulated_ps", r.simulated.count_ps()},
                      {"wall_s", r.wall_s},
                      {"links", link_summary(r, 10)}};
  if (r.partitions > 1) {
    j["partitioned"] = {{"partitions", r.partitions},
                        {"processes", r.processes},
                        {"windows", r.windows},
                        {"sync_wall_s", r.sync_wall_s}};
  }
  if (!r.partition_model.empty()) {
    j["partition_model"] =
        partition_model_json(r.partition_model, r.events, r.partition_network_events, r.partition_model_s);
  }
  return j;
}

// The points of one `mgen traffic`; with `mpi`, this process's share of a partitioned run
// (rank 0 prints and writes the files).
int run_points(const TrafficCli& o, Mpich* mpi) {
  const bool lead = mpi == nullptr || mpi->rank() == 0;
  const config::MachineConfig m = o.machine.load();
  traffic::TrafficOptions t;
  t.pattern = o.pattern;
  t.message_size = o.size.empty() ? simcore::Bytes(0) : config::parse_bytes(o.size);
  t.warmup = config::parse_time(o.warmup);
  t.measure = config::parse_time(o.measure);
  t.drain_limit = config::parse_time(o.drain);
  t.seed = o.seed;
  t.hotspot_fraction = o.hotspot_fraction;
  t.hotspot = o.hotspot;
  t.threads = o.threads;
  t.transport = mpi;
  if (o.threads > 1 || mpi) {
    // This process's partitions, times the launch's processes on this computer.
    const uint32_t here = o.threads * static_cast<uint32_t>(mpi ? std::max(1, env_int("MPI_LOCALNRANKS", 1)) : 1);
    check_partitions_memory(m, here, o.machine.force);
  }
  if (o.partition_model || !o.partitions.empty()) t.partition_model = partition_counts(o.partitions);
  const std::vector<double> loads = o.sweep.empty() ? std::vector<double>{o.load} : parse_sweep(o.sweep);

  const uint64_t size = t.message_size.count() ? t.message_size.count() : m.network.nic.packet_payload.count();
  fmt::print("mgen traffic {} on {} ({} backend), {} B messages, warm-up {}, window {}\n", o.pattern, m.name,
             m.network.backend == "auto" ? "packet" : m.network.backend, size, config::format_time(t.warmup),
             config::format_time(t.measure));
  fmt::print("{:>8} {:>9} {:>10} {:>10} {:>10} {:>10} {:>9} {:>11} {:>8}\n", "offered", "accepted", "mean_ns", "p50_ns",
             "p99_ns", "max_ns", "messages", "events", "wall_s");
  nlohmann::json points = nlohmann::json::array();
  double last_ok = 0;
  ProgressReporter progress(!lead);
  for (double load : loads) {
    t.load = load;
    t.progress = [&](double sim, uint64_t events) {
      progress.show(fmt::format("load {:.3f}: simulated {} (of at most {}), {} events", load, seconds(sim),
                                config::format_time(t.warmup + t.measure + t.drain_limit), events));
    };
    const traffic::TrafficResult r = building(fmt::format("simulating {} traffic at load {}", o.pattern, load),
                                              [&] { return traffic::run_traffic(m.network, t); });
    fmt::print("{:8.3f} {:9.3f} {:10.1f} {:10.1f} {:10.1f} {:10.1f} {:9} {:11} {:8.2f}{}\n", r.offered, r.accepted,
               r.latency_mean_ns, r.latency_p50_ns, r.latency_p99_ns, r.latency_max_ns, r.measured, r.events, r.wall_s,
               r.saturated ? "  saturated" : "");
    if (r.partitions > 1) {
      fmt::print(
          "  {} partitions on {} thread(s) x {} process(es): {} windows, partition 0 waited {:.2f} s of {:.2f} "
          "s at their ends\n",
          r.partitions, r.partitions / r.processes, r.processes, r.windows, r.sync_wall_s, r.wall_s);
    }
    if (!r.partition_model.empty()) {
      fmt::print("{}", net::PartitionModel::table(r.partition_model, r.events, r.partition_network_events, r.wall_s,
                                                  r.partition_model_s));
    }
    std::fflush(stdout);
    points.push_back(result_json(r));
    if (!o.links_csv.empty() && lead) write_links_csv(o.links_csv, r.links, r.simulated_s());  // the last point's links
    if (loads.size() == 1) {
      const nlohmann::json links = link_summary(r, 5);
      fmt::print("links: mean utilisation {:.3f}; busiest:", links["mean_utilization"].get<double>());
      for (const auto& l : links["busiest"]) {
        fmt::print(" {} ({:.3f})", l["link"].get<std::string>(), l["utilization"].get<double>());
      }
      fmt::print("\n");
    }
    if (r.saturated) {
      if (loads.size() > 1) {
        fmt::print("saturation between offered load {:.3f} and {:.3f}\n", last_ok, load);
      }
      if (!o.full_sweep) break;
    } else {
      last_ok = load;
    }
  }
  if (!lead) return 0;
  if (!o.plot.empty()) {
    plot_traffic(o.plot, points, fmt::format("{} traffic on {}, {} B messages", o.pattern, m.name, size));
  }
  if (!o.report.empty()) {
    write_report(o.report, {{"command", "traffic"},
                            {"pattern", o.pattern},
                            {"message_bytes", size},
                            {"machine", machine_json(m)},
                            {"points", points}});
  }
  return 0;
}

int run_traffic(const TrafficCli& o) {
  if (launch_size("traffic") <= 1) return run_points(o, nullptr);
  // Started by MPICH's mpiexec: the network is cut over the launch's processes, --threads
  // partitions in each. Other processes print nothing: their standard output is closed.
  Mpich mpi("traffic");
  if (mpi.rank() != 0 && !std::freopen("/dev/null", "w", stdout)) mpi.abort(1);
  try {
    return run_points(o, &mpi);
  } catch (const std::exception& e) {
    // The others may be waiting for this one in a collective: end the launch.
    fmt::print(stderr, "mgen: error: {} (process {} of the launch)\n", e.what(), mpi.rank());
    const bool usage = dynamic_cast<const std::invalid_argument*>(&e) || dynamic_cast<const net::ConfigError*>(&e) ||
                       dynamic_cast<const config::Error*>(&e);
    mpi.abort(usage ? 2 : 1);
  }
}

}  // namespace

Runner add_traffic(CLI::App& app) {
  auto* sub = app.add_subcommand("traffic", "synthetic traffic: latency and accepted throughput versus offered load");
  auto o = std::make_shared<TrafficCli>();
  o->machine.attach(*sub);
  std::string patterns;
  for (const auto& p : traffic::pattern_registry())
    patterns += std::string(patterns.empty() ? "" : ", ") + p.name;
  sub->add_option("pattern", o->pattern, "traffic pattern: " + patterns)->required();
  sub->add_option("--load", o->load, "offered load as a fraction of injection bandwidth, in (0, 1] (default 0.3)")
      ->check(check::fraction(false, "an offered load"));
  sub->add_option("--sweep", o->sweep, "loads to sweep: START:STOP:STEP or a comma list; stops at saturation");
  sub->add_flag("--full-sweep", o->full_sweep, "keep sweeping past saturation");
  sub->add_option("--size", o->size, "message size, e.g. 2KiB (default: one full packet)")
      ->check(check::size(1, 1ull << 30));
  sub->add_option("--warmup", o->warmup, "warm-up before measuring (default 20us)")->check(check::duration(true));
  sub->add_option("--measure", o->measure, "measurement window (default 50us)")->check(check::duration(false));
  sub->add_option("--drain", o->drain, "how long to wait for measured messages after the window (default 500us)")
      ->check(check::duration(true));
  sub->add_option("--seed", o->seed, "random seed (default 1)")
      ->check(check::whole(0, std::numeric_limits<uint64_t>::max()));
  sub->add_option("--hotspot-fraction", o->hotspot_fraction, "hotspot: share of messages to the hot endpoint (1)")
      ->check(check::fraction(true, "a share"));
  sub->add_option("--hotspot", o->hotspot, "hotspot: the hot endpoint (0)")
      ->check(check::whole(0, std::numeric_limits<uint32_t>::max()));
  sub->add_option("--report", o->report, "write a JSON report to FILE ('-' for stdout)");
  attach_partition_options(*sub, o->partition_model, o->partitions);
  sub->add_option("--threads,-j", o->threads,
                  "cut the network into T partitions of equal load, one thread each (packet backend); the "
                  "predictions are the one-thread run's to the picosecond (default 1)")
      ->check(check::whole(1, 1024));
  sub->add_option("--plot", o->plot,
                  "draw the latency-load curve with gnuplot: PREFIX-latency.png (latency and accepted load "
                  "against offered load)");
  sub->add_option("--links-csv,--links", o->links_csv,
                  "write per-link statistics (bytes, busy time, utilisation) as CSV");
  return [o] { return run_traffic(*o); };
}

}  // namespace mgen::cli
