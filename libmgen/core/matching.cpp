// Matching: arrived messages meet posted receives in MPI's non-overtaking order (per sender,
// by sequence number; an early arrival waits for its predecessors), through the posted and
// unexpected queues; probes, cancellation and RDMA polls look at the same queues.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <tuple>

#include "core/datatype.hpp"
#include "core/world.hpp"

namespace mgen::mpi {

bool World::matches(const Request& q, const Envelope& env) const {
  return q.context == env.context && (q.want_src == kAnySource || static_cast<RankId>(q.want_src) == env.src) &&
         (q.want_tag == kAnyTag || q.want_tag == env.tag);
}

// A message started now (eager, from `env.src`) will be matched on arrival by the first posted
// receive that accepts it if (1) every earlier message from its sender has arrived, so none can
// take that receive first (messages from one sender match in order), and (2) that receive names
// the sender, so no message from another one can take it either. Receives posted later queue
// behind it; the only other way out, MPI_Cancel, then fails (Request::prefilled). So the payload
// can go straight into that receive's buffer.
uint32_t World::claim_receive(RankId dst, const Envelope& env) {
  Rank& r = ranks_[dst];
  if (r.posted.empty() || env.seq != r.recv_seq[env.src]) return kNone;
  const uint32_t n =
      r.posted.find_for(static_cast<int>(env.src), [&](uint32_t q) { return matches(r.requests[q], env); });
  if (n == kNone) return kNone;
  const uint32_t q = r.posted.id(n);
  return r.requests[q].want_src == static_cast<int32_t>(env.src) ? q : kNone;
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
  if (transfers_[slot].cancelled) {  // it keeps its place in the sender's order, nothing more
    transfer_done(slot);
    return;
  }
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
    if (t.landed || req.rbuf == nullptr || shared_.contains(req.rbuf)) {
      // Copied at send time, size only, or a shared buffer (contents undefined).
    } else if (t.inline_bytes) {
      land(dst, req, t.inline_data, std::min<uint64_t>(t.inline_bytes, fit));
    } else if (!t.data.empty()) {
      land(dst, req, t.data.data(), std::min<uint64_t>(t.data.size(), fit));
    }
    log_message(dst, req, env);
    complete(dst, q);
  } else {
    // Rendezvous: tell the sender to go ahead.
    const uint32_t sreq = transfers_[slot].sreq;
    const uint32_t cts = new_transfer(Xfer::kCts, dst, env.src);
    transfers_[cts].sreq = sreq;
    transfers_[cts].rreq = q;
    transfers_[cts].env = env;
    transfers_[cts].capacity = req.capacity;
    transfers_[cts].into = req.rbuf != nullptr && !shared_.contains(req.rbuf);
    transmit(cts, mpi_.envelope.count());
  }
  // The network reported it sent before it could arrive; nothing refers to it any more.
  transfer_done(slot);
}

void World::land(RankId dst, Request& rq, const void* payload, uint64_t bytes) {
  if (rq.fold_op < 0) {
    std::memcpy(rq.rbuf, payload, bytes);
    return;
  }
  // With another operand than the buffer itself, chunk by chunk: the chunk copied in is still
  // in the cache when the payload is reduced into it, so the buffer is written once.
  // A payload that is not aligned for its elements (a staged eager message may sit at any
  // offset) goes through an aligned chunk first: the reduction loops load whole elements.
  constexpr uint64_t kChunk = 16 * 1024;
  alignas(16) static thread_local std::byte aligned_chunk[kChunk];
  const uint64_t count = bytes / rq.fold_size;
  const auto* in = static_cast<const std::byte*>(payload);
  const uint64_t alignment = std::min<uint64_t>(rq.fold_size & (~uint64_t{rq.fold_size} + 1), 16);
  const bool misaligned = reinterpret_cast<uintptr_t>(in) % alignment != 0;
  // Another operand than the buffer itself: one pass, rbuf = payload op operand, where the
  // chunks below would copy the operand in first and then reduce (the same arithmetic).
  if (rq.fold_with != rq.rbuf && !misaligned &&
      reduce_apply_to(rq.fold_op, rq.fold_type, in, rq.fold_with, rq.rbuf, count)) {
    return;
  }
  const uint64_t step = rq.fold_with == rq.rbuf && !misaligned ? count : std::max<uint64_t>(1, kChunk / rq.fold_size);
  auto* out = static_cast<std::byte*>(rq.rbuf);
  const auto* with = static_cast<const std::byte*>(rq.fold_with);
  for (uint64_t i = 0; i < count; i += step) {
    const uint64_t n = std::min(step, count - i), offset = i * rq.fold_size;
    if (with != out) std::memcpy(out + offset, with + offset, n * rq.fold_size);
    const std::byte* operand = in + offset;
    if (misaligned) {
      std::memcpy(aligned_chunk, operand, n * rq.fold_size);
      operand = aligned_chunk;
    }
    const std::string problem = reduce_apply(rq.fold_op, rq.fold_type, operand, out + offset, n);
    if (!problem.empty()) {
      error(fmt::format("rank {}: {}", dst, problem));
      return;
    }
  }
}

void World::log_message(RankId dst, const Request& receive, const Envelope& env) {
  if (!job_.message_log) return;
  message_log_.push_back(MessageRecord{env.src, dst, env.posted, env.sent, receive.posted, engine_.now(), env.bytes,
                                       env.tag, receive.collective});
}

void World::block_probe(Exec& r, Block::Kind kind, uint64_t context, int src_world, int tag) {
  r.block = Block{};
  r.block.kind = kind;
  r.block.context = context;
  r.block.src = src_world;
  r.block.tag = tag;
  block(r);
  r.block.kind = Block::kNone;
}

Status World::probe(Exec& r, uint64_t context, int src_world, int tag) {
  block_probe(r, Block::kProbe, context, src_world, tag);
  return r.block.status;
}

bool World::iprobe(Exec& r, uint64_t context, int src_world, int tag, Status* status) {
  block_probe(r, Block::kIprobe, context, src_world, tag);
  if (r.block.flag && status) *status = r.block.status;
  if (!r.block.flag) {
    r.clock += mpi_.poll_overhead;
    r.stats.overhead += mpi_.poll_overhead;
  }
  return r.block.flag;
}

// A send can be cancelled while no receive has matched its message (MPI-4.0 §3.8.4): on the
// way, waiting behind an earlier message of its sender, or in the receiver's unexpected queue
// (an eager payload already copied into a receive that claimed it, or a message a probe has
// reported, counts as matched). The
// answer is the state at the call's instant; the model charges no round trip to the receiver.
bool World::cancel_send(RankId id, uint32_t q) {
  Request& req = ranks_[id].requests[q];
  // Whether its receiver has matched it is another partition's to know.
  if (!mine(req.peer)) {
    error(
        fmt::format("rank {}: MPI_Cancel of a send to rank {}, which another partition runs: not supported in a "
                    "partitioned run (--threads, mpiexec): run it in one partition",
                    id, req.peer));
    return false;
  }
  const uint32_t slot = req.xfer;
  if (slot == kNone) return false;
  Transfer& t = transfers_[slot];
  // Matched already: the slot went back to the pool (transfer_done) or carries another message.
  // A probe that reported it promised the receive that follows this message (MPI-4.0 §3.8.1).
  if (t.sreq != q || t.src != id || (t.kind != Xfer::kEager && t.kind != Xfer::kRts) || t.landed || t.cancelled ||
      t.probed)
    return false;
  const bool rendezvous = t.kind == Xfer::kRts;
  if (ranks_[t.dst].unexpected.remove(slot)) {
    transfer_done(slot);  // it arrived, so the network reported it sent
  } else {
    t.cancelled = true;  // on its way or early: dropped when its turn to be delivered comes
  }
  req.xfer = kNone;
  req.status = Status{};
  req.status.cancelled = true;
  // An eager send completes when its message leaves (on_message_sent); a rendezvous one would
  // complete only with its data, which now never goes.
  if (rendezvous && !req.complete) complete(id, q);
  return true;
}

bool World::cancel(Exec& r, uint32_t q) {
  const Request& req = ranks_[r.rank].requests[q];
  if (req.complete && req.kind != ReqKind::kSend) return false;
  r.block = Block{};
  r.block.kind = Block::kCancel;
  r.block.reqs = &q;
  r.block.count = 1;
  block(r);
  r.block.kind = Block::kNone;
  return r.block.flag;
}

void World::rdma_poll(Exec& r, int tag) {
  r.block = Block{};
  r.block.kind = Block::kPoll;
  r.block.poll_tag = tag;
  block(r);
  r.block.kind = Block::kNone;
}

}  // namespace mgen::mpi
