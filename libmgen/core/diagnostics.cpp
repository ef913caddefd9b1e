// Diagnostics: stopping a run on an error, unwinding every rank, and the deadlock report that
// names what each blocked rank waits for: the MPI call, its peers, tags and communicators;
// a rank's program that faulted.
#include <dlfcn.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/diagnostics.hpp"

namespace mgen::mpi {

namespace {

// A context no communicator has (they are 2, 4 and >= 0x100): park() waits on it.
constexpr uint64_t kParkContext = 0xf0;

struct CommNames : World::Extension {
  explicit CommNames(World&) {}
  std::map<std::pair<RankId, uint64_t>, std::string> of;  // by (rank, point-to-point context)
};
constexpr char kCommNamesKey = 0;

struct DeadlockNotes : World::Extension {
  explicit DeadlockNotes(World&) {}
  std::vector<std::function<std::string()>> notes;
};
constexpr char kDeadlockNotesKey = 0;

const Comm* comm_of(const Rank& r, uint64_t context) {
  for (const auto& c : r.comms) {
    if (c && (c->context == context || c->coll_context() == context)) return c.get();
  }
  return nullptr;
}

std::string label(const Rank& r, uint64_t context, const char* prefix, const CommNames* names) {
  const uint64_t p2p = context & ~uint64_t{1};  // a communicator's collectives use context + 1
  if (names != nullptr) {
    if (auto it = names->of.find({r.id, p2p}); it != names->of.end()) return fmt::format("\"{}\"", it->second);
  }
  const Comm* c = comm_of(r, context);
  if (c == nullptr) return fmt::format("a communicator (context id {:#x})", p2p);
  // Handles 1 and 2 are the world and self communicators.
  if (r.comms.size() > 1 && c == r.comms[1].get()) return std::string(prefix) + "COMM_WORLD";
  if (r.comms.size() > 2 && c == r.comms[2].get()) return std::string(prefix) + "COMM_SELF";
  return fmt::format("a communicator of {} ranks (context id {:#x})", c->size(), c->context);
}

// How many blocked ranks, and requests of one rank, a deadlock report lists.
constexpr size_t kRanksListed = 32;
constexpr size_t kRequestsListed = 4;

// The predefined communicators are named as the program knows them: MGEN_COMM_WORLD in an
// MGEN program, MPI_COMM_WORLD in an MPI one.
const char* prefix_of(const char* call) {
  return call != nullptr && std::strncmp(call, "MGEN_", 5) == 0 ? "MGEN_" : "MPI_";
}

std::string tag_text(int tag) {
  return tag == kAnyTag ? "any tag" : fmt::format("tag {}", tag);
}

}  // namespace

void World::fail(const std::string& message) {
  if (!error_) error_ = message;
  runtime::forget_unwound_frames();
  throw RankUnwind{};
}

void World::error(const std::string& message) {
  if (!error_) error_ = message;
  engine_.stop();
}

void World::abort_ranks() {
  stopping_ = true;
  // Every fiber not finished, helpers included (a helper created but never run returns at once).
  // A program that faults while it unwinds is abandoned like any other; the first report stands.
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t i = 0; i < fibers_->count(); ++i) {
      if (!fibers_->finished(i)) fibers_->make_ready(i);
    }
    fibers_->run_ready();
    current_ = kNone;
    check_fault();
  }
}

void World::interrupted() {
  if (status_ == RunStatus::kInterrupted) return;
  const int sig = runtime::interrupt_signal();
  uint32_t done = 0;
  for (const Rank& r : ranks_)
    done += r.state == Exec::State::kFinished;
  const std::string message =
      fmt::format("interrupted by {} at simulated time {:.3f} us, after {} events; {} of {} ranks had finished",
                  sig == SIGTERM ? "SIGTERM" : "SIGINT", engine_.now().microseconds(), engine_.events_processed(), done,
                  ranks_.size());
  if (!error_) error_ = message;
  status_ = RunStatus::kInterrupted;
  signal_ = sig;
  engine_.stop();
}

bool World::memory_exceeded() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  const uint64_t bytes = static_cast<uint64_t>(resident) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  if (bytes <= job_.memory_limit) return false;
  if (!error_) {
    const uint32_t running = current_ != kNone ? exec(current_).rank : kNone;
    error_ = fmt::format(
        "out of memory: the job holds {:.2f} GiB, past the {:.2f} GiB this computer can give it ({}); stopped "
        "before the kernel's out-of-memory killer ends it without a word{}. What the ranks' programs allocate "
        "counts: fewer ranks, smaller problems, or MGEN_SHARED_MALLOC for buffers whose contents do not matter "
        "(<mgen/mpix.h>)",
        static_cast<double>(bytes) / (1 << 30), static_cast<double>(job_.memory_limit) / (1 << 30), job_.memory_source,
        running != kNone ? fmt::format(" (rank {} was running, at simulated time {:.3f} us)", running,
                                       exec(current_).clock.microseconds())
                         : "");
    status_ = RunStatus::kFailed;
  }
  engine_.stop();
  return true;
}

const char* status_name(RunStatus s) {
  switch (s) {
    case RunStatus::kOk:
      return "ok";
    case RunStatus::kFailed:
      return "failed";
    case RunStatus::kCrashed:
      return "crashed";
    case RunStatus::kInterrupted:
      return "interrupted";
  }
  return "?";
}

namespace {

// Names given to loaded modules (name_module). Per process, as the loader's own list is.
struct ModuleNames {
  std::mutex lock;
  std::map<const void*, std::string> names;
};
ModuleNames& module_names() {
  static ModuleNames m;
  return m;
}

// " in foo (prog.so)" for the instruction a fault stopped at, if the dynamic linker knows it.
std::string code_at(const void* pc) {
  Dl_info info{};
  if (pc == nullptr || dladdr(pc, &info) == 0 || info.dli_fname == nullptr) return "";
  std::string file = info.dli_fname;
  if (const size_t slash = file.rfind('/'); slash != std::string::npos) file = file.substr(slash + 1);
  {
    ModuleNames& m = module_names();
    const std::lock_guard<std::mutex> hold(m.lock);
    if (const auto it = m.names.find(info.dli_fbase); it != m.names.end()) file = it->second;
  }
  // A static function has no dynamic symbol: the offset in the file is for addr2line -f -e.
  if (info.dli_sname == nullptr) {
    return fmt::format(" in {}+{:#x}", file,
                       reinterpret_cast<uintptr_t>(pc) - reinterpret_cast<uintptr_t>(info.dli_fbase));
  }
  return fmt::format(" in {} ({})", info.dli_sname, file);
}

}  // namespace

void name_module(const void* base, const std::string& name) {
  ModuleNames& m = module_names();
  const std::lock_guard<std::mutex> hold(m.lock);
  m.names[base] = name;
}

void World::check_fault() {
  const runtime::Fault f = fibers_->fault();
  if (f.fiber == runtime::Fault::kNone) return;
  fibers_->clear_fault();
  Exec& x = exec(f.fiber);
  x.state = Exec::State::kFinished;
  const char* helper = f.fiber >= ranks_.size() ? " (in a non-blocking collective's algorithm)" : "";
  const char* last_call = ranks_[x.rank].last_call;  // (a helper's calls are its rank's)
  const std::string last = last_call != nullptr ? fmt::format("its last MPI call was {}", last_call)
                                                : std::string("it had made no MPI call");
  std::string message;
  if (f.stack_overflow) {
    const size_t suggest = std::max<size_t>(size_t{4} * job_.stack_bytes, size_t{8} << 20) >> 20;
    message = fmt::format(
        "rank {}{} overflowed its {} KiB stack{} (SIGSEGV at {}): a large local array or deep recursion; give "
        "it more with --stack, for example --stack {}MiB; {}, at simulated time {:.3f} us",
        x.rank, helper, job_.stack_bytes >> 10, code_at(f.pc), f.address, suggest, last, x.clock.microseconds());
  } else {
    message = fmt::format("rank {}{} was killed by {}{}; {}, at simulated time {:.3f} us", x.rank, helper,
                          runtime::describe_signal(f), code_at(f.pc), last, x.clock.microseconds());
  }
  if (!error_) {
    error_ = message;
    status_ = RunStatus::kCrashed;
    signal_ = f.signal;
  } else {
    *error_ += "\n(then " + message + ")";  // while the run was already stopping
  }
  engine_.stop();
}

void name_comm(World& w, RankId rank, uint64_t context, std::string name) {
  w.extension<CommNames>(&kCommNamesKey).of[{rank, context & ~uint64_t{1}}] = std::move(name);
}

std::string comm_label(World& w, RankId rank, uint64_t context, const char* prefix) {
  return label(w.rank(rank), context, prefix, &w.extension<CommNames>(&kCommNamesKey));
}

void add_deadlock_note(World& w, std::function<std::string()> note) {
  w.extension<DeadlockNotes>(&kDeadlockNotesKey).notes.push_back(std::move(note));
}

void park(World& w, Exec& r) {
  const uint32_t q = w.post_recv(r, nullptr, 0, kAnySource, kAnyTag, kParkContext, true);
  w.wait_all(r, &q, 1);
}

namespace {

// One request a blocked rank waits for: "receive from rank 3, tag 7, on MPI_COMM_WORLD". Inside
// a collective the internal tags and the communicator (named once for the call) are left out.
// Peers are communicator ranks, with the world rank when it differs.
std::string describe_request(const Rank& owner, const Request& rq, const char* prefix, bool in_collective,
                             const CommNames* names) {
  const uint64_t context = rq.kind == ReqKind::kRecv ? rq.context : rq.env.context;
  const Comm* c = comm_of(owner, context);
  auto peer = [&](int world) -> std::string {
    if (world == kAnySource) return "any source";
    const int local = c == nullptr ? -1 : (c->remote ? c->remote : c->group)->rank_of(static_cast<RankId>(world));
    if (local < 0 || local == world) return fmt::format("rank {}", world);
    return fmt::format("rank {} (world rank {})", local, world);
  };
  const std::string on = label(owner, context, prefix, names);
  switch (rq.kind) {
    case ReqKind::kRecv:
      if (in_collective || rq.collective) return "a message from " + peer(rq.want_src);
      return fmt::format("receive from {}, {}, on {}", peer(rq.want_src), tag_text(rq.want_tag), on);
    case ReqKind::kSend:
      if (in_collective || rq.collective) return peer(static_cast<int>(rq.peer)) + " to receive its message";
      return fmt::format("send to {}, {}, on {}", peer(static_cast<int>(rq.peer)), tag_text(rq.env.tag), on);
    case ReqKind::kPut:
      return fmt::format("RDMA put to rank {}", rq.peer);
    case ReqKind::kGet:
      return fmt::format("RDMA get from rank {}", rq.peer);
    default:
      return "a request";
  }
}

}  // namespace

std::string World::describe(const Exec& r) const {
  const Rank& owner = ranks_[r.rank];
  const CommNames* names = nullptr;
  for (const auto& [key, e] : extensions_) {
    if (key == &kCommNamesKey) names = static_cast<const CommNames*>(e.get());
  }
  const char* name = r.call.name != nullptr ? r.call.name : "an MGEN call";
  const char* prefix = prefix_of(r.call.name);
  std::string what = name;
  if (r.id >= ranks_.size()) what = fmt::format("its non-blocking collective ({})", name);
  auto request_text = [&](uint32_t q, bool in_collective) {
    if (owner.requests[q].kind != ReqKind::kHelper) {
      return describe_request(owner, owner.requests[q], prefix, in_collective, names);
    }
    for (const auto& h : helpers_) {
      if (h->in_use && h->rank == owner.id && h->done == q && h->call.name != nullptr)
        return fmt::format("non-blocking collective ({})", h->call.name);
    }
    return std::string("non-blocking collective");
  };
  const Block& b = r.block;
  switch (b.kind) {
    case Block::kWaitAll:
    case Block::kWaitAny: {
      std::vector<uint32_t> open;
      for (uint32_t i = 0; i < b.count; ++i) {
        if (b.reqs[i] != kNone && !owner.requests[b.reqs[i]].complete) open.push_back(b.reqs[i]);
      }
      if (open.empty()) break;
      const Request& first = owner.requests[open.front()];
      if (first.kind == ReqKind::kRecv && first.context == kParkContext) {
        what += ": stopped there, as the members called different collectives";
        break;
      }
      // A collective's algorithm: its messages, on the communicator the call named.
      const bool collective =
          std::all_of(open.begin(), open.end(), [&](uint32_t q) { return owner.requests[q].collective; });
      std::string list;
      for (size_t i = 0; i < open.size() && i < kRequestsListed; ++i)
        list += (i == 0 ? "" : "; ") + request_text(open[i], collective);
      if (open.size() > kRequestsListed) list += fmt::format("; and {} more", open.size() - kRequestsListed);
      if (collective) {
        uint64_t context = first.kind == ReqKind::kRecv ? first.context : first.env.context;
        // A non-blocking collective runs on a context of its own: name the communicator it was
        // called on.
        const auto handle = static_cast<size_t>(r.call.comm);
        if (comm_of(owner, context) == nullptr && handle > 0 && handle < owner.comms.size() && owner.comms[handle])
          context = owner.comms[handle]->context;
        what += fmt::format(" on {}, waiting for {}", label(owner, context, prefix, names), list);
      } else if (b.count == 1) {
        // "MPI_Recv from rank 3, tag 7, on MPI_COMM_WORLD" where the call names the request's
        // verb, else "MPI_Wait for a receive from ...".
        const size_t space = list.find(' ');
        const std::string verb = list.substr(0, space);
        const std::string_view call(name);
        const bool named = (verb == "receive" && call.find("ecv") != std::string_view::npos) ||
                           (verb == "send" && call.find("end") != std::string_view::npos);
        what += named ? list.substr(space) : " for a " + list;
      } else {
        what += fmt::format(" on {} requests, {} not complete: {}", b.count, open.size(), list);
      }
      break;
    }
    case Block::kProbe:
      what += fmt::format(" for a message from {}, {}, on {}",
                          b.src == kAnySource ? "any source" : fmt::format("world rank {}", b.src), tag_text(b.tag),
                          label(owner, b.context, prefix, names));
      break;
    case Block::kCollective:
      what += fmt::format(" on {} (completed in one step once every member has called it)",
                          label(owner, b.context, prefix, names));
      break;
    case Block::kPoll:
      what += fmt::format(" waiting for an RDMA put with tag {}", b.poll_tag);
      break;
    default:
      break;
  }
  return fmt::format("rank {}: {} (waiting since {:.3f} us)", r.rank, what, b.since.microseconds());
}

World::Deadlock World::deadlock() const {
  Deadlock d;
  d.at = last_event_;
  for (const Rank& r : ranks_) {
    if (r.state == Exec::State::kFinished || !mine(r.rank)) continue;
    d.lines.push_back(describe(r));
    d.of.push_back(r.rank);
  }
  d.ranks = d.lines.size();
  for (const auto& h : helpers_) {
    if (h->in_use && h->state != Exec::State::kFinished) d.lines.push_back(describe(*h));
  }
  // The notes are copied out first: writing one may add an extension (comm_label's names),
  // which moves extensions_ under a loop over it.
  std::vector<std::function<std::string()>> notes;
  for (const auto& [key, e] : extensions_) {
    if (key == &kDeadlockNotesKey) notes = static_cast<const DeadlockNotes&>(*e).notes;
  }
  for (const auto& note : notes)
    d.notes += note();
  if (network_.packets_in_flight() != 0) {
    d.stuck = fmt::format("the network itself is stuck with {} packets:\n{}", network_.packets_in_flight(),
                          network_.describe_stuck(10));
  }
  return d;
}

std::string World::deadlock_report(const std::vector<Deadlock>& parts, size_t ranks) {
  size_t blocked = 0;
  Time at;
  std::string notes, lines, stuck;
  std::vector<std::pair<uint32_t, const std::string*>> ranks_blocked;  // in rank order, whichever part
  std::vector<const std::string*> helpers;
  for (const Deadlock& d : parts) {
    blocked += d.ranks;
    at = simcore::max(at, d.at);
    notes += d.notes;
    stuck += d.stuck;
    for (size_t i = 0; i < d.lines.size(); ++i) {
      if (i < d.ranks) {
        ranks_blocked.emplace_back(d.of[i], &d.lines[i]);
      } else {
        helpers.push_back(&d.lines[i]);
      }
    }
  }
  std::sort(ranks_blocked.begin(), ranks_blocked.end());
  // Ranks up to the limit; every blocked helper.
  for (size_t i = 0; i < ranks_blocked.size() && i < kRanksListed; ++i)
    lines += "  " + *ranks_blocked[i].second + "\n";
  for (const std::string* h : helpers)
    lines += "  " + *h + "\n";
  if (blocked > kRanksListed) lines += fmt::format("  ... and {} more\n", blocked - kRanksListed);
  return notes +
         fmt::format("deadlock: {} of {} ranks are blocked and nothing else can happen (simulated time {:.3f} us):\n{}",
                     blocked, ranks, at.microseconds(), lines) +
         stuck;
}

}  // namespace mgen::mpi
