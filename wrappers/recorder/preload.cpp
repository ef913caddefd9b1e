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
//
// This file: the trace file, the recorder's state, MPI_Init/Finalize/Abort/Pcontrol. The
// wrappers of the calls with records of their own (the rows of calls.def) are in p2p.cpp and
// colls.cpp; every other MPI function's is generated at build time (calls_generated.cpp).
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

#include "mgen/runtime/compute_clock.hpp"
#include "recorder.hpp"

using mgen::trace::CommKind;
using mgen::trace::Mode;
using mgen::trace::Op;

namespace mgen::recorder {
namespace {

using mgen::runtime::clock_ns;

constexpr size_t kBuffer = 1 << 20;

struct State {
  int fd = -1;
  bool on = false;
  // A call is being recorded. MPI functions it calls back into (a user-defined reduction
  // calling MPI_Type_size inside MPI_Reduce, an error handler) run unrecorded: their time is
  // the enclosing call's, and its record is the one being filled.
  bool in_call = false;
  int rank = 0;
  // Whole records waiting to be written; `committed` bytes of them are complete (a signal
  // handler writes only those).
  uint8_t buffer[kBuffer];
  volatile size_t committed = 0;
  uint64_t records = 0;
  uint64_t last_wall = 0;  // when the previous call returned
  // Computation not written yet: calls without communication (Local) and the computation
  // before them count with the computation before the next call that has a record of its own.
  uint64_t pending_cpu = 0;
  uint64_t last_flush = 0;
  trace::Record current;         // the call being recorded
  std::vector<uint8_t> encoded;  // its bytes
  // Live requests by handle, oldest first (recorder.hpp: one handle may stand for several).
  std::unordered_map<MPI_Request, std::deque<Known>> requests;
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

// One identifier for every rank's trace of this run, so that replay can refuse files of two
// runs mixed in one directory: rank 0 makes it from the time, its pid and random bits, and
// broadcasts it (MPI_Init is collective over MPI_COMM_WORLD, so every rank is there).
void make_run_id(uint8_t (&id)[trace::kRunIdBytes]) {
  if (g->rank == 0) {
    const uint64_t now = clock_ns(CLOCK_REALTIME);
    const auto pid = static_cast<uint32_t>(getpid());
    uint32_t random = 0;
    if (getentropy(&random, sizeof random) != 0) random = static_cast<uint32_t>(clock_ns(CLOCK_MONOTONIC));
    std::memcpy(id, &now, 8);
    std::memcpy(id + 8, &pid, 4);
    std::memcpy(id + 12, &random, 4);
  }
  PMPI_Bcast(id, static_cast<int>(trace::kRunIdBytes), MPI_BYTE, 0, MPI_COMM_WORLD);
}

void open_trace() {
  trace::Header h{};
  make_run_id(h.run_id);
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
  trace::Record end;
  end.op = Op::kEnd;
  end.records = g->records;
  std::vector<uint8_t> rec;
  trace::encode(rec, end);
  append(rec);
  flush();
  close(g->fd);
  g->fd = -1;
  g->on = false;
}

}  // namespace

// The application's computation between calls is measured by the compute stopwatch
// (mgen/runtime/compute_clock.hpp: the wall clock between context switches, the thread CPU time
// across them, less the clocks' own time): stopped first thing when a call comes in, started
// again when its Call is destroyed (the wrapper's last act), so the recorder's own work is not
// counted.
Call::Call(Op op) : wall0_(0), record_(g->current) {
  const uint64_t computed = runtime::compute_stop_ns();
  trace::reset(record_, op);
  g->in_call = true;
  wall0_ = clock_ns(CLOCK_MONOTONIC);
  if (op == Op::kInit) {  // nothing before MPI_Init counts
    g->last_wall = wall0_;
    g->pending_cpu = 0;
    return;
  }
  g->pending_cpu += computed;
  if (op == Op::kLocal) {
    // The call's own time (MPI_Pack's copy, MPI_Type_commit...) is computation too.
    runtime::compute_start();
    return;
  }
  record_.dt_cpu = g->pending_cpu;
  g->pending_cpu = 0;
}

void Call::end() {
  if (record_.op == Op::kLocal) g->pending_cpu += runtime::compute_stop_ns();
  g->in_call = false;
  const uint64_t wall1 = clock_ns(CLOCK_MONOTONIC);
  record_.dt_wall = wall0_ > g->last_wall ? wall0_ - g->last_wall : 0;
  record_.dur = wall1 - wall0_;
  g->encoded.clear();
  trace::encode(g->encoded, record_);
  append(g->encoded);
  g->last_wall = clock_ns(CLOCK_MONOTONIC);
  // At least once a second on disk, so that even a rank killed without a chance to flush
  // (SIGKILL) leaves most of its trace.
  if (g->last_wall - g->last_flush > 1000000000ull) {
    flush();
    g->last_flush = g->last_wall;
  }
}

Call::~Call() {
  runtime::compute_start();
}

bool recording() {
  return g != nullptr && g->on && g->fd >= 0 && !g->in_call;
}

uint64_t name_id(const char* name) {
  auto [it, fresh] = g->names.emplace(name, g->names.size());
  if (fresh) {
    trace::Record def;
    def.op = Op::kName;
    def.name = it->second;
    def.text = name;
    std::vector<uint8_t> rec;
    trace::encode(rec, def);
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

void forget_comm(MPI_Comm c) {
  g->comms.erase(c);
}

trace::Received received(const MPI_Status& st) {
  int bytes = 0;
  PMPI_Get_count(&st, MPI_BYTE, &bytes);
  return {st.MPI_SOURCE, st.MPI_TAG, bytes == MPI_UNDEFINED ? 0 : static_cast<uint64_t>(bytes)};
}

// ---------------------------------------------------------------- requests

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

}  // namespace mgen::recorder

using namespace mgen::recorder;

extern "C" {

namespace {
// MPI_Init and MPI_Init_thread: the record's computation is zero and its duration MPI's
// initialisation (the run starts when MPI_Init returns); `level` is the Init record's field.
int record_init(const std::function<int()>& init, const std::function<uint64_t()>& level) {
  if (g == nullptr) g = new State();
  mgen::runtime::compute_clock_info();  // measured once per process (a few ms), outside every record
  Call c(Op::kInit);
  const int rc = init();
  PMPI_Comm_rank(MPI_COMM_WORLD, &g->rank);
  open_trace();
  g->on = true;
  c.record().mode = level();
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
    c.record().name = name_id("MPI_Abort");
    c.end();
    flush();
  }
  return PMPI_Abort(comm, code);
}

int MPI_Pcontrol(const int level, ...) {
  if (!recording()) return PMPI_Pcontrol(level);
  Call c(Op::kLocal);
  const int rc = PMPI_Pcontrol(level);
  c.record().name = name_id("MPI_Pcontrol");
  c.end();
  return rc;
}

}  // extern "C"
