// Synthetic traffic: every endpoint is an open-loop source offering a fraction of its injection
// bandwidth to a destination pattern; latency is measured from message creation (so it includes
// source queueing) to delivery, for messages created in a measurement window after a warm-up.
// The network designer's latency-versus-offered-load curve comes from sweeping the load.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mgen/net/network.hpp"
#include "mgen/net/partition.hpp"
#include "mgen/net/partition_model.hpp"

namespace mgen::traffic {

using simcore::Bytes;
using simcore::Time;

struct PatternEntry {
  const char* name;
  const char* description;
};
const std::vector<PatternEntry>& pattern_registry();

struct TrafficOptions {
  std::string pattern = "uniform";
  double load = 0.3;   // offered load: fraction of each endpoint's injection bandwidth
  Bytes message_size;  // 0 = one full packet
  Time warmup = Time::us(20);
  Time measure = Time::us(50);
  Time drain_limit = Time::us(500);  // how long after the window the network may take to drain
  uint64_t seed = 1;
  double hotspot_fraction = 1.0;  // hotspot: share of messages sent to the hot endpoint
  uint32_t hotspot = 0;
  // Benchmark mode: when non-zero, sources run without end and the run stops once this many
  // events have been processed after the warm-up; the steady_* fields of the result describe
  // exactly those events (the measurement window and latency statistics are not used).
  uint64_t steady_events = 0;
  // Called about once per million events with the simulated time (seconds) and the events so
  // far, for a progress line; not called in benchmark mode.
  std::function<void(double, uint64_t)> progress;
  // The partition model (mgen/net/partition_model.hpp) for these partition counts; empty: off.
  // Not in benchmark mode.
  std::vector<uint32_t> partition_model;
  // Partitions of the network, one thread each (mgen/net/partition.hpp): the predictions are the
  // serial run's to the picosecond. 1: serial. Not in benchmark mode, nor with partition_model.
  uint32_t threads = 1;
  // The other processes of an mpiexec launch, each running `threads` partitions of its own
  // (null: this process runs every partition). Every process gets the same result.
  net::PartitionTransport* transport = nullptr;
};

struct TrafficResult {
  double offered = 0;      // offered load (fraction of injection bandwidth, wire bytes)
  double accepted = 0;     // delivered in the window, same units
  uint64_t measured = 0;   // messages created in the window
  uint64_t completed = 0;  // of those, delivered before the drain limit
  double latency_mean_ns = 0, latency_p50_ns = 0, latency_p90_ns = 0, latency_p99_ns = 0, latency_max_ns = 0;
  bool saturated = false;  // measured messages left undelivered, or accepted well below offered
  uint64_t events = 0;
  uint64_t packet_hops = 0;
  std::vector<net::PartitionModel::Row> partition_model;  // when TrafficOptions::partition_model
  uint64_t partition_network_events = 0;
  double partition_model_s = 0;  // the model's own wall time, part of wall_s
  // A partitioned run (TrafficOptions::threads): its partitions, windows, and the wall time the
  // first partition spent waiting for the others at the windows' ends.
  uint32_t partitions = 1;
  uint32_t processes = 1;
  uint64_t windows = 0;
  double sync_wall_s = 0;
  Time simulated;
  double simulated_s() const { return simulated.seconds(); }
  double wall_s = 0;
  // Benchmark mode (TrafficOptions::steady_events): what the events after the warm-up cost and did.
  uint64_t steady_events = 0, steady_hops = 0;
  Time steady_simulated;       // simulated time they covered
  double steady_wall_s = 0;    // wall time they took
  double steady_cpu_s = 0;     // CPU time of this thread over them
  double steady_accepted = 0;  // wire bytes delivered over that stretch, as a fraction of injection
  // Every link's totals over the whole run (utilisation = busy / simulated time).
  std::vector<net::LinkInfo> links;
};

// Throws std::invalid_argument for an unknown pattern or one the machine cannot host
// (transpose needs a power-of-two endpoint count), and net::ConfigError for a bad machine.
TrafficResult run_traffic(const net::NetworkConfig& network, const TrafficOptions& options);

// Destination of endpoint `src` under a deterministic pattern (uniform and hotspot draw from
// `random`, a uniformly distributed 64-bit value). Exposed for tests.
uint32_t destination(const std::string& pattern, const net::Topology& topology, uint32_t src, uint64_t random,
                     const TrafficOptions& options);

}  // namespace mgen::traffic
