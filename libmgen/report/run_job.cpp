#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <type_traits>
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
    r.network.paced_solves += t.paced_solves;
    r.network.paced_waits += t.paced_waits;
    r.network.paced_wait_sum += t.paced_wait_sum;
    r.network.mice += t.mice;
    net::add_links(r.links, w->network().links());
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

// Bytes between the processes of a launch: plain values and strings, in order.
struct Writer {
  std::string out;
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void put(const std::string& v) {
    put(static_cast<uint64_t>(v.size()));
    out.append(v);
  }
};
struct Reader {
  std::string_view in;
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    if (in.size() < sizeof v) throw std::logic_error("partitioned run: a truncated record from another process");
    std::memcpy(static_cast<void*>(&v), in.data(), sizeof v);
    in.remove_prefix(sizeof v);
    return v;
  }
  std::string text() {
    const auto n = get<uint64_t>();
    if (in.size() < n) throw std::logic_error("partitioned run: a truncated record from another process");
    std::string v(in.substr(0, n));
    in.remove_prefix(n);
    return v;
  }
};

// A partition that stopped with an error: when (its last event) and how.
using Failure = std::pair<Time, RunOutcome>;

// What every process needs of the others to write the run's report: the ranks it ran, the
// failures of its partitions and their deadlocks, and the counts summed or maximised over
// processes. On return `r`, `out`'s times, `failures` and `deadlocks` are the whole run's
// (in process order).
void merge_processes(net::PartitionTransport& transport, const std::vector<World*>& worlds,
                     std::vector<Failure>& failures, std::vector<World::Deadlock>& deadlocks, RunOutcome& out,
                     RunReport& r) {
  // Sums: the report's counters and every link's statistics.
  std::vector<uint64_t> sums = {r.events,
                                r.messages,
                                r.intra_node_messages,
                                r.bytes,
                                r.network.messages_injected,
                                r.network.messages_delivered,
                                r.network.packets,
                                r.network.packet_hops,
                                r.network.payload_bytes,
                                static_cast<uint64_t>(r.network.latency_sum.count_ps()),
                                r.network.solves,
                                r.network.flows_resolved,
                                r.network.paced_solves,
                                r.network.paced_waits,
                                static_cast<uint64_t>(r.network.paced_wait_sum.count_ps()),
                                r.network.mice};
  const size_t fixed = sums.size();
  for (const net::LinkInfo& l : r.links) {
    sums.push_back(l.stats.bytes);
    sums.push_back(l.stats.packets);
    sums.push_back(static_cast<uint64_t>(l.stats.busy.count_ps()));
  }
  transport.sum(sums);
  r.events = sums[0];
  r.messages = sums[1];
  r.intra_node_messages = sums[2];
  r.bytes = sums[3];
  r.network.messages_injected = sums[4];
  r.network.messages_delivered = sums[5];
  r.network.packets = sums[6];
  r.network.packet_hops = sums[7];
  r.network.payload_bytes = sums[8];
  r.network.latency_sum = Time::ps(static_cast<int64_t>(sums[9]));
  r.network.solves = sums[10];
  r.network.flows_resolved = sums[11];
  r.network.paced_solves = sums[12];
  r.network.paced_waits = sums[13];
  r.network.paced_wait_sum = Time::ps(static_cast<int64_t>(sums[14]));
  r.network.mice = sums[15];
  for (size_t i = 0; i < r.links.size(); ++i) {
    r.links[i].stats.bytes = sums[fixed + 3 * i];
    r.links[i].stats.packets = sums[fixed + 3 * i + 1];
    r.links[i].stats.busy = Time::ps(static_cast<int64_t>(sums[fixed + 3 * i + 2]));
  }
  // Maxima, as the least of their negatives.
  auto most = [&](Time t) { return Time::ps(-transport.min(-t.count_ps())); };
  out.predicted = most(out.predicted);
  out.drained = most(out.drained);
  r.network.latency_max = most(r.network.latency_max);
  r.network.last_arrival = most(r.network.last_arrival);

  // Records: the ranks this process ran, its stopped partitions' errors, its deadlocks.
  auto here = [&](RankId k) {
    return std::any_of(worlds.begin(), worlds.end(), [&](const World* x) { return x->mine(k); });
  };
  Writer w;
  w.put(static_cast<uint64_t>(
      std::count_if(r.ranks.begin(), r.ranks.end(), [&](const RankReport& k) { return here(k.rank); })));
  for (const RankReport& k : r.ranks) {
    if (!here(k.rank)) continue;
    w.put(k.rank);
    w.put(k.node);
    w.put(k.finish);
    w.put(k.compute);
    w.put(k.overhead);
    w.put(k.wait);
    w.put(k.messages);
    w.put(k.bytes);
    w.put(k.calls);
    w.put(static_cast<uint64_t>(k.functions.size()));
    for (const FunctionReport& f : k.functions) {
      w.put(f.name);
      w.put(f.calls);
      w.put(f.bytes);
      w.put(f.time);
    }
  }
  w.put(static_cast<uint64_t>(failures.size()));
  for (const auto& [when, f] : failures) {
    w.put(when);
    w.put(f.status);
    w.put(f.signal);
    w.put(f.error);
  }
  w.put(static_cast<uint64_t>(deadlocks.size()));
  for (const World::Deadlock& d : deadlocks) {
    w.put(static_cast<uint64_t>(d.ranks));
    w.put(d.at);
    w.put(d.notes);
    w.put(d.stuck);
    w.put(static_cast<uint64_t>(d.lines.size()));
    for (const std::string& line : d.lines)
      w.put(line);
    for (uint32_t rank : d.of)
      w.put(rank);
  }
  Writer framed;
  framed.put(w.out);
  const std::string all = transport.gather(framed.out);

  // Every process's records, in process order.
  Reader in{all};
  std::vector<RankReport> every(r.ranks.size());
  std::vector<Failure> all_failures;
  std::vector<World::Deadlock> all_deadlocks;
  while (!in.in.empty()) {
    const std::string blob = in.text();
    Reader b{blob};
    for (auto n = b.get<uint64_t>(); n > 0; --n) {
      RankReport k;
      k.rank = b.get<uint32_t>();
      k.node = b.get<uint32_t>();
      k.finish = b.get<Time>();
      k.compute = b.get<Time>();
      k.overhead = b.get<Time>();
      k.wait = b.get<Time>();
      k.messages = b.get<uint64_t>();
      k.bytes = b.get<uint64_t>();
      k.calls = b.get<uint64_t>();
      for (auto f = b.get<uint64_t>(); f > 0; --f) {
        FunctionReport fr;
        fr.name = b.text();
        fr.calls = b.get<uint64_t>();
        fr.bytes = b.get<uint64_t>();
        fr.time = b.get<Time>();
        k.functions.push_back(std::move(fr));
      }
      every.at(k.rank) = std::move(k);
    }
    for (auto n = b.get<uint64_t>(); n > 0; --n) {
      Failure f;
      f.first = b.get<Time>();
      f.second.ok = false;
      f.second.status = b.get<RunStatus>();
      f.second.signal = b.get<int>();
      f.second.error = b.text();
      all_failures.push_back(std::move(f));
    }
    for (auto n = b.get<uint64_t>(); n > 0; --n) {
      World::Deadlock d;
      d.ranks = b.get<uint64_t>();
      d.at = b.get<Time>();
      d.notes = b.text();
      d.stuck = b.text();
      for (auto l = b.get<uint64_t>(); l > 0; --l)
        d.lines.push_back(b.text());
      for (size_t l = 0; l < d.ranks; ++l)
        d.of.push_back(b.get<uint32_t>());
      all_deadlocks.push_back(std::move(d));
    }
  }
  r.ranks = std::move(every);
  failures = std::move(all_failures);
  deadlocks = std::move(all_deadlocks);
}

RunReport run_partitioned(const MachineSetup& machine, const JobConfig& job, const RankMain& main, int argc,
                          char** argv, const Progress& progress) {
  net::PartitionTransport* const transport = job.transport;
  net::PartitionLayout layout;
  layout.local = job.threads;
  layout.transport = transport;
  layout.parts = layout.local * (transport ? transport->size() : 1);
  const uint32_t local = layout.local, parts = layout.parts, first = layout.first();
  if (transport && (job.timeline || job.message_log || job.call_log)) {
    throw std::invalid_argument(
        "a job over the processes of an mpiexec cannot write timelines, Paraver or OTF2 traces yet: run it in one "
        "process (--threads T on its own)");
  }
  std::vector<std::unique_ptr<World>> worlds;  // this process's partitions: first, first + 1, ...
  for (uint32_t i = 0; i < local; ++i) {
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
  for (uint32_t i = 0; i < local; ++i)
    worlds[i]->join_partition(plan, first + i, groups, transport != nullptr);
  for (uint32_t i = 0; i < local; ++i)
    worlds[i]->prepare(main, argc, argv);
  // Progress: each partition posts its figures after its windows; the first thread adds them up
  // between windows, about every 65,536 events as a serial run does (this process's partitions).
  struct Posted {
    std::atomic<uint64_t> events{0};
    std::atomic<int64_t> now{0};
    std::atomic<uint32_t> finished{0};
  };
  std::vector<Posted> posted(local);
  uint64_t reported = 0;

  std::vector<RunOutcome> outcomes(local);
  std::vector<char> stopped(local, 0);
  std::vector<World::Deadlock> deadlocks(local);
  net::PartitionHooks hooks;
  hooks.next_time = [&](uint32_t i) { return worlds[i - first]->engine().next_time(); };
  hooks.run = [&](uint32_t i, Time until) {
    World& w = *worlds[i - first];
    w.network().set_window_end(until == Time::max() ? Time::max() : until + Time::ps(1));
    const bool going = w.run_until(until);
    Posted& p = posted[i - first];
    p.events.store(w.engine().events_processed(), std::memory_order_relaxed);
    p.now.store(simcore::min(until, w.engine().now()).count_ps(), std::memory_order_relaxed);
    p.finished.store(w.ranks_finished(), std::memory_order_relaxed);
    if (!going) {
      stopped[i - first] = 1;
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
  hooks.pack = [&](uint32_t i, uint32_t j, std::string& out) {
    return worlds[i - first]->network().pack_crossings(j, out);
  };
  hooks.take = [&](uint32_t i, std::string_view bytes, Time end) {
    worlds[i - first]->network().take_crossings(bytes, end);
  };
  hooks.done = [&](uint32_t i) {
    deadlocks[i - first] = worlds[i - first]->deadlock();  // read before finish() unwinds the ranks
    outcomes[i - first] = worlds[i - first]->finish();
  };
  net::WindowStats windows;
  try {
    windows = net::run_windows(layout, plan.lookahead, Time::max(), hooks);
  } catch (const PartitionStopped&) {
    // Reported below, from the partition that stopped.
  } catch (const std::runtime_error& e) {
    // A partition of another process stopped (reported below, from there); anything else is
    // this process's own failure.
    if (!transport || std::string_view(e.what()) != "a partition of another process failed") throw;
  }

  RunOutcome out;
  for (const RunOutcome& o : outcomes) {
    out.predicted = simcore::max(out.predicted, o.predicted);
    out.drained = simcore::max(out.drained, o.drained);
  }
  std::vector<World*> all;
  for (auto& w : worlds)
    all.push_back(w.get());
  RunReport r = report(all, out, job);
  // The partitions that stopped with an error, and what every other one has blocked (ranks,
  // helpers, stuck packets: a deadlock's parts may lie in partitions whose ranks all finished);
  // over processes, every process's.
  std::vector<Failure> failures;
  std::vector<World::Deadlock> blocked;
  for (uint32_t i = 0; i < local; ++i) {
    if (stopped[i]) {
      failures.emplace_back(worlds[i]->last_event(), outcomes[i]);
    } else {
      blocked.push_back(std::move(deadlocks[i]));
    }
  }
  if (transport) merge_processes(*transport, all, failures, blocked, out, r);
  // The first failure in simulated time says why the run stopped (ties: the lowest partition's);
  // without one, the blocked ranks of every partition make one deadlock report.
  const auto first_failure = std::min_element(failures.begin(), failures.end(),
                                              [](const Failure& a, const Failure& b) { return a.first < b.first; });
  if (first_failure != failures.end()) {
    out.ok = false;
    out.error = first_failure->second.error;
    out.status = first_failure->second.status;
    out.signal = first_failure->second.signal;
  } else if (std::any_of(blocked.begin(), blocked.end(), [](const World::Deadlock& d) { return !d.lines.empty(); })) {
    out.ok = false;
    out.status = RunStatus::kFailed;
    out.error = World::deadlock_report(blocked, w0.size());
  }
  r.ok = out.ok;
  r.status = out.status;
  r.signal = out.signal;
  r.error = out.error;
  r.predicted = out.predicted;
  r.drained = out.drained;
  r.partitions = parts;
  r.processes = transport ? transport->size() : 1;  // (r.partitions: all processes')
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
  if (job.threads > 1 || job.transport) {
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
