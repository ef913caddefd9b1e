// Point-to-point: send, receive, their non-blocking forms, completion and probes.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "api/facade.hpp"

using namespace mgen::mpi;
using mgen::mpi::api::Scope;

namespace {

// A request that is complete from the start (MGEN_PROC_NULL peers).
MGEN_Request null_peer_request(Rank& r, ReqKind kind) {
  const uint32_t q = r.alloc_request(kind);
  r.requests[q].complete = true;
  r.requests[q].status = Status{MGEN_PROC_NULL, MGEN_ANY_TAG, 0, 0};
  return static_cast<MGEN_Request>(q + 1);
}

MGEN_Request post_send(Scope& s, const void* buf, int count, MGEN_Datatype type, int dest, int tag, MGEN_Comm comm) {
  Comm& c = s.any_comm(comm);
  const uint64_t bytes = s.bytes(count, type);
  s.check_tag(tag, false);
  s.check_rank(c, dest, "destination", false, true);
  if (dest == MGEN_PROC_NULL) return null_peer_request(s.rank(), ReqKind::kSend);
  const uint32_t q = s.world().post_send(s.rank(), buf, bytes, c.peer(dest), tag, c, c.context, false);
  if (s.rank().log_calls) {
    s.world().note_comm(c);
    s.rank().log_call(CallEvent::p2p(CallEvent::Kind::kSend, c.context, dest, tag, bytes, q));
  }
  return static_cast<MGEN_Request>(q + 1);
}

MGEN_Request post_recv(Scope& s, void* buf, int count, MGEN_Datatype type, int source, int tag, MGEN_Comm comm) {
  Comm& c = s.any_comm(comm);
  const uint64_t capacity = s.bytes(count, type);
  s.check_tag(tag, true);
  s.check_rank(c, source, "source", true, true);
  if (source == MGEN_PROC_NULL) return null_peer_request(s.rank(), ReqKind::kRecv);
  const uint32_t q = s.world().post_recv(s.rank(), buf, capacity, api::world_or_any(c, source), tag, c.context, false);
  if (s.rank().log_calls) {
    s.world().note_comm(c);
    s.rank().log_call(CallEvent::p2p(CallEvent::Kind::kRecv, c.context, source, tag, capacity, q));
  }
  return static_cast<MGEN_Request>(q + 1);
}

// Completes and frees request q, reporting its status; returns the error, if any, with its text.
int complete_one(Scope& s, uint32_t q, MGEN_Status* status, std::string* why) {
  const Request& req = s.rank().requests[q];
  api::set_status(status, req.status);
  const int error = req.status.error;
  if (error == kErrTruncated && why->empty()) *why = api::truncation_text(req);
  s.rank().free_request_slot(q);
  return error;
}

void finish(Scope& s, uint32_t q, MGEN_Status* status) {
  std::string why;
  if (complete_one(s, q, status, &why) != 0) s.fail(MGEN_ERR_TRUNCATE, why);
}

// Completes a whole array of (complete) requests: statuses, frees, handles set to null. A
// failed one is reported once all are complete.
void finish_all(Scope& s, const std::vector<uint32_t>& qs, MGEN_Request requests[], MGEN_Status statuses[]) {
  std::string why;
  for (size_t i = 0; i < qs.size(); ++i) {
    MGEN_Status* st = statuses == MGEN_STATUSES_IGNORE ? MGEN_STATUS_IGNORE : &statuses[i];
    if (qs[i] == kNone) {
      api::set_status(st, Status{});
      continue;
    }
    complete_one(s, qs[i], st, &why);
    requests[i] = MGEN_REQUEST_NULL;
  }
  if (!why.empty()) s.fail(MGEN_ERR_TRUNCATE, why);
}

}  // namespace

extern "C" {

int MGEN_Send(const void* buf, int count, MGEN_Datatype type, int dest, int tag, MGEN_Comm comm) {
  Scope s("MGEN_Send", dest, tag, comm);
  if (!s) return api::outside("MGEN_Send");
  const uint32_t q = static_cast<uint32_t>(post_send(s, buf, count, type, dest, tag, comm) - 1);
  s.world().wait_all(s.rank(), &q, 1);
  s.rank().free_request_slot(q);
  return MGEN_SUCCESS;
}

int MGEN_Recv(void* buf, int count, MGEN_Datatype type, int source, int tag, MGEN_Comm comm, MGEN_Status* status) {
  Scope s("MGEN_Recv", source, tag, comm);
  if (!s) return api::outside("MGEN_Recv");
  const uint32_t q = static_cast<uint32_t>(post_recv(s, buf, count, type, source, tag, comm) - 1);
  s.world().wait_all(s.rank(), &q, 1);
  finish(s, q, status);
  return MGEN_SUCCESS;
}

int MGEN_Isend(const void* buf, int count, MGEN_Datatype type, int dest, int tag, MGEN_Comm comm,
               MGEN_Request* request) {
  Scope s("MGEN_Isend", dest, tag, comm);
  if (!s) return api::outside("MGEN_Isend");
  if (request == nullptr) s.fail(MGEN_ERR_REQUEST, "null request pointer");
  *request = post_send(s, buf, count, type, dest, tag, comm);
  return MGEN_SUCCESS;
}

int MGEN_Irecv(void* buf, int count, MGEN_Datatype type, int source, int tag, MGEN_Comm comm, MGEN_Request* request) {
  Scope s("MGEN_Irecv", source, tag, comm);
  if (!s) return api::outside("MGEN_Irecv");
  if (request == nullptr) s.fail(MGEN_ERR_REQUEST, "null request pointer");
  *request = post_recv(s, buf, count, type, source, tag, comm);
  return MGEN_SUCCESS;
}

int MGEN_Sendrecv(const void* sendbuf, int sendcount, MGEN_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                  int recvcount, MGEN_Datatype recvtype, int source, int recvtag, MGEN_Comm comm, MGEN_Status* status) {
  Scope s("MGEN_Sendrecv", dest, sendtag, comm);
  if (!s) return api::outside("MGEN_Sendrecv");
  const uint32_t qs[2] = {static_cast<uint32_t>(post_recv(s, recvbuf, recvcount, recvtype, source, recvtag, comm) - 1),
                          static_cast<uint32_t>(post_send(s, sendbuf, sendcount, sendtype, dest, sendtag, comm) - 1)};
  s.world().wait_all(s.rank(), qs, 2);
  s.rank().free_request_slot(qs[1]);
  finish(s, qs[0], status);
  return MGEN_SUCCESS;
}

int MGEN_Wait(MGEN_Request* request, MGEN_Status* status) {
  Scope s("MGEN_Wait");
  if (!s) return api::outside("MGEN_Wait");
  if (request == nullptr) s.fail(MGEN_ERR_REQUEST, "null request pointer");
  const uint32_t q = s.request(*request);
  if (q == kNone) {
    api::set_status(status, Status{});
    return MGEN_SUCCESS;
  }
  s.world().wait_all(s.rank(), &q, 1);
  finish(s, q, status);
  *request = MGEN_REQUEST_NULL;
  return MGEN_SUCCESS;
}

int MGEN_Waitall(int count, MGEN_Request requests[], MGEN_Status statuses[]) {
  Scope s("MGEN_Waitall");
  if (!s) return api::outside("MGEN_Waitall");
  s.check_count(count, "request count");
  std::vector<uint32_t> qs(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i)
    qs[i] = s.request(requests[i]);
  s.world().wait_all(s.rank(), qs.data(), static_cast<uint32_t>(count));
  finish_all(s, qs, requests, statuses);
  return MGEN_SUCCESS;
}

int MGEN_Waitany(int count, MGEN_Request requests[], int* index, MGEN_Status* status) {
  Scope s("MGEN_Waitany");
  if (!s) return api::outside("MGEN_Waitany");
  s.check_count(count, "request count");
  std::vector<uint32_t> qs(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i)
    qs[i] = s.request(requests[i]);
  const int i = s.world().wait_any(s.rank(), qs.data(), static_cast<uint32_t>(count));
  if (i < 0) {
    *index = MGEN_UNDEFINED;
    api::set_status(status, Status{});
    return MGEN_SUCCESS;
  }
  *index = i;
  finish(s, qs[i], status);
  requests[i] = MGEN_REQUEST_NULL;
  return MGEN_SUCCESS;
}

int MGEN_Test(MGEN_Request* request, int* flag, MGEN_Status* status) {
  Scope s("MGEN_Test");
  if (!s) return api::outside("MGEN_Test");
  if (request == nullptr || flag == nullptr) s.fail(MGEN_ERR_ARG, "null argument");
  const uint32_t q = s.request(*request);
  if (q == kNone) {
    *flag = 1;
    api::set_status(status, Status{});
    return MGEN_SUCCESS;
  }
  *flag = s.world().test(s.rank(), q) ? 1 : 0;
  if (*flag) {
    finish(s, q, status);
    *request = MGEN_REQUEST_NULL;
  }
  return MGEN_SUCCESS;
}

int MGEN_Testall(int count, MGEN_Request requests[], int* flag, MGEN_Status statuses[]) {
  Scope s("MGEN_Testall");
  if (!s) return api::outside("MGEN_Testall");
  s.check_count(count, "request count");
  std::vector<uint32_t> qs(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i)
    qs[i] = s.request(requests[i]);
  *flag = 1;
  for (int i = 0; i < count && *flag; ++i) {
    if (qs[i] != kNone && !s.world().test(s.rank(), qs[i])) *flag = 0;
  }
  if (*flag) finish_all(s, qs, requests, statuses);  // MPI: nothing completes unless everything does
  return MGEN_SUCCESS;
}

int MGEN_Probe(int source, int tag, MGEN_Comm comm, MGEN_Status* status) {
  Scope s("MGEN_Probe", source, tag, comm);
  if (!s) return api::outside("MGEN_Probe");
  Comm& c = s.any_comm(comm);
  s.check_tag(tag, true);
  s.check_rank(c, source, "source", true, true);
  if (source == MGEN_PROC_NULL) {
    api::set_status(status, Status{MGEN_PROC_NULL, MGEN_ANY_TAG, 0, 0});
    return MGEN_SUCCESS;
  }
  api::set_status(status, s.world().probe(s.rank(), c.context, api::world_or_any(c, source), tag));
  return MGEN_SUCCESS;
}

int MGEN_Iprobe(int source, int tag, MGEN_Comm comm, int* flag, MGEN_Status* status) {
  Scope s("MGEN_Iprobe", source, tag, comm);
  if (!s) return api::outside("MGEN_Iprobe");
  Comm& c = s.any_comm(comm);
  s.check_tag(tag, true);
  s.check_rank(c, source, "source", true, true);
  if (source == MGEN_PROC_NULL) {
    *flag = 1;
    api::set_status(status, Status{MGEN_PROC_NULL, MGEN_ANY_TAG, 0, 0});
    return MGEN_SUCCESS;
  }
  Status st;
  *flag = s.world().iprobe(s.rank(), c.context, api::world_or_any(c, source), tag, &st) ? 1 : 0;
  if (*flag) api::set_status(status, st);
  return MGEN_SUCCESS;
}

}  // extern "C"
