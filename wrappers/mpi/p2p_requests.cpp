// Requests beyond plain sends and receives: MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0
// §3.10), generalized requests (§13.2) and the status setters they and layered libraries use.
//
// An Isendrecv posts its receive and its send at the call, as MPI_Sendrecv does, and hands
// both to a helper context of the rank (World::start_helper, as non-blocking collectives do)
// that waits for them; the request completes when the helper does, with the receive's status.
// So MPI_Isendrecv + MPI_Wait predicts the time of MPI_Sendrecv.
#include <fmt/format.h>

#include <memory>

#include "core/world.hpp"
#include "mpi/shim.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;
using XRequest = mgen::mpi::abi::Request;

namespace {

int mgen_peer(int mpi_rank) {
  if (mpi_rank == MPI_PROC_NULL) return MGEN_PROC_NULL;
  if (mpi_rank == MPI_ANY_SOURCE) return MGEN_ANY_SOURCE;
  if (mpi_rank < 0) return -1000;  // invalid: MGEN reports it
  return mpi_rank;
}

// Posts the exchange; `out` (the send's bytes, already packed) stays alive until it is sent.
MPI_Request exchange(std::shared_ptr<std::vector<std::byte>> out, const void* sbuf, uint64_t sbytes, int dest,
                     int sendtag, void* rbuf, int rcount, MPI_Datatype rtype, int source, int recvtag, MPI_Comm c) {
  const MGEN_Comm h = comm(c);
  const DType& rt = dtype(rtype);
  check_count(rcount);
  check_buffer(rbuf, rcount, rt);
  XRequest* q = nullptr;
  MPI_Request handle = new_request(&q);
  q->kind = XRequest::Kind::kP2P;
  q->op = XRequest::Op::kSend;  // not a plain receive: MPI_Cancel leaves it alone
  q->comm = c;
  q->user_buf = rbuf;
  q->count = rcount;
  q->dtype = rtype;
  q->type = dtype_ref(rtype);
  const uint64_t rbytes = rt.size * static_cast<uint64_t>(rcount);
  void* target = rbuf;
  q->unpack = !rt.dense() && rbytes > 0;
  if (q->unpack) {
    q->temp.resize(rbytes);
    target = q->temp.data();
  }
  MGEN_Request rin = MGEN_REQUEST_NULL, sin = MGEN_REQUEST_NULL;
  MGEN_Irecv(target, byte_count(rbytes), MGEN_BYTE, mgen_peer(source), recvtag, h, &rin);
  MGEN_Isend(out ? static_cast<const void*>(out->data()) : sbuf, byte_count(sbytes), MGEN_BYTE, mgen_peer(dest),
             sendtag, h, &sin);
  World& w = scope().world();
  auto done = std::make_shared<uint32_t>(kNone);
  const uint32_t recv = static_cast<uint32_t>(rin - 1), send = static_cast<uint32_t>(sin - 1);
  *done = w.start_helper(w.current_exec(), [&w, recv, send, done, out](Exec& x) {
    const uint32_t qs[2] = {recv, send};
    w.wait_all(x, qs, 2);
    Rank& owner = w.owner(x);
    // The request reports the receive (MPI_Wait's status, truncation).
    owner.requests[*done].status = owner.requests[recv].status;
    owner.requests[*done].capacity = owner.requests[recv].capacity;
    owner.free_request_slot(recv);
    owner.free_request_slot(send);
  });
  q->inner = static_cast<MGEN_Request>(*done) + 1;
  return handle;
}

}  // namespace

namespace mgen::mpi::abi {

int finish_generalized(Request& q, MPI_Status* status) {
  if (!q.grequest.done) {
    fail(MPI_ERR_REQUEST,
         "waiting for a generalized request that MPI_Grequest_complete has not completed (under mgen no other "
         "thread can complete it)");
  }
  MPI_Status st{};
  st.MPI_ERROR = MPI_SUCCESS;
  const int rc = q.grequest.query(q.grequest.extra_state, &st);
  if (status != MPI_STATUS_IGNORE && status != nullptr) *status = st;
  const int rc_free = q.grequest.free(q.grequest.extra_state);
  if (rc != MPI_SUCCESS) fail(rc, "the generalized request's query function returned an error");
  if (rc_free != MPI_SUCCESS) fail(rc_free, "the generalized request's free function returned an error");
  return MPI_SUCCESS;
}

}  // namespace mgen::mpi::abi

extern "C" {

int PMPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm c, MPI_Request* r) {
  return call("MPI_Isendrecv", c, [&] {
    if (r == nullptr) fail(MPI_ERR_REQUEST, "null request pointer");
    comm(c);
    check_count(sendcount);
    const DType& st = dtype(sendtype);
    check_buffer(sendbuf, sendcount, st);
    const uint64_t sbytes = st.size * static_cast<uint64_t>(sendcount);
    std::shared_ptr<std::vector<std::byte>> out;
    if (!st.dense() && sbytes > 0) {
      out = std::make_shared<std::vector<std::byte>>(sbytes);
      pack(sendbuf, sendcount, st, out->data());
    }
    *r = exchange(out, sendbuf, sbytes, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, c);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Isendrecv)

int PMPI_Isendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag,
                           MPI_Comm c, MPI_Request* r) {
  return call("MPI_Isendrecv_replace", c, [&] {
    if (r == nullptr) fail(MPI_ERR_REQUEST, "null request pointer");
    comm(c);
    check_count(count);
    const DType& t = dtype(type);
    check_buffer(buf, count, t);
    // The buffer receives while the send is under way: the send goes from a copy.
    auto out = std::make_shared<std::vector<std::byte>>(t.size * static_cast<uint64_t>(count));
    pack(buf, count, t, out->data());
    *r = exchange(out, nullptr, out->size(), dest, sendtag, buf, count, type, source, recvtag, c);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Isendrecv_replace)

int PMPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                        MPI_Grequest_cancel_function* cancel_fn, void* extra_state, MPI_Request* r) {
  return call("MPI_Grequest_start", MPI_COMM_WORLD, [&] {
    if (r == nullptr) fail(MPI_ERR_REQUEST, "null request pointer");
    if (query_fn == nullptr || free_fn == nullptr || cancel_fn == nullptr) {
      fail(MPI_ERR_ARG, "MPI_Grequest_start needs query, free and cancel functions");
    }
    XRequest* q = nullptr;
    *r = new_request(&q);
    q->kind = XRequest::Kind::kGeneralized;
    q->grequest = XRequest::Generalized{query_fn, free_fn, cancel_fn, extra_state, false};
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Grequest_start)

int PMPI_Grequest_complete(MPI_Request r) {
  return call("MPI_Grequest_complete", MPI_COMM_WORLD, [&] {
    XRequest& q = request(r);
    if (q.kind != XRequest::Kind::kGeneralized) fail(MPI_ERR_REQUEST, "not a generalized request");
    q.grequest.done = true;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Grequest_complete)

int PMPI_Status_set_cancelled(MPI_Status* status, int flag) {
  if (status == nullptr || status == MPI_STATUS_IGNORE) return MPI_ERR_ARG;
  status->count_hi_and_cancelled = (status->count_hi_and_cancelled & ~1) | (flag ? 1 : 0);
  return MPI_SUCCESS;
}
MGEN_MPI_ALIAS(Status_set_cancelled)

}  // extern "C"

namespace {

// Sets the status so that MPI_Get_elements(status, type) gives `count` (MPICH stores count
// times the type's size in bytes).
int set_elements(const char* name, MPI_Status* status, MPI_Datatype type, MPI_Count count) {
  return call(name, MPI_COMM_WORLD, [&] {
    if (status == nullptr || status == MPI_STATUS_IGNORE) fail(MPI_ERR_ARG, "null status");
    if (count < 0) fail(MPI_ERR_COUNT, fmt::format("negative count {}", count));
    const uint64_t bytes = dtype_any(type).size * static_cast<uint64_t>(count);
    status->count_lo = static_cast<int>(bytes & 0xffffffffu);
    status->count_hi_and_cancelled =
        (status->count_hi_and_cancelled & 1) | static_cast<int>(((bytes >> 32) & 0x7fffffffu) << 1);
    return MPI_SUCCESS;
  });
}

}  // namespace

extern "C" {

int PMPI_Status_set_elements(MPI_Status* status, MPI_Datatype type, int count) {
  return set_elements("MPI_Status_set_elements", status, type, count);
}
MGEN_MPI_ALIAS(Status_set_elements)

int PMPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype type, MPI_Count count) {
  return set_elements("MPI_Status_set_elements_x", status, type, count);
}
MGEN_MPI_ALIAS(Status_set_elements_x)

}  // extern "C"
