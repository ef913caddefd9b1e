// Paraver output (BSC's trace format, the one Dimemas users read their predictions in): the
// predicted run as PREFIX.prv, with the names in PREFIX.pcf and the rows in PREFIX.row.
//
// One Paraver application, one task per rank, one thread per task, one CPU per rank on its
// node. Records, in nanoseconds:
//   state          1:cpu:appl:task:thread:begin:end:state    Running between MPI calls, a
//                                                            state per kind of call inside one
//   event          2:cpu:appl:task:thread:time:type:value     type 50000001: the MPI call entered
//                                                            (value = its number in the .pcf), 0
//                                                            when it returns
//   communication  3:cpu:appl:task:thread:lsend:psend:cpu:appl:task:thread:lrecv:precv:size:tag
// with the logical send (posted), physical send (data leaves), logical receive (posted) and
// physical receive (data in memory) of every message, collective traffic included.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <string_view>
#include <tuple>

#include "cli_common.hpp"

namespace mgen::cli {
namespace {

constexpr int kEventMpiCall = 50000001;

struct StateName {
  int id;
  const char* name;
  const char* color;
};
// Paraver's customary state numbers and colours.
constexpr StateName kStates[] = {
    {0, "Idle", "{117,195,255}"},
    {1, "Running", "{0,0,255}"},
    {3, "Waiting a message", "{255,0,0}"},
    {4, "Blocking Send", "{255,0,174}"},
    {6, "Test/Probe", "{0,255,0}"},
    {8, "Wait/WaitAll", "{235,0,0}"},
    {10, "Immediate Send", "{255,144,26}"},
    {11, "Immediate Receive", "{2,255,177}"},
    {13, "Group Communication", "{255,255,0}"},
    {15, "Others", "{139,0,0}"},
    {16, "Send Receive", "{255,0,255}"},
};

int64_t ns(double s) {
  return std::llround(s * 1e9);
}

// The call's name without its MPI_/MGEN_ prefix.
std::string_view bare(std::string_view name) {
  for (std::string_view prefix : {"MPI_", "MGEN_", "PMPI_"}) {
    if (name.substr(0, prefix.size()) == prefix) return name.substr(prefix.size());
  }
  return name;
}

int state_of(std::string_view call) {
  const std::string_view n = bare(call);
  auto starts = [&](std::string_view p) { return n.substr(0, p.size()) == p; };
  if (starts("Sendrecv")) return 16;
  if (n == "Send" || n == "Ssend" || n == "Bsend" || n == "Rsend") return 4;
  if (n == "Recv" || n == "Mrecv") return 3;
  if (starts("Isend") || starts("Issend") || starts("Ibsend") || starts("Irsend")) return 10;
  if (starts("Irecv")) return 11;
  if (starts("Wait")) return 8;
  if (starts("Test") || starts("Probe") || starts("Iprobe")) return 6;
  for (std::string_view c : {"Barrier",  "Bcast",    "Reduce",     "Allreduce", "Gather", "Scatter", "Allgather",
                             "Alltoall", "Scan",     "Exscan",     "Ibarrier",  "Ibcast", "Ireduce", "Iallreduce",
                             "Igather",  "Iscatter", "Iallgather", "Ialltoall", "Iscan",  "Iexscan"}) {
    if (starts(c)) return 13;
  }
  return 15;
}

}  // namespace

void write_paraver(const std::string& prefix, const config::MachineConfig& m, const mpi::RunReport& r) {
  const size_t ranks = r.ranks.size();
  // Nodes as the run placed the ranks, one CPU per rank. Paraver numbers CPUs node after node,
  // so a rank's CPU is 1 + the CPUs of the nodes before its own + its place among its node's.
  uint32_t nodes = 0;
  for (const mpi::RankReport& k : r.ranks)
    nodes = std::max(nodes, k.node + 1);
  std::vector<uint32_t> cpus_on(nodes, 0), first_cpu(nodes, 1), cpu(ranks);
  for (const mpi::RankReport& k : r.ranks)
    ++cpus_on[k.node];
  for (uint32_t n = 1; n < nodes; ++n)
    first_cpu[n] = first_cpu[n - 1] + cpus_on[n - 1];
  {
    std::vector<uint32_t> used(nodes, 0);
    for (size_t i = 0; i < ranks; ++i)
      cpu[i] = first_cpu[r.ranks[i].node] + used[r.ranks[i].node]++;
  }

  // Call names numbered in order of first appearance.
  std::map<std::string, int, std::less<>> call_ids;
  std::vector<std::string> calls;
  auto call_id = [&](const char* name) {
    const auto it = call_ids.find(std::string_view(name));
    if (it != call_ids.end()) return it->second;
    calls.emplace_back(name);
    return call_ids.emplace(name, static_cast<int>(calls.size())).first->second;
  };

  // (time, record kind, rank, text): sorted so that Paraver reads records in time order.
  std::vector<std::tuple<int64_t, int, uint32_t, std::string>> records;
  const int64_t end = ns(r.predicted_s());
  std::vector<std::vector<const mpi::TimelineEvent*>> by_rank(ranks);
  for (const mpi::TimelineEvent& e : r.timeline)
    by_rank[e.rank].push_back(&e);
  for (size_t i = 0; i < ranks; ++i) {
    const uint32_t task = static_cast<uint32_t>(i) + 1;
    const std::string thread = fmt::format("{}:1:{}:1", cpu[i], task);  // cpu:appl:task:thread
    auto& events = by_rank[i];
    std::stable_sort(events.begin(), events.end(),
                     [](const mpi::TimelineEvent* a, const mpi::TimelineEvent* b) { return a->start_s < b->start_s; });
    int64_t t = 0;
    const mpi::TimelineEvent* last = nullptr;
    for (const mpi::TimelineEvent* e : events) {
      const int64_t b = ns(e->start_s), f = std::max(b, ns(e->end_s));
      // A call inside a call (an MPI binding around its MGEN call, a collective's own calls):
      // the outer one stands. Zero-length ones nest at the same instant under the same name.
      if (b < t) continue;
      if (last && b == ns(last->start_s) && f == ns(last->end_s) && std::string_view(e->name) == last->name) continue;
      last = e;
      if (b > t) records.emplace_back(t, 1, task, fmt::format("1:{}:{}:{}:1", thread, t, b));
      if (f > b) records.emplace_back(b, 1, task, fmt::format("1:{}:{}:{}:{}", thread, b, f, state_of(e->name)));
      records.emplace_back(b, 2, task, fmt::format("2:{}:{}:{}:{}", thread, b, kEventMpiCall, call_id(e->name)));
      records.emplace_back(f, 2, task, fmt::format("2:{}:{}:{}:0", thread, f, kEventMpiCall));
      t = f;
    }
    const int64_t finish = ns(r.ranks[i].finish_s());
    if (finish > t) records.emplace_back(t, 1, task, fmt::format("1:{}:{}:{}:1", thread, t, finish));
  }
  for (const mpi::MessageEvent& e : r.message_log) {
    const uint32_t s = e.src + 1, d = e.dst + 1;
    records.emplace_back(
        ns(e.send_posted_s), 3, s,
        fmt::format("3:{}:1:{}:1:{}:{}:{}:1:{}:1:{}:{}:{}:{}", cpu[e.src], s, ns(e.send_posted_s), ns(e.sent_s),
                    cpu[e.dst], d, ns(e.recv_posted_s), ns(e.received_s), e.bytes, e.tag));
  }
  std::stable_sort(records.begin(), records.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a), std::get<2>(a)) <
           std::tie(std::get<0>(b), std::get<1>(b), std::get<2>(b));
  });

  std::ofstream prv(prefix + ".prv");
  if (!prv) throw std::runtime_error(fmt::format("cannot write the Paraver trace {}.prv", prefix));
  // Header: date, duration, resource model (nodes and their CPUs), one application whose
  // tasks each have one thread on their node.
  std::string resources = fmt::format("{}(", nodes);
  for (uint32_t n = 0; n < nodes; ++n)
    resources += fmt::format("{}{}", n ? "," : "", cpus_on[n]);
  resources += ")";
  std::string tasks = fmt::format("{}(", ranks);
  for (size_t i = 0; i < ranks; ++i)
    tasks += fmt::format("{}1:{}", i ? "," : "", r.ranks[i].node + 1);
  tasks += ")";
  prv << fmt::format("#Paraver (01/01/70 at 00:00):{}_ns:{}:1:{}\n", end, resources, tasks);
  for (const auto& rec : records)
    prv << std::get<3>(rec) << '\n';
  if (!prv) throw std::runtime_error(fmt::format("failed writing {}.prv", prefix));

  std::ofstream pcf(prefix + ".pcf");
  if (!pcf) throw std::runtime_error(fmt::format("cannot write {}.pcf", prefix));
  pcf << "DEFAULT_OPTIONS\n\nLEVEL               THREAD\nUNITS               NANOSEC\nLOOK_BACK           100\n"
         "SPEED               1\nFLAG_ICONS          ENABLED\nNUM_OF_STATE_COLORS 1000\nYMAX_SCALE          37\n\n"
         "DEFAULT_SEMANTIC\n\nTHREAD_FUNC          State As Is\n\n\nSTATES\n";
  for (const StateName& s : kStates)
    pcf << fmt::format("{:<4} {}\n", s.id, s.name);
  pcf << "\n\nSTATES_COLOR\n";
  for (const StateName& s : kStates)
    pcf << fmt::format("{:<4} {}\n", s.id, s.color);
  pcf << fmt::format("\n\nEVENT_TYPE\n0    {}    MPI call (predicted by mgen on {})\nVALUES\n0   Outside MPI\n",
                     kEventMpiCall, m.name);
  for (size_t i = 0; i < calls.size(); ++i)
    pcf << fmt::format("{}   {}\n", i + 1, calls[i]);
  if (!pcf) throw std::runtime_error(fmt::format("failed writing {}.pcf", prefix));

  std::ofstream row(prefix + ".row");
  if (!row) throw std::runtime_error(fmt::format("cannot write {}.row", prefix));
  // CPUs in Paraver's order: node after node.
  std::vector<size_t> by_cpu(ranks);
  for (size_t i = 0; i < ranks; ++i)
    by_cpu[cpu[i] - 1] = i;
  row << fmt::format("LEVEL CPU SIZE {}\n", ranks);
  for (size_t c = 0; c < ranks; ++c)
    row << fmt::format("{}.{}\n", r.ranks[by_cpu[c]].node + 1, cpu[by_cpu[c]] - first_cpu[r.ranks[by_cpu[c]].node] + 1);
  row << fmt::format("\nLEVEL NODE SIZE {}\n", nodes);
  for (uint32_t n = 0; n < nodes; ++n)
    row << fmt::format("node {}\n", n + 1);
  row << fmt::format("\nLEVEL THREAD SIZE {}\n", ranks);
  for (size_t i = 0; i < ranks; ++i)
    row << fmt::format("rank {}\n", i);
  if (!row) throw std::runtime_error(fmt::format("failed writing {}.row", prefix));
}

}  // namespace mgen::cli
