#include "core/world.hpp"

#include <fmt/format.h>
#include <malloc.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <tuple>

namespace mgen::mpi {
namespace {

thread_local World* g_active = nullptr;

}  // namespace

uint32_t Rank::tally_slot(const char* name) {
  // The same name may be two literals in two translation units: compare pointers first (the
  // usual case), then text.
  const uint32_t n = static_cast<uint32_t>(call_tally.size());
  for (uint32_t i = 0; i < n; ++i) {
    if (call_tally[i].name == name) return i;
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (std::strcmp(call_tally[i].name, name) == 0) return i;
  }
  call_tally.push_back(CallTally{name, 0, 0, Time()});
  return n;
}

uint32_t Rank::alloc_request(ReqKind kind) {
  uint32_t q;
  if (free_request != kNone) {
    q = free_request;
    free_request = requests[q].next_free;
    requests[q] = Request{};
  } else {
    q = static_cast<uint32_t>(requests.size());
    requests.emplace_back();
  }
  requests[q].kind = kind;
  return q;
}

void Rank::free_request_slot(uint32_t q) {
  const Request& req = requests[q];
  if (log_calls && !req.collective && (req.kind == ReqKind::kSend || req.kind == ReqKind::kRecv)) {
    CallEvent e;
    e.kind = CallEvent::Kind::kDone;
    e.own = q;
    if (req.kind == ReqKind::kRecv) {
      e.comm = req.context;
      e.peer = req.status.source;
      e.tag = req.status.tag;
      e.bytes = req.status.bytes;
    } else {
      e.peer = -2;
    }
    log_call(e);
  }
  requests[q].kind = ReqKind::kFree;
  requests[q].next_free = free_request;
  free_request = q;
}

void World::note_comm(const Comm& c) {
  if (!job_.call_log || c.inter()) return;
  auto [it, fresh] = logged_comms_.try_emplace(c.context);
  if (!fresh) return;
  it->second.reserve(static_cast<size_t>(c.size()));
  for (int i = 0; i < c.size(); ++i)
    it->second.push_back(c.world(i));
}

World* World::active() {
  return g_active;
}

Rank& World::current() {
  return ranks_[exec(current_).rank];
}

namespace {

// The job's network: "auto" becomes the backend for its number of ranks.
net::NetworkConfig for_job(const net::NetworkConfig& network, const JobConfig& job) {
  net::NetworkConfig n = network;
  if (n.backend == "auto") n.backend = net::auto_backend(job.ranks, n.topology.kind);
  return n;
}

}  // namespace

World::World(const net::NetworkConfig& network, const MpiConfig& mpi, const NodeConfig& node, const JobConfig& job)
    : mpi_(mpi),
      node_(node),
      job_(job),
      network_(engine_, for_job(network, job), *this),
      transport_(engine_, network_, node, *this) {
  kinds_ = engine_.reserve_kinds(kKindCount);
  canonical_ = network_.canonical();
  // The collective algorithms allocate and free scratch vectors as large as the message on
  // every call. glibc hands blocks above its mmap threshold back to the kernel at free, and
  // trims the heap beyond twice that, so each call faulted its scratch pages in again: 13% of
  // the CPU time of a 1 MiB allreduce at 64 ranks went to page faults (perf, docs/PERFORMANCE.md).
  // Freed blocks stay in the heap instead (process-wide; the same values every time).
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  const net::Topology& t = network_.topology();
  if (job.ranks == 0) throw std::invalid_argument("a job needs at least one rank");
  if (job.procs_per_node == 0) throw std::invalid_argument("processes per node must be at least 1");
  const uint32_t nodes_used = (job.ranks + job.procs_per_node - 1) / job.procs_per_node;
  if (job.placement != Placement::kMap && nodes_used > t.nodes()) {
    throw std::invalid_argument(fmt::format("{} ranks at {} per node need {} nodes; the machine ({}) has {}", job.ranks,
                                            job.procs_per_node, nodes_used, t.describe(), t.nodes()));
  }
  if (job.placement == Placement::kMap && job.node_of_rank.size() != job.ranks) {
    throw std::invalid_argument(
        fmt::format("the rank map gives {} nodes for {} ranks", job.node_of_rank.size(), job.ranks));
  }
  ranks_.resize(job.ranks);
  std::vector<uint32_t> on_node(t.nodes(), 0);
  const auto world_group = Group::identity(job.ranks);
  for (RankId r = 0; r < job.ranks; ++r) {
    Rank& rank = ranks_[r];
    rank.id = r;
    rank.rank = r;
    switch (job.placement) {
      case Placement::kBlock:
        rank.node = r / job.procs_per_node;
        break;
      case Placement::kRoundRobin:
        rank.node = r % nodes_used;
        break;
      case Placement::kMap:
        rank.node = job.node_of_rank[r];
        break;
    }
    if (rank.node >= t.nodes()) {
      throw std::invalid_argument(
          fmt::format("rank {} is mapped to node {}; the machine has nodes 0 to {}", r, rank.node, t.nodes() - 1));
    }
    // Several ranks of a node share its NICs round-robin.
    rank.endpoint = rank.node * t.nics_per_node() + on_node[rank.node]++ % t.nics_per_node();
    rank.log_calls = job.call_log;
    rank.comms.resize(3);
    rank.comms[1] = std::make_unique<Comm>(Comm{2, world_group, static_cast<int>(r), 0, std::nullopt, nullptr});
    rank.comms[2] = std::make_unique<Comm>(Comm{4, Group::of({r}), 0, 0, std::nullopt, nullptr});
    rank.groups = {nullptr, Group::of({})};
  }
}

World::~World() = default;

// ---------------------------------------------------------------- running

RunOutcome World::run(const RankMain& main, int argc, char** argv, const Progress& progress) {
  prepare(main, argc, argv, progress);
  run_until(Time::max());
  return finish();
}

void World::join_partition(const net::PartitionPlan& plan, uint32_t part, GroupTable& groups, bool distributed) {
  if (!job_.partition_model.empty()) {
    throw std::invalid_argument("the partition model measures a serial run: run it without --threads");
  }
  network_.join_partition(plan, part);
  plan_ = &plan;
  part_ = part;
  groups_ = &groups;
  distributed_ = distributed;
}

void World::prepare(const RankMain& main, int argc, char** argv, const Progress& progress) {
  // Checked before any rank exists: a refusal leaves nothing to unwind.
  if (!job_.partition_model.empty()) {
    net::PartitionModel::require_packet(network_.backend_name());
    std::vector<uint32_t> weight(network_.topology().routers(), 0);
    for (const Rank& r : ranks_)
      ++weight[network_.topology().endpoint_router(r.endpoint)];
    partition_model_ = std::make_unique<net::PartitionModel>(network_.topology(), job_.partition_model, weight);
  }
  main_ = &main;
  args_.assign(argv, argv + argc);
  progress_ = progress;
  // Every rank starts at time zero (its fiber exists from the first run_until on).
  for (Rank& r : ranks_) {
    if (mine(r.rank)) wake(r);
  }
}

void World::spawn_fibers() {
  // One partition at a time: whether the stacks get guard pages depends on the memory maps the
  // process has already (vm.max_map_count), which another partition's stacks add to.
  static std::mutex creating;
  std::unique_lock lock(creating);
  fibers_ = std::make_unique<runtime::FiberRuntime>(ranks_.size(), job_.stack_bytes);
  lock.unlock();
  if (job_.memory_limit != 0) fibers_->set_pass_check([this] { return memory_exceeded(); });
  fibers_->spawn([this](size_t i) {
    if (i >= ranks_.size()) {
      run_helper(static_cast<uint32_t>(i));
      return;
    }
    if (!mine(static_cast<RankId>(i))) return;  // another partition's
    guarded(static_cast<uint32_t>(i), [&] {
      suspend(ranks_[i]);  // parked until the engine starts every rank at time zero
      // Each rank gets its own argv, as separate processes would.
      std::vector<std::string> own(args_);
      std::vector<char*> ptrs;
      for (std::string& s : own)
        ptrs.push_back(s.data());
      ptrs.push_back(nullptr);
      (*main_)(static_cast<int>(own.size()), ptrs.data());
    });
  });
  check_fault();
}

bool World::run_until(Time until) {
  g_active = this;
  if (!fibers_) spawn_fibers();
  if (error_) return false;
  // Every 65,536 events: the memory check, and the progress callback (which decides whether to
  // print). Not rarer: on the flow backend, dense traffic can take a second per 100,000 events.
  // Every event: whether SIGINT or SIGTERM asked to stop.
  engine_.run(
      [&](const simcore::Event& e) {
        last_event_ = e.time;
        if (partition_model_) [[unlikely]]
          partition_model_->observe(e.time, event_router(e));
        dispatch(e);
        if (runtime::interrupt_signal() != 0) [[unlikely]]
          interrupted();
        if (--countdown_ == 0) [[unlikely]] {
          countdown_ = uint64_t{1} << 16;
          if (job_.memory_limit != 0) memory_exceeded();
          if (progress_) {
            ProgressInfo info;
            info.simulated_s = engine_.now().seconds();
            info.events = engine_.events_processed();
            for (const Rank& r : ranks_)
              info.ranks_finished += r.state == Exec::State::kFinished;
            info.network = network_.totals();
            progress_(info);
          }
        }
      },
      [this](const simcore::Event& e) { network_.prefetch(e); }, until);
  g_active = nullptr;
  // Not ours (a test framework's assertion): a partitioned run hands it to its caller from here.
  if (foreign_exception_ && partitioned()) std::rethrow_exception(foreign_exception_);
  return !error_;
}

RunOutcome World::finish() {
  g_active = this;
  if (!fibers_) spawn_fibers();
  RunOutcome out;
  bool all_done = true;
  for (const Rank& r : ranks_) {
    if (!mine(r.rank)) continue;
    all_done = all_done && r.state == Exec::State::kFinished;
    out.predicted = simcore::max(out.predicted, r.finished_at);
  }
  // A helper still running (a non-blocking collective some member never joined) is blocked too.
  for (const auto& h : helpers_)
    all_done = all_done && !h->in_use;
  // When the last event ran (not the engine's clock: a partition's stops at its last window's end).
  out.drained = last_event_;
  if (error_) {
    out.ok = false;
    out.error = *error_;
    out.status = status_ == RunStatus::kOk ? RunStatus::kFailed : status_;
    out.signal = signal_;
  } else if (!all_done) {
    out.ok = false;
    out.error = deadlock_report({deadlock()}, ranks_.size());
    out.status = RunStatus::kFailed;
  }
  if (!all_done) abort_ranks();
  // Fibers a failed run could not unwind keep their frames' objects (AddressSanitizer builds).
  if (!out.ok && fibers_->any_unfinished()) fibers_->keep_abandoned_stacks();
  fibers_.reset();
  g_active = nullptr;
  if (foreign_exception_) std::rethrow_exception(foreign_exception_);
  return out;
}

void World::guarded(uint32_t id, const std::function<void()>& body) {
  const RankId rank = exec(id).rank;
  try {
    body();
  } catch (const RankUnwind&) {
    runtime::forget_unwound_frames();
  } catch (const std::exception& e) {
    runtime::forget_unwound_frames();
    if (!error_) error_ = fmt::format("rank {}: {}", rank, e.what());
  } catch (...) {
    runtime::forget_unwound_frames();
    // Not ours (a test framework's assertion, say): stop the run and rethrow it to the caller.
    if (!foreign_exception_) foreign_exception_ = std::current_exception();
    if (!error_) error_ = fmt::format("rank {}: an exception escaped the rank's program", rank);
  }
}

// ---------------------------------------------------------------- helper contexts

uint32_t World::start_helper(Exec& r, HelperJob job) {
  uint32_t id;
  if (!free_helpers_.empty()) {
    id = free_helpers_.back();
    free_helpers_.pop_back();
  } else {
    id = static_cast<uint32_t>(ranks_.size() + helpers_.size());
    helpers_.push_back(std::make_unique<Helper>());
  }
  Helper& h = *helpers_[id - ranks_.size()];
  Rank& owner = ranks_[r.rank];
  const uint32_t q = owner.alloc_request(ReqKind::kHelper);
  owner.requests[q].posted = r.clock;
  // Taken on the rank's fiber, but the engine sees the helper only at kSpawn, at the caller's
  // clock; slots are freed by the engine (kDone) and fibers run in a fixed order, so which slot
  // a helper gets is reproducible, and it affects no time. The helper is the rank's until kDone.
  static_cast<Exec&>(h) = Exec{};
  h.id = id;
  h.rank = r.rank;
  h.ordinal = ++owner.helpers_started;
  h.clock = r.clock;
  h.call = CallInfo{r.call.name, static_cast<int>(kNone), kAnyTag, r.call.comm};
  h.call_slot = r.call_slot;  // its messages are the starting call's
  h.job = std::move(job);
  h.done = q;
  h.in_use = true;
  r.outbox.push_back(Op{r.clock, OpKind::kSpawn, id});
  return q;
}

void World::run_helper(uint32_t id) {
  Helper& h = *helpers_[id - ranks_.size()];
  if (stopping_) return;  // created, then the run stopped before it started
  guarded(id, [&] { h.job(h); });
  // The host's time spent posting is the rank's; waiting was not (the program went on).
  ranks_[h.rank].stats.overhead += h.stats.overhead;
  if (!stopping_) h.outbox.push_back(Op{h.clock, OpKind::kDone, h.done});
}

uint32_t World::event_router(const simcore::Event& e) {
  if (transport_.owns(e.kind)) return transport_.event_router(e);
  if (e.kind - kinds_.begin == kRankOps) {
    const RankId rank = canonical_ ? e.target : exec(e.target).rank;
    return network_.topology().endpoint_router(ranks_[rank].endpoint);
  }
  return net::kNoId;  // a batch of rank resumptions: any rank's
}

void World::dispatch(const simcore::Event& e) {
  if (transport_.owns(e.kind)) {
    transport_.dispatch(e);
    return;
  }
  switch (e.kind - kinds_.begin) {
    case kRankResume:
      resume_batch();
      break;
    case kRankOps:
      process_ops(canonical_ ? static_cast<uint32_t>(e.data) : e.target);
      break;
    default:
      throw std::logic_error(fmt::format("world got an event of unknown kind {}", e.kind));
  }
}

}  // namespace mgen::mpi
