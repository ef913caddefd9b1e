// Values shared by the rank side (fibers) and the engine side of libmgen.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "mgen/simcore/units.hpp"

namespace mgen::mpi {

using simcore::Bandwidth;
using simcore::Bytes;
using simcore::Time;
using RankId = uint32_t;
inline constexpr uint32_t kNone = 0xffffffffu;
inline constexpr int kAnySource = -1;
inline constexpr int kAnyTag = -1;
inline constexpr int kProcNull = -2;

struct Status {
  int source = kAnySource;  // rank in the communicator
  int tag = kAnyTag;
  int error = 0;
  uint64_t bytes = 0;  // received: at most the receive buffer's capacity
  bool cancelled = false;
  uint64_t message_bytes = 0;  // with error kErrTruncated: the whole message's length
};

// Status.error of a receive whose message was longer than its buffer (= MGEN_ERR_TRUNCATE).
// The receive completes with the first `bytes` of the message, as MPI prescribes.
constexpr int kErrTruncated = 15;

// What matching looks at, plus the order the sender issued it in.
struct Envelope {
  uint64_t context = 0;  // communicator context (point-to-point or collective)
  RankId src = 0;        // sender's world rank
  int32_t src_rank = 0;  // sender's rank in the communicator
  int32_t tag = 0;
  uint64_t bytes = 0;
  uint32_t seq = 0;  // per (sender, receiver): MPI's non-overtaking order (compared for
                     // equality only, so wrapping after 2^32 messages is harmless)
  Time posted;       // when the sender posted the send
  Time sent;         // when the data left (eager: at once; rendezvous: after the clear-to-send)
};

// kHelper: completes when a helper context (a non-blocking collective's algorithm) finishes.
enum class ReqKind : uint8_t { kFree, kSend, kRecv, kPut, kGet, kHelper };

// A non-blocking operation. Owned by its rank; the engine refers to it by index.
struct Request {
  ReqKind kind = ReqKind::kFree;
  bool complete = false;
  bool in_wait = false;  // part of the set the rank is blocked on
  bool rendezvous = false;
  bool collective = false;   // issued by a collective algorithm: no per-call overheads
  bool synchronous = false;  // a send that completes only once matched (MPI_Ssend): always rendezvous
  uint32_t next_free = kNone;
  uint32_t waiter = kNone;  // with in_wait: the execution context blocked on it
  // send: payload and destination; recv: the matched sender once known.
  const void* sbuf = nullptr;
  RankId peer = 0;
  Envelope env;
  // send: the transfer that carries its message (eager payload or rendezvous RTS) until a
  // receive matches it, for MPI_Cancel (World::cancel_send).
  uint32_t xfer = kNone;
  // recv
  void* rbuf = nullptr;
  uint64_t capacity = 0;
  uint64_t context = 0;
  int32_t want_src = kAnySource;  // world rank or kAnySource
  int32_t want_tag = kAnyTag;
  int32_t rdma_tag = 0;
  // recv: an eager payload was copied in straight from its send buffer while the message was
  // on its way, because nothing else could match this receive first (World::claim_receive);
  // it can no longer be cancelled.
  bool prefilled = false;
  // recv posted by a collective with fold_op >= 0 (Channel::irecv_fold): the payload is not
  // stored but reduced where it lands, rbuf = payload (op) fold_with, fold_size bytes per
  // element of fold_type (fold_with is rbuf itself or another buffer of the same size); only
  // for operations whose result does not depend on the operand order (colls::folds_in_place),
  // and the caller leaves both buffers alone until the receive completes.
  int32_t fold_op = -1;
  int32_t fold_type = 0;
  uint32_t fold_size = 0;
  const void* fold_with = nullptr;
  Status status;
  Time posted;  // when the rank posted it
  Time done;
};

// kSpawn starts the helper context `req` names; kDone is a helper's last operation: it
// completes its rank's request `req` at the helper's finishing time.
enum class OpKind : uint8_t { kSend, kRecv, kPut, kGet, kBlock, kSpawn, kDone };

// An operation a rank issued at its local time `at`, waiting for the engine to process it.
struct Op {
  Time at;
  OpKind kind = OpKind::kSend;
  uint32_t req = kNone;
};

struct OneStepPart;

// What a blocked rank waits for, and where the engine leaves the answer.
struct Block {
  enum Kind : uint8_t { kNone, kWaitAll, kWaitAny, kTest, kProbe, kIprobe, kPoll, kCancel, kCollective };
  Kind kind = kNone;
  const uint32_t* reqs = nullptr;  // request indices (kNone entries are ignored)
  uint32_t count = 0;
  uint32_t pending = 0;  // kWaitAll: requests not yet complete
  // probes
  uint64_t context = 0;
  int32_t src = kAnySource;  // world rank or kAnySource
  int32_t tag = kAnyTag;
  int32_t poll_tag = 0;
  // kCollective: this rank's part of a one-step collective, the collective's number on its
  // communicator, the member count and this rank's index
  OneStepPart* part = nullptr;
  uint64_t sequence = 0;
  // answers
  bool flag = false;
  int index = -1;
  Status status;
  Time since;  // when the rank started waiting
  Time delay;  // kCollective: the collective's duration after the last member arrived
};

// The MPI call a rank is in, for deadlock reports and timelines: a name and a few arguments.
struct CallInfo {
  const char* name = nullptr;
  int peer = kNone;
  int tag = kAnyTag;
  int comm = 0;
};

// Per-rank accounting, in simulated time.
struct RankStats {
  Time compute;   // MGEN_Comp and measured computation
  Time overhead;  // host software overheads of MPI calls
  Time wait;      // blocked in MPI calls
  uint64_t messages_sent = 0;
  uint64_t bytes_sent = 0;
  uint64_t calls = 0;  // calls the program made (a binding's inner MGEN calls are not counted)
};

// One function's share of a rank's calls (reports' per-function tables): how often the program
// called it, the payload bytes the rank posted to send (or put, or get) while inside it,
// collective algorithms' messages included, and the simulated time spent inside it. `name` is
// the call's name as the facade knows it (a string literal: MPI_Send for the MPI bindings,
// MGEN_Send for MGEN programs).
struct CallTally {
  const char* name = nullptr;
  uint64_t calls = 0;
  uint64_t bytes = 0;
  Time time;
};

// A counter per peer rank. Most ranks talk to a handful of peers, so those live in a short
// array scanned in one or two cache lines; a rank with many peers (all-to-all) spills into an
// open-addressing table (linear probing, kept at most half full, Fibonacci hashing: the top
// bits of peer x 2^64/phi, so that strided peers, a grid's column, spread out too), which
// costs one or two cache lines per lookup where std::unordered_map cost a hash, a bucket and a
// node. Counts are 32 bits (message sequence numbers, compared for equality, so they may wrap):
// an entry is 8 bytes, which matters when every rank talks to every other (FT's transposes:
// 4,096 ranks x 1,024 peers x two tables).
class PeerCounters {
 public:
  uint32_t& operator[](RankId peer) {
    if (table_.empty()) {
      for (auto& [p, v] : few_) {
        if (p == peer) return v;
      }
      if (few_.size() < kFew) return few_.emplace_back(peer, 0).second;
      grow();  // the short array moves into the table
    }
    return find_or_add(peer);
  }

 private:
  static constexpr size_t kFew = 8;
  static constexpr RankId kEmpty = ~RankId{0};  // kNone: never a peer

  size_t slot_of(RankId peer) const { return (peer * 0x9E3779B97F4A7C15ull) >> shift_; }

  uint32_t& find_or_add(RankId peer) {
    for (size_t i = slot_of(peer);; i = (i + 1) & (table_.size() - 1)) {
      if (table_[i].first == peer) return table_[i].second;
      if (table_[i].first != kEmpty) continue;
      if (2 * (used_ + 1) > table_.size()) {
        grow();
        return find_or_add(peer);
      }
      ++used_;
      table_[i] = {peer, 0};
      return table_[i].second;
    }
  }

  void grow() {
    std::vector<std::pair<RankId, uint32_t>> old;
    old.swap(table_.empty() ? few_ : table_);
    table_.assign(std::max<size_t>(4 * kFew, 2 * old.size()), {kEmpty, 0});
    shift_ = 64 - static_cast<unsigned>(std::countr_zero(table_.size()));
    used_ = 0;
    for (const auto& [p, v] : old) {
      if (p != kEmpty) find_or_add(p) = v;
    }
  }

  std::vector<std::pair<RankId, uint32_t>> few_;
  std::vector<std::pair<RankId, uint32_t>> table_;  // empty until there are more than kFew peers
  unsigned shift_ = 64;                             // 64 - log2(table size)
  size_t used_ = 0;
};

// One interval of a rank's timeline.
struct TimelineEntry {
  const char* name;
  Time start, end;
};

}  // namespace mgen::mpi
