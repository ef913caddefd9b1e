#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "colls/colls.hpp"
#include "core/world.hpp"
#include "mgen/mpi/run.hpp"
#include "mgen/net/partition.hpp"

namespace mgen::mpi {

namespace {

// Turns a finished run into its report: the ranks from the worlds that ran them (one world, or
// one per partition), the network's counts summed (each partition counts what it drove).
RunReport report(const std::vector<World*>& worlds, const RunOutcome& out, const JobConfig& job) {
  const World& w0 = *worlds.front();
  RunReport r;
  r.ok = out.ok;
  r.status = out.status;
  r.signal = out.signal;
  r.error = out.error;
  r.predicted = out.predicted;
  r.backend = w0.network().backend_name();
  r.drained = out.drained;
  for (const World* w : worlds) {
    r.events += w->engine().events_processed();
    r.messages += w->messages();
    r.intra_node_messages += w->intra_node_messages();
    const net::NetworkTotals t = w->network().totals();
    r.network.messages_injected += t.messages_injected;
    r.network.messages_delivered += t.messages_delivered;
    r.network.packets += t.packets;
    r.network.packet_hops += t.packet_hops;
    r.network.payload_bytes += t.payload_bytes;
    r.network.latency_sum += t.latency_sum;
    r.network.latency_max = simcore::max(r.network.latency_max, t.latency_max);
    r.network.last_arrival = simcore::max(r.network.last_arrival, t.last_arrival);
    r.network.solves += t.solves;
    r.network.flows_resolved += t.flows_resolved;
    // Each link's statistics are kept by the partition that drives it; the others' are zero.
    std::vector<net::LinkInfo> links = w->network().links();
    if (r.links.empty()) {
      r.links = std::move(links);
    } else {
      for (size_t i = 0; i < links.size(); ++i) {
        r.links[i].stats.bytes += links[i].stats.bytes;
        r.links[i].stats.packets += links[i].stats.packets;
        r.links[i].stats.busy += links[i].stats.busy;
      }
    }
  }
  r.ranks.reserve(w0.size());
  auto owner = [&](RankId i) -> const World& {
    for (const World* w : worlds) {
      if (w->mine(i)) return *w;
    }
    return w0;
  };
  for (RankId i = 0; i < w0.size(); ++i) {
    const Rank& rank = owner(i).rank(i);
    RankReport k;
    k.rank = i;
    k.node = rank.node;
    k.finish = rank.finished_at;
    k.compute = rank.stats.compute;
    k.overhead = rank.stats.overhead;
    k.wait = rank.stats.wait;
    k.messages = rank.stats.messages_sent;
    k.bytes = rank.stats.bytes_sent;
    k.calls = rank.stats.calls;
    for (const CallTally& t : rank.call_tally)
      k.functions.push_back(FunctionReport{t.name, t.calls, t.bytes, t.time});
    r.ranks.push_back(k);
    r.bytes += rank.stats.bytes_sent;
    for (const TimelineEntry& e : rank.timeline)
      r.timeline.push_back(TimelineEvent{i, e.name, e.start.seconds(), e.end.seconds()});
  }
  if (job.call_log) {
    r.call_log.resize(w0.size());
    for (RankId i = 0; i < w0.size(); ++i)
      r.call_log[i] = owner(i).rank(i).calls;
    std::map<uint64_t, std::vector<uint32_t>> comms;
    for (const World* w : worlds)
      comms.insert(w->logged_comms().begin(), w->logged_comms().end());
    for (const auto& [context, members] : comms)
      r.comms.push_back(CommMembers{context, members});
  }
  for (const World* w : worlds) {
    for (const World::MessageRecord& m : w->message_log()) {
      r.message_log.push_back(MessageEvent{m.src, m.dst, m.send_posted.seconds(), m.sent.seconds(),
                                           m.recv_posted.seconds(), m.received.seconds(), m.bytes, m.tag,
                                           m.collective});
    }
  }
  if (worlds.size() > 1) {
    // In order of receipt, as one world logs them (same-time receipts by receiver).
    std::stable_sort(r.message_log.begin(), r.message_log.end(), [](const MessageEvent& a, const MessageEvent& b) {
      return a.received_s != b.received_s ? a.received_s < b.received_s : a.dst < b.dst;
    });
  }
  return r;
}

// Thrown from a partition's window when its world stopped with an error: every partition stops
// after that window.
struct PartitionStopped {};

RunReport run_partitioned(const MachineSetup& machine, const JobConfig& job, const RankMain& main, int argc,
                          char** argv, const Progress& progress) {
  const uint32_t parts = job.threads;
  std::vector<std::unique_ptr<World>> worlds;
  for (uint32_t i = 0; i < parts; ++i) {
    worlds.push_back(std::make_unique<World>(machine.network, machine.mpi, machine.node, job));
    worlds.back()->set_collectives(machine.collectives);
  }
  World& w0 = *worlds.front();
  if (!w0.network().partitionable()) {
    throw std::invalid_argument(fmt::format("the {} backend cannot be partitioned: run the job without --threads",
                                            w0.network().backend_name()));
  }
  // Cut where the ranks are: a router's weight is the ranks on it.
  const net::Topology& t = w0.network().topology();
  std::vector<uint32_t> weight(t.routers(), 0);
  for (RankId i = 0; i < w0.size(); ++i)
    ++weight[t.endpoint_router(w0.rank(i).endpoint)];
  const net::PartitionPlan plan = net::cut_routers(t, parts, weight);
  GroupTable groups;
  for (uint32_t i = 0; i < parts; ++i)
    worlds[i]->join_partition(plan, i, groups);
  for (uint32_t i = 0; i < parts; ++i)
    worlds[i]->prepare(main, argc, argv);
  // Progress: each partition posts its figures after its windows; the first thread adds them up
  // between windows, about every 65,536 events as a serial run does.
  struct Posted {
    std::atomic<uint64_t> events{0};
    std::atomic<int64_t> now{0};
    std::atomic<uint32_t> finished{0};
  };
  std::vector<Posted> posted(parts);
  uint64_t reported = 0;

  std::vector<RunOutcome> outcomes(parts);
  std::vector<char> stopped(parts, 0);
  net::PartitionHooks hooks;
  hooks.next_time = [&](uint32_t i) { return worlds[i]->engine().next_time(); };
  hooks.run = [&](uint32_t i, Time until) {
    World& w = *worlds[i];
    w.network().set_window_end(until == Time::max() ? Time::max() : until + Time::ps(1));
    const bool going = w.run_until(until);
    posted[i].events.store(w.engine().events_processed(), std::memory_order_relaxed);
    posted[i].now.store(simcore::min(until, w.engine().now()).count_ps(), std::memory_order_relaxed);
    posted[i].finished.store(w.ranks_finished(), std::memory_order_relaxed);
    if (!going) {
      stopped[i] = 1;
      throw PartitionStopped{};
    }
  };
  hooks.between = [&](uint64_t) {
    if (!progress) return;
    ProgressInfo info;
    int64_t least = std::numeric_limits<int64_t>::max();
    for (const Posted& p : posted) {
      info.events += p.events.load(std::memory_order_relaxed);
      least = std::min(least, p.now.load(std::memory_order_relaxed));
      info.ranks_finished += p.finished.load(std::memory_order_relaxed);
    }
    if (info.events - reported < (uint64_t{1} << 16)) return;
    reported = info.events;
    info.simulated_s = Time::ps(least).seconds();
    progress(info);
  };
  hooks.pack = [&](uint32_t i, uint32_t j, std::string& out) { return worlds[i]->network().pack_crossings(j, out); };
  hooks.take = [&](uint32_t i, std::string_view bytes, Time end) { worlds[i]->network().take_crossings(bytes, end); };
  std::vector<World::Deadlock> deadlocks(parts);
  hooks.done = [&](uint32_t i) {
    deadlocks[i] = worlds[i]->deadlock();  // read before finish() unwinds the ranks
    outcomes[i] = worlds[i]->finish();
  };
  net::PartitionLayout layout;
  layout.parts = parts;
  layout.local = parts;
  net::WindowStats windows;
  try {
    windows = net::run_windows(layout, plan.lookahead, Time::max(), hooks);
  } catch (const PartitionStopped&) {
    // Reported below, from the partition that stopped.
  }

  RunOutcome out;
  for (const RunOutcome& o : outcomes) {
    out.predicted = simcore::max(out.predicted, o.predicted);
    out.drained = simcore::max(out.drained, o.drained);
  }
  // The first partition that stopped with an error says why; else every partition that ended
  // with ranks blocked (a deadlock) says which of its ranks wait for what.
  for (uint32_t i = 0; i < parts && out.ok; ++i) {
    if (stopped[i]) {
      out.ok = false;
      out.error = outcomes[i].error;
      out.status = outcomes[i].status;
      out.signal = outcomes[i].signal;
    }
  }
  if (out.ok && std::any_of(outcomes.begin(), outcomes.end(), [](const RunOutcome& o) { return !o.ok; })) {
    out.ok = false;
    out.status = RunStatus::kFailed;
    out.error = World::deadlock_report(deadlocks, w0.size());
  }
  std::vector<World*> all;
  for (auto& w : worlds)
    all.push_back(w.get());
  RunReport r = report(all, out, job);
  r.partitions = parts;
  r.windows = windows.windows;
  r.sync_wall_s = windows.sync_wall_s;
  return r;
}

}  // namespace

RunReport run_job(const MachineSetup& machine, const JobConfig& job, const RankMain& main,
                  const std::vector<std::string>& args, const Progress& progress) {
  colls::validate(machine.collectives);
  const auto wall_start = std::chrono::steady_clock::now();
  std::vector<std::string> argv_strings(args);
  std::vector<char*> argv;
  for (std::string& s : argv_strings)
    argv.push_back(s.data());
  argv.push_back(nullptr);
  const int argc = static_cast<int>(argv_strings.size());
  if (job.threads > 1) {
    RunReport r = run_partitioned(machine, job, main, argc, argv.data(), progress);
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return r;
  }
  World world(machine.network, machine.mpi, machine.node, job);
  world.set_collectives(machine.collectives);
  const RunOutcome out = world.run(main, argc, argv.data(), progress);
  RunReport r = report({&world}, out, job);
  if (net::PartitionModel* pm = world.partition_model()) {
    r.partition_model = pm->rows();
    r.partition_network_events = pm->network_events();
    r.partition_model_s = pm->seconds();
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return r;
}

}  // namespace mgen::mpi
