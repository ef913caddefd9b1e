// Matched probes (MPI-3 §3.8.2): MPI_Mprobe / MPI_Improbe take a message out of matching, and
// MPI_Mrecv / MPI_Imrecv receive exactly that message later.
//
// The probe finds the earliest unexpected message that matches; a receive posted right away for
// its actual source and tag takes that same message (messages from one sender match in order,
// and the probed one is the earliest of its sender with that tag), and no receive posted later
// can take it any more. So the matched probe posts that receive into a staging buffer of the
// message's length; MPI_Mrecv waits for it and unpacks into the user's buffer. A rendezvous
// message starts moving at the probe rather than at MPI_Mrecv: the one timing difference.
#include <fmt/format.h>

#include <functional>

#include "core/world.hpp"
#include "mpi/shim.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;
using XRequest = mgen::mpi::abi::Request;

namespace {

// MPI_Message handles of matched messages: a kind tag MPICH does not use, and an index.
constexpr uint32_t kMessageKind = 0xac000000u;
constexpr uint32_t kMessageMask = 0xfc000000u;

struct Messages : World::Extension {
  explicit Messages(World& w) : ranks(w.size()) {}
  struct Rank {
    std::vector<MPI_Request> pending;  // by message index; MPI_REQUEST_NULL: free
  };
  std::vector<Rank> ranks;
};
const char kMessagesKey = 0;

std::vector<MPI_Request>& pending() {
  return scope().world().extension<Messages>(&kMessagesKey).ranks[scope().rank().id].pending;
}

int mgen_peer(int mpi_rank) {
  if (mpi_rank == MPI_PROC_NULL) return MGEN_PROC_NULL;
  if (mpi_rank == MPI_ANY_SOURCE) return MGEN_ANY_SOURCE;
  if (mpi_rank < 0) return -1000;  // invalid: MGEN reports it
  return mpi_rank;
}

// The matched message `ms` on `c` (just probed): posts its receive, returns its handle.
MPI_Message take(const MGEN_Status& ms, MPI_Comm c) {
  XRequest* q = nullptr;
  MPI_Request h = new_request(&q);
  q->kind = XRequest::Kind::kP2P;
  q->op = XRequest::Op::kRecv;
  q->comm = c;
  q->temp.resize(static_cast<size_t>(ms.count_bytes));
  q->unpack = true;
  q->count = 0;  // set by MPI_Mrecv / MPI_Imrecv
  MGEN_Irecv(q->temp.data(), byte_count(q->temp.size()), MGEN_BYTE, ms.MGEN_SOURCE, ms.MGEN_TAG, comm(c), &q->inner);
  auto& p = pending();
  uint32_t i = 0;
  while (i < p.size() && p[i] != MPI_REQUEST_NULL)
    ++i;
  if (i == p.size()) p.push_back(MPI_REQUEST_NULL);
  p[i] = h;
  return static_cast<MPI_Message>(kMessageKind | i);
}

// Single-completion calls leave MPI_ERROR alone (MPI-4.0 §3.2.5; MPICH's test suite checks).
void keep_error(MPI_Status* status, const std::function<void()>& fill) {
  if (status == MPI_STATUS_IGNORE || status == nullptr) {
    fill();
    return;
  }
  const int error = status->MPI_ERROR;
  fill();
  status->MPI_ERROR = error;
}

void probe_status(MPI_Status* status, const MGEN_Status& ms) {
  keep_error(status, [&] { set_status(status, ms); });
}

void proc_null_status(MPI_Status* status) {
  probe_status(status, MGEN_Status{MGEN_PROC_NULL, MGEN_ANY_TAG, 0, 0});
}

// The receive behind message `*m`, readied to land in (buf, count, type); *m becomes
// MPI_MESSAGE_NULL. Returns MPI_REQUEST_NULL for MPI_MESSAGE_NO_PROC.
MPI_Request claim(MPI_Message* m, void* buf, int count, MPI_Datatype type) {
  if (m == nullptr) fail(MPI_ERR_ARG, "null message pointer");
  check_count(count);
  const DType& t = dtype(type);
  if (*m == MPI_MESSAGE_NO_PROC) {
    *m = MPI_MESSAGE_NULL;
    return MPI_REQUEST_NULL;
  }
  const uint32_t i = static_cast<uint32_t>(*m) & ~kMessageMask;
  auto& p = pending();
  if ((static_cast<uint32_t>(*m) & kMessageMask) != kMessageKind || i >= p.size() || p[i] == MPI_REQUEST_NULL) {
    fail(MPI_ERR_REQUEST, *m == MPI_MESSAGE_NULL ? "MPI_MESSAGE_NULL" : fmt::format("invalid message {:#x}", *m));
  }
  check_buffer(buf, count, t);
  MPI_Request h = p[i];
  p[i] = MPI_REQUEST_NULL;
  *m = MPI_MESSAGE_NULL;
  XRequest& q = request(h);
  q.user_buf = buf;
  q.count = count;
  q.dtype = type;
  q.type = dtype_ref(type);
  const uint64_t capacity = t.size * static_cast<uint64_t>(count);
  const uint64_t length = q.temp.size();
  if (length > capacity) {
    // Receive what fits, then report the truncation as a receive would.
    wait(&h, MPI_STATUS_IGNORE);
    fail(MPI_ERR_TRUNCATE,
         fmt::format("a message of {} bytes is longer than the receive buffer of {} bytes", length, capacity));
  }
  return h;
}

}  // namespace

extern "C" {

int PMPI_Mprobe(int source, int tag, MPI_Comm c, MPI_Message* message, MPI_Status* status) {
  return call("MPI_Mprobe", c, [&] {
    if (message == nullptr) fail(MPI_ERR_ARG, "null message pointer");
    const MGEN_Comm h = comm(c);
    if (source == MPI_PROC_NULL) {
      proc_null_status(status);
      *message = MPI_MESSAGE_NO_PROC;
      return MPI_SUCCESS;
    }
    MGEN_Status ms{};
    MGEN_Probe(mgen_peer(source), tag, h, &ms);
    *message = take(ms, c);
    probe_status(status, ms);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Mprobe)

int PMPI_Improbe(int source, int tag, MPI_Comm c, int* flag, MPI_Message* message, MPI_Status* status) {
  return call("MPI_Improbe", c, [&] {
    if (message == nullptr || flag == nullptr) fail(MPI_ERR_ARG, "null argument");
    const MGEN_Comm h = comm(c);
    if (source == MPI_PROC_NULL) {
      *flag = 1;
      proc_null_status(status);
      *message = MPI_MESSAGE_NO_PROC;
      return MPI_SUCCESS;
    }
    MGEN_Status ms{};
    MGEN_Iprobe(mgen_peer(source), tag, h, flag, &ms);
    if (*flag) {
      *message = take(ms, c);
      probe_status(status, ms);
    }
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Improbe)

int PMPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
  return call("MPI_Mrecv", MPI_COMM_WORLD, [&] {
    MPI_Request h = claim(message, buf, count, type);
    if (h == MPI_REQUEST_NULL) {
      proc_null_status(status);
      return MPI_SUCCESS;
    }
    keep_error(status, [&] { wait(&h, status); });
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Mrecv)

int PMPI_Imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Request* r) {
  return call("MPI_Imrecv", MPI_COMM_WORLD, [&] {
    if (r == nullptr) fail(MPI_ERR_REQUEST, "null request pointer");
    *r = claim(message, buf, count, type);
    if (*r == MPI_REQUEST_NULL) {
      XRequest* q = nullptr;
      *r = new_request(&q);
      q->kind = XRequest::Kind::kDone;
      q->done_status = MGEN_Status{MGEN_PROC_NULL, MGEN_ANY_TAG, 0, 0};
    }
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Imrecv)

}  // extern "C"
