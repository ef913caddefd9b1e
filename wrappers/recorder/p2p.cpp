// The recorder's point-to-point wrappers: sends, receives, persistent requests, the Wait/Test
// families and probes. Each runs the real call through PMPI_* and fills the record's fields;
// which fields a record has, and their order in the trace, is its row of calls.def.
#include <vector>

#include "recorder.hpp"

using mgen::trace::Mode;
using mgen::trace::Op;
using mgen::trace::Record;
using namespace mgen::recorder;

namespace {

// comm, peer, tag, count, type size: every point-to-point record.
void endpoint(Record& r, MPI_Comm comm, int peer, int tag, int n, MPI_Datatype t) {
  r.comm = comm_id(comm);
  r.peer = peer;
  r.tag = tag;
  r.count = static_cast<uint64_t>(n);
  r.type_size = type_size(t);
}

int send(Op op, Mode mode, const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm,
         MPI_Request* req, int (*fn)(const void*, int, MPI_Datatype, int, int, MPI_Comm),
         int (*ifn)(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*)) {
  auto run = [&] {
    return req != nullptr ? ifn(buf, count, t, dest, tag, comm, req) : fn(buf, count, t, dest, tag, comm);
  };
  if (!recording()) return run();
  Call c(op);
  const int rc = run();
  Record& r = c.record();
  r.mode = static_cast<uint64_t>(mode);
  endpoint(r, comm, dest, tag, count, t);
  if (req != nullptr) r.request = new_request(*req, false);
  c.end();
  return rc;
}

int recv_request(Op op, void* b, int n, MPI_Datatype t, int src, int tag, MPI_Comm comm, MPI_Request* q,
                 int (*fn)(void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*)) {
  if (!recording()) return fn(b, n, t, src, tag, comm, q);
  Call c(op);
  const int rc = fn(b, n, t, src, tag, comm, q);
  endpoint(c.record(), comm, src, tag, n, t);
  c.record().request = new_request(*q, true);
  c.end();
  return rc;
}

// Where a call writes its statuses: the caller's array, or ours where the caller ignores them.
class Statuses {
 public:
  Statuses(MPI_Status* given, int n)
      : mine_(ignored(given) ? static_cast<size_t>(n) : 0), at_(ignored(given) ? mine_.data() : given) {}
  MPI_Status* get() const { return at_; }

 private:
  static bool ignored(const MPI_Status* s) { return s == MPI_STATUS_IGNORE || s == MPI_STATUSES_IGNORE; }
  std::vector<MPI_Status> mine_;
  MPI_Status* at_;
};

// Sendrecv and Sendrecv_replace: the send side, the receive side, how the receive completed.
template <class Run>  // int(MPI_Status*)
int sendrecv(Op op, int sn, MPI_Datatype st, int dest, int stag, int rn, MPI_Datatype rt, int src, int rtag,
             MPI_Comm comm, MPI_Status* status, const Run& run) {
  if (!recording()) return run(status);
  Call c(op);
  Statuses s(status, 1);
  const int rc = run(s.get());
  Record& r = c.record();
  endpoint(r, comm, dest, stag, sn, st);
  r.peer2 = src;
  r.tag2 = rtag;
  r.count2 = static_cast<uint64_t>(rn);
  r.type_size2 = type_size(rt);
  r.status = received(*s.get());
  c.end();
  return rc;
}

mgen::trace::Completion completion(const Known& k, const MPI_Status& st, int index) {
  return {index, k.receive, k.receive ? received(st) : mgen::trace::Received{}};
}

// Every request of the call, in order (Wait, Waitall, a successful Test or Testall).
void all_done(Record& r, const std::vector<Known>& ks, const MPI_Status* s) {
  for (size_t i = 0; i < ks.size(); ++i)
    r.done.push_back(completion(ks[i], s[i], static_cast<int>(i)));
}

// The one a Waitany or Testany completed, if any.
void index_done(Record& r, const std::vector<Known>& ks, const MPI_Status* s, int index) {
  r.index = index == MPI_UNDEFINED ? -1 : index;
  if (r.index >= 0) r.done.push_back(completion(ks[static_cast<size_t>(index)], *s, index));
}

// A Wait/Test family call over `n` requests with `n_status` statuses: the requests are looked
// up before the call frees them, `done` fills the completions after it, and the ones it
// freed are forgotten.
// Templates, not std::function: the recorder's cost per call is what a trace's timings carry.
template <class Run, class Done>  // int(MPI_Status*), void(Record&, const std::vector<Known>&, const MPI_Status*)
int complete(Op op, int n, MPI_Request* rs, MPI_Status* given, int n_status, const Run& run, const Done& done) {
  if (!recording()) return run(given);
  Call c(op);
  Statuses s(given, n_status);
  const std::vector<MPI_Request> before(rs, rs + n);
  const std::vector<Known> ks = look_up(n, rs);
  const int rc = run(s.get());
  Record& r = c.record();
  for (const Known& k : ks)
    r.requests.push_back(k.id);
  done(r, ks, s.get());
  c.end();
  forget_completed(ks, before.data(), rs);
  return rc;
}

int some(Op op, int n, MPI_Request rs[], int* outcount, int indices[], MPI_Status sts[],
         int (*fn)(int, MPI_Request*, int*, int*, MPI_Status*)) {
  return complete(
      op, n, rs, sts, n, [&](MPI_Status* s) { return fn(n, rs, outcount, indices, s); },
      [&](Record& r, const std::vector<Known>& ks, const MPI_Status* s) {
        const int k = *outcount == MPI_UNDEFINED ? 0 : *outcount;
        for (int j = 0; j < k; ++j)
          r.done.push_back(completion(ks[static_cast<size_t>(indices[j])], s[j], indices[j]));
      });
}

// Start and Cancel: the request as it is after the call.
int on_request(Op op, MPI_Request* q, int (*fn)(MPI_Request*)) {
  if (!recording()) return fn(q);
  Call c(op);
  const int rc = fn(q);
  c.record().request = request_id(*q);
  c.end();
  return rc;
}

template <class Run>  // int(MPI_Status*)
int probe(Op op, int src, int tag, MPI_Comm comm, const int* flag, MPI_Status* status, const Run& run) {
  if (!recording()) return run(status);
  Call c(op);
  Statuses s(status, 1);
  const int rc = run(s.get());
  Record& r = c.record();
  r.comm = comm_id(comm);
  r.peer = src;
  r.tag = tag;
  r.flag = flag == nullptr || *flag != 0;
  if (r.flag) r.status = received(*s.get());
  c.end();
  return rc;
}

}  // namespace

extern "C" {

int MPI_Send(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c) {
  return send(Op::kSend, Mode::kStandard, b, n, t, d, tag, c, nullptr, PMPI_Send, nullptr);
}
int MPI_Ssend(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c) {
  return send(Op::kSend, Mode::kSynchronous, b, n, t, d, tag, c, nullptr, PMPI_Ssend, nullptr);
}
int MPI_Bsend(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c) {
  return send(Op::kSend, Mode::kBuffered, b, n, t, d, tag, c, nullptr, PMPI_Bsend, nullptr);
}
int MPI_Rsend(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c) {
  return send(Op::kSend, Mode::kReady, b, n, t, d, tag, c, nullptr, PMPI_Rsend, nullptr);
}
int MPI_Isend(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request* r) {
  return send(Op::kIsend, Mode::kStandard, b, n, t, d, tag, c, r, nullptr, PMPI_Isend);
}
int MPI_Issend(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request* r) {
  return send(Op::kIsend, Mode::kSynchronous, b, n, t, d, tag, c, r, nullptr, PMPI_Issend);
}
int MPI_Ibsend(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request* r) {
  return send(Op::kIsend, Mode::kBuffered, b, n, t, d, tag, c, r, nullptr, PMPI_Ibsend);
}
int MPI_Irsend(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request* r) {
  return send(Op::kIsend, Mode::kReady, b, n, t, d, tag, c, r, nullptr, PMPI_Irsend);
}
int MPI_Send_init(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request* r) {
  return send(Op::kSendInit, Mode::kStandard, b, n, t, d, tag, c, r, nullptr, PMPI_Send_init);
}
int MPI_Ssend_init(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request* r) {
  return send(Op::kSendInit, Mode::kSynchronous, b, n, t, d, tag, c, r, nullptr, PMPI_Ssend_init);
}
int MPI_Bsend_init(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request* r) {
  return send(Op::kSendInit, Mode::kBuffered, b, n, t, d, tag, c, r, nullptr, PMPI_Bsend_init);
}
int MPI_Rsend_init(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request* r) {
  return send(Op::kSendInit, Mode::kReady, b, n, t, d, tag, c, r, nullptr, PMPI_Rsend_init);
}

int MPI_Recv(void* b, int n, MPI_Datatype t, int src, int tag, MPI_Comm comm, MPI_Status* status) {
  if (!recording()) return PMPI_Recv(b, n, t, src, tag, comm, status);
  Call c(Op::kRecv);
  Statuses s(status, 1);
  const int rc = PMPI_Recv(b, n, t, src, tag, comm, s.get());
  endpoint(c.record(), comm, src, tag, n, t);
  c.record().status = received(*s.get());
  c.end();
  return rc;
}
int MPI_Irecv(void* b, int n, MPI_Datatype t, int src, int tag, MPI_Comm comm, MPI_Request* r) {
  return recv_request(Op::kIrecv, b, n, t, src, tag, comm, r, PMPI_Irecv);
}
int MPI_Recv_init(void* b, int n, MPI_Datatype t, int src, int tag, MPI_Comm comm, MPI_Request* r) {
  return recv_request(Op::kRecvInit, b, n, t, src, tag, comm, r, PMPI_Recv_init);
}

int MPI_Sendrecv(const void* sb, int sn, MPI_Datatype st, int dest, int stag, void* rb, int rn, MPI_Datatype rt,
                 int src, int rtag, MPI_Comm comm, MPI_Status* status) {
  return sendrecv(Op::kSendrecv, sn, st, dest, stag, rn, rt, src, rtag, comm, status,
                  [&](MPI_Status* s) { return PMPI_Sendrecv(sb, sn, st, dest, stag, rb, rn, rt, src, rtag, comm, s); });
}
int MPI_Sendrecv_replace(void* b, int n, MPI_Datatype t, int dest, int stag, int src, int rtag, MPI_Comm comm,
                         MPI_Status* status) {
  return sendrecv(Op::kSendrecvReplace, n, t, dest, stag, n, t, src, rtag, comm, status,
                  [&](MPI_Status* s) { return PMPI_Sendrecv_replace(b, n, t, dest, stag, src, rtag, comm, s); });
}

int MPI_Start(MPI_Request* r) {
  return on_request(Op::kStart, r, PMPI_Start);
}
int MPI_Cancel(MPI_Request* r) {
  return on_request(Op::kCancel, r, PMPI_Cancel);
}
int MPI_Startall(int n, MPI_Request rs[]) {
  if (!recording()) return PMPI_Startall(n, rs);
  Call c(Op::kStartall);
  const int rc = PMPI_Startall(n, rs);
  for (const Known& k : look_up(n, rs))
    c.record().requests.push_back(k.id);
  c.end();
  return rc;
}
int MPI_Request_free(MPI_Request* r) {  // the request as it was before the call freed it
  if (!recording()) return PMPI_Request_free(r);
  const MPI_Request h = *r;
  Call c(Op::kRequestFree);
  const int64_t id = request_id(h);
  const int rc = PMPI_Request_free(r);
  c.record().request = id;
  c.end();
  forget(h, id);
  return rc;
}

int MPI_Wait(MPI_Request* q, MPI_Status* status) {
  return complete(
      Op::kWait, 1, q, status, 1, [&](MPI_Status* s) { return PMPI_Wait(q, s); }, all_done);
}
int MPI_Waitall(int n, MPI_Request rs[], MPI_Status sts[]) {
  return complete(
      Op::kWaitall, n, rs, sts, n, [&](MPI_Status* s) { return PMPI_Waitall(n, rs, s); }, all_done);
}
int MPI_Waitany(int n, MPI_Request rs[], int* index, MPI_Status* status) {
  return complete(
      Op::kWaitany, n, rs, status, 1, [&](MPI_Status* s) { return PMPI_Waitany(n, rs, index, s); },
      [&](Record& r, const std::vector<Known>& ks, const MPI_Status* s) { index_done(r, ks, s, *index); });
}
int MPI_Waitsome(int n, MPI_Request rs[], int* outcount, int indices[], MPI_Status sts[]) {
  return some(Op::kWaitsome, n, rs, outcount, indices, sts, PMPI_Waitsome);
}
int MPI_Testsome(int n, MPI_Request rs[], int* outcount, int indices[], MPI_Status sts[]) {
  return some(Op::kTestsome, n, rs, outcount, indices, sts, PMPI_Testsome);
}

int MPI_Test(MPI_Request* q, int* flag, MPI_Status* status) {
  return complete(
      Op::kTest, 1, q, status, 1, [&](MPI_Status* s) { return PMPI_Test(q, flag, s); },
      [&](Record& r, const std::vector<Known>& ks, const MPI_Status* s) {
        r.flag = *flag != 0;
        if (r.flag) all_done(r, ks, s);
      });
}
int MPI_Testall(int n, MPI_Request rs[], int* flag, MPI_Status sts[]) {
  return complete(
      Op::kTestall, n, rs, sts, n, [&](MPI_Status* s) { return PMPI_Testall(n, rs, flag, s); },
      [&](Record& r, const std::vector<Known>& ks, const MPI_Status* s) {
        r.flag = *flag != 0;
        if (r.flag) all_done(r, ks, s);
      });
}
int MPI_Testany(int n, MPI_Request rs[], int* index, int* flag, MPI_Status* status) {
  return complete(
      Op::kTestany, n, rs, status, 1, [&](MPI_Status* s) { return PMPI_Testany(n, rs, index, flag, s); },
      [&](Record& r, const std::vector<Known>& ks, const MPI_Status* s) {
        r.flag = *flag != 0;
        index_done(r, ks, s, *index);
      });
}

int MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status* status) {
  return probe(Op::kProbe, src, tag, comm, nullptr, status,
               [&](MPI_Status* s) { return PMPI_Probe(src, tag, comm, s); });
}
int MPI_Iprobe(int src, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  return probe(Op::kIprobe, src, tag, comm, flag, status,
               [&](MPI_Status* s) { return PMPI_Iprobe(src, tag, comm, flag, s); });
}

}  // extern "C"
