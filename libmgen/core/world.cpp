#include "core/world.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <tuple>

namespace mgen::mpi {
namespace {

thread_local World* g_active = nullptr;

}  // namespace

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
  requests[q].kind = ReqKind::kFree;
  requests[q].next_free = free_request;
  free_request = q;
}

namespace {
uint64_t next_serial() {
  static uint64_t n = 0;
  return ++n;
}
}  // namespace

World* World::active() {
  return g_active;
}

Rank& World::current() {
  return ranks_[current_];
}

World::World(const net::NetworkConfig& network, const MpiConfig& mpi, const NodeConfig& node, const JobConfig& job)
    : serial_(next_serial()), mpi_(mpi), node_(node), job_(job), network_(engine_, network, *this) {
  kinds_ = engine_.reserve_kinds(kKindCount);
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
  memory_free_.assign(t.nodes(), Time::zero());
  std::vector<uint32_t> on_node(t.nodes(), 0);
  const auto world_group = Group::identity(job.ranks);
  for (RankId r = 0; r < job.ranks; ++r) {
    Rank& rank = ranks_[r];
    rank.id = r;
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
    rank.comms.resize(3);
    rank.comms[1] = std::make_unique<Comm>(Comm{2, world_group, static_cast<int>(r), 0, std::nullopt, nullptr});
    rank.comms[2] = std::make_unique<Comm>(Comm{4, Group::of({r}), 0, 0, std::nullopt, nullptr});
    rank.groups = {nullptr, Group::of({})};
  }
}

World::~World() = default;

// ---------------------------------------------------------------- running

RunOutcome World::run(const RankMain& main, int argc, char** argv, const Progress& progress) {
  g_active = this;
  fibers_ = std::make_unique<runtime::FiberRuntime>(ranks_.size(), job_.stack_bytes);
  std::vector<std::string> args(argv, argv + argc);
  fibers_->spawn([this, &main, &args](size_t i) {
    Rank& r = ranks_[i];
    try {
      suspend(r);  // parked until the engine starts every rank at time zero
      // Each rank gets its own argv, as separate processes would.
      std::vector<std::string> mine(args);
      std::vector<char*> ptrs;
      for (std::string& s : mine)
        ptrs.push_back(s.data());
      ptrs.push_back(nullptr);
      main(static_cast<int>(mine.size()), ptrs.data());
    } catch (const RankUnwind&) {
      runtime::forget_unwound_frames();
    } catch (const std::exception& e) {
      runtime::forget_unwound_frames();
      if (!error_) error_ = fmt::format("rank {}: {}", i, e.what());
    } catch (...) {
      runtime::forget_unwound_frames();
      // Not ours (a test framework's assertion, say): stop the run and rethrow it to the caller.
      if (!foreign_exception_) foreign_exception_ = std::current_exception();
      if (!error_) error_ = fmt::format("rank {}: an exception escaped the rank's program", i);
    }
  });
  for (Rank& r : ranks_)
    wake(r);
  if (progress) {
    // Roughly once per million events; the callback decides whether to print.
    uint64_t countdown = 1 << 20;
    engine_.run([&](const simcore::Event& e) {
      dispatch(e);
      if (--countdown == 0) {
        countdown = 1 << 20;
        uint32_t done = 0;
        for (const Rank& r : ranks_)
          done += r.state == Rank::State::kFinished;
        progress(engine_.now().seconds(), engine_.events_processed(), done);
      }
    });
  } else {
    engine_.run([this](const simcore::Event& e) { dispatch(e); });
  }

  RunOutcome out;
  bool all_done = true;
  for (const Rank& r : ranks_) {
    all_done = all_done && r.state == Rank::State::kFinished;
    out.predicted = simcore::max(out.predicted, r.finished_at);
  }
  out.drained = engine_.now();
  if (error_) {
    out.ok = false;
    out.error = *error_;
  } else if (!all_done) {
    out.ok = false;
    out.error = deadlock_report();
  }
  if (!all_done) abort_ranks();
  fibers_.reset();
  g_active = nullptr;
  if (foreign_exception_) std::rethrow_exception(foreign_exception_);
  return out;
}

void World::dispatch(const simcore::Event& e) {
  if (network_.owns(e.kind)) {
    network_.dispatch(e);
    return;
  }
  switch (e.kind - kinds_.begin) {
    case kRankResume:
      resume_batch();
      break;
    case kRankOps:
      process_ops(e.target);
      break;
    case kMemoryDone:
      on_message_sent(e.data, e.time);
      on_message_delivered(e.data, e.time);
      break;
    default:
      throw std::logic_error(fmt::format("world got an event of unknown kind {}", e.kind));
  }
}

void World::wake(Rank& r) {
  r.state = Rank::State::kWaking;
  waking_.push_back(r.id);
  if (resume_scheduled_) return;
  resume_scheduled_ = true;
  engine_.schedule(engine_.now(), kinds_[kRankResume], 0);
}

// Every rank woken at this instant runs in one pass, in wake order: each hands over straight to
// the next fiber, so a resumption costs one context switch, not two.
void World::resume_batch() {
  resume_scheduled_ = false;
  batch_.swap(waking_);
  waking_.clear();
  const Time now = engine_.now();
  for (RankId id : batch_) {
    Rank& r = ranks_[id];
    if (r.block.kind != Block::kNone) r.stats.wait += now - r.block.since;
    r.clock = simcore::max(r.clock, now);
    r.state = Rank::State::kRunning;
    fibers_->make_ready(id);
  }
  fibers_->run_ready();
  current_ = kNone;
  for (RankId id : batch_) {
    Rank& r = ranks_[id];
    // With guard pages an overflow faults at once; without them (beyond 30K ranks) the canary
    // at the stack bottom is the only witness, so it is checked after every run of the fiber.
    if (!fibers_->stacks().guarded() && !fibers_->stack_intact(id) && !error_) {
      error_ =
          fmt::format("rank {} overflowed its {} KiB stack; give it more with --stack", id, job_.stack_bytes >> 10);
    }
    if (fibers_->finished(id)) {
      r.state = Rank::State::kFinished;
      r.finished_at = r.clock;
    } else {
      r.state = Rank::State::kBlocked;
    }
    if (!error_) schedule_ops(r);
  }
  if (error_) engine_.stop();
}

void World::schedule_ops(Rank& r) {
  if (r.ops_scheduled || r.outbox_head == r.outbox.size()) return;
  r.ops_scheduled = true;
  engine_.schedule(r.outbox[r.outbox_head].at, kinds_[kRankOps], r.id);
}

void World::process_ops(RankId id) {
  Rank& r = ranks_[id];
  r.ops_scheduled = false;
  const Time now = engine_.now();
  while (r.outbox_head < r.outbox.size() && r.outbox[r.outbox_head].at <= now) {
    const Op op = r.outbox[r.outbox_head++];
    switch (op.kind) {
      case OpKind::kSend:
        start_send(id, op.req);
        break;
      case OpKind::kRecv:
        start_recv(id, op.req);
        break;
      case OpKind::kPut:
        start_put(id, op.req);
        break;
      case OpKind::kGet:
        start_get(id, op.req);
        break;
      case OpKind::kBlock:
        r.block.since = op.at;
        if (r.block.kind == Block::kWaitAll) {
          r.block.pending = 0;
          for (uint32_t i = 0; i < r.block.count; ++i) {
            const uint32_t q = r.block.reqs[i];
            if (q == kNone || r.requests[q].complete) continue;
            r.requests[q].in_wait = true;
            ++r.block.pending;
          }
        } else if (r.block.kind == Block::kWaitAny) {
          for (uint32_t i = 0; i < r.block.count; ++i) {
            if (r.block.reqs[i] != kNone) r.requests[r.block.reqs[i]].in_wait = true;
          }
        }
        r.state = Rank::State::kBlocked;
        if (r.block.kind == Block::kCollective) arrive_one_step(r);
        wake_if_ready(r);
        break;
    }
    if (error_) return;
  }
  if (r.outbox_head == r.outbox.size()) {
    r.outbox.clear();
    r.outbox_head = 0;
  } else {
    schedule_ops(r);
  }
}

bool World::evaluate_block(Rank& r) {
  Block& b = r.block;
  switch (b.kind) {
    case Block::kWaitAll:
      return b.pending == 0;
    case Block::kWaitAny:
      for (uint32_t i = 0; i < b.count; ++i) {
        if (b.reqs[i] != kNone && r.requests[b.reqs[i]].complete) return true;
      }
      return false;
    case Block::kTest:
      b.flag = r.requests[b.reqs[0]].complete;
      return true;
    case Block::kCollective:
      return b.flag;
    case Block::kProbe:
    case Block::kIprobe: {
      const uint32_t n = r.unexpected.find(b.src, [&](uint32_t slot) {
        const Envelope& env = transfers_[slot].env;
        return env.context == b.context && (b.tag == kAnyTag || b.tag == env.tag);
      });
      b.flag = n != kNone;
      if (b.flag) {
        const Envelope& env = transfers_[r.unexpected.id(n)].env;
        b.status = Status{env.src_rank, env.tag, 0, env.bytes};
      }
      return b.flag || b.kind == Block::kIprobe;
    }
    case Block::kCancel: {
      // A receive not yet matched leaves the posted queue and completes as cancelled.
      const uint32_t q = b.reqs[0];
      b.flag = r.posted.remove(q);
      if (b.flag) {
        r.requests[q].complete = true;
        r.requests[q].status = Status{};
        r.requests[q].status.cancelled = true;
      }
      return true;
    }
    case Block::kPoll: {
      auto it = r.put_arrivals.find(b.poll_tag);
      if (it == r.put_arrivals.end() || it->second == 0) return false;
      if (--it->second == 0) r.put_arrivals.erase(it);
      return true;
    }
    case Block::kNone:
      break;
  }
  return false;
}

void World::wake_if_ready(Rank& r) {
  if (r.state != Rank::State::kBlocked || r.outbox_head != r.outbox.size()) return;
  if (!evaluate_block(r)) return;
  wake(r);
}

void World::complete(RankId id, uint32_t q) {
  Rank& r = ranks_[id];
  Request& req = r.requests[q];
  req.complete = true;
  req.done = engine_.now();
  if (r.state != Rank::State::kBlocked || !req.in_wait) return;
  if (r.block.kind == Block::kWaitAll) {
    if (--r.block.pending == 0) wake_if_ready(r);
  } else if (r.block.kind == Block::kWaitAny) {
    wake_if_ready(r);
  }
}

// ---------------------------------------------------------------- rank side

void World::suspend(Rank& r) {
  fibers_->suspend(r.id);
  current_ = r.id;  // the engine may have resumed several ranks in one pass
  if (stopping_) {
    runtime::forget_unwound_frames();
    throw RankUnwind{};
  }
}

void World::block(Rank& r) {
  r.outbox.push_back(Op{r.clock, OpKind::kBlock, kNone});
  suspend(r);
}

void World::one_step_collective(Rank& r, Comm& comm, OneStepPart& part) {
  part.rank = r.id;
  r.block = Block{};
  r.block.kind = Block::kCollective;
  r.block.part = &part;
  r.block.context = comm.coll_context();
  r.block.sequence = comm.one_steps++;
  r.block.count = static_cast<uint32_t>(comm.size());
  r.block.index = comm.rank;
  block(r);
  r.block.kind = Block::kNone;
  r.clock += r.block.delay;
  r.stats.wait += r.block.delay;
}

// Engine side: a member's part arrives (at its clock); the last one finishes the collective.
void World::arrive_one_step(Rank& r) {
  const Block& b = r.block;
  OneStep& x = one_steps_[{b.context, b.sequence}];
  if (x.parts.empty()) x.parts.assign(b.count, nullptr);
  x.parts[static_cast<size_t>(b.index)] = b.part;
  if (++x.arrived < static_cast<int>(b.count)) return;
  const OneStepPart& first = *x.parts.front();
  auto what = [](const OneStepPart& q) {
    return q.root >= 0 ? fmt::format("{} (root {})", q.name, q.root) : std::string(q.name);
  };
  for (const OneStepPart* p : x.parts) {
    if (p->op != first.op || p->root != first.root) {
      error(fmt::format("mismatched collectives on one communicator: rank {} called {} while rank {} called {}",
                        first.rank, what(first), p->rank, what(*p)));
      return;
    }
  }
  std::vector<const OneStepPart*> parts = std::move(x.parts);
  one_steps_.erase({b.context, b.sequence});
  std::string problem;
  const Time duration = first.finish(*this, parts, problem);
  if (!problem.empty()) {
    error(problem);
    return;
  }
  for (const OneStepPart* p : parts) {
    Rank& m = ranks_[p->rank];
    m.block.flag = true;
    m.block.delay = duration;
    wake_if_ready(m);
  }
}

void World::fail(const std::string& message) {
  if (!error_) error_ = message;
  runtime::forget_unwound_frames();
  throw RankUnwind{};
}

void World::compute(Rank& r, Time t) {
  r.clock += t;
  r.stats.compute += t;
}

uint32_t World::post_send(Rank& r, const void* buf, uint64_t bytes, RankId dst, int tag, const Comm& comm,
                          uint64_t context, bool collective) {
  r.clock += mpi_.send_overhead;
  r.stats.overhead += mpi_.send_overhead;
  const uint32_t q = r.alloc_request(ReqKind::kSend);
  Request& req = r.requests[q];
  req.sbuf = buf;
  req.peer = dst;
  req.collective = collective;
  req.env = Envelope{context, r.id, comm.rank, tag, bytes, 0, r.clock, Time()};
  r.outbox.push_back(Op{r.clock, OpKind::kSend, q});
  return q;
}

uint32_t World::post_recv(Rank& r, void* buf, uint64_t capacity, int src_world, int tag, uint64_t context,
                          bool collective) {
  const uint32_t q = r.alloc_request(ReqKind::kRecv);
  Request& req = r.requests[q];
  req.rbuf = buf;
  req.capacity = capacity;
  req.context = context;
  req.want_src = src_world;
  req.want_tag = tag;
  req.collective = collective;
  req.posted = r.clock;
  r.outbox.push_back(Op{r.clock, OpKind::kRecv, q});
  return q;
}

uint32_t World::post_rdma(Rank& r, ReqKind kind, RankId peer, uint64_t bytes, int tag) {
  r.clock += mpi_.rdma_overhead;
  r.stats.overhead += mpi_.rdma_overhead;
  const uint32_t q = r.alloc_request(kind);
  Request& req = r.requests[q];
  req.peer = peer;
  req.rdma_tag = tag;
  req.env.bytes = bytes;
  r.outbox.push_back(Op{r.clock, kind == ReqKind::kPut ? OpKind::kPut : OpKind::kGet, q});
  return q;
}

void World::wait_all(Rank& r, const uint32_t* reqs, uint32_t n) {
  const Time entry = r.clock;
  bool done = true;
  for (uint32_t i = 0; i < n && done; ++i)
    done = reqs[i] == kNone || r.requests[reqs[i]].complete;
  if (!done) {
    r.block = Block{};
    r.block.kind = Block::kWaitAll;
    r.block.reqs = reqs;
    r.block.count = n;
    block(r);
    for (uint32_t i = 0; i < n; ++i) {
      if (reqs[i] != kNone) r.requests[reqs[i]].in_wait = false;
    }
    r.block.kind = Block::kNone;
  }
  // Receive processing: while the rank waits inside MPI it handles each message as it
  // arrives (one at a time, recv_overhead each); messages that arrived before the wait are
  // handled from its start. The wait ends when the last one is handled. Completed sends are
  // handled the same way when they cost send_progress_overhead (Breaking Band's Post_prog).
  handled_.clear();
  const bool send_progress = mpi_.send_progress_overhead > Time::zero();
  for (uint32_t i = 0; i < n; ++i) {
    if (reqs[i] == kNone) continue;
    const Request& req = r.requests[reqs[i]];
    if (req.kind == ReqKind::kRecv) handled_.emplace_back(req.done, mpi_.recv_overhead);
    if (req.kind == ReqKind::kSend && send_progress) handled_.emplace_back(req.done, mpi_.send_progress_overhead);
  }
  if (handled_.empty()) return;
  std::sort(handled_.begin(), handled_.end());
  Time cpu = entry;
  Time handling = Time::zero();
  for (auto [t, cost] : handled_) {
    cpu = simcore::max(cpu, t) + cost;
    handling += cost;
  }
  // resume() counted the whole blocked time as waiting; part of it was spent handling messages.
  r.stats.overhead += handling;
  r.stats.wait += (cpu - simcore::max(r.clock, entry)) - handling;
  r.clock = simcore::max(r.clock, cpu);
}

int World::wait_any(Rank& r, const uint32_t* reqs, uint32_t n) {
  auto first_done = [&]() -> int {
    for (uint32_t i = 0; i < n; ++i) {
      if (reqs[i] != kNone && r.requests[reqs[i]].complete) return static_cast<int>(i);
    }
    return -1;
  };
  bool any = false;
  for (uint32_t i = 0; i < n; ++i)
    any = any || reqs[i] != kNone;
  if (!any) return -1;
  int index = first_done();
  if (index < 0) {
    r.block = Block{};
    r.block.kind = Block::kWaitAny;
    r.block.reqs = reqs;
    r.block.count = n;
    block(r);
    for (uint32_t i = 0; i < n; ++i) {
      if (reqs[i] != kNone) r.requests[reqs[i]].in_wait = false;
    }
    r.block.kind = Block::kNone;
    index = first_done();
  }
  if (r.requests[reqs[index]].kind == ReqKind::kRecv) {
    r.clock += mpi_.recv_overhead;
    r.stats.overhead += mpi_.recv_overhead;
  } else if (r.requests[reqs[index]].kind == ReqKind::kSend) {
    r.clock += mpi_.send_progress_overhead;
    r.stats.overhead += mpi_.send_progress_overhead;
  }
  return index;
}

bool World::test(Rank& r, uint32_t q) {
  bool done = r.requests[q].complete;
  if (!done) {
    r.block = Block{};
    r.block.kind = Block::kTest;
    r.block.reqs = &q;
    r.block.count = 1;
    block(r);
    r.block.kind = Block::kNone;
    done = r.block.flag;
    if (!done) {
      // An unsuccessful test costs a poll of the progress engine; without it a test loop
      // would spin forever at one instant of simulated time.
      r.clock += mpi_.poll_overhead;
      r.stats.overhead += mpi_.poll_overhead;
    }
  }
  if (done && r.requests[q].kind == ReqKind::kRecv && !r.requests[q].status.cancelled) {
    r.clock += mpi_.recv_overhead;
    r.stats.overhead += mpi_.recv_overhead;
  } else if (done && r.requests[q].kind == ReqKind::kSend) {
    r.clock += mpi_.send_progress_overhead;
    r.stats.overhead += mpi_.send_progress_overhead;
  }
  return done;
}

std::shared_ptr<const Group> World::intern_group(std::vector<RankId> members) {
  auto it = groups_.find(members);
  if (it != groups_.end()) {
    if (auto g = it->second.lock()) return g;
  }
  auto g = Group::of(members);
  groups_[std::move(members)] = g;
  return g;
}

void World::split_put(uint64_t id, int members, int index, int color, int key) {
  Split& x = splits_[id];
  if (x.color_key.empty()) {
    x.color_key.assign(static_cast<size_t>(members), {-1, 0});
    x.remaining = members;
  }
  x.color_key[static_cast<size_t>(index)] = {color, key};
}

std::shared_ptr<const Group> World::split_group(uint64_t id, const Comm& parent, int color) {
  Split& x = splits_.at(id);
  if (x.groups.empty() && !x.color_key.empty()) {
    // MPI orders each new communicator by key, ties by rank in the old one.
    std::vector<std::tuple<int, int, int>> order;  // (color, key, old rank)
    for (size_t i = 0; i < x.color_key.size(); ++i) {
      if (x.color_key[i].first >= 0)
        order.emplace_back(x.color_key[i].first, x.color_key[i].second, static_cast<int>(i));
    }
    std::sort(order.begin(), order.end());
    for (size_t i = 0; i < order.size();) {
      const int c = std::get<0>(order[i]);
      std::vector<RankId> members;
      for (; i < order.size() && std::get<0>(order[i]) == c; ++i)
        members.push_back(parent.world(std::get<2>(order[i])));
      x.groups[c] = intern_group(std::move(members));
    }
    std::vector<std::pair<int, int>>().swap(x.color_key);
  }
  std::shared_ptr<const Group> g = color < 0 ? nullptr : x.groups.at(color);
  if (--x.remaining == 0) splits_.erase(id);
  return g;
}

Status World::probe(Rank& r, uint64_t context, int src_world, int tag) {
  r.block = Block{};
  r.block.kind = Block::kProbe;
  r.block.context = context;
  r.block.src = src_world;
  r.block.tag = tag;
  block(r);
  r.block.kind = Block::kNone;
  return r.block.status;
}

bool World::iprobe(Rank& r, uint64_t context, int src_world, int tag, Status* status) {
  r.block = Block{};
  r.block.kind = Block::kIprobe;
  r.block.context = context;
  r.block.src = src_world;
  r.block.tag = tag;
  block(r);
  r.block.kind = Block::kNone;
  if (r.block.flag && status) *status = r.block.status;
  if (!r.block.flag) {
    r.clock += mpi_.poll_overhead;
    r.stats.overhead += mpi_.poll_overhead;
  }
  return r.block.flag;
}

bool World::cancel(Rank& r, uint32_t q) {
  if (r.requests[q].complete) return false;
  r.block = Block{};
  r.block.kind = Block::kCancel;
  r.block.reqs = &q;
  r.block.count = 1;
  block(r);
  r.block.kind = Block::kNone;
  return r.block.flag;
}

void World::rdma_poll(Rank& r, int tag) {
  r.block = Block{};
  r.block.kind = Block::kPoll;
  r.block.poll_tag = tag;
  block(r);
  r.block.kind = Block::kNone;
}

// ---------------------------------------------------------------- engine side: protocols

uint32_t World::new_transfer(Xfer kind, RankId src, RankId dst) {
  uint32_t slot;
  if (free_transfer_ != kNone) {
    slot = free_transfer_;
    free_transfer_ = transfers_[slot].next_free;
    Transfer& t = transfers_[slot];
    t.kind = Xfer::kEager;
    t.sreq = t.rreq = kNone;
    t.env = Envelope{};
    t.inline_bytes = 0;
    t.sent = t.delivered = false;
  } else {
    slot = static_cast<uint32_t>(transfers_.size());
    transfers_.emplace_back();
  }
  Transfer& t = transfers_[slot];
  t.kind = kind;
  t.src = src;
  t.dst = dst;
  return slot;
}

void World::transmit(uint32_t slot, uint64_t wire_bytes) {
  const Transfer& t = transfers_[slot];
  ++messages_;
  const Rank& a = ranks_[t.src];
  const Rank& b = ranks_[t.dst];
  if (a.node == b.node) {
    // A copy through the node's memory: serialised on the node's copy engine.
    ++intra_messages_;
    const Time now = engine_.now();
    const Time start = simcore::max(now, memory_free_[a.node]);
    const Time copy = simcore::transfer_time(Bytes(wire_bytes), node_.memory_bandwidth);
    memory_free_[a.node] = start + copy;
    engine_.schedule(start + copy + node_.memory_latency, kinds_[kMemoryDone], t.dst, 0, slot);
  } else {
    network_.inject(a.endpoint, b.endpoint, Bytes(wire_bytes), slot);
  }
}

void World::transfer_done(uint32_t slot) {
  if (!transfers_[slot].data.empty()) std::vector<std::byte>().swap(transfers_[slot].data);
  transfers_[slot].next_free = free_transfer_;
  free_transfer_ = slot;
}

void World::start_send(RankId id, uint32_t q) {
  Rank& r = ranks_[id];
  Request& req = r.requests[q];
  const RankId dst = req.peer;
  req.env.seq = r.send_seq[dst]++;
  ++r.stats.messages_sent;
  r.stats.bytes_sent += req.env.bytes;
  const uint64_t bytes = req.env.bytes;
  req.env.sent = engine_.now();
  if (bytes <= mpi_.eager_threshold.count() && !req.synchronous) {
    const uint32_t slot = new_transfer(Xfer::kEager, id, dst);
    Transfer& t = transfers_[slot];
    t.sreq = q;
    t.env = req.env;
    if (req.sbuf != nullptr && bytes > 0) {
      const auto* p = static_cast<const std::byte*>(req.sbuf);
      if (bytes <= Transfer::kInline) {
        std::memcpy(t.inline_data, p, bytes);
        t.inline_bytes = static_cast<uint32_t>(bytes);
      } else {
        t.data.assign(p, p + bytes);
      }
    }
    transmit(slot, bytes + mpi_.envelope.count());
  } else {
    req.rendezvous = true;
    const uint32_t slot = new_transfer(Xfer::kRts, id, dst);
    transfers_[slot].sreq = q;
    transfers_[slot].env = req.env;
    transmit(slot, mpi_.envelope.count());
  }
}

void World::start_recv(RankId id, uint32_t q) {
  Rank& r = ranks_[id];
  const Request& req = r.requests[q];
  const uint32_t n = r.unexpected.find(req.want_src, [&](uint32_t slot) { return matches(req, transfers_[slot].env); });
  if (n != kNone) {
    match(id, q, r.unexpected.erase(n));
    return;
  }
  r.posted.push(q, req.want_src);
}

void World::start_put(RankId id, uint32_t q) {
  const Request& req = ranks_[id].requests[q];
  const uint32_t slot = new_transfer(Xfer::kPut, id, req.peer);
  transfers_[slot].sreq = q;
  transfers_[slot].env.bytes = req.env.bytes;
  transfers_[slot].env.tag = req.rdma_tag;
  ++ranks_[id].stats.messages_sent;
  ranks_[id].stats.bytes_sent += req.env.bytes;
  transmit(slot, req.env.bytes);
}

void World::start_get(RankId id, uint32_t q) {
  const Request& req = ranks_[id].requests[q];
  const uint32_t slot = new_transfer(Xfer::kGetReq, id, req.peer);
  transfers_[slot].sreq = q;
  transfers_[slot].env.bytes = req.env.bytes;
  transfers_[slot].env.tag = req.rdma_tag;
  transmit(slot, mpi_.envelope.count());
}

bool World::matches(const Request& q, const Envelope& env) const {
  return q.context == env.context && (q.want_src == kAnySource || static_cast<RankId>(q.want_src) == env.src) &&
         (q.want_tag == kAnyTag || q.want_tag == env.tag);
}

void World::arrive(RankId dst, uint32_t slot) {
  Rank& r = ranks_[dst];
  const RankId src = transfers_[slot].env.src;
  if (transfers_[slot].env.seq != r.recv_seq[src]) {
    r.early.push_back(slot);  // an earlier message from this sender is still on its way
    return;
  }
  deliver_in_order(dst, slot);
  for (bool more = !r.early.empty(); more;) {
    more = false;
    for (size_t i = 0; i < r.early.size(); ++i) {
      const Envelope& env = transfers_[r.early[i]].env;
      if (env.src != src || env.seq != r.recv_seq[src]) continue;
      const uint32_t next = r.early[i];
      r.early.erase(r.early.begin() + static_cast<ptrdiff_t>(i));
      deliver_in_order(dst, next);
      more = true;
      break;
    }
  }
}

void World::deliver_in_order(RankId dst, uint32_t slot) {
  Rank& r = ranks_[dst];
  const Envelope& env = transfers_[slot].env;
  ++r.recv_seq[env.src];
  const uint32_t n =
      r.posted.find_for(static_cast<int>(env.src), [&](uint32_t q) { return matches(r.requests[q], env); });
  if (n != kNone) {
    match(dst, r.posted.erase(n), slot);
    return;
  }
  r.unexpected.push(slot, static_cast<int>(env.src));
  if (r.block.kind == Block::kProbe) wake_if_ready(r);
}

void World::match(RankId dst, uint32_t q, uint32_t slot) {
  Rank& r = ranks_[dst];
  Request& req = r.requests[q];
  const Envelope env = transfers_[slot].env;
  req.status = Status{env.src_rank, env.tag, 0, env.bytes};
  if (env.bytes > req.capacity) {
    // MPI_ERR_TRUNCATE: the receive completes with what fits and reports the error in its
    // status; the caller decides whether it is fatal (MGEN programs) or returned (MPI handlers).
    req.status.error = kErrTruncated;
    req.status.bytes = req.capacity;
    req.status.message_bytes = env.bytes;
  }
  req.peer = env.src;
  if (transfers_[slot].kind == Xfer::kEager) {
    const Transfer& t = transfers_[slot];
    const uint64_t fit = req.status.bytes;
    if (req.rbuf != nullptr && t.inline_bytes)
      std::memcpy(req.rbuf, t.inline_data, std::min<uint64_t>(t.inline_bytes, fit));
    if (req.rbuf != nullptr && !t.data.empty())
      std::memcpy(req.rbuf, t.data.data(), std::min<uint64_t>(t.data.size(), fit));
    log_message(dst, req, env);
    complete(dst, q);
  } else {
    // Rendezvous: tell the sender to go ahead.
    const uint32_t sreq = transfers_[slot].sreq;
    const uint32_t cts = new_transfer(Xfer::kCts, dst, env.src);
    transfers_[cts].sreq = sreq;
    transfers_[cts].rreq = q;
    transfers_[cts].env = env;
    transmit(cts, mpi_.envelope.count());
  }
  // The network reported it sent before it could arrive; nothing refers to it any more.
  transfer_done(slot);
}

void World::log_message(RankId dst, const Request& receive, const Envelope& env) {
  if (!job_.message_log) return;
  message_log_.push_back(MessageRecord{env.src, dst, env.posted, env.sent, receive.posted, engine_.now(), env.bytes,
                                       env.tag, receive.collective});
}

void World::on_message_sent(uint64_t cookie, Time) {
  const uint32_t slot = static_cast<uint32_t>(cookie);
  Transfer& t = transfers_[slot];
  t.sent = true;
  if (t.kind == Xfer::kEager || t.kind == Xfer::kData) complete(t.src, t.sreq);
  if (t.delivered) transfer_done(slot);
}

void World::on_message_delivered(uint64_t cookie, Time) {
  const uint32_t slot = static_cast<uint32_t>(cookie);
  // Copied: new_transfer() below may move the pool.
  const Xfer kind = transfers_[slot].kind;
  const RankId src = transfers_[slot].src, dst = transfers_[slot].dst;
  const uint32_t sreq = transfers_[slot].sreq, rreq = transfers_[slot].rreq;
  const Envelope env = transfers_[slot].env;
  switch (kind) {
    case Xfer::kEager:
    case Xfer::kRts:
      arrive(dst, slot);  // the slot lives on in a queue until matched
      return;
    case Xfer::kCts: {
      // At the sender: the data goes now, straight from the send buffer. It is read here, as the
      // NIC reads it, because the sender may reuse its buffer as soon as the send completes;
      // the receiver cannot look at its buffer before the data's simulated arrival anyway.
      const Request& sq = ranks_[dst].requests[sreq];
      Request& rq = ranks_[src].requests[rreq];
      const uint64_t fit = std::min(env.bytes, rq.capacity);
      if (sq.sbuf != nullptr && rq.rbuf != nullptr && fit > 0) std::memcpy(rq.rbuf, sq.sbuf, fit);
      const uint32_t data = new_transfer(Xfer::kData, dst, src);
      transfers_[data].sreq = sreq;
      transfers_[data].rreq = rreq;
      transfers_[data].env = env;
      transfers_[data].env.sent = engine_.now();
      transmit(data, env.bytes);
      break;
    }
    case Xfer::kData:
      log_message(dst, ranks_[dst].requests[rreq], env);
      complete(dst, rreq);
      break;
    case Xfer::kPut: {
      Rank& target = ranks_[dst];
      ++target.put_arrivals[env.tag];
      if (target.block.kind == Block::kPoll) wake_if_ready(target);
      // The target NIC confirms once the data is in memory (NSIM-ACE §3.1).
      const uint32_t ack = new_transfer(Xfer::kPutAck, dst, src);
      transfers_[ack].sreq = sreq;
      transmit(ack, mpi_.envelope.count());
      break;
    }
    case Xfer::kPutAck:
    case Xfer::kGetData:
      complete(dst, sreq);
      break;
    case Xfer::kGetReq: {
      const uint32_t data = new_transfer(Xfer::kGetData, dst, src);
      transfers_[data].sreq = sreq;
      transfers_[data].env.bytes = env.bytes;
      transmit(data, env.bytes);
      break;
    }
  }
  Transfer& done = transfers_[slot];
  done.delivered = true;
  if (done.sent) transfer_done(slot);
}

// ---------------------------------------------------------------- errors and deadlock

void World::error(const std::string& message) {
  if (!error_) error_ = message;
  engine_.stop();
}

void World::abort_ranks() {
  stopping_ = true;
  for (Rank& r : ranks_) {
    if (!fibers_->finished(r.id)) fibers_->make_ready(r.id);
  }
  fibers_->run_ready();
  current_ = kNone;
}

std::string World::describe(const Rank& r) const {
  std::string what = r.call.name ? r.call.name : "an MGEN call";
  std::string args;
  auto add = [&](const std::string& s) { args += (args.empty() ? "" : ", ") + s; };
  if (r.call.peer != static_cast<int>(kNone))
    add(r.call.peer == kAnySource ? "source ANY" : fmt::format("peer {}", r.call.peer));
  if (r.call.tag != kAnyTag) add(fmt::format("tag {}", r.call.tag));
  if (r.call.comm != 0) add(fmt::format("comm {}", r.call.comm));
  return fmt::format("rank {} blocked in {}({}) since {:.3f} us", r.id, what, args, r.block.since.microseconds());
}

std::string World::deadlock_report() const {
  size_t blocked = 0;
  std::string lines;
  for (const Rank& r : ranks_) {
    if (r.state == Rank::State::kFinished) continue;
    if (++blocked <= 32) lines += "  " + describe(r) + "\n";
  }
  if (blocked > 32) lines += fmt::format("  ... and {} more\n", blocked - 32);
  std::string out = fmt::format(
      "deadlock: {} of {} ranks are blocked and nothing else can happen (simulated time "
      "{:.3f} us):\n{}",
      blocked, ranks_.size(), engine_.now().microseconds(), lines);
  if (network_.packets_in_flight() != 0) {
    out += fmt::format("the network itself is stuck with {} packets:\n{}", network_.packets_in_flight(),
                       network_.describe_stuck(10));
  }
  return out;
}

}  // namespace mgen::mpi
