#include "api/facade.hpp"

#include <cstdio>
#include <vector>

#include "core/datatype.hpp"

namespace mgen::mpi::api {

namespace {

const char* error_class_name(int c) {
  switch (c) {
    case MGEN_ERR_BUFFER:
      return "MGEN_ERR_BUFFER";
    case MGEN_ERR_COUNT:
      return "MGEN_ERR_COUNT";
    case MGEN_ERR_TYPE:
      return "MGEN_ERR_TYPE";
    case MGEN_ERR_TAG:
      return "MGEN_ERR_TAG";
    case MGEN_ERR_COMM:
      return "MGEN_ERR_COMM";
    case MGEN_ERR_RANK:
      return "MGEN_ERR_RANK";
    case MGEN_ERR_REQUEST:
      return "MGEN_ERR_REQUEST";
    case MGEN_ERR_ROOT:
      return "MGEN_ERR_ROOT";
    case MGEN_ERR_GROUP:
      return "MGEN_ERR_GROUP";
    case MGEN_ERR_OP:
      return "MGEN_ERR_OP";
    case MGEN_ERR_TOPOLOGY:
      return "MGEN_ERR_TOPOLOGY";
    case MGEN_ERR_DIMS:
      return "MGEN_ERR_DIMS";
    case MGEN_ERR_ARG:
      return "MGEN_ERR_ARG";
    case MGEN_ERR_TRUNCATE:
      return "MGEN_ERR_TRUNCATE";
    default:
      return "MGEN_ERR_OTHER";
  }
}

}  // namespace

namespace {
struct Bindings : World::Extension {
  explicit Bindings(World& w) : of(w.size()) {}
  std::vector<Binding> of;  // by rank
};
constexpr char kBindingsKey = 0;
}  // namespace

Binding& binding() {
  static thread_local Binding outside;
  World* w = World::active();
  if (w == nullptr || !w->in_rank()) return outside;
  std::vector<Binding>& of = w->extension<Bindings>(&kBindingsKey).of;
  const RankId r = w->current().id;
  if (r >= of.size()) of.resize(r + 1);
  return of[r];
}
Scope::Scope(const char* name, int peer, int tag, int comm) : name_(binding().name ? binding().name : name) {
  World* w = World::active();
  if (w == nullptr || !w->in_rank()) return;
  world_ = w;
  rank_ = &w->current();
  rank_->call = CallInfo{name_, peer, tag, comm};
  rank_->last_call = name_;
  start_ = rank_->clock;
  // The program's own calls are counted, once each: the outermost Scope of the rank's main
  // context. An MPI binding's inner MGEN calls, and a helper context's, are part of a call
  // already counted.
  Exec& x = w->current_exec();
  exec_ = &x;
  if (x.scope_depth++ == 0 && x.id == x.rank) {
    ++rank_->stats.calls;
    x.call_slot = rank_->tally_slot(name_);
    ++rank_->call_tally[x.call_slot].calls;
    if (rank_->log_calls) rank_->log_call(CallEvent::call(CallEvent::Kind::kEnter, name_));
  }
}

Scope::~Scope() {
  if (rank_ == nullptr) return;
  const bool outermost = --exec_->scope_depth == 0 && exec_->id == exec_->rank;
  if (outermost) {
    rank_->call_tally[exec_->call_slot].time += rank_->clock - start_;
    exec_->call_slot = kNone;
  }
  if (world_->job().timeline) rank_->timeline.push_back(TimelineEntry{name_, start_, rank_->clock});
  if (outermost && rank_->log_calls) rank_->log_call(CallEvent::call(CallEvent::Kind::kLeave, name_));
  // Back to the enclosing MPI call's name, if any: an MPI binding that waits after its
  // MGEN_Irecv returned is still in MPI_Recv for deadlock reports.
  rank_->call = CallInfo{binding().name};
}

void Scope::fail(int error_class, const std::string& message) {
  if (binding().throw_errors) {
    runtime::forget_unwound_frames();  // (AddressSanitizer builds: see there)
    throw CallError{error_class, message};
  }
  world_->fail(fmt::format("rank {}: {}: {}: {}", rank_->id, name_, error_class_name(error_class), message));
}

std::string truncation_text(const Request& receive) {
  const Status& st = receive.status;
  return fmt::format("a message of {} bytes from rank {} (tag {}) is longer than the receive buffer of {} bytes",
                     st.message_bytes, st.source, st.tag, receive.capacity);
}

Comm& Scope::any_comm(MGEN_Comm handle) {
  if (handle <= 0 || static_cast<size_t>(handle) >= rank_->comms.size() || !rank_->comms[handle]) {
    fail(MGEN_ERR_COMM, fmt::format("invalid communicator {}", handle));
  }
  return *rank_->comms[handle];
}

Comm& Scope::comm(MGEN_Comm handle) {
  Comm& c = any_comm(handle);
  if (c.inter()) {
    fail(MGEN_ERR_COMM, fmt::format("communicator {} is an intercommunicator; mgen supports those for "
                                    "point-to-point, Comm_rank/size/remote_size/remote_group/dup/free and "
                                    "Intercomm_merge only",
                                    handle));
  }
  return c;
}

uint32_t Scope::type_size(MGEN_Datatype type) {
  const TypeInfo* t = type_info(type);
  if (t == nullptr) fail(MGEN_ERR_TYPE, fmt::format("invalid datatype {}", type));
  return t->size;
}

uint64_t Scope::bytes(int count, MGEN_Datatype type) {
  if (count < 0) fail(MGEN_ERR_COUNT, fmt::format("negative count {}", count));
  return static_cast<uint64_t>(count) * type_size(type);
}

void Scope::check_rank(const Comm& c, int rank, const char* what, bool any_ok, bool null_ok) {
  if (rank >= 0 && rank < c.peer_size()) return;
  if (any_ok && rank == MGEN_ANY_SOURCE) return;
  if (null_ok && rank == MGEN_PROC_NULL) return;
  fail(MGEN_ERR_RANK, fmt::format("{} {} is not a rank of the {}communicator (size {})", what, rank,
                                  c.inter() ? "remote group of the inter" : "", c.peer_size()));
}

void Scope::check_root(const Comm& c, int root) {
  if (root < 0 || root >= c.size()) {
    fail(MGEN_ERR_ROOT, fmt::format("root {} is not a rank of the communicator (size {})", root, c.size()));
  }
}

void Scope::check_tag(int tag, bool any_ok) {
  if ((tag >= 0 && tag <= MGEN_TAG_UB) || (any_ok && tag == MGEN_ANY_TAG)) return;
  fail(MGEN_ERR_TAG, fmt::format("invalid tag {} (tags are 0 to {})", tag, MGEN_TAG_UB));
}

void Scope::check_op(MGEN_Op op) {
  if (!op_valid(op)) fail(MGEN_ERR_OP, fmt::format("invalid operation {}", op));
}

uint32_t Scope::request(MGEN_Request handle) {
  if (handle == MGEN_REQUEST_NULL) return kNone;
  const uint32_t q = static_cast<uint32_t>(handle - 1);
  if (handle < 0 || q >= rank_->requests.size() || rank_->requests[q].kind == ReqKind::kFree) {
    fail(MGEN_ERR_REQUEST, fmt::format("invalid request {}", handle));
  }
  return q;
}

void Scope::check_count(int n, const char* what) {
  if (n < 0) fail(MGEN_ERR_COUNT, fmt::format("negative {} {}", what, n));
}

void set_status(MGEN_Status* out, const Status& s) {
  if (out == MGEN_STATUS_IGNORE) return;
  out->MGEN_SOURCE = s.source;
  out->MGEN_TAG = s.tag;
  out->MGEN_ERROR = s.error;
  out->count_bytes = static_cast<long long>(s.bytes);
}

int outside(const char* name) {
  std::fprintf(stderr, "mgen: %s called outside a simulated rank; run the program with `mgen run`\n", name);
  return MGEN_ERR_OTHER;
}

}  // namespace mgen::mpi::api
