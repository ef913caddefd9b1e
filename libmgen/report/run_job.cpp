#include <fmt/format.h>

#include <chrono>
#include <stdexcept>

#include "colls/colls.hpp"
#include "core/world.hpp"
#include "mgen/mpi/run.hpp"

namespace mgen::mpi {

RunReport run_job(const MachineSetup& machine, const JobConfig& job, const RankMain& main,
                  const std::vector<std::string>& args, const Progress& progress) {
  colls::validate(machine.collectives);
  const auto wall_start = std::chrono::steady_clock::now();
  World world(machine.network, machine.mpi, machine.node, job);
  world.set_collectives(machine.collectives);
  std::vector<std::string> argv_strings(args);
  std::vector<char*> argv;
  for (std::string& s : argv_strings)
    argv.push_back(s.data());
  argv.push_back(nullptr);
  const RunOutcome out = world.run(main, static_cast<int>(argv_strings.size()), argv.data(), progress);

  RunReport r;
  r.ok = out.ok;
  r.status = out.status;
  r.signal = out.signal;
  r.error = out.error;
  r.predicted = out.predicted;
  r.backend = world.network().backend_name();
  r.drained = out.drained;
  r.events = world.engine().events_processed();
  r.messages = world.messages();
  r.intra_node_messages = world.intra_node_messages();
  r.network = world.network().totals();
  r.links = world.network().links();
  r.ranks.reserve(world.size());
  for (RankId i = 0; i < world.size(); ++i) {
    const Rank& rank = world.rank(i);
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
    r.call_log.resize(world.size());
    for (RankId i = 0; i < world.size(); ++i)
      r.call_log[i] = world.rank(i).calls;
    for (const auto& [context, members] : world.logged_comms())
      r.comms.push_back(CommMembers{context, members});
  }
  r.message_log.reserve(world.message_log().size());
  for (const World::MessageRecord& m : world.message_log()) {
    r.message_log.push_back(MessageEvent{m.src, m.dst, m.send_posted.seconds(), m.sent.seconds(),
                                         m.recv_posted.seconds(), m.received.seconds(), m.bytes, m.tag, m.collective});
  }
  if (net::PartitionModel* pm = world.partition_model()) {
    r.partition_model = pm->rows();
    r.partition_network_events = pm->network_events();
    r.partition_model_s = pm->seconds();
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return r;
}

}  // namespace mgen::mpi
