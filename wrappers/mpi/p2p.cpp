// MPI point-to-point: the send modes, receives, persistent requests, completion, probes,
// cancellation and buffered sends.
#include <fmt/format.h>

#include <algorithm>

#include "core/world.hpp"
#include "mpi/shim.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;
using XRequest = mgen::mpi::abi::Request;

namespace {

// MPI's and MGEN's special ranks differ (MPICH: PROC_NULL -1, ANY_SOURCE -2).
int peer(int mpi_rank) {
  if (mpi_rank == MPI_PROC_NULL) return MGEN_PROC_NULL;
  if (mpi_rank == MPI_ANY_SOURCE) return MGEN_ANY_SOURCE;
  if (mpi_rank < 0) return -1000;  // invalid: MGEN reports it
  return mpi_rank;
}

using SendOp = XRequest::Op;

// Posts the operation of `q` (a fresh or persistent request) and marks it active.
void start(XRequest& q) {
  const MGEN_Comm c = comm(q.comm);
  if (!q.type) q.type = dtype_ref(q.dtype);
  const DType& t = *q.type;
  check_count(q.count);
  const uint64_t bytes = t.size * static_cast<uint64_t>(q.count);
  q.active = true;
  q.kind = XRequest::Kind::kP2P;
  if (q.op == SendOp::kRecv) {
    void* target = q.user_buf;
    q.unpack = !t.dense() && bytes > 0;
    if (q.unpack) {
      q.temp.resize(bytes);
      target = q.temp.data();
    }
    MGEN_Irecv(target, byte_count(bytes), MGEN_BYTE, peer(q.peer), q.tag, c, &q.inner);
    return;
  }
  const void* data = q.sbuf;
  if ((!t.dense() || q.op == SendOp::kBsend) && bytes > 0) {
    q.temp.resize(bytes);
    pack(q.sbuf, q.count, t, q.temp.data());
    data = q.temp.data();
  }
  if (q.op == SendOp::kBsend) {
    RankState& st = state();
    if (st.bsend_buf == nullptr) fail(MPI_ERR_BUFFER, "buffered send without an attached buffer (MPI_Buffer_attach)");
    if (bytes + MPI_BSEND_OVERHEAD > static_cast<uint64_t>(st.bsend_size)) {
      fail(MPI_ERR_BUFFER,
           fmt::format("buffered send of {} bytes does not fit the attached buffer of {} bytes", bytes, st.bsend_size));
    }
  }
  MGEN_Isend(data, byte_count(bytes), MGEN_BYTE, peer(q.peer), q.tag, c, &q.inner);
  if (q.op == SendOp::kSsend) scope().rank().requests[static_cast<uint32_t>(q.inner - 1)].synchronous = true;
  if (q.op == SendOp::kBsend) {
    // The data was copied: the send is complete for the caller; the transfer goes on.
    RankState& st = state();
    st.detached.emplace_back(q.inner, std::move(q.temp));
    q.temp.clear();
    q.buffered = q.inner;
    q.cancelled = false;
    q.inner = MGEN_REQUEST_NULL;
    q.kind = XRequest::Kind::kDone;
    q.done_status = MGEN_Status{MGEN_ANY_SOURCE, MGEN_ANY_TAG, 0, 0};
    // Reap completed ones now and then so a long run of buffered sends stays small.
    if (st.detached.size() > 64) {
      auto& d = st.detached;
      Rank& r = scope().rank();
      d.erase(std::remove_if(d.begin(), d.end(),
                             [&](auto& e) {
                               if (!r.requests[static_cast<uint32_t>(e.first - 1)].complete) return false;
                               r.free_request_slot(static_cast<uint32_t>(e.first - 1));
                               return true;
                             }),
              d.end());
    }
  }
}

MPI_Request post(SendOp op, const void* sbuf, void* rbuf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm c,
                 bool persistent) {
  comm(c);
  check_count(count);
  check_buffer(op == SendOp::kRecv ? rbuf : sbuf, count, dtype(type));
  XRequest* q = nullptr;
  MPI_Request h = new_request(&q);
  q->kind = XRequest::Kind::kP2P;
  q->op = op;
  q->sbuf = sbuf;
  q->user_buf = rbuf;
  q->count = count;
  q->dtype = type;
  q->peer = dest;
  q->tag = tag;
  q->comm = c;
  q->persistent = persistent;
  if (persistent) {
    comm(c);
    q->type = dtype_ref(type);
    check_count(count);
    q->active = false;
    return h;
  }
  try {
    start(*q);
  } catch (...) {
    mgen::runtime::forget_unwound_frames();
    free_request(&h);
    throw;
  }
  return h;
}

int blocking(SendOp op, const void* sbuf, void* rbuf, int count, MPI_Datatype type, int p, int tag, MPI_Comm c,
             MPI_Status* status) {
  MPI_Request h = post(op, sbuf, rbuf, count, type, p, tag, c, false);
  wait(&h, status);
  return MPI_SUCCESS;
}

MPI_Status* status_at(MPI_Status statuses[], int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

// Completes all of `reqs`; returns how many failed (their statuses say how).
int wait_all(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  if (n < 0) fail(MPI_ERR_COUNT, fmt::format("negative request count {}", n));
  // One block for the whole set (the receive overheads are charged as messages arrive).
  std::vector<uint32_t> qs(static_cast<size_t>(n), kNone);
  for (int i = 0; i < n; ++i) {
    if (is_active(reqs[i]) && request(reqs[i]).kind == XRequest::Kind::kP2P) {
      qs[i] = static_cast<uint32_t>(request(reqs[i]).inner - 1);
    }
  }
  scope().world().wait_all(scope().rank(), qs.data(), static_cast<uint32_t>(n));
  int failed = 0;
  for (int i = 0; i < n; ++i) {
    if (is_active(reqs[i])) {
      if (complete(&reqs[i], status_at(statuses, i)) != MPI_SUCCESS) ++failed;
    } else {
      set_status_empty(status_at(statuses, i));
    }
  }
  return failed;
}

// Waitsome and Testsome once some requests are known complete: completes every one of them,
// in index order, reporting indices and statuses; MPI_ERR_IN_STATUS if any failed.
int complete_some(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  int k = 0, failed = 0;
  for (int i = 0; i < n; ++i) {
    if (is_active(reqs[i]) && is_complete(reqs[i])) {
      indices[k] = i;
      if (complete(&reqs[i], status_at(statuses, k)) != MPI_SUCCESS) ++failed;
      ++k;
    }
  }
  *outcount = k;
  if (failed > 0) fail(MPI_ERR_IN_STATUS, state().error_text);
  return MPI_SUCCESS;
}

}  // namespace

namespace {

// The basic elements `bytes` of `t` hold (MPI_Get_elements): whole elements of `t`, then the
// whole basic elements of the partial one, in typemap order (as MPICH counts them).
uint64_t elements_received(uint64_t bytes, const DType& t) {
  if (t.size == 0) return 0;
  uint64_t n = bytes / t.size * t.elements;
  uint64_t rest = bytes % t.size;
  if (rest != 0 && t.elems.empty()) return MPI_UNDEFINED;
  for (const auto& [each, how_many] : t.elems) {
    const uint64_t k = std::min<uint64_t>(how_many, rest / each);
    n += k;
    rest -= k * each;
    if (k < how_many) break;
  }
  return n;
}

}  // namespace

extern "C" {

int PMPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm c) {
  return call("MPI_Send", c, [&] { return blocking(SendOp::kSend, buf, nullptr, count, type, dest, tag, c, nullptr); });
}
MGEN_MPI_ALIAS(Send)

int PMPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm c) {
  return call("MPI_Ssend", c,
              [&] { return blocking(SendOp::kSsend, buf, nullptr, count, type, dest, tag, c, nullptr); });
}
MGEN_MPI_ALIAS(Ssend)

int PMPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm c) {
  return call("MPI_Bsend", c,
              [&] { return blocking(SendOp::kBsend, buf, nullptr, count, type, dest, tag, c, nullptr); });
}
MGEN_MPI_ALIAS(Bsend)

int PMPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm c) {
  return call("MPI_Rsend", c,
              [&] { return blocking(SendOp::kRsend, buf, nullptr, count, type, dest, tag, c, nullptr); });
}
MGEN_MPI_ALIAS(Rsend)

int PMPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm c, MPI_Status* status) {
  return call("MPI_Recv", c,
              [&] { return blocking(SendOp::kRecv, nullptr, buf, count, type, source, tag, c, status); });
}
MGEN_MPI_ALIAS(Recv)

#define MGEN_NONBLOCKING(Name, OpKind)                                                                            \
  int PMPI_##Name(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm c, MPI_Request* r) { \
    return call("MPI_" #Name, c, [&] {                                                                            \
      if (r == nullptr) fail(MPI_ERR_REQUEST, "null request pointer");                                            \
      *r = post(OpKind, buf, nullptr, count, type, dest, tag, c, false);                                          \
      return MPI_SUCCESS;                                                                                         \
    });                                                                                                           \
  }                                                                                                               \
  MGEN_MPI_ALIAS(Name)

MGEN_NONBLOCKING(Isend, SendOp::kSend)
MGEN_NONBLOCKING(Issend, SendOp::kSsend)
MGEN_NONBLOCKING(Ibsend, SendOp::kBsend)
MGEN_NONBLOCKING(Irsend, SendOp::kRsend)

#define MGEN_PERSISTENT(Name, OpKind)                                                                             \
  int PMPI_##Name(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm c, MPI_Request* r) { \
    return call("MPI_" #Name, c, [&] {                                                                            \
      if (r == nullptr) fail(MPI_ERR_REQUEST, "null request pointer");                                            \
      *r = post(OpKind, buf, nullptr, count, type, dest, tag, c, true);                                           \
      return MPI_SUCCESS;                                                                                         \
    });                                                                                                           \
  }                                                                                                               \
  MGEN_MPI_ALIAS(Name)

MGEN_PERSISTENT(Send_init, SendOp::kSend)
MGEN_PERSISTENT(Ssend_init, SendOp::kSsend)
MGEN_PERSISTENT(Bsend_init, SendOp::kBsend)
MGEN_PERSISTENT(Rsend_init, SendOp::kRsend)

int PMPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm c, MPI_Request* r) {
  return call("MPI_Irecv", c, [&] {
    if (r == nullptr) fail(MPI_ERR_REQUEST, "null request pointer");
    *r = post(SendOp::kRecv, nullptr, buf, count, type, source, tag, c, false);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Irecv)

int PMPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm c, MPI_Request* r) {
  return call("MPI_Recv_init", c, [&] {
    if (r == nullptr) fail(MPI_ERR_REQUEST, "null request pointer");
    *r = post(SendOp::kRecv, nullptr, buf, count, type, source, tag, c, true);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Recv_init)

int PMPI_Start(MPI_Request* r) {
  return call("MPI_Start", MPI_COMM_WORLD, [&] {
    XRequest& q = request(*r);
    if (!q.persistent) fail(MPI_ERR_REQUEST, "MPI_Start on a request that is not persistent");
    if (q.active) fail(MPI_ERR_REQUEST, "MPI_Start on a persistent request that is already active");
    if (q.start_coll) {
      start_persistent_collective(*r);
      return MPI_SUCCESS;
    }
    start(q);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Start)

int PMPI_Startall(int n, MPI_Request reqs[]) {
  return call("MPI_Startall", MPI_COMM_WORLD, [&] {
    for (int i = 0; i < n; ++i)
      PMPI_Start(&reqs[i]);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Startall)

int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm c, MPI_Status* status) {
  return call("MPI_Sendrecv", c, [&] {
    MPI_Request r = post(SendOp::kRecv, nullptr, recvbuf, recvcount, recvtype, source, recvtag, c, false);
    MPI_Request s = post(SendOp::kSend, sendbuf, nullptr, sendcount, sendtype, dest, sendtag, c, false);
    MPI_Request both[2] = {r, s};
    MPI_Status sts[2];
    const int failed = wait_all(2, both, sts);
    if (status != MPI_STATUS_IGNORE) *status = sts[0];
    if (failed > 0) fail(MPI_ERR_TRUNCATE, state().error_text);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Sendrecv)

int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag,
                          MPI_Comm c, MPI_Status* status) {
  return call("MPI_Sendrecv_replace", c, [&] {
    check_count(count);
    const DType& t = dtype(type);
    check_buffer(buf, count, t);
    std::vector<std::byte> copy(t.size * static_cast<uint64_t>(count));
    pack(buf, count, t, copy.data());
    MPI_Request r = post(SendOp::kRecv, nullptr, buf, count, type, source, recvtag, c, false);
    XRequest* q = nullptr;
    MPI_Request s = new_request(&q);
    q->kind = XRequest::Kind::kP2P;
    q->op = SendOp::kSend;
    q->count = byte_count(copy.size());
    q->dtype = MPI_BYTE;
    q->sbuf = copy.data();
    q->peer = dest;
    q->tag = sendtag;
    q->comm = c;
    start(*q);
    MPI_Request both[2] = {r, s};
    MPI_Status sts[2];
    const int failed = wait_all(2, both, sts);
    if (status != MPI_STATUS_IGNORE) *status = sts[0];
    if (failed > 0) fail(MPI_ERR_TRUNCATE, state().error_text);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Sendrecv_replace)

int PMPI_Wait(MPI_Request* r, MPI_Status* status) {
  return call("MPI_Wait", MPI_COMM_WORLD, [&] {
    if (r == nullptr) fail(MPI_ERR_REQUEST, "null request pointer");
    wait(r, status);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Wait)

int PMPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  return call("MPI_Waitall", MPI_COMM_WORLD, [&] {
    if (wait_all(n, reqs, statuses) > 0) fail(MPI_ERR_IN_STATUS, state().error_text);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Waitall)

int PMPI_Waitany(int n, MPI_Request reqs[], int* index, MPI_Status* status) {
  return call("MPI_Waitany", MPI_COMM_WORLD, [&] {
    if (n < 0) fail(MPI_ERR_COUNT, fmt::format("negative request count {}", n));
    *index = MPI_UNDEFINED;
    if (!wait_some_ready(n, reqs)) {
      set_status_empty(status);
      return MPI_SUCCESS;
    }
    for (int i = 0; i < n; ++i) {
      if (is_active(reqs[i]) && is_complete(reqs[i])) {
        *index = i;
        if (complete(&reqs[i], status) != MPI_SUCCESS) fail(MPI_ERR_TRUNCATE, state().error_text);
        break;
      }
    }
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Waitany)

int PMPI_Waitsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  return call("MPI_Waitsome", MPI_COMM_WORLD, [&] {
    if (n < 0) fail(MPI_ERR_COUNT, fmt::format("negative request count {}", n));
    if (!wait_some_ready(n, reqs)) {
      *outcount = MPI_UNDEFINED;
      return MPI_SUCCESS;
    }
    return complete_some(n, reqs, outcount, indices, statuses);
  });
}
MGEN_MPI_ALIAS(Waitsome)

int PMPI_Test(MPI_Request* r, int* flag, MPI_Status* status) {
  return call("MPI_Test", MPI_COMM_WORLD, [&] {
    if (r == nullptr || flag == nullptr) fail(MPI_ERR_ARG, "null argument");
    *flag = test(r, status) ? 1 : 0;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Test)

namespace {

// Sees which of the requests are complete now, polling the engine once if none is.
int ready_now(int n, MPI_Request reqs[], bool need_all) {
  auto count = [&] {
    int active = 0, done = 0;
    for (int i = 0; i < n; ++i) {
      if (!is_active(reqs[i])) continue;
      ++active;
      if (is_complete(reqs[i])) ++done;
    }
    return std::pair{active, done};
  };
  auto [active, done] = count();
  if (active > 0 && (done == 0 || (need_all && done < active))) {
    // Poll: bring the engine to this rank's time (and charge the poll).
    for (int i = 0; i < n; ++i) {
      if (!is_active(reqs[i]) || is_complete(reqs[i])) continue;
      const XRequest& q = request(reqs[i]);
      if (q.kind == XRequest::Kind::kP2P) {
        scope().world().test(scope().rank(), static_cast<uint32_t>(q.inner - 1));
      } else {
        sync_engine();
      }
      break;
    }
    std::tie(active, done) = count();
  }
  return active == 0 ? -1 : done;
}

}  // namespace

int PMPI_Testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  return call("MPI_Testall", MPI_COMM_WORLD, [&] {
    const int done = ready_now(n, reqs, true);
    int active = 0;
    for (int i = 0; i < n; ++i)
      active += is_active(reqs[i]) ? 1 : 0;
    *flag = done < 0 || done == active ? 1 : 0;
    if (*flag && wait_all(n, reqs, statuses) > 0) fail(MPI_ERR_IN_STATUS, state().error_text);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Testall)

int PMPI_Testany(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
  return call("MPI_Testany", MPI_COMM_WORLD, [&] {
    const int done = ready_now(n, reqs, false);
    *index = MPI_UNDEFINED;
    *flag = done != 0 ? 1 : 0;  // no active requests: flag true, index undefined
    if (done < 0) set_status_empty(status);
    for (int i = 0; i < n && done > 0; ++i) {
      if (is_active(reqs[i]) && is_complete(reqs[i])) {
        *index = i;
        if (complete(&reqs[i], status) != MPI_SUCCESS) fail(MPI_ERR_TRUNCATE, state().error_text);
        break;
      }
    }
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Testany)

int PMPI_Testsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  return call("MPI_Testsome", MPI_COMM_WORLD, [&] {
    const int done = ready_now(n, reqs, false);
    if (done < 0) {
      *outcount = MPI_UNDEFINED;
      return MPI_SUCCESS;
    }
    return complete_some(n, reqs, outcount, indices, statuses);
  });
}
MGEN_MPI_ALIAS(Testsome)

int PMPI_Request_get_status(MPI_Request r, int* flag, MPI_Status* status) {
  return call("MPI_Request_get_status", MPI_COMM_WORLD, [&] {
    *flag = is_complete(r) ? 1 : 0;
    if (!*flag) {
      sync_engine();
      *flag = is_complete(r) ? 1 : 0;
    }
    if (*flag) {
      set_status_empty(status);
      if (is_active(r) && request(r).kind == XRequest::Kind::kP2P && status != MPI_STATUS_IGNORE) {
        const Status& s = scope().rank().requests[static_cast<uint32_t>(request(r).inner - 1)].status;
        set_status(status, MGEN_Status{s.source, s.tag, s.error, static_cast<long long>(s.bytes)});
      }
    }
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Request_get_status)

int PMPI_Request_free(MPI_Request* r) {
  return call("MPI_Request_free", MPI_COMM_WORLD, [&] {
    XRequest& q = request(*r);
    if (q.kind == XRequest::Kind::kP2P && q.active) {
      state().detached.emplace_back(q.inner, std::move(q.temp));
      q.inner = MGEN_REQUEST_NULL;
    }
    free_request(r);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Request_free)

int PMPI_Cancel(MPI_Request* r) {
  return call("MPI_Cancel", MPI_COMM_WORLD, [&] {
    XRequest& q = request(*r);
    // A receive not yet matched, or a send whose message no receive has matched yet (World::
    // cancel_send), completes as cancelled; otherwise the request completes as it would have.
    // (Other requests, an Isendrecv's or a collective's, are left to complete.)
    const auto world_kind = [&](MGEN_Request inner) {
      return scope().rank().requests[static_cast<uint32_t>(inner - 1)].kind;
    };
    if (q.kind == XRequest::Kind::kP2P && q.active && q.inner != MGEN_REQUEST_NULL &&
        world_kind(q.inner) == (q.op == SendOp::kRecv ? mgen::mpi::ReqKind::kRecv : mgen::mpi::ReqKind::kSend)) {
      scope().world().cancel(scope().rank(), static_cast<uint32_t>(q.inner - 1));
    } else if (q.kind == XRequest::Kind::kDone && q.buffered != MGEN_REQUEST_NULL && !q.cancelled) {
      // A buffered send: its message may still be withdrawn while the detached send that
      // carries it is alive (reaped ones are long matched).
      const auto& d = state().detached;
      const bool alive = std::any_of(d.begin(), d.end(), [&](const auto& e) { return e.first == q.buffered; });
      if (alive) q.cancelled = scope().world().cancel(scope().rank(), static_cast<uint32_t>(q.buffered - 1));
    } else if (q.kind == XRequest::Kind::kGeneralized) {
      // MPI-4.0 §13.2: the cancel callback, told whether the request is already complete.
      const int rc = q.grequest.cancel(q.grequest.extra_state, q.grequest.done ? 1 : 0);
      if (rc != MPI_SUCCESS) fail(rc, "the generalized request's cancel function returned an error");
    }
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Cancel)

int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  *flag = status->count_hi_and_cancelled & 1;
  return MPI_SUCCESS;
}
MGEN_MPI_ALIAS(Test_cancelled)

int PMPI_Probe(int source, int tag, MPI_Comm c, MPI_Status* status) {
  return call("MPI_Probe", c, [&] {
    MGEN_Status ms{};
    const MGEN_Comm h = comm(c);
    MGEN_Probe(peer(source), tag, h, &ms);
    set_status(status, ms);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Probe)

int PMPI_Iprobe(int source, int tag, MPI_Comm c, int* flag, MPI_Status* status) {
  return call("MPI_Iprobe", c, [&] {
    MGEN_Status ms{};
    MGEN_Iprobe(peer(source), tag, comm(c), flag, &ms);
    if (*flag) set_status(status, ms);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Iprobe)

int PMPI_Get_count(const MPI_Status* status, MPI_Datatype type, int* count) {
  return call("MPI_Get_count", MPI_COMM_WORLD, [&] {
    const uint64_t bytes = status_bytes(status);
    const DType& t = dtype(type);
    *count = t.size == 0 ? 0 : bytes % t.size ? MPI_UNDEFINED : static_cast<int>(bytes / t.size);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Get_count)

int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype type, int* count) {
  return call("MPI_Get_elements", MPI_COMM_WORLD, [&] {
    const uint64_t n = elements_received(status_bytes(status), dtype(type));
    *count = n > INT32_MAX ? MPI_UNDEFINED : static_cast<int>(n);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Get_elements)

int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype type, MPI_Count* count) {
  return call("MPI_Get_elements_x", MPI_COMM_WORLD, [&] {
    *count = static_cast<MPI_Count>(elements_received(status_bytes(status), dtype(type)));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Get_elements_x)

int PMPI_Buffer_attach(void* buffer, int size) {
  return call("MPI_Buffer_attach", MPI_COMM_WORLD, [&] {
    RankState& st = state();
    if (st.bsend_buf != nullptr) fail(MPI_ERR_BUFFER, "a buffer is already attached");
    if (size < 0) fail(MPI_ERR_ARG, "negative buffer size");
    st.bsend_buf = buffer;
    st.bsend_size = size;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Buffer_attach)

int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  return call("MPI_Buffer_detach", MPI_COMM_WORLD, [&] {
    RankState& st = state();
    // Waits until the buffered messages are delivered, as MPI requires.
    if (!st.detached.empty()) {
      std::vector<MGEN_Request> d;
      for (auto& [h, data] : st.detached)
        d.push_back(h);
      MGEN_Waitall(static_cast<int>(d.size()), d.data(), MGEN_STATUSES_IGNORE);
      st.detached.clear();
    }
    *static_cast<void**>(buffer_addr) = st.bsend_buf;
    *size = st.bsend_size;
    st.bsend_buf = nullptr;
    st.bsend_size = 0;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Buffer_detach)

}  // extern "C"
