// libmgen-preload.so: an MPI profiling-interface (PMPI) recorder for programs built with
// MPICH. Preloaded (LD_PRELOAD, as `mgen record` does), its MPI_* functions take precedence
// over MPICH's; each runs the real call through PMPI_* and appends a record to the rank's
// trace (docs/trace-format.md).
//
// Fortran: MPICH's Fortran bindings (libmpichfort: mpi_send_, ...) call the C MPI_* functions,
// not PMPI_* (see `nm -D libmpichfort.so | grep " U MPI_Send"`), so interposing the C layer
// records Fortran programs too, with handles already converted to C.
//
// The trace is written through a buffer in blocks of whole records; the buffer is flushed
// when full, at MPI_Finalize, at MPI_Abort, at exit and on fatal signals, so a crashed or
// killed rank leaves a readable trace of what it did up to its last flush.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>

#include "recorder.hpp"

using mgen::trace::CommKind;
using mgen::trace::Mode;
using mgen::trace::Op;

namespace mgen::recorder {
namespace {

uint64_t clock_ns(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

constexpr size_t kBuffer = 1 << 20;

struct State {
  int fd = -1;
  bool on = false;
  int rank = 0;
  // Whole records waiting to be written; `committed` bytes of them are complete (a signal
  // handler writes only those).
  uint8_t buffer[kBuffer];
  volatile size_t committed = 0;
  uint64_t records = 0;
  uint64_t last_cpu = 0, last_wall = 0;  // when the previous call returned
  uint64_t last_flush = 0;
  std::vector<uint8_t> fields, record;
  // Live requests by handle, oldest first. MPICH hands out one predefined handle for every
  // request that completed at once (a small eager send, a receive from MPI_PROC_NULL), so
  // a handle may stand for several requests: the k-th occurrence of it in a call's array is
  // the k-th oldest (they are all complete, so which is which does not matter).
  struct Live {
    int64_t id;
    bool receive;
  };
  std::unordered_map<MPI_Request, std::deque<Live>> requests;
  int64_t next_request = 0;
  std::unordered_map<MPI_Comm, int64_t> comms;
  int64_t next_comm = 2;  // 0 MPI_COMM_WORLD, 1 MPI_COMM_SELF
  std::unordered_map<std::string, uint64_t> names;
};

State* g = nullptr;

void write_all(int fd, const uint8_t* p, size_t n) {
  while (n > 0) {
    const ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= static_cast<size_t>(w);
  }
}

// Writes the committed records as one block. Async-signal-safe.
void flush() {
  if (g == nullptr || g->fd < 0) return;
  const size_t n = g->committed;
  if (n == 0) return;
  uint8_t head[trace::kBlockHeader];
  const auto len = static_cast<uint32_t>(n);
  const uint32_t crc = trace::crc32(g->buffer, n);
  std::memcpy(head, &len, 4);
  std::memcpy(head + 4, &crc, 4);
  write_all(g->fd, head, sizeof head);
  write_all(g->fd, g->buffer, n);
  g->committed = 0;
}

void append(const std::vector<uint8_t>& rec) {
  if (g->committed + rec.size() > kBuffer) flush();
  if (rec.size() > kBuffer) {  // a huge record (v-collective on very many ranks): its own block
    const auto len = static_cast<uint32_t>(rec.size());
    const uint32_t crc = trace::crc32(rec.data(), rec.size());
    uint8_t head[trace::kBlockHeader];
    std::memcpy(head, &len, 4);
    std::memcpy(head + 4, &crc, 4);
    write_all(g->fd, head, sizeof head);
    write_all(g->fd, rec.data(), rec.size());
  } else {
    std::memcpy(g->buffer + g->committed, rec.data(), rec.size());
    g->committed = g->committed + rec.size();
  }
  ++g->records;
}

void on_fatal_signal(int sig) {
  flush();
  signal(sig, SIG_DFL);
  raise(sig);
}

void flush_at_exit() {
  flush();
}

void open_trace() {
  const char* dir = std::getenv("MGEN_TRACE_DIR");
  const std::string d = dir != nullptr && *dir != '\0' ? dir : "mgen-trace";
  mkdir(d.c_str(), 0755);
  const std::string path = d + "/rank-" + std::to_string(g->rank) + ".mgt";
  g->fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (g->fd < 0) {
    std::fprintf(stderr, "mgen recorder: cannot write %s: %s; this rank is not recorded\n", path.c_str(),
                 std::strerror(errno));
    return;
  }
  trace::Header h{};
  std::memcpy(h.magic, trace::kMagic, sizeof h.magic);
  h.version = trace::kVersion;
  h.header_bytes = sizeof h;
  h.rank = static_cast<uint32_t>(g->rank);
  int size = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  h.size = static_cast<uint32_t>(size);
  h.t0_ns = clock_ns(CLOCK_REALTIME);
  int len = 0;
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  PMPI_Get_processor_name(host, &len);
  std::memcpy(h.host, host, strnlen(host, sizeof h.host - 1));
  write_all(g->fd, reinterpret_cast<const uint8_t*>(&h), sizeof h);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGILL, SIGUSR1})
    signal(sig, on_fatal_signal);
  std::atexit(flush_at_exit);
}

// Ends the trace: the end record, the last block, the file.
void close_trace() {
  if (g->fd < 0) return;
  std::vector<uint8_t> rec{static_cast<uint8_t>(Op::kEnd)};
  trace::put_u(rec, g->records);
  append(rec);
  flush();
  close(g->fd);
  g->fd = -1;
  g->on = false;
}

}  // namespace

Call::Call(Op op) : op_(op), cpu0_(0), wall0_(0), fields_(g->fields) {
  fields_.clear();
  wall0_ = clock_ns(CLOCK_MONOTONIC);
  // The thread's CPU time costs a system call to read; a call without communication (Local)
  // leaves it alone: its time then counts with the computation before the next call.
  cpu0_ = op == Op::kLocal ? g->last_cpu : clock_ns(CLOCK_THREAD_CPUTIME_ID);
  if (op == Op::kInit) {  // nothing before MPI_Init counts
    g->last_wall = wall0_;
    g->last_cpu = cpu0_;
  }
}

void Call::end() {
  const uint64_t wall1 = clock_ns(CLOCK_MONOTONIC);
  std::vector<uint8_t>& rec = g->record;
  rec.clear();
  rec.push_back(static_cast<uint8_t>(op_));
  trace::put_u(rec, cpu0_ > g->last_cpu ? cpu0_ - g->last_cpu : 0);
  trace::put_u(rec, wall0_ > g->last_wall ? wall0_ - g->last_wall : 0);
  trace::put_u(rec, wall1 - wall0_);
  rec.insert(rec.end(), fields_.begin(), fields_.end());
  append(rec);
  g->last_wall = clock_ns(CLOCK_MONOTONIC);
  if (op_ != Op::kLocal) g->last_cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  // At least once a second on disk, so that even a rank killed without a chance to flush
  // (SIGKILL) leaves most of its trace.
  if (g->last_wall - g->last_flush > 1000000000ull) {
    flush();
    g->last_flush = g->last_wall;
  }
}

bool recording() {
  return g != nullptr && g->on && g->fd >= 0;
}

uint64_t name_id(const char* name) {
  auto [it, fresh] = g->names.emplace(name, g->names.size());
  if (fresh) {
    std::vector<uint8_t> rec{static_cast<uint8_t>(Op::kName)};
    trace::put_u(rec, it->second);
    const size_t n = std::strlen(name);
    trace::put_u(rec, n);
    rec.insert(rec.end(), name, name + n);
    append(rec);
  }
  return it->second;
}

int64_t comm_id(MPI_Comm c) {
  if (c == MPI_COMM_NULL) return -1;
  if (c == MPI_COMM_WORLD) return 0;
  if (c == MPI_COMM_SELF) return 1;
  auto [it, fresh] = g->comms.emplace(c, g->next_comm);
  if (fresh) ++g->next_comm;
  return it->second;
}

uint64_t type_size(MPI_Datatype t) {
  int s = 0;
  if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &s) != MPI_SUCCESS) return 0;
  return static_cast<uint64_t>(s);
}

}  // namespace mgen::recorder

using namespace mgen::recorder;

namespace {

// ---------------------------------------------------------------- requests and statuses

int64_t new_request(MPI_Request r, bool receive) {
  if (r == MPI_REQUEST_NULL) return -1;
  const int64_t id = g->next_request++;
  g->requests[r].push_back({id, receive});
  return id;
}

int64_t request_id(MPI_Request r) {
  const auto it = g->requests.find(r);
  return it == g->requests.end() || it->second.empty() ? -1 : it->second.front().id;
}

// Looks the requests of a call's array up before the call frees them.
struct Known {
  int64_t id;
  bool receive;
};
std::vector<Known> look_up(int n, const MPI_Request* rs) {
  std::vector<Known> out(static_cast<size_t>(n), Known{-1, false});
  std::unordered_map<MPI_Request, size_t> seen;
  for (int i = 0; i < n; ++i) {
    const auto it = g->requests.find(rs[i]);
    if (it == g->requests.end()) continue;
    const size_t k = seen[rs[i]]++;
    if (k < it->second.size()) out[static_cast<size_t>(i)] = Known{it->second[k].id, it->second[k].receive};
  }
  return out;
}

void forget(MPI_Request h, int64_t id) {
  const auto it = g->requests.find(h);
  if (it == g->requests.end()) return;
  auto& q = it->second;
  for (auto e = q.begin(); e != q.end(); ++e) {
    if (e->id == id) {
      q.erase(e);
      break;
    }
  }
  if (q.empty()) g->requests.erase(it);
}

// After completion: a request the call set to MPI_REQUEST_NULL is gone; a persistent one
// keeps its handle (and its id).
void forget_completed(const std::vector<Known>& ks, const MPI_Request* before, const MPI_Request* after) {
  for (size_t i = 0; i < ks.size(); ++i) {
    if (before[i] != MPI_REQUEST_NULL && after[i] == MPI_REQUEST_NULL) forget(before[i], ks[i].id);
  }
}

void put_status(Call& c, const MPI_Status& st) {
  int bytes = 0;
  PMPI_Get_count(&st, MPI_BYTE, &bytes);
  c.s(st.MPI_SOURCE);
  c.s(st.MPI_TAG);
  c.u(bytes == MPI_UNDEFINED ? 0 : static_cast<uint64_t>(bytes));
}

void put_completion(Call& c, const Known& k, const MPI_Status& st) {
  if (k.receive) {
    c.u(1);
    put_status(c, st);
  } else {
    c.u(0);
  }
}

void put_requests(Call& c, const std::vector<Known>& ks) {
  c.u(ks.size());
  for (const Known& k : ks)
    c.s(k.id);
}

// ---------------------------------------------------------------- point-to-point

int send(Op op, Mode mode, const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm,
         MPI_Request* req, int (*fn)(const void*, int, MPI_Datatype, int, int, MPI_Comm),
         int (*ifn)(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*)) {
  if (!recording())
    return req != nullptr ? ifn(buf, count, t, dest, tag, comm, req) : fn(buf, count, t, dest, tag, comm);
  Call c(op);
  const int rc = req != nullptr ? ifn(buf, count, t, dest, tag, comm, req) : fn(buf, count, t, dest, tag, comm);
  c.u(static_cast<uint64_t>(mode));
  c.s(comm_id(comm));
  c.s(dest);
  c.s(tag);
  c.u(static_cast<uint64_t>(count));
  c.u(type_size(t));
  if (req != nullptr) c.s(new_request(*req, false));
  c.end();
  return rc;
}

}  // namespace

extern "C" {

namespace {
// MPI_Init and MPI_Init_thread: the record's computation is zero and its duration MPI's
// initialisation (the run starts when MPI_Init returns); `level` is the Init record's field.
int record_init(const std::function<int()>& init, const std::function<uint64_t()>& level) {
  if (g == nullptr) g = new State();
  Call c(Op::kInit);
  const int rc = init();
  PMPI_Comm_rank(MPI_COMM_WORLD, &g->rank);
  open_trace();
  g->on = true;
  c.u(level());
  c.end();
  return rc;
}
}  // namespace

int MPI_Init(int* argc, char*** argv) {
  return record_init([&] { return PMPI_Init(argc, argv); }, [] { return uint64_t{0}; });
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  return record_init([&] { return PMPI_Init_thread(argc, argv, required, provided); },
                     [&] { return static_cast<uint64_t>(*provided) + 1; });
}

int MPI_Finalize() {
  if (!recording()) return PMPI_Finalize();
  Call c(Op::kFinalize);
  const int rc = PMPI_Finalize();
  c.end();
  close_trace();
  return rc;
}

int MPI_Abort(MPI_Comm comm, int code) {
  if (recording()) {
    Call c(Op::kOther);
    c.u(name_id("MPI_Abort"));
    c.end();
    flush();
  }
  return PMPI_Abort(comm, code);
}

int MPI_Pcontrol(const int level, ...) {
  if (!recording()) return PMPI_Pcontrol(level);
  Call c(Op::kLocal);
  const int rc = PMPI_Pcontrol(level);
  c.u(name_id("MPI_Pcontrol"));
  c.end();
  return rc;
}

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

int MPI_Recv(void* b, int n, MPI_Datatype t, int src, int tag, MPI_Comm comm, MPI_Status* st) {
  if (!recording()) return PMPI_Recv(b, n, t, src, tag, comm, st);
  MPI_Status mine;
  MPI_Status* s = st == MPI_STATUS_IGNORE ? &mine : st;
  Call c(Op::kRecv);
  const int rc = PMPI_Recv(b, n, t, src, tag, comm, s);
  c.s(comm_id(comm));
  c.s(src);
  c.s(tag);
  c.u(static_cast<uint64_t>(n));
  c.u(type_size(t));
  put_status(c, *s);
  c.end();
  return rc;
}

namespace {
int recv_request(Op op, void* b, int n, MPI_Datatype t, int src, int tag, MPI_Comm comm, MPI_Request* r,
                 int (*fn)(void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*)) {
  if (!recording()) return fn(b, n, t, src, tag, comm, r);
  Call c(op);
  const int rc = fn(b, n, t, src, tag, comm, r);
  c.s(comm_id(comm));
  c.s(src);
  c.s(tag);
  c.u(static_cast<uint64_t>(n));
  c.u(type_size(t));
  c.s(new_request(*r, true));
  c.end();
  return rc;
}
}  // namespace

int MPI_Irecv(void* b, int n, MPI_Datatype t, int src, int tag, MPI_Comm comm, MPI_Request* r) {
  return recv_request(Op::kIrecv, b, n, t, src, tag, comm, r, PMPI_Irecv);
}
int MPI_Recv_init(void* b, int n, MPI_Datatype t, int src, int tag, MPI_Comm comm, MPI_Request* r) {
  return recv_request(Op::kRecvInit, b, n, t, src, tag, comm, r, PMPI_Recv_init);
}

int MPI_Sendrecv(const void* sb, int sn, MPI_Datatype st, int dest, int stag, void* rb, int rn, MPI_Datatype rt,
                 int src, int rtag, MPI_Comm comm, MPI_Status* status) {
  if (!recording()) return PMPI_Sendrecv(sb, sn, st, dest, stag, rb, rn, rt, src, rtag, comm, status);
  MPI_Status mine;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &mine : status;
  Call c(Op::kSendrecv);
  const int rc = PMPI_Sendrecv(sb, sn, st, dest, stag, rb, rn, rt, src, rtag, comm, s);
  c.s(comm_id(comm));
  c.s(dest);
  c.s(stag);
  c.u(static_cast<uint64_t>(sn));
  c.u(type_size(st));
  c.s(src);
  c.s(rtag);
  c.u(static_cast<uint64_t>(rn));
  c.u(type_size(rt));
  put_status(c, *s);
  c.end();
  return rc;
}

int MPI_Sendrecv_replace(void* b, int n, MPI_Datatype t, int dest, int stag, int src, int rtag, MPI_Comm comm,
                         MPI_Status* status) {
  if (!recording()) return PMPI_Sendrecv_replace(b, n, t, dest, stag, src, rtag, comm, status);
  MPI_Status mine;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &mine : status;
  Call c(Op::kSendrecvReplace);
  const int rc = PMPI_Sendrecv_replace(b, n, t, dest, stag, src, rtag, comm, s);
  const uint64_t size = type_size(t);
  c.s(comm_id(comm));
  c.s(dest);
  c.s(stag);
  c.u(static_cast<uint64_t>(n));
  c.u(size);
  c.s(src);
  c.s(rtag);
  c.u(static_cast<uint64_t>(n));
  c.u(size);
  put_status(c, *s);
  c.end();
  return rc;
}

int MPI_Start(MPI_Request* r) {
  if (!recording()) return PMPI_Start(r);
  Call c(Op::kStart);
  const int rc = PMPI_Start(r);
  c.s(request_id(*r));
  c.end();
  return rc;
}

int MPI_Startall(int n, MPI_Request rs[]) {
  if (!recording()) return PMPI_Startall(n, rs);
  Call c(Op::kStartall);
  const int rc = PMPI_Startall(n, rs);
  put_requests(c, look_up(n, rs));
  c.end();
  return rc;
}

int MPI_Request_free(MPI_Request* r) {
  if (!recording()) return PMPI_Request_free(r);
  const MPI_Request h = *r;
  Call c(Op::kRequestFree);
  const int64_t id = request_id(h);
  const int rc = PMPI_Request_free(r);
  c.s(id);
  c.end();
  forget(h, id);
  return rc;
}

int MPI_Cancel(MPI_Request* r) {
  if (!recording()) return PMPI_Cancel(r);
  Call c(Op::kCancel);
  const int rc = PMPI_Cancel(r);
  c.s(request_id(*r));
  c.end();
  return rc;
}

// ---------------------------------------------------------------- completion

int MPI_Wait(MPI_Request* r, MPI_Status* status) {
  if (!recording()) return PMPI_Wait(r, status);
  MPI_Status mine;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &mine : status;
  const MPI_Request before = *r;
  const auto k = look_up(1, r);
  Call c(Op::kWait);
  const int rc = PMPI_Wait(r, s);
  c.s(k[0].id);
  put_completion(c, k[0], *s);
  c.end();
  forget_completed(k, &before, r);
  return rc;
}

int MPI_Waitall(int n, MPI_Request rs[], MPI_Status sts[]) {
  if (!recording()) return PMPI_Waitall(n, rs, sts);
  std::vector<MPI_Status> mine(sts == MPI_STATUSES_IGNORE ? static_cast<size_t>(n) : 0);
  MPI_Status* s = sts == MPI_STATUSES_IGNORE ? mine.data() : sts;
  const std::vector<MPI_Request> before(rs, rs + n);
  const auto ks = look_up(n, rs);
  Call c(Op::kWaitall);
  const int rc = PMPI_Waitall(n, rs, s);
  put_requests(c, ks);
  for (int i = 0; i < n; ++i)
    put_completion(c, ks[static_cast<size_t>(i)], s[i]);
  c.end();
  forget_completed(ks, before.data(), rs);
  return rc;
}

int MPI_Waitany(int n, MPI_Request rs[], int* index, MPI_Status* status) {
  if (!recording()) return PMPI_Waitany(n, rs, index, status);
  MPI_Status mine;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &mine : status;
  const std::vector<MPI_Request> before(rs, rs + n);
  const auto ks = look_up(n, rs);
  Call c(Op::kWaitany);
  const int rc = PMPI_Waitany(n, rs, index, s);
  put_requests(c, ks);
  const int i = *index == MPI_UNDEFINED ? -1 : *index;
  c.s(i);
  if (i >= 0) put_completion(c, ks[static_cast<size_t>(i)], *s);
  c.end();
  forget_completed(ks, before.data(), rs);
  return rc;
}

namespace {
int some(Op op, int n, MPI_Request rs[], int* outcount, int indices[], MPI_Status sts[],
         int (*fn)(int, MPI_Request*, int*, int*, MPI_Status*)) {
  if (!recording()) return fn(n, rs, outcount, indices, sts);
  std::vector<MPI_Status> mine(sts == MPI_STATUSES_IGNORE ? static_cast<size_t>(n) : 0);
  MPI_Status* s = sts == MPI_STATUSES_IGNORE ? mine.data() : sts;
  const std::vector<MPI_Request> before(rs, rs + n);
  const auto ks = look_up(n, rs);
  Call c(op);
  const int rc = fn(n, rs, outcount, indices, s);
  put_requests(c, ks);
  const int k = *outcount == MPI_UNDEFINED ? 0 : *outcount;
  c.u(static_cast<uint64_t>(k));
  for (int j = 0; j < k; ++j) {
    c.u(static_cast<uint64_t>(indices[j]));
    put_completion(c, ks[static_cast<size_t>(indices[j])], s[j]);
  }
  c.end();
  forget_completed(ks, before.data(), rs);
  return rc;
}
}  // namespace

int MPI_Waitsome(int n, MPI_Request rs[], int* outcount, int indices[], MPI_Status sts[]) {
  return some(Op::kWaitsome, n, rs, outcount, indices, sts, PMPI_Waitsome);
}
int MPI_Testsome(int n, MPI_Request rs[], int* outcount, int indices[], MPI_Status sts[]) {
  return some(Op::kTestsome, n, rs, outcount, indices, sts, PMPI_Testsome);
}

int MPI_Test(MPI_Request* r, int* flag, MPI_Status* status) {
  if (!recording()) return PMPI_Test(r, flag, status);
  MPI_Status mine;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &mine : status;
  const MPI_Request before = *r;
  const auto k = look_up(1, r);
  Call c(Op::kTest);
  const int rc = PMPI_Test(r, flag, s);
  c.s(k[0].id);
  c.u(*flag ? 1 : 0);
  if (*flag) put_completion(c, k[0], *s);
  c.end();
  forget_completed(k, &before, r);
  return rc;
}

int MPI_Testall(int n, MPI_Request rs[], int* flag, MPI_Status sts[]) {
  if (!recording()) return PMPI_Testall(n, rs, flag, sts);
  std::vector<MPI_Status> mine(sts == MPI_STATUSES_IGNORE ? static_cast<size_t>(n) : 0);
  MPI_Status* s = sts == MPI_STATUSES_IGNORE ? mine.data() : sts;
  const std::vector<MPI_Request> before(rs, rs + n);
  const auto ks = look_up(n, rs);
  Call c(Op::kTestall);
  const int rc = PMPI_Testall(n, rs, flag, s);
  put_requests(c, ks);
  c.u(*flag ? 1 : 0);
  for (int i = 0; i < n && *flag; ++i)
    put_completion(c, ks[static_cast<size_t>(i)], s[i]);
  c.end();
  forget_completed(ks, before.data(), rs);
  return rc;
}

int MPI_Testany(int n, MPI_Request rs[], int* index, int* flag, MPI_Status* status) {
  if (!recording()) return PMPI_Testany(n, rs, index, flag, status);
  MPI_Status mine;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &mine : status;
  const std::vector<MPI_Request> before(rs, rs + n);
  const auto ks = look_up(n, rs);
  Call c(Op::kTestany);
  const int rc = PMPI_Testany(n, rs, index, flag, s);
  put_requests(c, ks);
  c.u(*flag ? 1 : 0);
  const int i = *index == MPI_UNDEFINED ? -1 : *index;
  c.s(i);
  if (i >= 0) put_completion(c, ks[static_cast<size_t>(i)], *s);
  c.end();
  forget_completed(ks, before.data(), rs);
  return rc;
}

int MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status* status) {
  if (!recording()) return PMPI_Probe(src, tag, comm, status);
  MPI_Status mine;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &mine : status;
  Call c(Op::kProbe);
  const int rc = PMPI_Probe(src, tag, comm, s);
  c.s(comm_id(comm));
  c.s(src);
  c.s(tag);
  put_status(c, *s);
  c.end();
  return rc;
}

int MPI_Iprobe(int src, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  if (!recording()) return PMPI_Iprobe(src, tag, comm, flag, status);
  MPI_Status mine;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &mine : status;
  Call c(Op::kIprobe);
  const int rc = PMPI_Iprobe(src, tag, comm, flag, s);
  c.s(comm_id(comm));
  c.s(src);
  c.s(tag);
  c.u(*flag ? 1 : 0);
  if (*flag) put_status(c, *s);
  c.end();
  return rc;
}

// ---------------------------------------------------------------- collectives
// Each blocking collective and its non-blocking form share a record; `request` is -1 for the
// blocking one. Counts are recorded as passed (also where MPI ignores them).

#define MGEN_REQ(r) ((r) == nullptr ? -1 : new_request(*(r), false))

namespace {
int comm_size(MPI_Comm comm) {
  int n = 0;
  PMPI_Comm_size(comm, &n);
  return n;
}
void put_counts(Call& c, const int* counts, int n) {
  if (counts == nullptr) n = 0;
  c.u(static_cast<uint64_t>(n));
  for (int i = 0; i < n; ++i)
    c.u(static_cast<uint64_t>(counts[i]));
}
int root_size(MPI_Comm comm, int root) {  // counts arrays matter at the root only
  int me = 0;
  PMPI_Comm_rank(comm, &me);
  return me == root ? comm_size(comm) : 0;
}
}  // namespace

int MPI_Barrier(MPI_Comm comm) {
  if (!recording()) return PMPI_Barrier(comm);
  Call c(Op::kBarrier);
  const int rc = PMPI_Barrier(comm);
  c.s(comm_id(comm));
  c.s(-1);
  c.end();
  return rc;
}
int MPI_Ibarrier(MPI_Comm comm, MPI_Request* r) {
  if (!recording()) return PMPI_Ibarrier(comm, r);
  Call c(Op::kBarrier);
  const int rc = PMPI_Ibarrier(comm, r);
  c.s(comm_id(comm));
  c.s(MGEN_REQ(r));
  c.end();
  return rc;
}

namespace {
int bcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm comm, MPI_Request* r) {
  if (!recording()) return r ? PMPI_Ibcast(b, n, t, root, comm, r) : PMPI_Bcast(b, n, t, root, comm);
  Call c(Op::kBcast);
  const int rc = r ? PMPI_Ibcast(b, n, t, root, comm, r) : PMPI_Bcast(b, n, t, root, comm);
  c.s(comm_id(comm));
  c.s(MGEN_REQ(r));
  c.s(root);
  c.u(static_cast<uint64_t>(n));
  c.u(type_size(t));
  c.end();
  return rc;
}

// Reduce (root >= 0), Allreduce, Scan, Exscan, Reduce_scatter_block: one shape.
int reduction(Op op, const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm comm,
              MPI_Request* r) {
  auto run = [&] {
    switch (op) {
      case Op::kReduce:
        return r ? PMPI_Ireduce(sb, rb, n, t, o, root, comm, r) : PMPI_Reduce(sb, rb, n, t, o, root, comm);
      case Op::kAllreduce:
        return r ? PMPI_Iallreduce(sb, rb, n, t, o, comm, r) : PMPI_Allreduce(sb, rb, n, t, o, comm);
      case Op::kScan:
        return r ? PMPI_Iscan(sb, rb, n, t, o, comm, r) : PMPI_Scan(sb, rb, n, t, o, comm);
      case Op::kExscan:
        return r ? PMPI_Iexscan(sb, rb, n, t, o, comm, r) : PMPI_Exscan(sb, rb, n, t, o, comm);
      default:
        return r ? PMPI_Ireduce_scatter_block(sb, rb, n, t, o, comm, r)
                 : PMPI_Reduce_scatter_block(sb, rb, n, t, o, comm);
    }
  };
  if (!recording()) return run();
  Call c(op);
  const int rc = run();
  c.s(comm_id(comm));
  c.s(MGEN_REQ(r));
  if (op == Op::kReduce) c.s(root);
  c.u(static_cast<uint64_t>(n));
  c.u(type_size(t));
  c.u(static_cast<uint64_t>(static_cast<uint32_t>(o)));
  c.end();
  return rc;
}
}  // namespace

int MPI_Bcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm comm) {
  return bcast(b, n, t, root, comm, nullptr);
}
int MPI_Ibcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm comm, MPI_Request* r) {
  return bcast(b, n, t, root, comm, r);
}
int MPI_Reduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm comm) {
  return reduction(Op::kReduce, sb, rb, n, t, o, root, comm, nullptr);
}
int MPI_Ireduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm comm, MPI_Request* r) {
  return reduction(Op::kReduce, sb, rb, n, t, o, root, comm, r);
}
int MPI_Allreduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm comm) {
  return reduction(Op::kAllreduce, sb, rb, n, t, o, 0, comm, nullptr);
}
int MPI_Iallreduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm comm, MPI_Request* r) {
  return reduction(Op::kAllreduce, sb, rb, n, t, o, 0, comm, r);
}
int MPI_Scan(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm comm) {
  return reduction(Op::kScan, sb, rb, n, t, o, 0, comm, nullptr);
}
int MPI_Iscan(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm comm, MPI_Request* r) {
  return reduction(Op::kScan, sb, rb, n, t, o, 0, comm, r);
}
int MPI_Exscan(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm comm) {
  return reduction(Op::kExscan, sb, rb, n, t, o, 0, comm, nullptr);
}
int MPI_Iexscan(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm comm, MPI_Request* r) {
  return reduction(Op::kExscan, sb, rb, n, t, o, 0, comm, r);
}
int MPI_Reduce_scatter_block(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm comm) {
  return reduction(Op::kReduceScatterBlock, sb, rb, n, t, o, 0, comm, nullptr);
}
int MPI_Ireduce_scatter_block(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm comm,
                              MPI_Request* r) {
  return reduction(Op::kReduceScatterBlock, sb, rb, n, t, o, 0, comm, r);
}

namespace {
int reduce_scatter(const void* sb, void* rb, const int counts[], MPI_Datatype t, MPI_Op o, MPI_Comm comm,
                   MPI_Request* r) {
  auto run = [&] {
    return r ? PMPI_Ireduce_scatter(sb, rb, counts, t, o, comm, r) : PMPI_Reduce_scatter(sb, rb, counts, t, o, comm);
  };
  if (!recording()) return run();
  Call c(Op::kReduceScatter);
  const int rc = run();
  c.s(comm_id(comm));
  c.s(MGEN_REQ(r));
  c.u(type_size(t));
  c.u(static_cast<uint64_t>(static_cast<uint32_t>(o)));
  put_counts(c, counts, comm_size(comm));
  c.end();
  return rc;
}

// Gather, Scatter (root >= 0), Allgather, Alltoall.
int blocks(Op op, const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, int root, MPI_Comm comm,
           MPI_Request* r) {
  auto run = [&] {
    switch (op) {
      case Op::kGather:
        return r ? PMPI_Igather(sb, sn, st, rb, rn, rt, root, comm, r)
                 : PMPI_Gather(sb, sn, st, rb, rn, rt, root, comm);
      case Op::kScatter:
        return r ? PMPI_Iscatter(sb, sn, st, rb, rn, rt, root, comm, r)
                 : PMPI_Scatter(sb, sn, st, rb, rn, rt, root, comm);
      case Op::kAllgather:
        return r ? PMPI_Iallgather(sb, sn, st, rb, rn, rt, comm, r) : PMPI_Allgather(sb, sn, st, rb, rn, rt, comm);
      default:
        return r ? PMPI_Ialltoall(sb, sn, st, rb, rn, rt, comm, r) : PMPI_Alltoall(sb, sn, st, rb, rn, rt, comm);
    }
  };
  if (!recording()) return run();
  Call c(op);
  const int rc = run();
  c.s(comm_id(comm));
  c.s(MGEN_REQ(r));
  if (op == Op::kGather || op == Op::kScatter) c.s(root);
  const bool in_place = sb == MPI_IN_PLACE;
  c.u(static_cast<uint64_t>(in_place ? rn : sn));
  c.u(type_size(in_place ? rt : st));
  c.u(static_cast<uint64_t>(rn));
  c.u(type_size(rt));
  c.end();
  return rc;
}
}  // namespace

int MPI_Reduce_scatter(const void* sb, void* rb, const int counts[], MPI_Datatype t, MPI_Op o, MPI_Comm comm) {
  return reduce_scatter(sb, rb, counts, t, o, comm, nullptr);
}
int MPI_Ireduce_scatter(const void* sb, void* rb, const int counts[], MPI_Datatype t, MPI_Op o, MPI_Comm comm,
                        MPI_Request* r) {
  return reduce_scatter(sb, rb, counts, t, o, comm, r);
}
int MPI_Gather(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, int root, MPI_Comm comm) {
  return blocks(Op::kGather, sb, sn, st, rb, rn, rt, root, comm, nullptr);
}
int MPI_Igather(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, int root, MPI_Comm comm,
                MPI_Request* r) {
  return blocks(Op::kGather, sb, sn, st, rb, rn, rt, root, comm, r);
}
int MPI_Scatter(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, int root, MPI_Comm comm) {
  return blocks(Op::kScatter, sb, sn, st, rb, rn, rt, root, comm, nullptr);
}
int MPI_Iscatter(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, int root, MPI_Comm comm,
                 MPI_Request* r) {
  return blocks(Op::kScatter, sb, sn, st, rb, rn, rt, root, comm, r);
}
int MPI_Allgather(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, MPI_Comm comm) {
  return blocks(Op::kAllgather, sb, sn, st, rb, rn, rt, 0, comm, nullptr);
}
int MPI_Iallgather(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, MPI_Comm comm,
                   MPI_Request* r) {
  return blocks(Op::kAllgather, sb, sn, st, rb, rn, rt, 0, comm, r);
}
int MPI_Alltoall(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, MPI_Comm comm) {
  return blocks(Op::kAlltoall, sb, sn, st, rb, rn, rt, 0, comm, nullptr);
}
int MPI_Ialltoall(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, MPI_Comm comm,
                  MPI_Request* r) {
  return blocks(Op::kAlltoall, sb, sn, st, rb, rn, rt, 0, comm, r);
}

namespace {
int gatherv(const void* sb, int sn, MPI_Datatype st, void* rb, const int rc_[], const int rd[], MPI_Datatype rt,
            int root, MPI_Comm comm, MPI_Request* r) {
  auto run = [&] {
    return r ? PMPI_Igatherv(sb, sn, st, rb, rc_, rd, rt, root, comm, r)
             : PMPI_Gatherv(sb, sn, st, rb, rc_, rd, rt, root, comm);
  };
  if (!recording()) return run();
  Call c(Op::kGatherv);
  const int rc = run();
  c.s(comm_id(comm));
  c.s(MGEN_REQ(r));
  c.s(root);
  c.u(static_cast<uint64_t>(sb == MPI_IN_PLACE ? 0 : sn));
  c.u(type_size(sb == MPI_IN_PLACE ? rt : st));
  c.u(type_size(rt));
  put_counts(c, rc_, root_size(comm, root));
  c.end();
  return rc;
}
int scatterv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, int rn, MPI_Datatype rt,
             int root, MPI_Comm comm, MPI_Request* r) {
  auto run = [&] {
    return r ? PMPI_Iscatterv(sb, sc, sd, st, rb, rn, rt, root, comm, r)
             : PMPI_Scatterv(sb, sc, sd, st, rb, rn, rt, root, comm);
  };
  if (!recording()) return run();
  Call c(Op::kScatterv);
  const int rc = run();
  c.s(comm_id(comm));
  c.s(MGEN_REQ(r));
  c.s(root);
  c.u(type_size(st));
  put_counts(c, sc, root_size(comm, root));
  c.u(static_cast<uint64_t>(rb == MPI_IN_PLACE ? 0 : rn));
  c.u(type_size(rb == MPI_IN_PLACE ? st : rt));
  c.end();
  return rc;
}
int allgatherv(const void* sb, int sn, MPI_Datatype st, void* rb, const int rc_[], const int rd[], MPI_Datatype rt,
               MPI_Comm comm, MPI_Request* r) {
  auto run = [&] {
    return r ? PMPI_Iallgatherv(sb, sn, st, rb, rc_, rd, rt, comm, r)
             : PMPI_Allgatherv(sb, sn, st, rb, rc_, rd, rt, comm);
  };
  if (!recording()) return run();
  Call c(Op::kAllgatherv);
  const int rc = run();
  const int n = comm_size(comm);
  int me = 0;
  PMPI_Comm_rank(comm, &me);
  c.s(comm_id(comm));
  c.s(MGEN_REQ(r));
  c.u(static_cast<uint64_t>(sb == MPI_IN_PLACE ? rc_[me] : sn));
  c.u(type_size(sb == MPI_IN_PLACE ? rt : st));
  c.u(type_size(rt));
  put_counts(c, rc_, n);
  c.end();
  return rc;
}
int alltoallv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rc_[],
              const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request* r) {
  auto run = [&] {
    return r ? PMPI_Ialltoallv(sb, sc, sd, st, rb, rc_, rd, rt, comm, r)
             : PMPI_Alltoallv(sb, sc, sd, st, rb, rc_, rd, rt, comm);
  };
  if (!recording()) return run();
  Call c(Op::kAlltoallv);
  const int rc = run();
  const int n = comm_size(comm);
  const bool in_place = sb == MPI_IN_PLACE;
  c.s(comm_id(comm));
  c.s(MGEN_REQ(r));
  c.u(type_size(in_place ? rt : st));
  put_counts(c, in_place ? rc_ : sc, n);
  c.u(type_size(rt));
  put_counts(c, rc_, n);
  c.end();
  return rc;
}
}  // namespace

int MPI_Gatherv(const void* sb, int sn, MPI_Datatype st, void* rb, const int rc[], const int rd[], MPI_Datatype rt,
                int root, MPI_Comm comm) {
  return gatherv(sb, sn, st, rb, rc, rd, rt, root, comm, nullptr);
}
int MPI_Igatherv(const void* sb, int sn, MPI_Datatype st, void* rb, const int rc[], const int rd[], MPI_Datatype rt,
                 int root, MPI_Comm comm, MPI_Request* r) {
  return gatherv(sb, sn, st, rb, rc, rd, rt, root, comm, r);
}
int MPI_Scatterv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, int rn, MPI_Datatype rt,
                 int root, MPI_Comm comm) {
  return scatterv(sb, sc, sd, st, rb, rn, rt, root, comm, nullptr);
}
int MPI_Iscatterv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, int rn, MPI_Datatype rt,
                  int root, MPI_Comm comm, MPI_Request* r) {
  return scatterv(sb, sc, sd, st, rb, rn, rt, root, comm, r);
}
int MPI_Allgatherv(const void* sb, int sn, MPI_Datatype st, void* rb, const int rc[], const int rd[], MPI_Datatype rt,
                   MPI_Comm comm) {
  return allgatherv(sb, sn, st, rb, rc, rd, rt, comm, nullptr);
}
int MPI_Iallgatherv(const void* sb, int sn, MPI_Datatype st, void* rb, const int rc[], const int rd[], MPI_Datatype rt,
                    MPI_Comm comm, MPI_Request* r) {
  return allgatherv(sb, sn, st, rb, rc, rd, rt, comm, r);
}
int MPI_Alltoallv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rc[],
                  const int rd[], MPI_Datatype rt, MPI_Comm comm) {
  return alltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm, nullptr);
}
int MPI_Ialltoallv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rc[],
                   const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request* r) {
  return alltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm, r);
}

// ---------------------------------------------------------------- communicators

namespace {
// Records a new communicator (or MPI_COMM_NULL) made from `parent`, with its members' world
// ranks in its rank order, so replay can make the same one.
void comm_new(Call& c, CommKind kind, MPI_Comm parent, MPI_Comm made) {
  c.u(static_cast<uint64_t>(kind));
  c.s(comm_id(parent));
  c.s(comm_id(made));
  if (made == MPI_COMM_NULL) {
    c.u(0);
    c.end();
    return;
  }
  MPI_Group g_made, g_world;
  PMPI_Comm_group(made, &g_made);
  PMPI_Comm_group(MPI_COMM_WORLD, &g_world);
  int n = 0;
  PMPI_Group_size(g_made, &n);
  std::vector<int> ranks(static_cast<size_t>(n)), world(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    ranks[static_cast<size_t>(i)] = i;
  PMPI_Group_translate_ranks(g_made, n, ranks.data(), g_world, world.data());
  PMPI_Group_free(&g_made);
  PMPI_Group_free(&g_world);
  c.u(static_cast<uint64_t>(n));
  for (int w : world)
    c.u(static_cast<uint64_t>(w));
  c.end();
}
}  // namespace

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* out) {
  if (!recording()) return PMPI_Comm_dup(comm, out);
  Call c(Op::kCommNew);
  const int rc = PMPI_Comm_dup(comm, out);
  comm_new(c, CommKind::kDup, comm, *out);
  return rc;
}
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* out) {
  if (!recording()) return PMPI_Comm_split(comm, color, key, out);
  Call c(Op::kCommNew);
  const int rc = PMPI_Comm_split(comm, color, key, out);
  comm_new(c, CommKind::kSplit, comm, *out);
  return rc;
}
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* out) {
  if (!recording()) return PMPI_Comm_create(comm, group, out);
  Call c(Op::kCommNew);
  const int rc = PMPI_Comm_create(comm, group, out);
  comm_new(c, CommKind::kCreate, comm, *out);
  return rc;
}
int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm* out) {
  if (!recording()) return PMPI_Comm_split_type(comm, type, key, info, out);
  Call c(Op::kCommNew);
  const int rc = PMPI_Comm_split_type(comm, type, key, info, out);
  comm_new(c, CommKind::kSplitType, comm, *out);
  return rc;
}
int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm* out) {
  if (!recording()) return PMPI_Cart_create(comm, ndims, dims, periods, reorder, out);
  Call c(Op::kCommNew);
  const int rc = PMPI_Cart_create(comm, ndims, dims, periods, reorder, out);
  comm_new(c, CommKind::kCart, comm, *out);
  return rc;
}
int MPI_Cart_sub(MPI_Comm comm, const int remain[], MPI_Comm* out) {
  if (!recording()) return PMPI_Cart_sub(comm, remain, out);
  Call c(Op::kCommNew);
  const int rc = PMPI_Cart_sub(comm, remain, out);
  comm_new(c, CommKind::kCartSub, comm, *out);
  return rc;
}
int MPI_Comm_free(MPI_Comm* comm) {
  if (!recording()) return PMPI_Comm_free(comm);
  const MPI_Comm h = *comm;
  Call c(Op::kCommFree);
  const int64_t id = comm_id(h);
  const int rc = PMPI_Comm_free(comm);
  c.s(id);
  c.end();
  g->comms.erase(h);
  return rc;
}

}  // extern "C"
