// The predicted run as an OTF2 archive (otf2.hpp, docs/otf2.md), from the run's call log.
//
// Definitions: the machine as the system tree (machine -> node k), a location group (an MPI
// process) and a location (its thread) per rank, one region per call name (MPI paradigm; MGEN_*
// calls too, since they mirror MPI's) and a user region "compute" for the time between calls,
// MPI_COMM_WORLD, MPI_COMM_SELF and every other communicator the calls named, each with its
// group of world ranks.
//
// Events, as Score-P records them: a call posting a send whose request it also completes is a
// blocking send (MpiSend), otherwise MpiIsend ... MpiIsendComplete in the call that completes it;
// receives likewise (MpiRecv when completed, or MpiIrecvRequest ... MpiIrecv). Collectives are
// MpiCollectiveBegin at the check of their arguments and MpiCollectiveEnd before the call's
// Leave, with Score-P's byte counts (every rank's sizes sent and received: a root's Bcast sends
// size x bytes).
#include <fmt/format.h>
#include <otf2/otf2.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <unordered_map>

#include "otf2.hpp"

namespace mgen::cli {
namespace {

namespace fs = std::filesystem;
using mpi::CallEvent;
using Kind = CallEvent::Kind;

constexpr uint64_t kWorldContext = 2, kSelfContext = 4;  // libmgen's predefined communicators
constexpr uint64_t kUnchecked = ~uint64_t{0};

void check(OTF2_ErrorCode code, const char* what) {
  if (code != OTF2_SUCCESS) {
    throw std::runtime_error(fmt::format("writing the OTF2 archive: {}: {}", what, OTF2_Error_GetDescription(code)));
  }
}

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
  return OTF2_FLUSH;
}
OTF2_TimeStamp post_flush(void*, OTF2_FileType, OTF2_LocationRef) {
  return 0;
}
// Flushed whenever a buffer fills; the clock after a flush is not recorded (no flush events).
const OTF2_FlushCallbacks kFlushCallbacks = {pre_flush, post_flush};

// The call as MPI names it: MGEN_Send is MPI_Send.
std::string mpi_name(const char* name) {
  return std::strncmp(name, "MGEN_", 5) == 0 ? "MPI_" + std::string(name + 5) : std::string(name);
}

OTF2_RegionRole role_of(const std::string& name) {
  static const std::map<std::string, OTF2_RegionRole> kRoles = {
      {"MPI_Barrier", OTF2_REGION_ROLE_BARRIER},
      {"MPI_Bcast", OTF2_REGION_ROLE_COLL_ONE2ALL},
      {"MPI_Scatter", OTF2_REGION_ROLE_COLL_ONE2ALL},
      {"MPI_Scatterv", OTF2_REGION_ROLE_COLL_ONE2ALL},
      {"MPI_Gather", OTF2_REGION_ROLE_COLL_ALL2ONE},
      {"MPI_Gatherv", OTF2_REGION_ROLE_COLL_ALL2ONE},
      {"MPI_Reduce", OTF2_REGION_ROLE_COLL_ALL2ONE},
      {"MPI_Allreduce", OTF2_REGION_ROLE_COLL_ALL2ALL},
      {"MPI_Allgather", OTF2_REGION_ROLE_COLL_ALL2ALL},
      {"MPI_Allgatherv", OTF2_REGION_ROLE_COLL_ALL2ALL},
      {"MPI_Alltoall", OTF2_REGION_ROLE_COLL_ALL2ALL},
      {"MPI_Alltoallv", OTF2_REGION_ROLE_COLL_ALL2ALL},
      {"MPI_Reduce_scatter", OTF2_REGION_ROLE_COLL_ALL2ALL},
      {"MPI_Reduce_scatter_block", OTF2_REGION_ROLE_COLL_ALL2ALL},
      {"MPI_Scan", OTF2_REGION_ROLE_COLL_OTHER},
      {"MPI_Exscan", OTF2_REGION_ROLE_COLL_OTHER},
  };
  if (const auto it = kRoles.find(name); it != kRoles.end()) return it->second;
  for (const char* p2p : {"Send", "Recv", "send", "recv", "Wait", "Test", "Probe", "probe", "Start"}) {
    if (name.find(p2p) != std::string::npos) return OTF2_REGION_ROLE_POINT2POINT;
  }
  return OTF2_REGION_ROLE_FUNCTION;
}

std::optional<OTF2_CollectiveOp> collective_op(const char* kind) {
  static const std::map<std::string, OTF2_CollectiveOp, std::less<>> kOps = {
      {"barrier", OTF2_COLLECTIVE_OP_BARRIER},
      {"bcast", OTF2_COLLECTIVE_OP_BCAST},
      {"gather", OTF2_COLLECTIVE_OP_GATHER},
      {"gatherv", OTF2_COLLECTIVE_OP_GATHERV},
      {"scatter", OTF2_COLLECTIVE_OP_SCATTER},
      {"scatterv", OTF2_COLLECTIVE_OP_SCATTERV},
      {"allgather", OTF2_COLLECTIVE_OP_ALLGATHER},
      {"allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV},
      {"alltoall", OTF2_COLLECTIVE_OP_ALLTOALL},
      {"alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV},
      {"allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE},
      {"reduce", OTF2_COLLECTIVE_OP_REDUCE},
      {"reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER},
      {"reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK},
      {"scan", OTF2_COLLECTIVE_OP_SCAN},
      {"exscan", OTF2_COLLECTIVE_OP_EXSCAN},
  };
  const auto it = kOps.find(std::string_view(kind));
  if (it == kOps.end()) return std::nullopt;
  return it->second;
}

// Score-P's sizes sent and received by one member of a collective (its MPI adapter's byte
// counts): `b` is what the call passes per member (a reduction's count x type size, a gather's
// block), v-forms pass their own share and the sum of all shares.
std::pair<uint64_t, uint64_t> collective_sizes(const CallEvent& e) {
  const uint64_t n = e.comm_size, me = e.comm_rank;
  const uint64_t b = e.bytes == kUnchecked ? 0 : e.bytes, own = e.own == kUnchecked ? 0 : e.own;
  const bool root = e.peer >= 0 && static_cast<uint64_t>(e.peer) == me;
  const std::string_view k = e.name;
  if (k == "bcast" || k == "scatter") return {root ? n * b : 0, b};
  if (k == "gather" || k == "reduce") return {b, root ? n * b : 0};
  if (k == "allreduce" || k == "allgather" || k == "alltoall" || k == "reduce_scatter_block") return {n * b, n * b};
  if (k == "scan") return {(n - me) * b, (me + 1) * b};
  if (k == "exscan") return {(n - 1 - me) * b, me * b};
  if (k == "gatherv") return {own, root ? b : 0};
  if (k == "scatterv") return {root ? b : 0, own};
  if (k == "allgatherv") return {n * own, b};
  if (k == "reduce_scatter") return {b, n * own};
  return {0, 0};  // barrier; alltoallv (its counts are not logged)
}

// The send or receive a call posted, and where its request completed.
struct Posted {
  size_t done = SIZE_MAX;  // index of the kDone event, or none
  bool blocking = false;   // completed in the call that posted it
};

class Writer {
 public:
  Writer(const fs::path& dir, const config::MachineConfig& m, const mpi::RunReport& r) : m_(m), r_(r) {
    archive_ = OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20, OTF2_SUBSTRATE_POSIX,
                                 OTF2_COMPRESSION_NONE);
    if (archive_ == nullptr)
      throw std::runtime_error(fmt::format("cannot create the OTF2 archive in {}", dir.string()));
    check(OTF2_Archive_SetFlushCallbacks(archive_, &kFlushCallbacks, nullptr), "flush callbacks");
    check(OTF2_Archive_SetSerialCollectiveCallbacks(archive_), "collective callbacks");
    check(OTF2_Archive_SetCreator(archive_, "mgen (predicted run)"), "creator");
    check(OTF2_Archive_OpenEvtFiles(archive_), "event files");
  }
  ~Writer() {
    if (archive_ != nullptr) OTF2_Archive_Close(archive_);
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  void write() {
    const size_t ranks = r_.ranks.size();
    std::vector<uint64_t> events(ranks, 0);
    for (size_t i = 0; i < ranks; ++i)
      events[i] = rank_events(static_cast<uint32_t>(i));
    check(OTF2_Archive_CloseEvtFiles(archive_), "closing event files");
    // Local definitions: empty (every reference is global), as OTF2 readers expect a file each.
    check(OTF2_Archive_OpenDefFiles(archive_), "definition files");
    for (size_t i = 0; i < ranks; ++i) {
      OTF2_DefWriter* d = OTF2_Archive_GetDefWriter(archive_, i);
      if (d == nullptr) throw std::runtime_error("writing the OTF2 archive: no definition writer");
      check(OTF2_Archive_CloseDefWriter(archive_, d), "local definitions");
    }
    check(OTF2_Archive_CloseDefFiles(archive_), "closing definition files");
    definitions(events);
    check(OTF2_Archive_Close(archive_), "closing the archive");
    archive_ = nullptr;
  }

 private:
  OTF2_StringRef str(const std::string& s) {
    const auto [it, fresh] = strings_.try_emplace(s, static_cast<OTF2_StringRef>(strings_.size()));
    return it->second;
  }
  OTF2_RegionRef region(const std::string& name) {
    const auto [it, fresh] = regions_.try_emplace(name, static_cast<OTF2_RegionRef>(regions_.size()));
    return it->second;
  }
  OTF2_CommRef comm(uint64_t context) {
    const auto [it, fresh] = comms_.try_emplace(context, static_cast<OTF2_CommRef>(comms_.size()));
    return it->second;
  }

  // One rank's events; returns how many.
  uint64_t rank_events(uint32_t rank) {
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive_, rank);
    if (w == nullptr) throw std::runtime_error("writing the OTF2 archive: no event writer");
    static const std::vector<CallEvent> kNone;
    const std::vector<CallEvent>& log = rank < r_.call_log.size() ? r_.call_log[rank] : kNone;
    // Which posted operations completed in the call that posted them (request slots are reused
    // only once freed, so a slot's next kDone belongs to its last post).
    std::unordered_map<size_t, Posted> posted;
    {
      std::unordered_map<uint64_t, size_t> open;  // slot -> post index
      size_t call = 0;
      std::vector<size_t> call_of(log.size());
      for (size_t i = 0; i < log.size(); ++i) {
        const CallEvent& e = log[i];
        if (e.kind == Kind::kEnter) ++call;
        call_of[i] = call;
        if (e.kind == Kind::kSend || e.kind == Kind::kRecv) {
          open[e.own] = i;
          posted[i] = Posted{};
        } else if (e.kind == Kind::kDone) {
          const auto it = open.find(e.own);
          if (it == open.end()) continue;
          posted[it->second] = Posted{i, call_of[it->second] == call};
          open.erase(it);
        }
      }
    }
    std::unordered_map<size_t, size_t> done_of;  // kDone index -> its post
    for (const auto& [post, p] : posted) {
      if (p.done != SIZE_MAX) done_of[p.done] = post;
    }

    auto ts = [](simcore::Time t) { return static_cast<OTF2_TimeStamp>(std::max<int64_t>(0, t.count_ps())); };
    const OTF2_RegionRef compute = region("compute");
    OTF2_TimeStamp idle_from = 0;           // end of the last call (computation runs from there)
    const CallEvent* collective = nullptr;  // the current call's, until its Leave
    auto computed = [&](OTF2_TimeStamp until) {
      if (until <= idle_from) return;
      check(OTF2_EvtWriter_Enter(w, nullptr, idle_from, compute), "Enter");
      check(OTF2_EvtWriter_Leave(w, nullptr, until, compute), "Leave");
    };
    // MPI_Comp / MGEN_Comp (computation a program or a replay declares) is computation, and the
    // clock reads MPI_Wtime / MGEN_Wtime are left out: replay reads the clock around every call
    // it makes, which would double the calls a replay's archive shows.
    auto declared_compute = [](const char* name) {
      return std::strcmp(name, "MPI_Comp") == 0 || std::strncmp(name, "MGEN_Comp", 9) == 0 ||
             std::strcmp(name, "MPI_Wtime") == 0 || std::strcmp(name, "MGEN_Wtime") == 0;
    };
    OTF2_TimeStamp latest = 0;  // OTF2 wants a location's events in time order
    for (size_t i = 0; i < log.size(); ++i) {
      const CallEvent& e = log[i];
      const OTF2_TimeStamp t = latest = std::max(latest, ts(e.time));
      if ((e.kind == Kind::kEnter || e.kind == Kind::kLeave) && declared_compute(e.name)) continue;
      switch (e.kind) {
        case Kind::kEnter:
          computed(t);
          check(OTF2_EvtWriter_Enter(w, nullptr, t, region(e.name)), "Enter");
          break;
        case Kind::kLeave:
          if (collective) {
            const auto [sent, received] = collective_sizes(*collective);
            const uint32_t root =
                collective->peer >= 0 ? static_cast<uint32_t>(collective->peer) : OTF2_UNDEFINED_UINT32;
            check(OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, t, *collective_op(collective->name),
                                                  comm(collective->comm), root, sent, received),
                  "MpiCollectiveEnd");
            collective = nullptr;
          }
          check(OTF2_EvtWriter_Leave(w, nullptr, t, region(e.name)), "Leave");
          idle_from = t;
          break;
        case Kind::kSend: {
          const Posted& p = posted[i];
          const uint32_t peer = static_cast<uint32_t>(e.peer), tag = static_cast<uint32_t>(e.tag);
          if (p.blocking) {
            check(OTF2_EvtWriter_MpiSend(w, nullptr, t, peer, comm(e.comm), tag, e.bytes), "MpiSend");
          } else {
            check(OTF2_EvtWriter_MpiIsend(w, nullptr, t, peer, comm(e.comm), tag, e.bytes, request_id(rank, i)),
                  "MpiIsend");
          }
          break;
        }
        case Kind::kRecv:
          if (!posted[i].blocking)
            check(OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, t, request_id(rank, i)), "MpiIrecvRequest");
          break;
        case Kind::kDone: {
          const auto it = done_of.find(i);
          if (it == done_of.end()) break;
          const CallEvent& post = log[it->second];
          const bool blocking = posted[it->second].blocking;
          if (post.kind == Kind::kSend) {
            if (!blocking)
              check(OTF2_EvtWriter_MpiIsendComplete(w, nullptr, t, request_id(rank, it->second)), "MpiIsendComplete");
            break;
          }
          const uint32_t src = static_cast<uint32_t>(e.peer), tag = static_cast<uint32_t>(e.tag);
          if (blocking) {
            check(OTF2_EvtWriter_MpiRecv(w, nullptr, t, src, comm(e.comm), tag, e.bytes), "MpiRecv");
          } else {
            check(OTF2_EvtWriter_MpiIrecv(w, nullptr, t, src, comm(e.comm), tag, e.bytes, request_id(rank, it->second)),
                  "MpiIrecv");
          }
          break;
        }
        case Kind::kCommMade:
          // As Score-P writes it: a CREATE_HANDLE collective on the parent, and the new
          // communicator named on the ranks that got one.
          check(OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, t), "MpiCollectiveBegin");
          if (e.own != kUnchecked) check(OTF2_EvtWriter_CommCreate(w, nullptr, t, comm(e.own)), "CommCreate");
          check(OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, t, OTF2_COLLECTIVE_OP_CREATE_HANDLE, comm(e.comm),
                                                OTF2_UNDEFINED_UINT32, 0, 0),
                "MpiCollectiveEnd");
          break;
        case Kind::kCollective:
          if (!collective_op(e.name)) break;  // neighbourhood collectives and the like: the region only
          check(OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, t), "MpiCollectiveBegin");
          collective = &e;
          break;
      }
    }
    computed(ts(r_.ranks[rank].finish));
    uint64_t n = 0;
    check(OTF2_EvtWriter_GetNumberOfEvents(w, &n), "counting events");
    check(OTF2_Archive_CloseEvtWriter(archive_, w), "closing an event writer");
    return n;
  }

  // Request ids: the post's index in its rank's log (unique per rank, as OTF2 asks).
  static uint64_t request_id(uint32_t, size_t post) { return post; }

  void definitions(const std::vector<uint64_t>& events) {
    OTF2_GlobalDefWriter* d = OTF2_Archive_GetGlobalDefWriter(archive_);
    if (d == nullptr) throw std::runtime_error("writing the OTF2 archive: no global definition writer");
    const uint64_t end = static_cast<uint64_t>(std::max<int64_t>(0, r_.predicted.count_ps()));
    check(OTF2_GlobalDefWriter_WriteClockProperties(d, 1'000'000'000'000ull, 0, end + 1, OTF2_UNDEFINED_TIMESTAMP),
          "clock properties");
    // Strings are written first, so every reference below is named now.
    const size_t ranks = r_.ranks.size();
    uint32_t nodes = 0;
    for (const mpi::RankReport& k : r_.ranks)
      nodes = std::max(nodes, k.node + 1);
    str("");
    str(m_.name.empty() ? std::string("machine") : m_.name);
    str("machine");
    str("node");
    str("MPI");
    str("compute");
    for (uint32_t n = 0; n < nodes; ++n)
      str(fmt::format("node {}", n));
    for (size_t i = 0; i < ranks; ++i) {
      str(fmt::format("MPI Rank {}", i));
      str(fmt::format("rank {}", i));
    }
    for (const auto& [name, id] : regions_)
      str(mpi_name(name.c_str()));
    str("MPI_COMM_WORLD");
    str("MPI_COMM_SELF");
    for (const auto& [context, id] : comms_)
      str(fmt::format("communicator {}", id));
    std::vector<std::pair<OTF2_StringRef, std::string>> by_id;
    for (const auto& [s, id] : strings_)
      by_id.emplace_back(id, s);
    std::sort(by_id.begin(), by_id.end());
    for (const auto& [id, s] : by_id)
      check(OTF2_GlobalDefWriter_WriteString(d, id, s.c_str()), "string");

    check(OTF2_GlobalDefWriter_WriteParadigm(d, OTF2_PARADIGM_MPI, str("MPI"), OTF2_PARADIGM_CLASS_PROCESS),
          "paradigm");
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, str(m_.name.empty() ? std::string("machine") : m_.name),
                                                   str("machine"), OTF2_UNDEFINED_SYSTEM_TREE_NODE),
          "system tree");
    for (uint32_t n = 0; n < nodes; ++n) {
      check(OTF2_GlobalDefWriter_WriteSystemTreeNode(d, n + 1, str(fmt::format("node {}", n)), str("node"), 0),
            "system tree node");
    }
    for (size_t i = 0; i < ranks; ++i) {
      check(OTF2_GlobalDefWriter_WriteLocationGroup(d, i, str(fmt::format("MPI Rank {}", i)),
                                                    OTF2_LOCATION_GROUP_TYPE_PROCESS, r_.ranks[i].node + 1,
                                                    OTF2_UNDEFINED_LOCATION_GROUP),
            "location group");
    }
    for (size_t i = 0; i < ranks; ++i) {
      check(OTF2_GlobalDefWriter_WriteLocation(d, i, str(fmt::format("rank {}", i)), OTF2_LOCATION_TYPE_CPU_THREAD,
                                               events[i], i),
            "location");
    }
    std::vector<std::pair<OTF2_RegionRef, std::string>> regions;  // in id order, as readers want them
    for (const auto& [name, id] : regions_)
      regions.emplace_back(id, name);
    std::sort(regions.begin(), regions.end());
    for (const auto& [id, name] : regions) {
      const bool user = name == "compute";
      const std::string shown = mpi_name(name.c_str());
      check(OTF2_GlobalDefWriter_WriteRegion(d, id, str(shown), str(shown), str(""),
                                             user ? OTF2_RegionRole{OTF2_REGION_ROLE_FUNCTION} : role_of(shown),
                                             OTF2_Paradigm{user ? OTF2_PARADIGM_USER : OTF2_PARADIGM_MPI},
                                             OTF2_REGION_FLAG_NONE, str(""), 0, 0),
            "region");
    }
    // Groups: 0 = the MPI locations (every rank), then one per communicator, whose members are
    // positions in group 0 (= world ranks).
    std::vector<uint64_t> all(ranks);
    for (size_t i = 0; i < ranks; ++i)
      all[i] = i;
    check(OTF2_GlobalDefWriter_WriteGroup(d, 0, str(""), OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, static_cast<uint32_t>(ranks), all.data()),
          "group");
    std::map<uint64_t, const std::vector<uint32_t>*> members;
    for (const mpi::CommMembers& c : r_.comms)
      members[c.context] = &c.world_ranks;
    std::vector<std::pair<OTF2_CommRef, uint64_t>> comms;  // in id order
    for (const auto& [context, id] : comms_)
      comms.emplace_back(id, context);
    std::sort(comms.begin(), comms.end());
    OTF2_GroupRef next_group = 1;
    for (const auto& [id, context] : comms) {
      const OTF2_GroupRef g = next_group++;
      std::string name = fmt::format("communicator {}", id);
      if (context == kSelfContext) {
        name = "MPI_COMM_SELF";
        check(OTF2_GlobalDefWriter_WriteGroup(d, g, str(""), OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
                                              OTF2_GROUP_FLAG_NONE, 0, nullptr),
              "group");
      } else {
        std::vector<uint64_t> m;
        if (context == kWorldContext) {
          name = "MPI_COMM_WORLD";
          m = all;
        } else if (const auto it = members.find(context); it != members.end()) {
          m.assign(it->second->begin(), it->second->end());
        }
        check(OTF2_GlobalDefWriter_WriteGroup(d, g, str(""), OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                              OTF2_GROUP_FLAG_NONE, static_cast<uint32_t>(m.size()), m.data()),
              "group");
      }
      check(OTF2_GlobalDefWriter_WriteComm(d, id, str(name), g, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE), "comm");
    }
  }

  const config::MachineConfig& m_;
  const mpi::RunReport& r_;
  OTF2_Archive* archive_ = nullptr;
  std::map<std::string, OTF2_StringRef> strings_;
  std::map<std::string, OTF2_RegionRef> regions_;
  std::map<uint64_t, OTF2_CommRef> comms_;
};

}  // namespace

void write_otf2(const fs::path& dir, const config::MachineConfig& m, const mpi::RunReport& r) {
  // A previous archive of the same name is replaced (OTF2 refuses to write over one); nothing
  // else in the directory is touched.
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  fs::remove(dir / "traces.otf2", ec);
  fs::remove(dir / "traces.def", ec);
  fs::remove_all(dir / "traces", ec);
  Writer(dir, m, r).write();
}

}  // namespace mgen::cli
