// Trace replay: each rank reads its trace and makes the recorded calls through libmgen's MPI
// layer (MPICH's ABI), so replay has the same semantics as a recompiled program: matching,
// protocols, non-blocking collectives, communicators. Buffers are null (sizes only) except
// for non-blocking collectives, which get zeroed scratch space.
//
// Decisions the trace has already taken are taken again the same way: a wildcard receive
// receives from the source it received from in the recorded run, Waitany/Testany complete the
// request they completed, and a Test that succeeded waits for its request; one that failed
// polls once.
#include "mgen/trace/replay.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <unordered_map>

#include "mgen/mpix.h"
#include "mgen/trace/reader.hpp"

namespace mgen::trace {
namespace {

namespace fs = std::filesystem;

// What the first pass learns about a rank's trace.
struct Plan {
  fs::path file;
  // Record index of a wildcard receive (Irecv, or Start of a persistent one) -> how it
  // completed in the recorded run.
  std::unordered_map<uint64_t, Received> resolved;
  bool complete = false;
  double run_s = 0;  // recorded wall time from MPI_Init's return to MPI_Finalize's
  double t0 = 0;     // the rank's MPI_Init on the common clock (seconds after the earliest)
};

bool wildcard(const Record& r) {
  return r.peer == MPI_ANY_SOURCE || r.tag == MPI_ANY_TAG;
}

Plan plan(const fs::path& file) {
  Plan p;
  p.file = file;
  Reader reader(file);
  Record r;
  std::unordered_map<int64_t, uint64_t> pending;      // request -> record index of its posting
  std::unordered_map<int64_t, bool> persistent_wild;  // persistent receive -> has a wildcard
  uint64_t run_ns = 0;
  for (uint64_t i = 0; reader.next(r); ++i) {
    run_ns += r.dt_wall + (r.op == Op::kInit ? 0 : r.dur);
    switch (r.op) {
      case Op::kIrecv:
        if (wildcard(r)) pending[r.request] = i;
        break;
      case Op::kRecvInit:
        persistent_wild[r.request] = wildcard(r);
        break;
      case Op::kStart:
        if (persistent_wild[r.request]) pending[r.request] = i;
        break;
      case Op::kStartall:
        for (int64_t q : r.requests) {
          if (persistent_wild[q]) pending[q] = i;
        }
        break;
      default:
        break;
    }
    for (const Completion& c : r.done) {
      const int64_t q = r.requests[static_cast<size_t>(c.index)];
      const auto it = pending.find(q);
      if (it == pending.end() || !c.receive) continue;
      p.resolved[it->second] = c.status;
      pending.erase(it);
    }
  }
  p.complete = reader.complete();
  p.run_s = static_cast<double>(run_ns) * 1e-9;
  return p;
}

// A datatype of `size` bytes on which MPI_SUM is defined, for size-only reductions.
MPI_Datatype reduction_type(uint64_t size, uint64_t& count) {
  switch (size) {
    case 1:
      return MPI_INT8_T;
    case 2:
      return MPI_INT16_T;
    case 4:
      return MPI_INT32_T;
    case 8:
      return MPI_DOUBLE;
    case 16:
      return MPI_C_DOUBLE_COMPLEX;
    default:
      count *= size;
      return MPI_INT8_T;
  }
}

class RankReplay {
 public:
  RankReplay(const Plan& plan, const ReplayOptions& o, double t0, std::vector<CallTiming>* timings)
      : plan_(plan), o_(o), reader_(plan.file), t0_(t0), timings_(timings) {
    comms_[0] = MPI_COMM_WORLD;
    comms_[1] = MPI_COMM_SELF;
  }

  void run() {
    Record r;
    double recorded_end = t0_;  // when the previous call returned, on the recorded clock
    double shift = 0;
    for (uint64_t i = 0; reader_.next(r); ++i) {
      const double start = recorded_end + static_cast<double>(r.dt_wall) * 1e-9;
      recorded_end = start + static_cast<double>(r.dur) * 1e-9;
      // Reports count the recorded calls, not the calls replaying them takes (MGEN_Call_begin):
      // the compute before a call and the clock reads are the replay's own. MPI_Init and
      // MPI_Finalize are the ones this rank's replay makes itself (replay()).
      MGEN_Call_begin(nullptr);
      wait_until_start(r, start, shift);
      const double sim0 = PMPI_Wtime();
      MGEN_Call_end();
      index_ = i;
      offset_ = r.offset;
      const bool counted = r.op != Op::kInit && r.op != Op::kFinalize;
      if (counted) MGEN_Call_begin(call_name(r, reader_).c_str());
      call(r);
      if (counted) MGEN_Call_end();
      if (timings_ != nullptr) {
        MGEN_Call_begin(nullptr);
        const double sim1 = PMPI_Wtime();
        MGEN_Call_end();
        timings_->push_back(CallTiming{reader_.header().rank, i, call_name(r, reader_), start,
                                       static_cast<double>(r.dur) * 1e-9, sim0, sim1 - sim0});
      }
    }
  }

 private:
  void wait_until_start(const Record& r, double start, double& shift) {
    if (o_.schedule == Schedule::kCompute) {
      const double t = static_cast<double>(o_.wall_compute ? r.dt_wall : r.dt_cpu) * 1e-9 * o_.cpu_scale;
      if (t > 0) MPI_Comp(t);
      return;
    }
    const double target = start + shift;
    const double now = PMPI_Wtime();
    if (now < target) {
      MPI_Comp(target - now);
    } else if (o_.schedule == Schedule::kShifted) {
      shift += now - target;
    }
  }

  // As the reader names a defect: the file, the rank, the record's offset.
  [[noreturn]] void refuse(const std::string& what) const {
    mpi::forget_unwound_frames();
    throw std::runtime_error(fmt::format("{}: rank {}: offset {}: {} (record {})", reader_.path(),
                                         reader_.header().rank, offset_, what, index_));
  }

  int as_int(uint64_t v, const char* what) const {
    if (v > static_cast<uint64_t>(INT_MAX)) refuse(fmt::format("{} of {} bytes: too large", what, v));
    return static_cast<int>(v);
  }

  MPI_Comm comm(int64_t id) const {
    const auto it = comms_.find(id);
    if (it == comms_.end()) refuse(fmt::format("communicator {} is not known at this point", id));
    return it->second;
  }

  // The source and tag a receive uses: the recorded ones, or where they were wildcards, what
  // it received in the recorded run.
  std::pair<int, int> source_tag(const Record& r, const Received* got) const {
    int src = static_cast<int>(r.peer), tag = static_cast<int>(r.tag);
    if (got != nullptr) {
      if (src == MPI_ANY_SOURCE) src = static_cast<int>(got->source);
      if (tag == MPI_ANY_TAG) tag = static_cast<int>(got->tag);
    }
    return {src, tag};
  }
  const Received* resolved(uint64_t i) const {
    const auto it = plan_.resolved.find(i);
    return it == plan_.resolved.end() ? nullptr : &it->second;
  }

  // ------------------------------------------------------------ requests

  struct Req {
    MPI_Request handle = MPI_REQUEST_NULL;
    bool done = true;  // completed during replay (or never started)
    std::vector<uint8_t> scratch;
    // Persistent ones: what Start posts.
    bool persistent = false;
    Record def;
  };

  Req& add(int64_t id) {
    if (id < 0) refuse("a request without an id");
    Req& q = reqs_[id];
    q.done = false;
    return q;
  }

  // Requests named by a Wait/Test call, as handles (MPI_REQUEST_NULL for ones already done).
  MPI_Request handle(int64_t id) {
    if (id < 0) return MPI_REQUEST_NULL;
    const auto it = reqs_.find(id);
    if (it == reqs_.end() || it->second.done) return MPI_REQUEST_NULL;
    return it->second.handle;
  }

  void completed(int64_t id) {
    const auto it = reqs_.find(id);
    if (it == reqs_.end()) return;
    if (it->second.persistent) {  // stays, with its handle, for the next MPI_Start
      it->second.done = true;
      return;
    }
    reqs_.erase(it);
  }

  void wait_ids(const std::vector<int64_t>& ids) {
    std::vector<MPI_Request> hs;
    std::vector<int64_t> which;
    for (int64_t id : ids) {
      const MPI_Request h = handle(id);
      if (h == MPI_REQUEST_NULL) continue;
      hs.push_back(h);
      which.push_back(id);
    }
    if (!hs.empty()) PMPI_Waitall(static_cast<int>(hs.size()), hs.data(), MPI_STATUSES_IGNORE);
    for (int64_t id : which)
      completed(id);
  }

  // One poll of requests whose recorded test failed: whatever completes now is done.
  void poll_ids(const std::vector<int64_t>& ids) {
    for (int64_t id : ids) {
      MPI_Request h = handle(id);
      if (h == MPI_REQUEST_NULL) continue;
      int flag = 0;
      PMPI_Test(&h, &flag, MPI_STATUS_IGNORE);
      if (flag) completed(id);
      return;  // one test is what the recorded call cost
    }
  }

  // ------------------------------------------------------------ posting

  void post_send(const Record& r, int64_t id) {
    const int bytes = as_int(r.count * r.type_size, "a send");
    Req& q = add(id);
    const MPI_Comm c = comm(r.comm);
    const int dest = static_cast<int>(r.peer), tag = static_cast<int>(r.tag);
    switch (static_cast<Mode>(r.mode)) {
      case Mode::kSynchronous:
        PMPI_Issend(nullptr, bytes, MPI_BYTE, dest, tag, c, &q.handle);
        break;
      case Mode::kReady:
        PMPI_Irsend(nullptr, bytes, MPI_BYTE, dest, tag, c, &q.handle);
        break;
      default:  // buffered sends as standard ones: the buffer attach is not replayed
        PMPI_Isend(nullptr, bytes, MPI_BYTE, dest, tag, c, &q.handle);
        break;
    }
  }

  void post_recv(const Record& r, int64_t id, uint64_t at) {
    const int bytes = as_int(r.count * r.type_size, "a receive");
    Req& q = add(id);
    const auto [src, tag] = source_tag(r, resolved(at));
    PMPI_Irecv(nullptr, bytes, MPI_BYTE, src, tag, comm(r.comm), &q.handle);
  }

  void start(int64_t id, uint64_t at) {
    const auto it = reqs_.find(id);
    if (it == reqs_.end() || !it->second.persistent) refuse(fmt::format("MPI_Start of unknown request {}", id));
    const Record def = it->second.def;
    if (def.op == Op::kSendInit) {
      post_send(def, id);
    } else {
      post_recv(def, id, at);
    }
  }

  // ------------------------------------------------------------ collectives

  // Blocking ones take null buffers (sizes only); non-blocking ones scratch space held by
  // their request until it completes.
  void* scratch(int64_t id, uint64_t bytes) {
    if (id < 0) return nullptr;
    Req& q = add(id);
    q.scratch.assign(std::max<uint64_t>(bytes, 1), 0);
    return q.scratch.data();
  }
  MPI_Request* out(int64_t id) { return id < 0 ? nullptr : &reqs_[id].handle; }

  std::vector<int> ints(const std::vector<uint64_t>& v, uint64_t scale) const {
    std::vector<int> out(v.size());
    for (size_t i = 0; i < v.size(); ++i)
      out[i] = as_int(v[i] * scale, "a block");
    return out;
  }
  std::vector<int> displs(const std::vector<int>& counts) const {
    std::vector<int> d(counts.size());
    int64_t at = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
      d[i] = as_int(static_cast<uint64_t>(at), "a displacement");
      at += counts[i];
    }
    return d;
  }
  static uint64_t total(const std::vector<int>& v) {
    uint64_t t = 0;
    for (int x : v)
      t += static_cast<uint64_t>(x);
    return t;
  }

  void collective(const Record& r) {
    const MPI_Comm c = comm(r.comm);
    const int64_t id = r.request;
    int size = 0;
    PMPI_Comm_size(c, &size);
    const uint64_t n = static_cast<uint64_t>(size);
    switch (r.op) {
      case Op::kBarrier:
        if (id < 0) {
          PMPI_Barrier(c);
        } else {
          add(id);
          PMPI_Ibarrier(c, out(id));
        }
        break;
      case Op::kBcast: {
        const int bytes = as_int(r.count * r.type_size, "a broadcast");
        void* b = scratch(id, static_cast<uint64_t>(bytes));
        if (id < 0) {
          PMPI_Bcast(b, bytes, MPI_BYTE, static_cast<int>(r.root), c);
        } else {
          PMPI_Ibcast(b, bytes, MPI_BYTE, static_cast<int>(r.root), c, out(id));
        }
        break;
      }
      case Op::kReduce:
      case Op::kAllreduce:
      case Op::kScan:
      case Op::kExscan:
      case Op::kReduceScatterBlock: {
        uint64_t count = r.count;
        const MPI_Datatype t = reduction_type(r.type_size, count);
        const uint64_t bytes = count * (r.type_size == 0 ? 1 : std::min<uint64_t>(r.type_size, 16));
        const uint64_t whole = r.op == Op::kReduceScatterBlock ? bytes * n : bytes;
        uint8_t* b = static_cast<uint8_t*>(scratch(id, 2 * whole));
        const void* sb = b;
        void* rb = b == nullptr ? nullptr : b + whole;
        const int k = as_int(count, "a reduction");
        MPI_Request* q = out(id);
        switch (r.op) {
          case Op::kReduce:
            q ? PMPI_Ireduce(sb, rb, k, t, MPI_SUM, static_cast<int>(r.root), c, q)
              : PMPI_Reduce(sb, rb, k, t, MPI_SUM, static_cast<int>(r.root), c);
            break;
          case Op::kAllreduce:
            q ? PMPI_Iallreduce(sb, rb, k, t, MPI_SUM, c, q) : PMPI_Allreduce(sb, rb, k, t, MPI_SUM, c);
            break;
          case Op::kScan:
            q ? PMPI_Iscan(sb, rb, k, t, MPI_SUM, c, q) : PMPI_Scan(sb, rb, k, t, MPI_SUM, c);
            break;
          case Op::kExscan:
            q ? PMPI_Iexscan(sb, rb, k, t, MPI_SUM, c, q) : PMPI_Exscan(sb, rb, k, t, MPI_SUM, c);
            break;
          default:
            q ? PMPI_Ireduce_scatter_block(sb, rb, k, t, MPI_SUM, c, q)
              : PMPI_Reduce_scatter_block(sb, rb, k, t, MPI_SUM, c);
            break;
        }
        break;
      }
      case Op::kReduceScatter: {
        if (r.counts.size() != n) refuse("MPI_Reduce_scatter without a count per rank");
        const std::vector<int> counts = ints(r.counts, r.type_size);
        const uint64_t whole = total(counts);
        uint8_t* b = static_cast<uint8_t*>(scratch(id, 2 * whole));
        void* rb = b == nullptr ? nullptr : b + whole;
        id < 0 ? PMPI_Reduce_scatter(b, rb, counts.data(), MPI_INT8_T, MPI_SUM, c)
               : PMPI_Ireduce_scatter(b, rb, counts.data(), MPI_INT8_T, MPI_SUM, c, out(id));
        break;
      }
      case Op::kGather:
      case Op::kScatter:
      case Op::kAllgather:
      case Op::kAlltoall: {
        // The block every rank contributes: the send side's (the receive side's at a root
        // that passed MPI_IN_PLACE was recorded as its send side).
        const int block = as_int(r.count * r.type_size, "a block");
        const int rblock = as_int(r.count2 * r.type_size2, "a block");
        const uint64_t whole = static_cast<uint64_t>(std::max(block, rblock)) * n;
        uint8_t* b = static_cast<uint8_t*>(scratch(id, 2 * whole));
        void* rb = b == nullptr ? nullptr : b + whole;
        const int root = static_cast<int>(r.root);
        MPI_Request* q = out(id);
        switch (r.op) {
          case Op::kGather:
            q ? PMPI_Igather(b, block, MPI_BYTE, rb, rblock, MPI_BYTE, root, c, q)
              : PMPI_Gather(b, block, MPI_BYTE, rb, rblock, MPI_BYTE, root, c);
            break;
          case Op::kScatter:
            q ? PMPI_Iscatter(b, block, MPI_BYTE, rb, rblock, MPI_BYTE, root, c, q)
              : PMPI_Scatter(b, block, MPI_BYTE, rb, rblock, MPI_BYTE, root, c);
            break;
          case Op::kAllgather:
            q ? PMPI_Iallgather(b, block, MPI_BYTE, rb, rblock, MPI_BYTE, c, q)
              : PMPI_Allgather(b, block, MPI_BYTE, rb, rblock, MPI_BYTE, c);
            break;
          default:
            q ? PMPI_Ialltoall(b, block, MPI_BYTE, rb, rblock, MPI_BYTE, c, q)
              : PMPI_Alltoall(b, block, MPI_BYTE, rb, rblock, MPI_BYTE, c);
            break;
        }
        break;
      }
      case Op::kGatherv:
      case Op::kAllgatherv: {
        const int block = as_int(r.count * r.type_size, "a block");
        const std::vector<int> counts = ints(r.counts2, r.type_size2);
        if (r.op == Op::kAllgatherv && counts.size() != n) refuse("MPI_Allgatherv without a count per rank");
        const std::vector<int> d = displs(counts);
        const uint64_t whole = total(counts) + static_cast<uint64_t>(block);
        uint8_t* b = static_cast<uint8_t*>(scratch(id, whole));
        void* rb = b == nullptr ? nullptr : b + block;
        const int* cp = counts.empty() ? nullptr : counts.data();
        const int* dp = counts.empty() ? nullptr : d.data();
        if (r.op == Op::kGatherv) {
          id < 0 ? PMPI_Gatherv(b, block, MPI_BYTE, rb, cp, dp, MPI_BYTE, static_cast<int>(r.root), c)
                 : PMPI_Igatherv(b, block, MPI_BYTE, rb, cp, dp, MPI_BYTE, static_cast<int>(r.root), c, out(id));
        } else {
          id < 0 ? PMPI_Allgatherv(b, block, MPI_BYTE, rb, cp, dp, MPI_BYTE, c)
                 : PMPI_Iallgatherv(b, block, MPI_BYTE, rb, cp, dp, MPI_BYTE, c, out(id));
        }
        break;
      }
      case Op::kScatterv: {
        const std::vector<int> counts = ints(r.counts, r.type_size);
        const std::vector<int> d = displs(counts);
        const int rblock = as_int(r.count2 * r.type_size2, "a block");
        const uint64_t whole = total(counts) + static_cast<uint64_t>(rblock);
        uint8_t* b = static_cast<uint8_t*>(scratch(id, whole));
        void* rb = b == nullptr ? nullptr : b + total(counts);
        const int* cp = counts.empty() ? nullptr : counts.data();
        const int* dp = counts.empty() ? nullptr : d.data();
        id < 0 ? PMPI_Scatterv(b, cp, dp, MPI_BYTE, rb, rblock, MPI_BYTE, static_cast<int>(r.root), c)
               : PMPI_Iscatterv(b, cp, dp, MPI_BYTE, rb, rblock, MPI_BYTE, static_cast<int>(r.root), c, out(id));
        break;
      }
      case Op::kAlltoallv: {
        if (r.counts.size() != n || r.counts2.size() != n) refuse("MPI_Alltoallv without a count per rank");
        const std::vector<int> sc = ints(r.counts, r.type_size), rc = ints(r.counts2, r.type_size2);
        const std::vector<int> sd = displs(sc), rd = displs(rc);
        uint8_t* b = static_cast<uint8_t*>(scratch(id, total(sc) + total(rc)));
        void* rb = b == nullptr ? nullptr : b + total(sc);
        id < 0 ? PMPI_Alltoallv(b, sc.data(), sd.data(), MPI_BYTE, rb, rc.data(), rd.data(), MPI_BYTE, c)
               : PMPI_Ialltoallv(b, sc.data(), sd.data(), MPI_BYTE, rb, rc.data(), rd.data(), MPI_BYTE, c, out(id));
        break;
      }
      default:
        break;
    }
  }

  // The same communicator as in the recorded run: a split of the parent in which the new
  // communicator's lowest world rank names the colour and the recorded order is the key.
  void comm_new(const Record& r) {
    const MPI_Comm parent = comm(r.comm);
    int me = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    int color = MPI_UNDEFINED, key = 0;
    if (r.new_comm >= 0) {
      const auto it = std::find(r.counts.begin(), r.counts.end(), static_cast<uint64_t>(me));
      if (it == r.counts.end()) refuse("a new communicator that does not contain its rank");
      color = static_cast<int>(*std::min_element(r.counts.begin(), r.counts.end()));
      key = static_cast<int>(it - r.counts.begin());
    }
    MPI_Comm made = MPI_COMM_NULL;
    PMPI_Comm_split(parent, color, key, &made);
    if (r.new_comm >= 0) comms_[r.new_comm] = made;
  }

  // ------------------------------------------------------------ one record

  // One case per row of the call table (calls.def), and no default: -Wswitch (an error with
  // -Werror) refuses a row without one.
  void call(const Record& r) {
    switch (r.op) {
      case Op::kEnd:  // bookkeeping: the reader returns no such records
      case Op::kName:
      case Op::kCount:
        return;
      case Op::kInit:
      case Op::kFinalize:
      case Op::kLocal:
        return;
      case Op::kOther:
        refuse(fmt::format("the recorded run called {}, which mgen cannot replay", reader_.name(r.name)));
      case Op::kSend: {
        const int bytes = as_int(r.count * r.type_size, "a send");
        const MPI_Comm c = comm(r.comm);
        if (static_cast<Mode>(r.mode) == Mode::kSynchronous) {
          PMPI_Ssend(nullptr, bytes, MPI_BYTE, static_cast<int>(r.peer), static_cast<int>(r.tag), c);
        } else {
          PMPI_Send(nullptr, bytes, MPI_BYTE, static_cast<int>(r.peer), static_cast<int>(r.tag), c);
        }
        return;
      }
      case Op::kIsend:
        post_send(r, r.request);
        return;
      case Op::kRecv: {
        const auto [src, tag] = source_tag(r, &r.status);
        PMPI_Recv(nullptr, as_int(r.count * r.type_size, "a receive"), MPI_BYTE, src, tag, comm(r.comm),
                  MPI_STATUS_IGNORE);
        return;
      }
      case Op::kIrecv:
        post_recv(r, r.request, index_);
        return;
      case Op::kSendrecv:
      case Op::kSendrecvReplace: {
        Record recv = r;
        recv.peer = r.peer2;
        recv.tag = r.tag2;
        const auto [src, tag] = source_tag(recv, &r.status);
        PMPI_Sendrecv(nullptr, as_int(r.count * r.type_size, "a send"), MPI_BYTE, static_cast<int>(r.peer),
                      static_cast<int>(r.tag), nullptr, as_int(r.count2 * r.type_size2, "a receive"), MPI_BYTE, src,
                      tag, comm(r.comm), MPI_STATUS_IGNORE);
        return;
      }
      case Op::kSendInit:
      case Op::kRecvInit: {
        Req& q = reqs_[r.request];
        q.persistent = true;
        q.done = true;
        q.def = r;
        return;
      }
      case Op::kStart:
        start(r.request, index_);
        return;
      case Op::kStartall:
        for (int64_t q : r.requests)
          start(q, index_);
        return;
      case Op::kRequestFree: {
        // An active request goes on and is never waited for: free it in the MPI layer too.
        MPI_Request h = handle(r.request);
        if (h != MPI_REQUEST_NULL) PMPI_Request_free(&h);
        reqs_.erase(r.request);
        return;
      }
      case Op::kCancel: {
        MPI_Request h = handle(r.request);
        if (h != MPI_REQUEST_NULL) PMPI_Cancel(&h);
        return;
      }
      case Op::kWait:
      case Op::kWaitall:
        wait_ids(r.requests);
        return;
      case Op::kWaitany:
      case Op::kWaitsome:
      case Op::kTestany:
      case Op::kTestsome: {
        // The ones that completed in the recorded run complete now; a test that found none
        // polls once.
        std::vector<int64_t> ids;
        for (const Completion& c : r.done)
          ids.push_back(r.requests[static_cast<size_t>(c.index)]);
        if (!ids.empty()) {
          wait_ids(ids);
        } else if (r.op == Op::kTestany || r.op == Op::kTestsome) {
          poll_ids(r.requests);
        }
        return;
      }
      case Op::kTest:
      case Op::kTestall:
        r.flag ? wait_ids(r.requests) : poll_ids(r.requests);
        return;
      case Op::kProbe:
      case Op::kIprobe: {
        if (r.op == Op::kIprobe && !r.flag) {
          int flag = 0;
          PMPI_Iprobe(static_cast<int>(r.peer), static_cast<int>(r.tag), comm(r.comm), &flag, MPI_STATUS_IGNORE);
          return;
        }
        const auto [src, tag] = source_tag(r, &r.status);
        PMPI_Probe(src, tag, comm(r.comm), MPI_STATUS_IGNORE);
        return;
      }
      case Op::kCommNew:
        comm_new(r);
        return;
      case Op::kCommFree: {
        const auto it = comms_.find(r.comm);
        if (it != comms_.end() && it->second != MPI_COMM_WORLD && it->second != MPI_COMM_SELF) {
          PMPI_Comm_free(&it->second);
          comms_.erase(it);
        }
        return;
      }
      case Op::kBarrier:
      case Op::kBcast:
      case Op::kReduce:
      case Op::kAllreduce:
      case Op::kScan:
      case Op::kExscan:
      case Op::kReduceScatterBlock:
      case Op::kReduceScatter:
      case Op::kGather:
      case Op::kScatter:
      case Op::kAllgather:
      case Op::kAlltoall:
      case Op::kGatherv:
      case Op::kScatterv:
      case Op::kAllgatherv:
      case Op::kAlltoallv:
        collective(r);
        return;
    }
  }

  const Plan& plan_;
  const ReplayOptions& o_;
  Reader reader_;
  double t0_;
  std::vector<CallTiming>* timings_;
  uint64_t index_ = 0, offset_ = 0;  // of the record being replayed
  std::unordered_map<int64_t, MPI_Comm> comms_;
  std::unordered_map<int64_t, Req> reqs_;
};

}  // namespace

ReplayResult replay(const mpi::MachineSetup& machine, mpi::JobConfig job, const fs::path& dir,
                    const ReplayOptions& options, const mpi::Progress& progress) {
  TraceSet set = trace_set(dir);
  const std::vector<fs::path>& files = set.files;
  std::vector<Plan> plans;
  plans.reserve(files.size());
  uint64_t first = UINT64_MAX;
  std::vector<uint64_t> t0(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    plans.push_back(plan(files[i]));
    t0[i] = Reader(files[i]).header().t0_ns;
    first = std::min(first, t0[i]);
  }
  ReplayResult out;
  out.note = std::move(set.note);
  for (size_t i = 0; i < plans.size(); ++i) {
    plans[i].t0 = static_cast<double>(t0[i] - first) * 1e-9;
    if (!plans[i].complete) ++out.incomplete_ranks;
    out.recorded_s = std::max(out.recorded_s, plans[i].run_s);
  }
  job.ranks = static_cast<uint32_t>(files.size());
  job.measure_compute = false;
  job.sizes_only = true;  // the replayed calls pass null buffers: sizes, not data
  std::vector<std::vector<CallTiming>> timings(files.size());
  const mpi::RankMain main = [&](int, char**) {
    const int rank = mpi::current_rank();
    mpi::mpi_program_begin();
    PMPI_Init(nullptr, nullptr);
    const Plan& p = plans[static_cast<size_t>(rank)];
    RankReplay(p, options, p.t0, options.durations ? &timings[static_cast<size_t>(rank)] : nullptr).run();
    // A rank whose trace ends early (it died) stops here; one that finished finalizes.
    if (p.complete) PMPI_Finalize();
    mpi::mpi_program_end();
  };
  out.report = mpi::run_job(machine, job, main, {dir.filename().string()}, progress);
  for (auto& t : timings)
    out.durations.insert(out.durations.end(), t.begin(), t.end());
  return out;
}

}  // namespace mgen::trace
