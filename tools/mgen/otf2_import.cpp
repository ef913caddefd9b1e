// OTF2 archives (Score-P traces of real runs, or mgen's own --otf2) turned into mgen traces, one
// per rank, for `mgen replay` (otf2.hpp, docs/otf2.md).
//
// A rank is an MPI process (a location group of type process, in id order: Score-P numbers them
// by MPI_COMM_WORLD rank); its first CPU-thread location carries its events. An MPI call is an
// MPI region entered and left at the outermost level (Score-P marks them with the MPI paradigm;
// mgen's MGEN_* names count as MPI_*); the MPI events between its Enter and Leave give its
// arguments: MpiSend/MpiIsend the destination, tag, size and communicator, MpiRecv/MpiIrecv the
// source, MpiIsendComplete/MpiIrecv the requests a Wait or Test completed, MpiCollectiveEnd a
// collective's communicator, root and Score-P's sizes sent and received (which the collective's
// count is derived from). Computation is the time from one MPI call's Leave to the next's Enter.
// Sizes become byte counts (type size 1).
#include <fmt/format.h>
#include <otf2/otf2.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <unordered_map>

#include "mgen/trace/format.hpp"
#include "mgen/trace/record.hpp"
#include "otf2.hpp"

namespace mgen::cli {
namespace {

namespace fs = std::filesystem;
using trace::Op;
using trace::Record;

// MPICH's MPI_PROC_NULL and MPI_ANY_TAG, as traces hold them (replay passes them to MPI as they are).
constexpr int64_t kProcNull = -1, kAnyTag = -1;

// One MPI event inside a call.
struct MpiEvent {
  enum Kind : uint8_t {
    kSend,
    kIsend,
    kIsendComplete,
    kIrecvRequest,
    kRecv,
    kIrecv,
    kCollBegin,
    kCollEnd,
    kCommCreate
  } kind;
  uint64_t number = 0;  // the event's position in its location
  uint32_t peer = 0, tag = 0, root = 0;
  OTF2_CommRef comm = 0;
  uint64_t bytes = 0, bytes2 = 0;  // sizes (collectives: sent, received)
  uint64_t request = 0;
  OTF2_CollectiveOp op = OTF2_COLLECTIVE_OP_BARRIER;
};

// One outermost MPI call of a rank.
struct Call {
  std::string name;     // as MPI names it
  uint64_t number = 0;  // the Enter's event number
  OTF2_TimeStamp enter = 0, leave = 0;
  std::vector<MpiEvent> events;
};

struct Location {
  OTF2_LocationRef id = 0;
  uint32_t rank = 0;
  std::vector<Call> calls;
  int depth = 0;                                    // regions open inside the current MPI call
  OTF2_TimeStamp start = OTF2_UNDEFINED_TIMESTAMP;  // the location's first Enter (computation before MPI_Init)
  bool in_call = false;
  uint64_t events = 0;
};

struct Archive {
  std::string file;
  uint64_t resolution = 1, offset = 0;
  std::map<OTF2_StringRef, std::string> strings;
  struct Region {
    OTF2_StringRef name;
    OTF2_Paradigm paradigm;
  };
  std::map<OTF2_RegionRef, Region> regions;
  std::map<OTF2_LocationGroupRef, bool> processes;  // location groups of type process
  struct Loc {
    OTF2_LocationType type;
    OTF2_LocationGroupRef group;
  };
  std::map<OTF2_LocationRef, Loc> locations;
  struct Group {
    OTF2_GroupType type;
    std::vector<uint64_t> members;
  };
  std::map<OTF2_GroupRef, Group> groups;
  struct Comm {
    OTF2_StringRef name;
    OTF2_GroupRef group;
  };
  std::map<OTF2_CommRef, Comm> comms;
  std::unordered_map<OTF2_LocationRef, Location*> selected;
  std::string error;      // the first unsupported record, stops the reading
  std::string otf2_said;  // the OTF2 library's first complaint, for our message
  std::string said() const { return otf2_said.empty() ? std::string() : " (OTF2: " + otf2_said + ")"; }
};

// The OTF2 library's error messages go into our own (it prints them on standard error otherwise).
OTF2_ErrorCode keep_error(void* ud, const char*, uint64_t, const char*, OTF2_ErrorCode code, const char* format,
                          va_list args) {
  auto& a = *static_cast<Archive*>(ud);
  if (a.otf2_said.empty() && format != nullptr) {
    char text[512];
    std::vsnprintf(text, sizeof text, format, args);
    a.otf2_said = text;
  }
  return code;
}

std::string name_of(const Archive& a, OTF2_StringRef s) {
  const auto it = a.strings.find(s);
  return it == a.strings.end() ? fmt::format("string {}", s) : it->second;
}

[[noreturn]] void refuse(const Archive& a, const Location& l, uint64_t event, const std::string& what) {
  throw std::invalid_argument(
      fmt::format("{}: rank {} (location {}): event {}: {}", a.file, l.rank, l.id, event, what));
}

// ------------------------------------------------------------------ definitions

OTF2_CallbackCode def_clock(void* ud, uint64_t resolution, uint64_t offset, uint64_t, uint64_t) {
  auto& a = *static_cast<Archive*>(ud);
  a.resolution = resolution == 0 ? 1 : resolution;
  a.offset = offset;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_string(void* ud, OTF2_StringRef self, const char* s) {
  static_cast<Archive*>(ud)->strings[self] = s == nullptr ? "" : s;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_region(void* ud, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef, OTF2_StringRef,
                             OTF2_RegionRole, OTF2_Paradigm paradigm, OTF2_RegionFlag, OTF2_StringRef, uint32_t,
                             uint32_t) {
  static_cast<Archive*>(ud)->regions[self] = {name, paradigm};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_location_group(void* ud, OTF2_LocationGroupRef self, OTF2_StringRef, OTF2_LocationGroupType type,
                                     OTF2_SystemTreeNodeRef, OTF2_LocationGroupRef) {
  static_cast<Archive*>(ud)->processes[self] = type == OTF2_LOCATION_GROUP_TYPE_PROCESS;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_location(void* ud, OTF2_LocationRef self, OTF2_StringRef, OTF2_LocationType type, uint64_t,
                               OTF2_LocationGroupRef group) {
  static_cast<Archive*>(ud)->locations[self] = {type, group};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_group(void* ud, OTF2_GroupRef self, OTF2_StringRef, OTF2_GroupType type, OTF2_Paradigm,
                            OTF2_GroupFlag, uint32_t n, const uint64_t* members) {
  static_cast<Archive*>(ud)->groups[self] = {type, std::vector<uint64_t>(members, members + n)};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_comm(void* ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group, OTF2_CommRef,
                           OTF2_CommFlag) {
  static_cast<Archive*>(ud)->comms[self] = {name, group};
  return OTF2_CALLBACK_SUCCESS;
}

// ------------------------------------------------------------------ events

// The call as MPI names it (MGEN_Send is MPI_Send), or empty for a region that is not MPI's.
std::string mpi_call(const Archive& a, OTF2_RegionRef region) {
  const auto it = a.regions.find(region);
  if (it == a.regions.end()) return {};
  const std::string name = name_of(a, it->second.name);
  if (name.rfind("MPI_", 0) == 0) return name;
  if (name.rfind("MGEN_", 0) == 0) return "MPI_" + name.substr(5);
  return {};
}

struct Context {
  Archive* a;
  Location* l;
};

Location& loc(void* ud) {
  return *static_cast<Context*>(ud)->l;
}
Archive& arc(void* ud) {
  return *static_cast<Context*>(ud)->a;
}

OTF2_CallbackCode stop(void* ud, uint64_t number, const std::string& what) {
  Archive& a = arc(ud);
  if (a.error.empty()) {
    a.error = fmt::format("{}: rank {} (location {}): event {}: {}", a.file, loc(ud).rank, loc(ud).id, number, what);
  }
  return OTF2_CALLBACK_INTERRUPT;
}

OTF2_CallbackCode ev_enter(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t number, void* ud, OTF2_AttributeList*,
                           OTF2_RegionRef region) {
  Location& l = loc(ud);
  ++l.events;
  if (l.start == OTF2_UNDEFINED_TIMESTAMP) l.start = t;
  if (l.in_call) {
    ++l.depth;
    return OTF2_CALLBACK_SUCCESS;
  }
  std::string name = mpi_call(arc(ud), region);
  if (name.empty()) return OTF2_CALLBACK_SUCCESS;  // the application's own regions: computation
  l.in_call = true;
  l.depth = 0;
  l.calls.push_back(Call{std::move(name), number, t, t, {}});
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode ev_leave(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* ud, OTF2_AttributeList*,
                           OTF2_RegionRef) {
  Location& l = loc(ud);
  ++l.events;
  if (!l.in_call) return OTF2_CALLBACK_SUCCESS;
  if (l.depth > 0) {
    --l.depth;
    return OTF2_CALLBACK_SUCCESS;
  }
  l.in_call = false;
  l.calls.back().leave = t;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode add(void* ud, uint64_t number, const char* what, MpiEvent e) {
  Location& l = loc(ud);
  ++l.events;
  if (!l.in_call) return stop(ud, number, fmt::format("{} outside an MPI call", what));
  e.number = number;
  l.calls.back().events.push_back(e);
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode ev_send(OTF2_LocationRef, OTF2_TimeStamp, uint64_t n, void* ud, OTF2_AttributeList*, uint32_t peer,
                          OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  return add(ud, n, "MpiSend", {.kind = MpiEvent::kSend, .peer = peer, .tag = tag, .comm = comm, .bytes = bytes});
}
OTF2_CallbackCode ev_isend(OTF2_LocationRef, OTF2_TimeStamp, uint64_t n, void* ud, OTF2_AttributeList*, uint32_t peer,
                           OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t request) {
  return add(ud, n, "MpiIsend",
             {.kind = MpiEvent::kIsend, .peer = peer, .tag = tag, .comm = comm, .bytes = bytes, .request = request});
}
OTF2_CallbackCode ev_isend_complete(OTF2_LocationRef, OTF2_TimeStamp, uint64_t n, void* ud, OTF2_AttributeList*,
                                    uint64_t request) {
  return add(ud, n, "MpiIsendComplete", {.kind = MpiEvent::kIsendComplete, .request = request});
}
OTF2_CallbackCode ev_irecv_request(OTF2_LocationRef, OTF2_TimeStamp, uint64_t n, void* ud, OTF2_AttributeList*,
                                   uint64_t request) {
  return add(ud, n, "MpiIrecvRequest", {.kind = MpiEvent::kIrecvRequest, .request = request});
}
OTF2_CallbackCode ev_recv(OTF2_LocationRef, OTF2_TimeStamp, uint64_t n, void* ud, OTF2_AttributeList*, uint32_t peer,
                          OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  return add(ud, n, "MpiRecv", {.kind = MpiEvent::kRecv, .peer = peer, .tag = tag, .comm = comm, .bytes = bytes});
}
OTF2_CallbackCode ev_irecv(OTF2_LocationRef, OTF2_TimeStamp, uint64_t n, void* ud, OTF2_AttributeList*, uint32_t peer,
                           OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t request) {
  return add(ud, n, "MpiIrecv",
             {.kind = MpiEvent::kIrecv, .peer = peer, .tag = tag, .comm = comm, .bytes = bytes, .request = request});
}
OTF2_CallbackCode ev_coll_begin(OTF2_LocationRef, OTF2_TimeStamp, uint64_t n, void* ud, OTF2_AttributeList*) {
  return add(ud, n, "MpiCollectiveBegin", {.kind = MpiEvent::kCollBegin});
}
OTF2_CallbackCode ev_coll_end(OTF2_LocationRef, OTF2_TimeStamp, uint64_t n, void* ud, OTF2_AttributeList*,
                              OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                              uint64_t received) {
  return add(ud, n, "MpiCollectiveEnd",
             {.kind = MpiEvent::kCollEnd, .root = root, .comm = comm, .bytes = sent, .bytes2 = received, .op = op});
}
OTF2_CallbackCode ev_comm_create(OTF2_LocationRef, OTF2_TimeStamp, uint64_t n, void* ud, OTF2_AttributeList*,
                                 OTF2_CommRef comm) {
  if (!loc(ud).in_call) {  // Score-P's MPI_COMM_WORLD and MPI_COMM_SELF, made in MPI_Init or outside
    ++loc(ud).events;
    return OTF2_CALLBACK_SUCCESS;
  }
  return add(ud, n, "CommCreate", {.kind = MpiEvent::kCommCreate, .comm = comm});
}
// Records mgen cannot replay: RMA, threads' fork/join, I/O and the like are refused by name when
// they occur inside an MPI call; outside one they belong to the computation.
OTF2_CallbackCode ev_request_cancelled(OTF2_LocationRef, OTF2_TimeStamp, uint64_t n, void* ud, OTF2_AttributeList*,
                                       uint64_t) {
  return stop(ud, n, "MpiRequestCancelled: cancelled requests are not supported");
}
OTF2_CallbackCode ev_nbc_request(OTF2_LocationRef, OTF2_TimeStamp, uint64_t n, void* ud, OTF2_AttributeList*,
                                 uint64_t) {
  return stop(ud, n, "NonBlockingCollectiveRequest: non-blocking collectives are not supported");
}

// ------------------------------------------------------------------ calls -> trace records

class Converter {
 public:
  Converter(const Archive& a, const Location& l, uint32_t ranks) : a_(a), l_(l), ranks_(ranks) {}

  std::vector<Record> records() {
    // Requests a Wait/Test completed, by OTF2 request id: the receive's arguments (MpiIrecv),
    // needed where the Irecv was posted.
    std::unordered_map<uint64_t, const MpiEvent*> irecv_done;
    for (const Call& c : l_.calls) {
      for (const MpiEvent& e : c.events) {
        if (e.kind == MpiEvent::kIrecv) irecv_done[e.request] = &e;
      }
    }
    std::vector<Record> out;
    // Before the first call: computation since the location's first Enter (MPI_Init takes no
    // simulated time, so replay charges it right after MPI_Init).
    OTF2_TimeStamp last = l_.start == OTF2_UNDEFINED_TIMESTAMP ? 0 : l_.start;
    for (const Call& c : l_.calls) {
      Record r;
      if (!convert(c, irecv_done, r)) continue;  // a local call: its time is computation
      r.dt_wall = r.dt_cpu = ns(c.enter >= last ? c.enter - last : 0);
      r.dur = ns(c.leave >= c.enter ? c.leave - c.enter : 0);
      last = c.leave;
      out.push_back(std::move(r));
    }
    return out;
  }

 private:
  uint64_t ns(OTF2_TimeStamp ticks) const {
    return static_cast<uint64_t>(static_cast<long double>(ticks) * 1e9L / static_cast<long double>(a_.resolution) +
                                 0.5L);
  }

  [[noreturn]] void fail(uint64_t event, const std::string& what) const { refuse(a_, l_, event, what); }

  // The trace's communicator for an OTF2 one: 0 = MPI_COMM_WORLD, 1 = MPI_COMM_SELF.
  int64_t comm(OTF2_CommRef id, uint64_t event) const {
    if (const auto m = made_.find(id); m != made_.end()) return m->second;
    const auto it = a_.comms.find(id);
    if (it == a_.comms.end()) fail(event, fmt::format("undefined communicator {}", id));
    const std::string name = name_of(a_, it->second.name);
    if (name == "MPI_COMM_WORLD") return 0;
    if (name == "MPI_COMM_SELF") return 1;
    const auto g = a_.groups.find(it->second.group);
    if (g != a_.groups.end()) {
      if (g->second.type == OTF2_GROUP_TYPE_COMM_SELF) return 1;
      const std::vector<uint64_t>& m = g->second.members;
      bool world = m.size() == ranks_;
      for (size_t i = 0; world && i < m.size(); ++i)
        world = m[i] == i;
      if (world) return 0;
    }
    fail(event, fmt::format("communicator '{}' is neither MPI_COMM_WORLD, MPI_COMM_SELF nor one this rank made "
                            "(a CommCreate event in an MPI call before)",
                            name));
  }

  // The communicator's size and this rank's place in it (collective byte counts depend on them).
  std::pair<uint64_t, uint64_t> size_rank(int64_t comm) const {
    if (comm == 1) return {1, 0};
    if (const auto m = members_.find(comm); m != members_.end()) {
      const auto at = std::find(m->second.begin(), m->second.end(), uint64_t{l_.rank});
      return {m->second.size(), static_cast<uint64_t>(at - m->second.begin())};
    }
    return {ranks_, l_.rank};
  }

  // A communicator's members as world ranks, in its rank order: its group's members are
  // positions in the MPI locations group (COMM_LOCATIONS), whose members are locations.
  std::vector<uint64_t> world_ranks(OTF2_CommRef id, uint64_t event) const {
    const auto c = a_.comms.find(id);
    if (c == a_.comms.end()) fail(event, fmt::format("undefined communicator {}", id));
    const auto g = a_.groups.find(c->second.group);
    if (g == a_.groups.end()) fail(event, fmt::format("communicator {} has no group", id));
    const std::vector<uint64_t>* locations = nullptr;
    for (const auto& [gid, group] : a_.groups) {
      if (group.type == OTF2_GROUP_TYPE_COMM_LOCATIONS) locations = &group.members;
    }
    std::vector<uint64_t> out;
    for (uint64_t m : g->second.members) {
      uint64_t rank = m;
      if (locations != nullptr) {
        if (m >= locations->size()) fail(event, fmt::format("communicator {}: member {} out of range", id, m));
        const auto l = a_.selected.find((*locations)[m]);
        if (l == a_.selected.end()) fail(event, fmt::format("communicator {}: member {} is not an MPI rank", id, m));
        rank = l->second->rank;
      }
      out.push_back(rank);
    }
    return out;
  }

  static uint64_t comm_kind(const std::string& call) {
    static const std::map<std::string, trace::CommKind> kKinds = {{"MPI_Comm_dup", trace::CommKind::kDup},
                                                                  {"MPI_Comm_split", trace::CommKind::kSplit},
                                                                  {"MPI_Comm_create", trace::CommKind::kCreate},
                                                                  {"MPI_Cart_create", trace::CommKind::kCart},
                                                                  {"MPI_Comm_split_type", trace::CommKind::kSplitType},
                                                                  {"MPI_Cart_sub", trace::CommKind::kCartSub}};
    const auto it = kKinds.find(call);
    return static_cast<uint64_t>(it == kKinds.end() ? trace::CommKind::kOther : it->second);
  }

  const MpiEvent* find(const Call& c, MpiEvent::Kind k) const {
    for (const MpiEvent& e : c.events) {
      if (e.kind == k) return &e;
    }
    return nullptr;
  }
  const MpiEvent& need(const Call& c, MpiEvent::Kind k, const char* what) const {
    const MpiEvent* e = find(c, k);
    if (e == nullptr) fail(c.number, fmt::format("{} without its {} event", c.name, what));
    return *e;
  }

  int64_t request(uint64_t otf2_id) {
    const auto [it, fresh] = requests_.try_emplace(otf2_id, next_request_);
    if (fresh) ++next_request_;
    return it->second;
  }

  static void bytes_of(Record& r, uint64_t bytes) {
    r.count = bytes;
    r.type_size = 1;
  }

  // Divides a collective's Score-P size by the number of blocks it counts.
  uint64_t per(const Call& c, uint64_t total, uint64_t blocks) const {
    if (blocks == 0) return 0;
    if (total % blocks != 0) fail(c.number, fmt::format("{}: size {} is not a multiple of {}", c.name, total, blocks));
    return total / blocks;
  }

  bool convert(const Call& c, const std::unordered_map<uint64_t, const MpiEvent*>& irecv_done, Record& r) {
    const std::string& n = c.name;
    static const std::map<std::string, std::pair<Op, uint64_t>> kSends = {
        {"MPI_Send", {Op::kSend, 0}},    {"MPI_Ssend", {Op::kSend, 1}},  {"MPI_Bsend", {Op::kSend, 2}},
        {"MPI_Rsend", {Op::kSend, 3}},   {"MPI_Isend", {Op::kIsend, 0}}, {"MPI_Issend", {Op::kIsend, 1}},
        {"MPI_Ibsend", {Op::kIsend, 2}}, {"MPI_Irsend", {Op::kIsend, 3}}};
    if (n == "MPI_Init" || n == "MPI_Init_thread") {
      trace::reset(r, Op::kInit);
      return true;
    }
    if (n == "MPI_Finalize") {
      trace::reset(r, Op::kFinalize);
      return true;
    }
    if (const auto s = kSends.find(n); s != kSends.end()) {
      trace::reset(r, s->second.first);
      r.mode = s->second.second;
      const MpiEvent* found = find(c, r.op == Op::kSend ? MpiEvent::kSend : MpiEvent::kIsend);
      if (found == nullptr) return false;  // to MPI_PROC_NULL: no message, no request to wait for
      const MpiEvent& e = *found;
      r.comm = comm(e.comm, e.number);
      r.peer = e.peer;
      r.tag = e.tag;
      bytes_of(r, e.bytes);
      if (r.op == Op::kIsend) r.request = request(e.request);
      return true;
    }
    if (n == "MPI_Recv") {
      trace::reset(r, Op::kRecv);
      const MpiEvent* found = find(c, MpiEvent::kRecv);
      if (found == nullptr) return false;  // from MPI_PROC_NULL
      const MpiEvent& e = *found;
      r.comm = comm(e.comm, e.number);
      r.peer = e.peer;
      r.tag = e.tag;
      bytes_of(r, e.bytes);
      r.status = {e.peer, e.tag, e.bytes};
      return true;
    }
    if (n == "MPI_Irecv") {
      trace::reset(r, Op::kIrecv);
      const MpiEvent* posted = find(c, MpiEvent::kIrecvRequest);
      if (posted == nullptr) return false;  // from MPI_PROC_NULL
      const MpiEvent& q = *posted;
      const auto done = irecv_done.find(q.request);
      if (done == irecv_done.end()) {
        fail(q.number,
             fmt::format("MPI_Irecv whose request {} never completes (no MpiIrecv event): its source and size "
                         "are unknown",
                         q.request));
      }
      const MpiEvent& e = *done->second;
      r.comm = comm(e.comm, e.number);
      r.peer = e.peer;
      r.tag = e.tag;
      bytes_of(r, e.bytes);
      r.request = request(q.request);
      return true;
    }
    if (n == "MPI_Sendrecv" || n == "MPI_Sendrecv_replace") {
      trace::reset(r, n == "MPI_Sendrecv" ? Op::kSendrecv : Op::kSendrecvReplace);
      // A side without its event sends to or receives from MPI_PROC_NULL (Score-P records no
      // event for it).
      const MpiEvent* s = find(c, MpiEvent::kSend);
      const MpiEvent* e = find(c, MpiEvent::kRecv);
      if (s == nullptr && e == nullptr) return false;
      r.comm = s != nullptr ? comm(s->comm, s->number) : comm(e->comm, e->number);
      if (s != nullptr && e != nullptr && comm(e->comm, e->number) != r.comm) {
        fail(e->number, "MPI_Sendrecv on two communicators");
      }
      r.peer = s != nullptr ? s->peer : kProcNull;
      r.tag = s != nullptr ? s->tag : 0;
      bytes_of(r, s != nullptr ? s->bytes : 0);
      r.peer2 = e != nullptr ? e->peer : kProcNull;
      r.tag2 = e != nullptr ? e->tag : 0;
      r.count2 = e != nullptr ? e->bytes : 0;
      r.type_size2 = 1;
      r.status = e != nullptr ? trace::Received{e->peer, e->tag, e->bytes} : trace::Received{kProcNull, kAnyTag, 0};
      return true;
    }
    if (n.rfind("MPI_Wait", 0) == 0 || n.rfind("MPI_Test", 0) == 0) {
      // The requests it completed, in their order; a Wait or Test that completed none (null
      // requests, a failed Test) is time spent like computation.
      std::vector<trace::Completion> done;
      std::vector<int64_t> reqs;
      for (const MpiEvent& e : c.events) {
        if (e.kind != MpiEvent::kIsendComplete && e.kind != MpiEvent::kIrecv) continue;
        const auto it = requests_.find(e.request);
        if (it == requests_.end()) fail(e.number, fmt::format("request {} completes but was never posted", e.request));
        trace::Completion k;
        k.index = static_cast<int64_t>(reqs.size());
        k.receive = e.kind == MpiEvent::kIrecv;
        if (k.receive) k.status = {e.peer, e.tag, e.bytes};
        reqs.push_back(it->second);
        done.push_back(k);
        requests_.erase(it);
      }
      if (reqs.empty()) return false;
      trace::reset(r, reqs.size() == 1 ? Op::kWait : Op::kWaitall);
      r.requests = std::move(reqs);
      r.done = std::move(done);
      return true;
    }
    // Communicators made and freed: Score-P writes a CREATE_HANDLE collective on the parent, and
    // a CommCreate naming the new communicator on the ranks that get one (replayed as a split of
    // the parent with the same members in the same order); freeing one is computation.
    if (const MpiEvent* end = find(c, MpiEvent::kCollEnd); end != nullptr) {
      if (end->op == OTF2_COLLECTIVE_OP_DESTROY_HANDLE) return false;
      if (end->op == OTF2_COLLECTIVE_OP_CREATE_HANDLE) {
        trace::reset(r, Op::kCommNew);
        r.mode = comm_kind(n);
        r.comm = comm(end->comm, end->number);
        if (const MpiEvent* made = find(c, MpiEvent::kCommCreate)) {
          r.counts = world_ranks(made->comm, made->number);
          if (std::find(r.counts.begin(), r.counts.end(), uint64_t{l_.rank}) == r.counts.end()) {
            fail(made->number, fmt::format("{} makes communicator {} without this rank in it", n, made->comm));
          }
          r.new_comm = next_comm_++;
          made_[made->comm] = r.new_comm;
          members_[r.new_comm] = r.counts;
        }
        return true;
      }
    }
    static const std::map<std::string, Op> kColls = {{"MPI_Barrier", Op::kBarrier},
                                                     {"MPI_Bcast", Op::kBcast},
                                                     {"MPI_Reduce", Op::kReduce},
                                                     {"MPI_Allreduce", Op::kAllreduce},
                                                     {"MPI_Scan", Op::kScan},
                                                     {"MPI_Exscan", Op::kExscan},
                                                     {"MPI_Gather", Op::kGather},
                                                     {"MPI_Scatter", Op::kScatter},
                                                     {"MPI_Allgather", Op::kAllgather},
                                                     {"MPI_Alltoall", Op::kAlltoall},
                                                     {"MPI_Reduce_scatter_block", Op::kReduceScatterBlock}};
    if (const auto k = kColls.find(n); k != kColls.end()) {
      trace::reset(r, k->second);
      const MpiEvent& e = need(c, MpiEvent::kCollEnd, "MpiCollectiveEnd");
      r.comm = comm(e.comm, e.number);
      const auto [size, me] = size_rank(r.comm);
      const bool root = e.root == me;
      if (e.root != OTF2_UNDEFINED_UINT32) r.root = e.root;
      uint64_t b = 0;
      switch (r.op) {
        case Op::kBarrier:
          return true;
        case Op::kBcast:
        case Op::kScatter:
          b = e.bytes2;
          break;
        case Op::kReduce:
        case Op::kGather:
          b = e.bytes;
          break;
        case Op::kScan:
          b = per(c, e.bytes2, me + 1);
          break;
        case Op::kExscan:
          b = me > 0 ? per(c, e.bytes2, me) : per(c, e.bytes, size - 1);
          break;
        default:  // allreduce, allgather, alltoall, reduce_scatter_block: size x the block both ways
          b = per(c, e.bytes, size);
          break;
      }
      (void)root;
      bytes_of(r, b);
      if (r.op == Op::kGather || r.op == Op::kScatter || r.op == Op::kAllgather || r.op == Op::kAlltoall) {
        r.count2 = b;
        r.type_size2 = 1;
      }
      return true;
    }
    // Anything else: a call that moves no message (MPI_Comm_rank, MPI_Wtime, MPI_Type_*) is
    // computation; one with MPI events, or one that makes communicators, is refused.
    if (!c.events.empty()) fail(c.number, fmt::format("{} is not supported by mgen's OTF2 replay", n));
    if (comm_kind(n) != static_cast<uint64_t>(trace::CommKind::kOther)) {
      fail(c.number, fmt::format("{} without its CREATE_HANDLE collective event: which communicator it made is not in "
                                 "the trace",
                                 n));
    }
    for (const char* p : {"MPI_Comm_split",    "MPI_Comm_dup",   "MPI_Comm_create", "MPI_Cart_create", "MPI_Cart_sub",
                          "MPI_Graph_create",  "MPI_Dist_graph", "MPI_Intercomm",   "MPI_Win_",        "MPI_Put",
                          "MPI_Get",           "MPI_Accumulate", "MPI_File_",       "MPI_Probe",       "MPI_Iprobe",
                          "MPI_Start",         "MPI_Send_init",  "MPI_Recv_init",   "MPI_Ibarrier",    "MPI_Ibcast",
                          "MPI_Ireduce",       "MPI_Iallreduce", "MPI_Igather",     "MPI_Iscatter",    "MPI_Iallgather",
                          "MPI_Ialltoall",     "MPI_Alltoallv",  "MPI_Gatherv",     "MPI_Scatterv",    "MPI_Allgatherv",
                          "MPI_Reduce_scatter"}) {
      if (n.rfind(p, 0) == 0) fail(c.number, fmt::format("{} is not supported by mgen's OTF2 replay", n));
    }
    return false;
  }

  const Archive& a_;
  const Location& l_;
  uint32_t ranks_;
  std::unordered_map<uint64_t, int64_t> requests_;              // OTF2 request id -> trace request id
  std::unordered_map<OTF2_CommRef, int64_t> made_;              // communicators this rank made -> trace ids
  std::unordered_map<int64_t, std::vector<uint64_t>> members_;  // their members (world ranks)
  int64_t next_comm_ = 2;                                       // 0, 1: MPI_COMM_WORLD, MPI_COMM_SELF
  int64_t next_request_ = 0;
};

}  // namespace

void otf2_to_traces(const fs::path& anchor, const fs::path& out) {
  Archive a;
  a.file = anchor.string();
  auto corrupt = [&](const std::string& what, OTF2_ErrorCode code) {
    return std::invalid_argument(fmt::format("{}: not a readable OTF2 archive: {}: {}{}", a.file, what,
                                             OTF2_Error_GetDescription(code), a.said()));
  };
  struct Quiet {
    OTF2_ErrorCallback before;
    void* before_data;
    ~Quiet() { OTF2_Error_RegisterCallback(before, before_data); }
  } quiet{OTF2_Error_RegisterCallback(keep_error, &a), nullptr};
  OTF2_Reader* reader = OTF2_Reader_Open(anchor.c_str());
  if (reader == nullptr) {
    throw std::invalid_argument(fmt::format("{}: cannot open as an OTF2 archive{}", a.file, a.said()));
  }
  struct Close {
    OTF2_Reader* r;
    ~Close() { OTF2_Reader_Close(r); }
  } close{reader};
  OTF2_ErrorCode code = OTF2_Reader_SetSerialCollectiveCallbacks(reader);
  if (code != OTF2_SUCCESS) throw corrupt("collective callbacks", code);

  OTF2_GlobalDefReader* gdr = OTF2_Reader_GetGlobalDefReader(reader);
  if (gdr == nullptr) {
    throw std::invalid_argument(fmt::format("{}: cannot read the global definitions (traces.def){}", a.file, a.said()));
  }
  OTF2_GlobalDefReaderCallbacks* gcb = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(gcb, def_clock);
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(gcb, def_string);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gcb, def_region);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(gcb, def_location_group);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, def_location);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(gcb, def_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(gcb, def_comm);
  OTF2_Reader_RegisterGlobalDefCallbacks(reader, gdr, gcb, &a);
  uint64_t read = 0;
  code = OTF2_Reader_ReadAllGlobalDefinitions(reader, gdr, &read);
  OTF2_GlobalDefReaderCallbacks_Delete(gcb);
  if (code != OTF2_SUCCESS) throw corrupt("reading the global definitions", code);

  // A rank per process location group, in id order; its first CPU thread carries its events.
  std::vector<Location> ranks;
  for (const auto& [group, process] : a.processes) {
    if (!process) continue;
    for (const auto& [id, l] : a.locations) {
      if (l.group == group && l.type == OTF2_LOCATION_TYPE_CPU_THREAD) {
        Location rank;
        rank.id = id;
        rank.rank = static_cast<uint32_t>(ranks.size());
        ranks.push_back(std::move(rank));
        break;
      }
    }
  }
  if (ranks.empty()) throw std::invalid_argument(fmt::format("{}: no MPI process locations in the archive", a.file));
  for (Location& l : ranks) {
    OTF2_Reader_SelectLocation(reader, l.id);
    a.selected[l.id] = &l;
  }
  const bool defs = OTF2_Reader_OpenDefFiles(reader) == OTF2_SUCCESS;
  if (OTF2_Reader_OpenEvtFiles(reader) != OTF2_SUCCESS) {
    throw std::invalid_argument(fmt::format("{}: cannot open the event files{}", a.file, a.said()));
  }
  for (Location& l : ranks) {
    // Local definitions carry Score-P's id mappings, which the reader applies to the events.
    if (defs) {
      if (OTF2_DefReader* dr = OTF2_Reader_GetDefReader(reader, l.id)) {
        uint64_t n = 0;
        code = OTF2_Reader_ReadAllLocalDefinitions(reader, dr, &n);
        OTF2_Reader_CloseDefReader(reader, dr);
        if (code != OTF2_SUCCESS) throw corrupt(fmt::format("local definitions of location {}", l.id), code);
      }
    }
  }
  if (defs) OTF2_Reader_CloseDefFiles(reader);

  // The run identifier: the archive's path, hashed (one run per archive).
  uint8_t run_id[trace::kRunIdBytes] = {};
  const size_t h = std::hash<std::string>{}(fs::absolute(anchor).string());
  std::memcpy(run_id, &h, std::min(sizeof h, sizeof run_id));
  run_id[15] = 0x0f;
  const uint32_t size = static_cast<uint32_t>(ranks.size());
  // A location at a time: its calls are read, written as its trace and dropped.
  for (Location& l : ranks) {
    OTF2_EvtReader* er = OTF2_Reader_GetEvtReader(reader, l.id);
    if (er == nullptr) {
      throw std::invalid_argument(
          fmt::format("{}: rank {} (location {}): cannot read its events{}", a.file, l.rank, l.id, a.said()));
    }
    OTF2_EvtReaderCallbacks* cb = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, ev_isend_complete);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, ev_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, ev_coll_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll_end);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, ev_request_cancelled);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, ev_nbc_request);
    OTF2_EvtReaderCallbacks_SetCommCreateCallback(cb, ev_comm_create);
    Context ctx{&a, &l};
    OTF2_Reader_RegisterEvtCallbacks(reader, er, cb, &ctx);
    uint64_t n = 0;
    code = OTF2_Reader_ReadAllLocalEvents(reader, er, &n);
    OTF2_EvtReaderCallbacks_Delete(cb);
    OTF2_Reader_CloseEvtReader(reader, er);
    if (!a.error.empty()) throw std::invalid_argument(a.error);
    if (code != OTF2_SUCCESS) {
      throw std::invalid_argument(
          fmt::format("{}: rank {} (location {}): event {}: corrupt or truncated event file: {}{}", a.file, l.rank,
                      l.id, l.events, OTF2_Error_GetDescription(code), a.said()));
    }
    if (l.in_call) {
      refuse(a, l, l.events, fmt::format("the trace ends inside {} (truncated?)", l.calls.back().name));
    }
    write_mgen_trace(out / fmt::format("rank-{}.mgt", l.rank), l.rank, size, run_id, Converter(a, l, size).records());
    l.calls = {};
  }
  OTF2_Reader_CloseEvtFiles(reader);
}

}  // namespace mgen::cli

#if defined(__SANITIZE_ADDRESS__)
// LeakSanitizer: OTF2's OTF2_Reader_Open (Debian's libotf2) keeps the archive it allocated when it fails (a
// corrupt anchor file), and returns no handle to free it with; that leak is the library's, not
// one mgen could close. Suppressed by the library's own functions that open an archive (the
// leak's stack ends in them: the library has no frame pointers), not by the library's name:
// mgen's reader callbacks run under other OTF2 calls, so their leaks stay reported.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:otf2_archive_open\nleak:otf2_file_posix_open\nleak:OTF2_UTILS_IO_JoinPath\n";
}
#endif
