// Rank scheduling: the rank fibers' side of the simcall rule. An execution context (a rank's
// main program, or a helper running a non-blocking collective) posts operations to its outbox
// and runs ahead; the engine processes them at their timestamps (process_ops), and a context
// that must wait blocks until evaluate_block says its condition holds, then resumes with every
// other context woken at that instant, in wake order (resume_batch).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <tuple>

#include "core/world.hpp"

namespace mgen::mpi {

void World::wake(Exec& r) {
  r.state = Exec::State::kWaking;
  waking_.push_back(r.id);
  if (resume_scheduled_) return;
  resume_scheduled_ = true;
  schedule_event(engine_.now(), kRankResume, 0);
}

// Every rank woken at this instant runs in one pass, in wake order: each hands over straight to
// the next fiber, so a resumption costs one context switch, not two.
void World::resume_batch() {
  resume_scheduled_ = false;
  batch_.swap(waking_);
  waking_.clear();
  const Time now = engine_.now();
  for (uint32_t id : batch_) {
    Exec& r = exec(id);
    if (r.block.kind != Block::kNone) r.stats.wait += now - r.block.since;
    r.clock = simcore::max(r.clock, now);
    r.state = Exec::State::kRunning;
    fibers_->make_ready(id);
  }
  fibers_->run_ready();
  current_ = kNone;
  check_fault();
  for (uint32_t id : batch_) {
    Exec& r = exec(id);
    // With guard pages an overflow faults at once; without them (beyond 30K ranks) the canary
    // at the stack bottom is the only witness, so it is checked after every run of the fiber.
    if (!fibers_->stacks().guarded() && !fibers_->stack_intact(id) && !error_) {
      error_ = fmt::format(
          "rank {} overflowed its {} KiB stack; give it more with --stack (its stack had no guard page, which "
          "would have stopped it at once: guard pages for {} ranks need {} memory mappings, more than vm.max_map_count "
          "allows; "
          "`sysctl -w vm.max_map_count=N` raises it)",
          r.rank, job_.stack_bytes >> 10, ranks_.size(), 2 * ranks_.size());
    }
    if (fibers_->finished(id)) {
      r.state = Exec::State::kFinished;
      ranks_finished_ += id < ranks_.size();
      r.finished_at = r.clock;
    } else {
      r.state = Exec::State::kBlocked;
    }
    if (!error_) schedule_ops(r);
  }
  if (error_) engine_.stop();
}

void World::schedule_ops(Exec& r) {
  if (r.ops_scheduled || r.outbox_head == r.outbox.size()) return;
  r.ops_scheduled = true;
  const Time at = r.outbox[r.outbox_head].at;
  if (canonical_) {
    // By rank, then main context before helpers in the order the rank started them.
    engine_.schedule_canonical(at, kinds_[kRankOps], r.rank, 0, uint64_t{r.ordinal} << 32 | r.id);
  } else {
    engine_.schedule(at, kinds_[kRankOps], r.id);
  }
}

// With a canonical network (net::Backend::canonical) the world's events are canonical too:
// same-time operations run in context order (schedule_ops) and the resumption after them,
// whichever order the code scheduled them in. Otherwise in the order they were scheduled.
void World::schedule_event(Time at, Kind kind, uint32_t target) {
  if (canonical_) {
    engine_.schedule_canonical(at, kinds_[kind], target);
  } else {
    engine_.schedule(at, kinds_[kind], target);
  }
}

void World::process_ops(uint32_t ctx) {
  Exec& r = exec(ctx);
  Rank& owner = ranks_[r.rank];
  const RankId id = r.rank;
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
      case OpKind::kSpawn: {
        // The helper starts now, at its owner's clock when it called the collective.
        fibers_->create(op.req);
        wake(exec(op.req));
        break;
      }
      case OpKind::kDone: {
        Helper& h = *helpers_[ctx - ranks_.size()];
        complete(id, op.req);
        h.job = nullptr;  // its fiber has returned: what the job held can go
        h.in_use = false;
        free_helpers_.push_back(ctx);
        break;
      }
      case OpKind::kBlock:
        r.block.since = op.at;
        if (r.block.kind == Block::kWaitAll) {
          r.block.pending = 0;
          for (uint32_t i = 0; i < r.block.count; ++i) {
            const uint32_t q = r.block.reqs[i];
            if (q == kNone || owner.requests[q].complete) continue;
            owner.requests[q].in_wait = true;
            owner.requests[q].waiter = ctx;
            ++r.block.pending;
          }
        } else if (r.block.kind == Block::kWaitAny) {
          for (uint32_t i = 0; i < r.block.count; ++i) {
            if (r.block.reqs[i] == kNone) continue;
            owner.requests[r.block.reqs[i]].in_wait = true;
            owner.requests[r.block.reqs[i]].waiter = ctx;
          }
        }
        r.state = Exec::State::kBlocked;
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

bool World::evaluate_block(Exec& x) {
  Block& b = x.block;
  Rank& r = ranks_[x.rank];
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
        transfers_[r.unexpected.id(n)].probed = true;  // no longer cancellable (cancel_send)
        const Envelope& env = transfers_[r.unexpected.id(n)].env;
        b.status = Status{env.src_rank, env.tag, 0, env.bytes};
      }
      return b.flag || b.kind == Block::kIprobe;
    }
    case Block::kCancel: {
      // A receive not yet matched leaves the posted queue and completes as cancelled, unless an
      // eager payload is already in its buffer (claim_receive): then it is as good as matched.
      const uint32_t q = b.reqs[0];
      if (r.requests[q].kind == ReqKind::kSend) {
        b.flag = cancel_send(r.rank, q);
        return true;
      }
      // A sender in another partition cannot claim the receive as a serial run's would
      // (claim_receive: only a receive naming its sender), so whether the cancel wins could
      // differ: refused.
      if (const int src = r.requests[q].want_src; src != kAnySource && !mine(static_cast<RankId>(src))) {
        error(
            fmt::format("rank {}: MPI_Cancel of a receive from rank {}, which another partition runs: not supported "
                        "in a partitioned run (--threads, mpiexec): run it in one partition",
                        r.rank, src));
        return true;
      }
      b.flag = !r.requests[q].prefilled && r.posted.remove(q);
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

void World::wake_if_ready(Exec& r) {
  if (r.state != Exec::State::kBlocked || r.outbox_head != r.outbox.size()) return;
  if (!evaluate_block(r)) return;
  wake(r);
}

void World::complete(RankId id, uint32_t q) {
  Rank& r = ranks_[id];
  Request& req = r.requests[q];
  req.complete = true;
  req.done = engine_.now();
  if (!req.in_wait) return;
  Exec& x = exec(req.waiter);
  if (x.state != Exec::State::kBlocked) return;
  if (x.block.kind == Block::kWaitAll) {
    if (--x.block.pending == 0) wake_if_ready(x);
  } else if (x.block.kind == Block::kWaitAny) {
    wake_if_ready(x);
  }
}

void World::suspend(Exec& r) {
  fibers_->suspend(r.id);
  current_ = r.id;  // the engine may have resumed several contexts in one pass
  if (stopping_) {
    runtime::forget_unwound_frames();
    throw RankUnwind{};
  }
}

void World::block(Exec& r) {
  r.outbox.push_back(Op{r.clock, OpKind::kBlock, kNone});
  suspend(r);
}

void World::compute(Exec& r, Time t) {
  r.clock += t;
  r.stats.compute += t;
}

// Blocks until the engine finds the wait (all or any of `reqs`) satisfied; the requests are
// marked as waited for while the context is blocked.
void World::block_on_requests(Exec& r, Block::Kind kind, const uint32_t* reqs, uint32_t n) {
  r.block = Block{};
  r.block.kind = kind;
  r.block.reqs = reqs;
  r.block.count = n;
  block(r);
  Rank& owner = ranks_[r.rank];
  for (uint32_t i = 0; i < n; ++i) {
    if (reqs[i] != kNone) owner.requests[reqs[i]].in_wait = false;
  }
  r.block.kind = Block::kNone;
}

void World::wait_all(Exec& r, const uint32_t* reqs, uint32_t n) {
  Rank& owner = ranks_[r.rank];
  const Time entry = r.clock;
  bool done = true;
  for (uint32_t i = 0; i < n && done; ++i)
    done = reqs[i] == kNone || owner.requests[reqs[i]].complete;
  if (!done) block_on_requests(r, Block::kWaitAll, reqs, n);
  // Receive processing: while the rank waits inside MPI it handles each message as it
  // arrives (one at a time, recv_overhead each); messages that arrived before the wait are
  // handled from its start. The wait ends when the last one is handled. Completed sends are
  // handled the same way when they cost send_progress_overhead (Breaking Band's Post_prog).
  handled_.clear();
  const bool send_progress = mpi_.send_progress_overhead > Time::zero();
  for (uint32_t i = 0; i < n; ++i) {
    if (reqs[i] == kNone) continue;
    const Request& req = owner.requests[reqs[i]];
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

int World::wait_any(Exec& r, const uint32_t* reqs, uint32_t n) {
  Rank& owner = ranks_[r.rank];
  auto first_done = [&]() -> int {
    for (uint32_t i = 0; i < n; ++i) {
      if (reqs[i] != kNone && owner.requests[reqs[i]].complete) return static_cast<int>(i);
    }
    return -1;
  };
  bool any = false;
  for (uint32_t i = 0; i < n; ++i)
    any = any || reqs[i] != kNone;
  if (!any) return -1;
  int index = first_done();
  if (index < 0) {
    block_on_requests(r, Block::kWaitAny, reqs, n);
    index = first_done();
  }
  if (owner.requests[reqs[index]].kind == ReqKind::kRecv) {
    r.clock += mpi_.recv_overhead;
    r.stats.overhead += mpi_.recv_overhead;
  } else if (owner.requests[reqs[index]].kind == ReqKind::kSend) {
    r.clock += mpi_.send_progress_overhead;
    r.stats.overhead += mpi_.send_progress_overhead;
  }
  return index;
}

bool World::test(Exec& r, uint32_t q) {
  Rank& owner = ranks_[r.rank];
  bool done = owner.requests[q].complete;
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
  if (done && owner.requests[q].kind == ReqKind::kRecv && !owner.requests[q].status.cancelled) {
    r.clock += mpi_.recv_overhead;
    r.stats.overhead += mpi_.recv_overhead;
  } else if (done && owner.requests[q].kind == ReqKind::kSend) {
    r.clock += mpi_.send_progress_overhead;
    r.stats.overhead += mpi_.send_progress_overhead;
  }
  return done;
}

}  // namespace mgen::mpi
