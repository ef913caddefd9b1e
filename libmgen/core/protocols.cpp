// Protocols: how a posted send, receive, put or get becomes messages on the network or copies
// through a node's memory. Eager messages carry their payload (copied at send time, into the
// receive buffer when the receive is posted already, else into a staging copy);
// larger ones, and synchronous sends, go by rendezvous (RTS, CTS, data); RDMA puts are
// acknowledged and gets answered. The network tells when each message left and arrived.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <tuple>
#include <type_traits>

#include "core/world.hpp"

namespace mgen::mpi {

uint32_t World::post_send(Exec& r, const void* buf, uint64_t bytes, RankId dst, int tag, const Comm& comm,
                          uint64_t context, bool collective) {
  r.clock += mpi_.send_overhead;
  r.stats.overhead += mpi_.send_overhead;
  Rank& owner = ranks_[r.rank];
  const uint32_t q = owner.alloc_request(ReqKind::kSend);
  Request& req = owner.requests[q];
  req.sbuf = buf;
  req.peer = dst;
  req.collective = collective;
  req.env = Envelope{context, r.rank, comm.rank, tag, bytes, 0, r.clock, Time()};
  if (r.call_slot != kNone) owner.call_tally[r.call_slot].bytes += bytes;
  r.outbox.push_back(Op{r.clock, OpKind::kSend, q});
  return q;
}

uint32_t World::post_recv(Exec& r, void* buf, uint64_t capacity, int src_world, int tag, uint64_t context,
                          bool collective) {
  Rank& owner = ranks_[r.rank];
  const uint32_t q = owner.alloc_request(ReqKind::kRecv);
  Request& req = owner.requests[q];
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

uint32_t World::post_rdma(Exec& r, ReqKind kind, RankId peer, uint64_t bytes, int tag) {
  r.clock += mpi_.rdma_overhead;
  r.stats.overhead += mpi_.rdma_overhead;
  Rank& owner = ranks_[r.rank];
  const uint32_t q = owner.alloc_request(kind);
  Request& req = owner.requests[q];
  req.peer = peer;
  req.rdma_tag = tag;
  req.env.bytes = bytes;
  if (r.call_slot != kNone) owner.call_tally[r.call_slot].bytes += bytes;
  r.outbox.push_back(Op{r.clock, kind == ReqKind::kPut ? OpKind::kPut : OpKind::kGet, q});
  return q;
}

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
    t.capacity = 0;
    t.into = t.carried = false;
    t.landed = t.cancelled = t.probed = false;
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
  transport_.inject(ranks_[t.src].endpoint, ranks_[t.dst].endpoint, t.src, t.dst, Bytes(wire_bytes), slot);
}

void World::transfer_done(uint32_t slot) {
  if (!transfers_[slot].data.empty()) std::vector<std::byte>().swap(transfers_[slot].data);
  transfers_[slot].sreq = kNone;  // no send refers to it any more (cancel_send checks)
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
    req.xfer = slot;
    Transfer& t = transfers_[slot];
    t.sreq = q;
    t.env = req.env;
    // The payload moves once: straight into a receive that is posted already and that nothing
    // else can take first, or else (an unexpected message, as far as the sender can tell) into
    // a staging copy, because the sender may reuse its buffer as soon as the send completes,
    // before the message arrives. A shared buffer's contents are undefined
    // (MGEN_SHARED_MALLOC): its messages move no bytes.
    // (Not into another partition's receive: that partition's queues are its own.)
    const uint32_t claimed = req.sbuf != nullptr && bytes > 0 && mine(dst) ? claim_receive(dst, req.env) : kNone;
    if (claimed != kNone) {
      Request& rq = ranks_[dst].requests[claimed];
      const uint64_t fit = std::min(bytes, rq.capacity);
      if (rq.rbuf != nullptr && !shared_.contains(req.sbuf) && !shared_.contains(rq.rbuf)) land(dst, rq, req.sbuf, fit);
      rq.prefilled = true;
      t.landed = true;
    } else if (req.sbuf != nullptr && bytes > 0 && !shared_.contains(req.sbuf)) {
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
    req.xfer = slot;
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
      const uint64_t capacity = transfers_[slot].capacity;
      const bool into = transfers_[slot].into;
      const uint64_t fit = std::min(env.bytes, capacity);
      const bool moves = sq.sbuf != nullptr && into && fit > 0 && !shared_.contains(sq.sbuf);
      const uint32_t data = new_transfer(Xfer::kData, dst, src);
      if (moves && mine(src)) {
        land(src, ranks_[src].requests[rreq], sq.sbuf, fit);
      } else if (moves) {
        // The receive is another partition's: the payload goes with the data message.
        const auto* p = static_cast<const std::byte*>(sq.sbuf);
        transfers_[data].data.assign(p, p + fit);
        transfers_[data].carried = true;
      }
      transfers_[data].sreq = sreq;
      transfers_[data].rreq = rreq;
      transfers_[data].env = env;
      transfers_[data].env.sent = engine_.now();
      transmit(data, env.bytes);
      break;
    }
    case Xfer::kData: {
      Request& rq = ranks_[dst].requests[rreq];
      if (transfers_[slot].carried) land(dst, rq, transfers_[slot].data.data(), transfers_[slot].data.size());
      log_message(dst, rq, env);
      complete(dst, rreq);
      break;
    }
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

// ---------------------------------------------------------------- partitioned runs

namespace {

// A message's record as it crosses to the partition that delivers it: plain values, then the
// payload bytes (inline, then staged).
struct CrossingTransfer {
  uint8_t kind;
  bool into, carried, landed;
  RankId src, dst;
  uint32_t sreq, rreq;
  Envelope env;
  uint64_t capacity;
  uint32_t inline_bytes;
  uint64_t data_bytes;
};
static_assert(std::is_trivially_copyable_v<CrossingTransfer>);

}  // namespace

// At the injection of a message for another partition's rank: what that partition needs to
// deliver it. This partition keeps the record only until the message is sent.
void World::pack_message(uint64_t cookie, std::string& out) {
  const uint32_t slot = static_cast<uint32_t>(cookie);
  Transfer& t = transfers_[slot];
  const CrossingTransfer c{static_cast<uint8_t>(t.kind),
                           t.into,
                           t.carried,
                           t.landed,
                           t.src,
                           t.dst,
                           t.sreq,
                           t.rreq,
                           t.env,
                           t.capacity,
                           t.inline_bytes,
                           t.data.size()};
  out.append(reinterpret_cast<const char*>(&c), sizeof c);
  out.append(reinterpret_cast<const char*>(t.inline_data), t.inline_bytes);
  out.append(reinterpret_cast<const char*>(t.data.data()), t.data.size());
  std::vector<std::byte>().swap(t.data);
  t.delivered = true;  // elsewhere: the record goes once the message is sent
}

uint64_t World::take_message(uint64_t, std::string_view bytes) {
  CrossingTransfer c;
  if (bytes.size() < sizeof c) throw std::logic_error("partition crossings: a truncated message record");
  std::memcpy(static_cast<void*>(&c), bytes.data(), sizeof c);
  bytes.remove_prefix(sizeof c);
  if (bytes.size() != c.inline_bytes + c.data_bytes || c.inline_bytes > Transfer::kInline) {
    throw std::logic_error("partition crossings: a message record of the wrong length");
  }
  const uint32_t slot = new_transfer(static_cast<Xfer>(c.kind), c.src, c.dst);
  Transfer& t = transfers_[slot];
  t.sreq = c.sreq;
  t.rreq = c.rreq;
  t.env = c.env;
  t.capacity = c.capacity;
  t.into = c.into;
  t.carried = c.carried;
  t.landed = c.landed;
  t.inline_bytes = c.inline_bytes;
  std::memcpy(t.inline_data, bytes.data(), c.inline_bytes);
  const auto* p = reinterpret_cast<const std::byte*>(bytes.data() + c.inline_bytes);
  t.data.assign(p, p + c.data_bytes);
  t.sent = true;  // the sending partition hears of that
  return slot;
}

}  // namespace mgen::mpi
