// The MPI ABI layer: MPI_* and PMPI_* with the ABI of MPICH's mpi.h, over the MGEN layer.
//
// An application compiled against MPICH's header links libmgen instead of libmpi. Every
// binding opens a Call: it charges the CPU time the rank spent since its previous MPI call
// (times node.cpu_scale), names the call for reports, turns MGEN errors into MPI error
// classes handled by the communicator's error handler, then translates handles (MPICH's
// integer handles to MGEN's), packs derived datatypes, and calls the MGEN layer.
//
// State that MPI keeps per process (derived datatypes, user ops, requests, error handlers,
// windows) lives here per rank (attributes: attr.cpp; topologies: topo.cpp), indexed by world rank.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "api/facade.hpp"

namespace mgen::mpi::abi {

// ------------------------------------------------------------------ datatypes
// A datatype as a list of contiguous segments of one element (offsets from the buffer start,
// in typemap order, adjacent ones merged), its bounds, and, when every basic element is the
// same predefined type, that type (what reductions need).
struct DType {
  uint64_t size = 0;
  int64_t lb = 0, ub = 0;
  int64_t true_lb = 0, true_ub = 0;
  std::vector<std::pair<int64_t, uint64_t>> segs;
  int base = 0;               // MGEN predefined type of every element, or 0 if mixed
  MPI_Datatype mpi_base = 0;  // the same as an MPI handle
  uint64_t base_count = 0;    // reduction elements (of `base`) per element of this type
  // MPI_Get_elements: the basic elements of one element in typemap order, as runs of
  // (bytes each, how many); empty when too long to keep (then counted by `elements`).
  std::vector<std::pair<uint32_t, uint64_t>> elems;
  uint64_t elements = 0;  // basic elements per element (a pair type holds two)
  int64_t align = 1;      // MPICH's alignment (structs pad their extent to it)
  bool predefined = false;
  bool committed = true;
  int combiner = MPI_COMBINER_NAMED;
  std::string name;
  // How the type was built, for MPI_Type_get_envelope/contents: the constructor's integer,
  // address and datatype arguments. A predefined member is kept as its handle, a derived one
  // as the type itself (it outlives its handle's MPI_Type_free, as MPICH's reference counts do).
  struct Member {
    MPI_Datatype handle = MPI_DATATYPE_NULL;  // predefined
    std::shared_ptr<DType> type;              // derived
  };
  std::vector<int> c_ints;
  std::vector<MPI_Aint> c_addrs;
  std::vector<Member> c_types;

  int64_t extent() const { return ub - lb; }
  // One segment starting where the element starts, and elements abut: a plain byte range.
  bool dense() const { return segs.size() == 1 && segs[0].first == 0 && static_cast<int64_t>(size) == extent(); }
};

// ------------------------------------------------------------------ requests
struct Request {
  // kP2P: a world request, point-to-point or a non-blocking collective's helper (nbc.cpp).
  // kGeneralized: MPI_Grequest_start's (p2p_requests.cpp), complete once `grequest.done`.
  enum class Kind : uint8_t { kFree, kP2P, kDone, kGeneralized } kind = Kind::kFree;
  MGEN_Request inner = MGEN_REQUEST_NULL;  // kP2P while active
  bool persistent = false, active = false;
  // A receive of a non-dense datatype lands in `temp` and is unpacked on completion.
  void* user_buf = nullptr;
  int count = 0;
  MPI_Datatype dtype = 0;
  // The datatype itself, kept alive while the request may use it (MPI_Type_free only marks a
  // type for deallocation: MPI-4.0 §5.1.9).
  std::shared_ptr<const DType> type;
  std::vector<std::byte> temp;
  bool unpack = false;
  // Persistent operations: the arguments to start them again.
  enum class Op : uint8_t { kSend, kSsend, kBsend, kRsend, kRecv } op = Op::kSend;
  const void* sbuf = nullptr;
  int peer = 0, tag = 0;
  MPI_Comm comm = MPI_COMM_NULL;
  MGEN_Status done_status{};  // kDone
  // kDone from a buffered send: the detached send carrying its message (RankState::detached),
  // which MPI_Cancel may still withdraw, and whether it did.
  MGEN_Request buffered = MGEN_REQUEST_NULL;
  bool cancelled = false;
  // A persistent collective (persistent_colls.cpp): starts the non-blocking collective its
  // arguments describe, returning that collective's request.
  std::function<int(MPI_Request*)> start_coll;
  uint32_t coll_seq = 0;  // its number among the collectives on `comm` (RankState::nbc_seq)
  struct Generalized {
    MPI_Grequest_query_function* query = nullptr;
    MPI_Grequest_free_function* free = nullptr;
    MPI_Grequest_cancel_function* cancel = nullptr;
    void* extra_state = nullptr;
    bool done = false;  // MPI_Grequest_complete was called
  } grequest;           // kGeneralized
};

// Completes a generalized request (shim.cpp's finish): its query and free callbacks.
int finish_generalized(Request& q, MPI_Status* status);

// A user-defined operation. MPI_Op_free only marks it freed: a pending reduction may still
// apply it (slots are never reused, so a handle keeps naming its function).
struct UserOp {
  MPI_User_function* fn = nullptr;
  bool commute = true;
  bool used = false;   // valid for new calls
  bool freed = false;  // MPI_Op_free'd: pending reductions may still apply it
};

struct Errhandler {
  MPI_Comm_errhandler_function* fn = nullptr;
  bool used = false;
};

struct Win;

// Everything MPI keeps per process, for one rank.
struct RankState {
  std::vector<std::shared_ptr<DType>> types;  // derived datatypes, by handle index (null: free)
  std::vector<UserOp> ops;
  std::vector<Request> requests;
  std::vector<uint32_t> free_requests;
  std::vector<Errhandler> errhandlers;
  std::unordered_map<MPI_Comm, MPI_Errhandler> comm_errhandler;  // absent: MPI_ERRORS_ARE_FATAL
  std::unordered_map<MPI_Comm, std::string> comm_names;          // set by MPI_Comm_set_name
  std::unordered_map<MPI_Datatype, std::string> type_names;      // predefined types renamed (MPICH allows it)
  std::unordered_map<MPI_Comm, uint32_t> nbc_seq;                // non-blocking collectives started per comm
  // While MPI_Start starts a persistent collective: the number its MPI_X_init took from
  // nbc_seq (persistent collectives match in the order they were initialised, MPI-4.0 §6.13).
  int64_t persistent_seq = -1;
  // Freed or buffered sends still in flight, with the copy of the data they send.
  std::vector<std::pair<MGEN_Request, std::vector<std::byte>>> detached;
  std::vector<std::shared_ptr<Win>> wins;  // by handle index
  void* bsend_buf = nullptr;
  int bsend_size = 0;
  bool initialized = false, finalized = false;
  int sessions = 0;  // open MPI sessions (sessions.cpp): MPI is usable while any is open
  int thread_level = MPI_THREAD_SINGLE;
  simcore::Time last_wtime = simcore::Time::ps(-1);  // what the rank's previous MPI_Wtime read
  int depth = 0;                                     // nesting of Calls (bindings calling bindings)
  std::string error_text;                            // why the last failed request failed (complete())
};

// The calling rank's state (inside a Call).
RankState& state();
api::Scope& scope();  // the Scope of the outermost Call: world, rank, error reporting

// An MPI error raised by the MPI layer itself (MGEN errors arrive as api::CallError).
struct MpiError {
  int mpi_class;
  std::string message;
};

// Raises an MPI error in the current call (handled by the communicator's error handler).
[[noreturn]] void fail(int mpi_class, const std::string& message);

// A binding's body, borrowed for the length of the call. Unlike std::function it never
// allocates: a lambda capturing more than two references made std::function allocate on the
// heap before call() was entered and free it after call() returned, and that time was counted
// as the application's compute (15-50 ns per MPI_Test or MPI_Iprobe, docs/PERFORMANCE.md).
class CallBody {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, CallBody>>>
  CallBody(F&& f)  // NOLINT(google-explicit-constructor): bindings pass their lambdas as they are
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        run_([](void* o) -> int { return (*static_cast<std::remove_reference_t<F>*>(o))(); }) {}
  int operator()() const { return run_(object_); }

 private:
  void* object_;
  int (*run_)(void*);
};

// Runs a binding: see the file comment. `comm` selects the error handler.
int call(const char* name, MPI_Comm comm, CallBody body);
// For functions valid before MPI_Init / outside a rank (they do not need a rank).
bool in_rank();

// ------------------------------------------------------------------ handle translation
MGEN_Comm comm(MPI_Comm c);  // fails with MPI_ERR_COMM on an invalid handle
MPI_Comm to_mpi_comm(MGEN_Comm c);
MGEN_Group group(MPI_Group g);
MPI_Group to_mpi_group(MGEN_Group g);
const DType& dtype(MPI_Datatype t);      // fails with MPI_ERR_TYPE (also if not committed)
const DType& dtype_any(MPI_Datatype t);  // committed or not (type constructors, queries)
DType* derived(MPI_Datatype t);          // null for predefined types
// The same as dtype(), shared: what a pending operation keeps (the type outlives its free).
std::shared_ptr<const DType> dtype_ref(MPI_Datatype t);
MPI_Datatype add_type(DType t);
// A new handle for an existing derived type (MPI_Type_get_contents), and the shared type
// behind a derived handle (null for predefined or invalid ones).
MPI_Datatype add_type_shared(std::shared_ptr<DType> t);
std::shared_ptr<DType> derived_shared(MPI_Datatype t);
int mgen_op(MPI_Op op);            // predefined: the MGEN op; user: fails unless `allow_user`
const UserOp* user_op(MPI_Op op);  // null for predefined
void check_count(int count);
// A null buffer with a positive count fails with MPI_ERR_BUFFER (unless `t` holds absolute
// addresses, MPI_BOTTOM, or has size 0: no bytes move).
void check_buffer(const void* buf, int count, const DType& t);
void set_status(MPI_Status* out, const MGEN_Status& in);
void set_status_empty(MPI_Status* out);  // MPI's empty status (PROC_NULL, null requests)
uint64_t status_bytes(const MPI_Status* s);

// Packing: `count` elements of `t` at `buf` <-> contiguous bytes.
void pack(const void* buf, int count, const DType& t, std::byte* out);
void unpack(const std::byte* in, uint64_t bytes, void* buf, int count, const DType& t);

// A buffer as the MGEN layer sees it: contiguous bytes, packed on the way in when the
// datatype is not dense, unpacked on the way out by finish().
class Flat {
 public:
  // For data going out (send buffers): packs now if needed.
  static Flat in(const void* buf, int count, MPI_Datatype t);
  // For data coming in (receive buffers): a temporary if needed, unpacked by finish().
  static Flat out(void* buf, int count, MPI_Datatype t);
  void* data() const { return data_; }
  uint64_t bytes() const { return bytes_; }
  const DType& type() const { return *type_; }
  void finish(uint64_t received);  // unpack `received` bytes into the user's buffer
  void finish() { finish(bytes_); }

 private:
  void* data_ = nullptr;
  uint64_t bytes_ = 0;
  void* user_ = nullptr;
  bool unpack_ = false;  // out(): the data arrive in temp_ and are unpacked into user_
  int count_ = 0;
  std::shared_ptr<const DType> type_;
  std::vector<std::byte> temp_;
};

// MGEN takes int counts; the MPI layer sends bytes.
int byte_count(uint64_t bytes);

// ------------------------------------------------------------------ requests
MPI_Request new_request(Request** out);
Request& request(MPI_Request r);  // fails with MPI_ERR_REQUEST
void free_request(MPI_Request* r);
// Waits for `r` and completes it: unpacks, fills the status, frees or deactivates it.
void wait(MPI_Request* r, MPI_Status* status);
// True and completed if done now.
bool test(MPI_Request* r, MPI_Status* status);
// Waits until at least one of the active requests is complete (none active: returns false).
bool wait_some_ready(int n, MPI_Request reqs[]);
bool is_complete(MPI_Request r);  // no blocking; exact right after a blocking call
bool is_active(MPI_Request r);    // not null and not an inactive persistent request
// Brings the engine up to the rank's clock (so completion flags are exact) at the price of a
// poll.
void sync_engine();
// Completes a request known to be complete (status, unpacking, freeing).
// Returns MPI_SUCCESS or the request's error (MPI_ERR_TRUNCATE), whose text is then in
// RankState::error_text; the status's MPI_ERROR says the same.
int complete(MPI_Request* r, MPI_Status* status);

// MPI_Start on a persistent collective: its non-blocking collective now runs under `r`.
void start_persistent_collective(MPI_Request r);

// The MGEN type id user operations see for a datatype.
int reduction_type(MPI_Datatype t);
void mpi_program_begin_impl();
void mpi_program_end_impl();

}  // namespace mgen::mpi::abi

// Definitions of MPI_X as weak aliases of PMPI_X (as MPICH does), so profilers can interpose.
#define MGEN_PRAGMA(x) _Pragma(#x)
#define MGEN_MPI_ALIAS(n) MGEN_PRAGMA(weak MPI_##n = PMPI_##n)
