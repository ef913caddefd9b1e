// The MPI layer's core: per-rank state, the Call wrapper (compute charging, error handlers),
// handle translation, datatypes and packing, requests and their completion.
#include "mpi/shim.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <deque>
#include <map>

#include "core/datatype.hpp"
#include "mgen/mpi/run.hpp"
#include "mgen/runtime/compute_clock.hpp"

namespace mgen::mpi::abi {
namespace {

constexpr uint32_t kKindMask = 0xfc000000u;
constexpr uint32_t kCommKind = 0x84000000u;
constexpr uint32_t kGroupKind = 0x88000000u;
constexpr uint32_t kTypeKind = 0xcc000000u;
constexpr uint32_t kRequestKind = 0xac000000u;

// The MPI layer's state of one run, per rank: kept by the World (World::extension), so two
// simulations in one process (or one after another) never share a handle.
struct Shim : World::Extension {
  explicit Shim(World& w) : ranks(w.size()), scopes(w.size(), nullptr), reduction_types(w.size()) {}
  std::vector<std::unique_ptr<RankState>> ranks;
  std::vector<api::Scope*> scopes;  // the outermost Call's Scope, per rank
  // The datatypes user operations are applied to: MGEN type id kExtraBase + index.
  struct ReductionType {
    MPI_Datatype handle;
    TypeInfo info;  // one element as the MGEN layer sees it: packed
    std::shared_ptr<const DType> type;
  };
  std::vector<std::deque<ReductionType>> reduction_types;
};
const char kShimKey = 0;

Shim& shim(World& w) {
  return w.extension<Shim>(&kShimKey);
}

int to_mpi_class(int mgen_class) {
  switch (mgen_class) {
    case MGEN_ERR_BUFFER:
      return MPI_ERR_BUFFER;
    case MGEN_ERR_COUNT:
      return MPI_ERR_COUNT;
    case MGEN_ERR_TYPE:
      return MPI_ERR_TYPE;
    case MGEN_ERR_TAG:
      return MPI_ERR_TAG;
    case MGEN_ERR_COMM:
      return MPI_ERR_COMM;
    case MGEN_ERR_RANK:
      return MPI_ERR_RANK;
    case MGEN_ERR_REQUEST:
      return MPI_ERR_REQUEST;
    case MGEN_ERR_ROOT:
      return MPI_ERR_ROOT;
    case MGEN_ERR_GROUP:
      return MPI_ERR_GROUP;
    case MGEN_ERR_OP:
      return MPI_ERR_OP;
    case MGEN_ERR_TOPOLOGY:
      return MPI_ERR_TOPOLOGY;
    case MGEN_ERR_DIMS:
      return MPI_ERR_DIMS;
    case MGEN_ERR_ARG:
      return MPI_ERR_ARG;
    case MGEN_ERR_TRUNCATE:
      return MPI_ERR_TRUNCATE;
    case MGEN_ERR_INTERN:
      return MPI_ERR_INTERN;
    default:
      return MPI_ERR_OTHER;
  }
}

// The application's compute since the rank last left MPI, on the rank's clock: times the
// node's cpu_scale (target CPU time per second of this host's).
void charge_compute(World& w, uint64_t ns) {
  if (ns == 0) return;
  const double ps = static_cast<double>(ns) * 1e3 * w.node_config().cpu_scale;
  if (ps >= 0.5) w.compute(w.current(), simcore::Time::ps(std::llround(ps)));
}

RankState& state_of(World& w, RankId id) {
  auto& p = shim(w).ranks[id];
  if (!p) p = std::make_unique<RankState>();
  return *p;
}

// ---- predefined datatypes

// A predefined type as MPICH 4.0 lays it out: its MGEN reduction type, size and extent, its
// alignment (structs containing it pad to it) and its basic elements (a pair type is a value
// then an int, at the offset C would put it: MPI_DOUBLE_INT is 12 bytes in an extent of 16).
struct Builtin {
  MPI_Datatype handle;
  int mgen;          // MGEN type reductions use
  uint32_t size;     // of the first (or only) basic element
  uint32_t second;   // of the second basic element of a pair type, or 0
  uint32_t extent;   // 0: the size
  uint32_t align;    // 0: the size
  const char* name;  // MPI_Type_get_name's (MPICH's)
};

template <class V, class I = int>
struct Pair {
  V v;
  I i;
};
template <class V, class I = int>
constexpr Builtin pair(MPI_Datatype h, int mgen, const char* name) {
  return {h, mgen, sizeof(V), sizeof(I), sizeof(Pair<V, I>), alignof(Pair<V, I>), name};
}

const Builtin kBuiltins[] = {
    {MPI_CHAR, MGEN_CHAR, 1, 0, 0, 0, "MPI_CHAR"},
    {MPI_SIGNED_CHAR, MGEN_SIGNED_CHAR, 1, 0, 0, 0, "MPI_SIGNED_CHAR"},
    {MPI_UNSIGNED_CHAR, MGEN_UNSIGNED_CHAR, 1, 0, 0, 0, "MPI_UNSIGNED_CHAR"},
    {MPI_BYTE, MGEN_BYTE, 1, 0, 0, 0, "MPI_BYTE"},
    {MPI_WCHAR, kTypeOpaque4, sizeof(wchar_t), 0, 0, 0, "MPI_WCHAR"},
    {MPI_SHORT, MGEN_SHORT, sizeof(short), 0, 0, 0, "MPI_SHORT"},
    {MPI_UNSIGNED_SHORT, MGEN_UNSIGNED_SHORT, sizeof(short), 0, 0, 0, "MPI_UNSIGNED_SHORT"},
    {MPI_INT, MGEN_INT, sizeof(int), 0, 0, 0, "MPI_INT"},
    {MPI_UNSIGNED, MGEN_UNSIGNED, sizeof(unsigned), 0, 0, 0, "MPI_UNSIGNED"},
    {MPI_LONG, MGEN_LONG, sizeof(long), 0, 0, 0, "MPI_LONG"},
    {MPI_UNSIGNED_LONG, MGEN_UNSIGNED_LONG, sizeof(long), 0, 0, 0, "MPI_UNSIGNED_LONG"},
    {MPI_FLOAT, MGEN_FLOAT, sizeof(float), 0, 0, 0, "MPI_FLOAT"},
    {MPI_DOUBLE, MGEN_DOUBLE, sizeof(double), 0, 0, 0, "MPI_DOUBLE"},
    {MPI_LONG_DOUBLE, MGEN_LONG_DOUBLE, sizeof(long double), 0, 0, 0, "MPI_LONG_DOUBLE"},
    {MPI_LONG_LONG_INT, MGEN_LONG_LONG, sizeof(long long), 0, 0, 0, "MPI_LONG_LONG_INT"},
    {MPI_UNSIGNED_LONG_LONG, MGEN_UNSIGNED_LONG_LONG, sizeof(long long), 0, 0, 0, "MPI_UNSIGNED_LONG_LONG"},
    {MPI_PACKED, kTypeOpaque1, 1, 0, 0, 0, "MPI_PACKED"},
    {MPI_LB, 0, 0, 0, 0, 1, "MPI_LB"},
    {MPI_UB, 0, 0, 0, 0, 1, "MPI_UB"},
    pair<float>(MPI_FLOAT_INT, MGEN_FLOAT_INT, "MPI_FLOAT_INT"),
    pair<double>(MPI_DOUBLE_INT, kTypePackedDoubleInt, "MPI_DOUBLE_INT"),
    pair<long>(MPI_LONG_INT, kTypePackedLongInt, "MPI_LONG_INT"),
    pair<short>(MPI_SHORT_INT, kTypePackedShortInt, "MPI_SHORT_INT"),
    pair<int>(MPI_2INT, MGEN_2INT, "MPI_2INT"),
    pair<long double>(MPI_LONG_DOUBLE_INT, kTypePackedLongDoubleInt, "MPI_LONG_DOUBLE_INT"),
    {MPI_COMPLEX, kTypeFloatComplex, 8, 0, 0, 4, "MPI_COMPLEX"},
    {MPI_DOUBLE_COMPLEX, kTypeDoubleComplex, 16, 0, 0, 8, "MPI_DOUBLE_COMPLEX"},
    {MPI_LOGICAL, kTypeFortranLogical, 4, 0, 0, 0, "MPI_LOGICAL"},
    {MPI_REAL, MGEN_FLOAT, 4, 0, 0, 0, "MPI_REAL"},
    {MPI_DOUBLE_PRECISION, MGEN_DOUBLE, 8, 0, 0, 0, "MPI_DOUBLE_PRECISION"},
    {MPI_INTEGER, MGEN_INT32_T, 4, 0, 0, 0, "MPI_INTEGER"},
    pair<int>(MPI_2INTEGER, MGEN_2INT, "MPI_2INTEGER"),
    pair<float, float>(MPI_2REAL, kType2Float, "MPI_2REAL"),
    pair<double, double>(MPI_2DOUBLE_PRECISION, kType2Double, "MPI_2DOUBLE_PRECISION"),
    {MPI_CHARACTER, MGEN_CHAR, 1, 0, 0, 0, "MPI_CHARACTER"},
    {MPI_REAL4, MGEN_FLOAT, 4, 0, 0, 0, "MPI_REAL4"},
    {MPI_REAL8, MGEN_DOUBLE, 8, 0, 0, 0, "MPI_REAL8"},
    {MPI_REAL16, MGEN_LONG_DOUBLE, 16, 0, 0, 0, "MPI_REAL16"},
    {MPI_COMPLEX8, kTypeFloatComplex, 8, 0, 0, 4, "MPI_COMPLEX8"},
    {MPI_COMPLEX16, kTypeDoubleComplex, 16, 0, 0, 8, "MPI_COMPLEX16"},
    {MPI_COMPLEX32, kTypeOpaque32, 32, 0, 0, 16, "MPI_COMPLEX32"},
    {MPI_INTEGER1, MGEN_INT8_T, 1, 0, 0, 0, "MPI_INTEGER1"},
    {MPI_INTEGER2, MGEN_INT16_T, 2, 0, 0, 0, "MPI_INTEGER2"},
    {MPI_INTEGER4, MGEN_INT32_T, 4, 0, 0, 0, "MPI_INTEGER4"},
    {MPI_INTEGER8, MGEN_INT64_T, 8, 0, 0, 0, "MPI_INTEGER8"},
    {MPI_INT8_T, MGEN_INT8_T, 1, 0, 0, 0, "MPI_INT8_T"},
    {MPI_INT16_T, MGEN_INT16_T, 2, 0, 0, 0, "MPI_INT16_T"},
    {MPI_INT32_T, MGEN_INT32_T, 4, 0, 0, 0, "MPI_INT32_T"},
    {MPI_INT64_T, MGEN_INT64_T, 8, 0, 0, 0, "MPI_INT64_T"},
    {MPI_UINT8_T, MGEN_UINT8_T, 1, 0, 0, 0, "MPI_UINT8_T"},
    {MPI_UINT16_T, MGEN_UINT16_T, 2, 0, 0, 0, "MPI_UINT16_T"},
    {MPI_UINT32_T, MGEN_UINT32_T, 4, 0, 0, 0, "MPI_UINT32_T"},
    {MPI_UINT64_T, MGEN_UINT64_T, 8, 0, 0, 0, "MPI_UINT64_T"},
    {MPI_C_BOOL, MGEN_C_BOOL, sizeof(bool), 0, 0, 0, "MPI_C_BOOL"},
    {MPI_CXX_BOOL, MGEN_C_BOOL, sizeof(bool), 0, 0, 0, "MPI_CXX_BOOL"},
    // MPI_C_COMPLEX is MPI_C_FLOAT_COMPLEX's handle; MPICH names it by the shorter name.
    {MPI_C_FLOAT_COMPLEX, kTypeFloatComplex, 8, 0, 0, 4, "MPI_C_COMPLEX"},
    {MPI_C_DOUBLE_COMPLEX, kTypeDoubleComplex, 16, 0, 0, 8, "MPI_C_DOUBLE_COMPLEX"},
    {MPI_C_LONG_DOUBLE_COMPLEX, kTypeLongDoubleComplex, 32, 0, 0, 16, "MPI_C_LONG_DOUBLE_COMPLEX"},
    {MPI_CXX_FLOAT_COMPLEX, kTypeFloatComplex, 8, 0, 0, 4, "MPI_CXX_FLOAT_COMPLEX"},
    {MPI_CXX_DOUBLE_COMPLEX, kTypeDoubleComplex, 16, 0, 0, 8, "MPI_CXX_DOUBLE_COMPLEX"},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, kTypeLongDoubleComplex, 32, 0, 0, 16, "MPI_CXX_LONG_DOUBLE_COMPLEX"},
    {MPI_AINT, MGEN_INT64_T, 8, 0, 0, 0, "MPI_AINT"},
    {MPI_OFFSET, MGEN_INT64_T, 8, 0, 0, 0, "MPI_OFFSET"},
    {MPI_COUNT, MGEN_INT64_T, 8, 0, 0, 0, "MPI_COUNT"},
};

const std::map<MPI_Datatype, DType>& builtins() {
  static const std::map<MPI_Datatype, DType> table = [] {
    std::map<MPI_Datatype, DType> t;
    for (const Builtin& b : kBuiltins) {
      DType d;
      d.size = b.size + b.second;
      d.lb = d.true_lb = 0;
      d.ub = b.extent != 0 ? b.extent : b.size;
      d.align = b.align != 0 ? b.align : b.size;
      if (b.second == 0) {
        d.true_ub = b.size;
        if (b.size > 0) {
          d.segs = {{0, b.size}};
          d.elems = {{b.size, 1}};
        }
        d.elements = b.size > 0 ? 1 : 0;
      } else {
        // The index sits at the first offset after the value aligned for its type.
        const uint32_t at = (b.size + b.second - 1) / b.second * b.second;
        d.true_ub = at + b.second;
        if (at == b.size) {
          d.segs = {{0, b.size + b.second}};
        } else {
          d.segs = {{0, b.size}, {at, b.second}};
        }
        d.elems = {{b.size, 1}, {b.second, 1}};
        if (b.size == b.second) d.elems = {{b.size, 2}};
        d.elements = 2;
      }
      d.base = b.mgen;
      d.mpi_base = b.handle;
      d.base_count = b.mgen != 0 ? 1 : 0;
      d.predefined = true;
      d.name = b.name;
      t.emplace(b.handle, std::move(d));
    }
    return t;
  }();
  return table;
}

// ---- user-defined reductions (the core's extra-reduction hooks)

RankState& current_state();

const TypeInfo* extra_type_info(int type) {
  World* w = World::active();
  if (w == nullptr || !w->in_rank()) return nullptr;
  const auto& t = shim(*w).reduction_types[w->current().id];
  const size_t i = static_cast<size_t>(type - kExtraBase);
  return i < t.size() ? &t[i].info : nullptr;
}

std::string extra_reduce(int op, int type, const void* in, void* inout, uint64_t count) {
  World* w = World::active();
  if (w == nullptr || !w->in_rank()) return "user operation outside a rank";
  RankState& st = current_state();
  const size_t o = static_cast<size_t>(op - kExtraBase);
  const auto& types = shim(*w).reduction_types[w->current().id];
  const size_t t = static_cast<size_t>(type - kExtraBase);
  if (o >= st.ops.size() || st.ops[o].fn == nullptr || t >= types.size()) return "invalid user-defined operation";
  if (count == 0 || in == nullptr || inout == nullptr) return {};
  int len = static_cast<int>(count);
  MPI_Datatype dt = types[t].handle;
  const DType& d = *types[t].type;
  if (d.dense()) {
    st.ops[o].fn(const_cast<void*>(in), inout, &len, &dt);
    return {};
  }
  // The MGEN layer holds the elements packed; the user's function expects them laid out as
  // the datatype says: unpacked into scratch space, reduced there, packed back.
  const uint64_t bytes = d.size * count;
  const int64_t span = static_cast<int64_t>(count - 1) * d.extent() + (d.true_ub - d.true_lb);
  std::vector<std::byte> a(static_cast<size_t>(span)), b(static_cast<size_t>(span));
  std::byte* a0 = a.data() - d.true_lb;
  std::byte* b0 = b.data() - d.true_lb;
  unpack(static_cast<const std::byte*>(in), bytes, a0, len, d);
  unpack(static_cast<const std::byte*>(inout), bytes, b0, len, d);
  st.ops[o].fn(a0, b0, &len, &dt);
  pack(b0, len, d, static_cast<std::byte*>(inout));
  return {};
}

RankState& current_state() {
  World& w = *World::active();
  return state_of(w, w.current().id);
}

}  // namespace

// ------------------------------------------------------------------ calls

bool in_rank() {
  World* w = World::active();
  return w != nullptr && w->in_rank();
}

RankState& state() {
  return current_state();
}

api::Scope& scope() {
  World& w = *World::active();
  return *shim(w).scopes[w.current().id];
}

void fail(int mpi_class, const std::string& message) {
  mgen::runtime::forget_unwound_frames();
  throw MpiError{mpi_class, message};
}

int call(const char* name, MPI_Comm comm_handle, CallBody body) {
  // The application's compute ends here, before mgen does anything else of its own
  // (compute_clock.hpp says which clock and why); 0 unless compute is measured.
  const uint64_t computed_ns = runtime::compute_stop_ns();
  World* w = World::active();
  if (w == nullptr || !w->in_rank()) {
    std::fprintf(stderr, "mgen: %s called outside a simulated rank; run the program with `mgen run`\n", name);
    return MPI_ERR_OTHER;
  }
  RankState& st = state_of(*w, w->current().id);
  if (st.depth > 0) {
    ++st.depth;
    struct Down {
      RankState& s;
      ~Down() { --s.depth; }
    } down{st};
    return body();
  }
  Rank& r = w->current();
  // MPI exists for a rank only between MPI_Init and MPI_Finalize; MPICH aborts any other call
  // (MPI_Initialized, MPI_Finalized, MPI_Get_version and the like need no Call).
  // The sessions model (MPI-4.0 §11.3) makes MPI usable while a session is open, and info
  // objects usable at any time (§11.4.1).
  const bool init = std::strcmp(name, "MPI_Init") == 0 || std::strcmp(name, "MPI_Init_thread") == 0 ||
                    std::strcmp(name, "MPI_Session_init") == 0 || std::strncmp(name, "MPI_Info_", 9) == 0;
  if (st.sessions == 0 && (st.finalized || (!st.initialized && !init))) {
    api::binding() = api::Binding{};
    w->fail(
        fmt::format("rank {}: {} called {} (only queries such as MPI_Initialized and MPI_Finalized are allowed "
                    "then)",
                    r.id, name, st.finalized ? "after MPI_Finalize" : "before MPI_Init"));
  }
  const bool measure = w->job().measure_compute;
  if (measure) charge_compute(*w, computed_ns);
  // ... and starts again when this call returns, after everything else mgen does (this guard is
  // destroyed last).
  struct Resume {
    bool measure;
    ~Resume() {
      if (measure) runtime::compute_start();
    }
  } resume{measure};
  api::Binding& b = api::binding();
  b.name = name;
  b.throw_errors = true;
  api::Scope s(name);
  shim(*w).scopes[r.id] = &s;
  ++st.depth;
  // Other ranks run while this one is inside MPI, and errno is per thread, not per fiber: the
  // rank gets back the errno it entered with.
  struct Leave {
    RankState& st;
    api::Binding& b;
    int saved_errno;
    ~Leave() {
      --st.depth;
      b = api::Binding{};
      errno = saved_errno;
    }
  } leave{st, b, errno};
  int mpi_class = MPI_SUCCESS;
  std::string message;
  try {
    return body();
  } catch (const api::CallError& e) {
    mgen::runtime::forget_unwound_frames();
    mpi_class = to_mpi_class(e.error_class);
    message = e.message;
  } catch (const MpiError& e) {
    mgen::runtime::forget_unwound_frames();
    mpi_class = e.mpi_class;
    message = e.message;
  }
  // MPI's error handlers: the communicator's, MPI_ERRORS_ARE_FATAL unless set.
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  PMPI_Error_string(mpi_class, text, &len);
  const std::string report = fmt::format("rank {}: {}: {}: {}", r.id, name, text, message);
  // A null communicator has no handler: MPI_COMM_WORLD's applies (MPI-3.1 §8.3).
  auto it = st.comm_errhandler.find(comm_handle == MPI_COMM_NULL ? MPI_COMM_WORLD : comm_handle);
  const MPI_Errhandler eh = it == st.comm_errhandler.end() ? MPI_ERRORS_ARE_FATAL : it->second;
  if (eh == MPI_ERRORS_RETURN) return mpi_class;
  if (eh != MPI_ERRORS_ARE_FATAL && eh != MPI_ERRORS_ABORT) {
    const size_t i = static_cast<size_t>(eh) & 0xffff;
    if (i < st.errhandlers.size() && st.errhandlers[i].fn) {
      b = api::Binding{};
      MPI_Comm c = comm_handle;
      int code = mpi_class;
      st.errhandlers[i].fn(&c, &code);
      // MPI_Comm_call_errhandler succeeds once a user handler has returned (MPI-3.1 §8.3.6).
      return std::strcmp(name, "MPI_Comm_call_errhandler") == 0 ? MPI_SUCCESS : mpi_class;
    }
  }
  b = api::Binding{};
  w->fail(report);
}

void mpi_program_begin_impl() {
  World* w = World::active();
  state_of(*w, w->current().id);
  set_extra_reductions(ExtraReductions{&extra_reduce, &extra_type_info});
  if (w->job().measure_compute) runtime::compute_start();
}

void mpi_program_end_impl() {
  World* w = World::active();
  RankState& st = state_of(*w, w->current().id);
  if (w->job().measure_compute) charge_compute(*w, runtime::compute_stop_ns());
  // Buffered and freed sends still in flight complete before the rank is done.
  if (!st.detached.empty()) {
    std::vector<MGEN_Request> d;
    for (auto& [h, data] : st.detached)
      d.push_back(h);
    MGEN_Waitall(static_cast<int>(d.size()), d.data(), MGEN_STATUSES_IGNORE);
    st.detached.clear();
  }
}

// The MGEN type id a user operation sees for `t` (registered on first use).
int reduction_type(MPI_Datatype t) {
  World* w = World::active();
  auto& types = shim(*w).reduction_types[w->current().id];
  std::shared_ptr<const DType> d = dtype_ref(t);
  // The same handle and the same type (a freed handle may name a new type later).
  for (size_t i = 0; i < types.size(); ++i) {
    if (types[i].handle == t && types[i].type == d) return kExtraBase + static_cast<int>(i);
  }
  types.push_back(Shim::ReductionType{
      t, TypeInfo{"a datatype of a user-defined operation", static_cast<uint32_t>(d->size), TypeInfo::Kind::kByte}, d});
  return kExtraBase + static_cast<int>(types.size() - 1);
}

// ------------------------------------------------------------------ handles

MGEN_Comm comm(MPI_Comm c) {
  if (c == MPI_COMM_WORLD) return MGEN_COMM_WORLD;
  if (c == MPI_COMM_SELF) return MGEN_COMM_SELF;
  if ((static_cast<uint32_t>(c) & kKindMask) == kCommKind) {
    const MGEN_Comm h = static_cast<MGEN_Comm>(static_cast<uint32_t>(c) & ~kKindMask);
    Rank& r = scope().rank();
    if (h > 2 && static_cast<size_t>(h) < r.comms.size() && r.comms[h]) return h;
  }
  fail(MPI_ERR_COMM, c == MPI_COMM_NULL ? "MPI_COMM_NULL" : fmt::format("invalid communicator {:#x}", c));
}

MPI_Comm to_mpi_comm(MGEN_Comm c) {
  if (c == MGEN_COMM_NULL) return MPI_COMM_NULL;
  if (c == MGEN_COMM_WORLD) return MPI_COMM_WORLD;
  if (c == MGEN_COMM_SELF) return MPI_COMM_SELF;
  return static_cast<MPI_Comm>(kCommKind | static_cast<uint32_t>(c));
}

MGEN_Group group(MPI_Group g) {
  if (g == MPI_GROUP_EMPTY) return MGEN_GROUP_EMPTY;
  if ((static_cast<uint32_t>(g) & kKindMask) == kGroupKind) {
    return static_cast<MGEN_Group>(static_cast<uint32_t>(g) & ~kKindMask);
  }
  fail(MPI_ERR_GROUP, g == MPI_GROUP_NULL ? "MPI_GROUP_NULL" : fmt::format("invalid group {:#x}", g));
}

MPI_Group to_mpi_group(MGEN_Group g) {
  if (g == MGEN_GROUP_NULL) return MPI_GROUP_NULL;
  if (g == MGEN_GROUP_EMPTY) return MPI_GROUP_EMPTY;
  return static_cast<MPI_Group>(kGroupKind | static_cast<uint32_t>(g));
}

DType* derived(MPI_Datatype t) {
  if ((static_cast<uint32_t>(t) & kKindMask) != kTypeKind) return nullptr;
  RankState& st = state();
  const size_t i = static_cast<uint32_t>(t) & ~kKindMask;
  if (i >= st.types.size()) return nullptr;
  return st.types[i].get();
}

const DType& dtype(MPI_Datatype t) {
  const DType& d = dtype_any(t);
  if (!d.committed) fail(MPI_ERR_TYPE, "datatype used in communication before MPI_Type_commit");
  return d;
}

std::shared_ptr<const DType> dtype_ref(MPI_Datatype t) {
  const DType& d = dtype(t);
  if (d.predefined) return std::shared_ptr<const DType>(std::shared_ptr<const DType>(), &d);  // static
  RankState& st = state();
  return st.types[static_cast<uint32_t>(t) & ~kKindMask];
}

const DType& dtype_any(MPI_Datatype t) {
  const auto& b = builtins();
  auto it = b.find(t);
  if (it != b.end()) return it->second;
  if (DType* d = derived(t)) return *d;
  fail(MPI_ERR_TYPE, t == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL" : fmt::format("invalid datatype {:#x}", t));
}

MPI_Datatype add_type(DType t) {
  return add_type_shared(std::make_shared<DType>(std::move(t)));
}

MPI_Datatype add_type_shared(std::shared_ptr<DType> t) {
  RankState& st = state();
  for (size_t i = 0; i < st.types.size(); ++i) {
    if (!st.types[i]) {
      st.types[i] = std::move(t);
      return static_cast<MPI_Datatype>(kTypeKind | i);
    }
  }
  st.types.push_back(std::move(t));
  return static_cast<MPI_Datatype>(kTypeKind | (st.types.size() - 1));
}

std::shared_ptr<DType> derived_shared(MPI_Datatype t) {
  if (derived(t) == nullptr) return nullptr;
  return state().types[static_cast<uint32_t>(t) & ~kKindMask];
}

int mgen_op(MPI_Op op) {
  const uint32_t v = static_cast<uint32_t>(op);
  if ((v & 0xffffff00u) == 0x58000000u && (v & 0xff) >= MGEN_MAX && (v & 0xff) <= MGEN_REPLACE) {
    return static_cast<int>(v & 0xff);
  }
  if (const UserOp* u = user_op(op)) {
    (void)u;
    return kExtraBase + static_cast<int>(v & 0xffff);
  }
  fail(MPI_ERR_OP, op == MPI_OP_NULL ? "MPI_OP_NULL" : fmt::format("invalid operation {:#x}", op));
}

const UserOp* user_op(MPI_Op op) {
  const uint32_t v = static_cast<uint32_t>(op);
  if ((v & 0xffff0000u) != 0x98000000u) return nullptr;
  RankState& st = state();
  const size_t i = v & 0xffff;
  return i < st.ops.size() && st.ops[i].used ? &st.ops[i] : nullptr;
}

void check_count(int count) {
  if (count < 0) fail(MPI_ERR_COUNT, fmt::format("negative count {}", count));
}

void check_buffer(const void* buf, int count, const DType& t) {
  // MPI_BOTTOM is the null pointer in MPICH: legal with a datatype of absolute addresses (its
  // data do not start at offset 0), as MPICH decides it. No bytes move with a type of size 0,
  // so MPICH accepts a null buffer then too.
  if (buf != nullptr || count <= 0 || t.size == 0 || t.true_lb != 0) return;
  if (const World* w = World::active(); w != nullptr && w->job().sizes_only) return;
  fail(MPI_ERR_BUFFER, fmt::format("null buffer pointer with count {}", count));
}

void set_status(MPI_Status* out, const MGEN_Status& in) {
  if (out == MPI_STATUS_IGNORE || out == nullptr) return;
  out->MPI_SOURCE = in.MGEN_SOURCE == MGEN_PROC_NULL    ? MPI_PROC_NULL
                    : in.MGEN_SOURCE == MGEN_ANY_SOURCE ? MPI_ANY_SOURCE
                                                        : in.MGEN_SOURCE;
  out->MPI_TAG = in.MGEN_TAG;
  out->MPI_ERROR = MPI_SUCCESS;
  const uint64_t bytes = static_cast<uint64_t>(in.count_bytes);
  out->count_lo = static_cast<int>(bytes & 0xffffffffu);
  out->count_hi_and_cancelled = static_cast<int>((bytes >> 32) << 1);
}

void set_status_empty(MPI_Status* out) {
  if (out == MPI_STATUS_IGNORE || out == nullptr) return;
  out->MPI_SOURCE = MPI_ANY_SOURCE;
  out->MPI_TAG = MPI_ANY_TAG;
  out->MPI_ERROR = MPI_SUCCESS;
  out->count_lo = 0;
  out->count_hi_and_cancelled = 0;
}

uint64_t status_bytes(const MPI_Status* s) {
  return static_cast<uint32_t>(s->count_lo) |
         (static_cast<uint64_t>(static_cast<uint32_t>(s->count_hi_and_cancelled) >> 1) << 32);
}

// ------------------------------------------------------------------ packing

void pack(const void* buf, int count, const DType& t, std::byte* out) {
  const auto* base = static_cast<const std::byte*>(buf);
  // A dense type is one run of bytes: one copy, not one per element (a 2 MiB accumulate of
  // MPI_CHAR is otherwise 2 Mi one-byte copies).
  if (t.dense() && count > 0) {
    std::memcpy(out, base, t.size * static_cast<uint64_t>(count));
    return;
  }
  for (int i = 0; i < count; ++i) {
    const std::byte* e = base + static_cast<int64_t>(i) * t.extent();
    for (const auto& [off, len] : t.segs) {
      std::memcpy(out, e + off, len);
      out += len;
    }
  }
}

void unpack(const std::byte* in, uint64_t bytes, void* buf, int count, const DType& t) {
  auto* base = static_cast<std::byte*>(buf);
  if (t.dense() && count > 0) {
    const uint64_t n = std::min<uint64_t>(bytes, t.size * static_cast<uint64_t>(count));
    if (n > 0) std::memmove(base, in, n);
    return;
  }
  for (int i = 0; i < count && bytes > 0; ++i) {
    std::byte* e = base + static_cast<int64_t>(i) * t.extent();
    for (const auto& [off, len] : t.segs) {
      const uint64_t n = std::min<uint64_t>(len, bytes);
      std::memcpy(e + off, in, n);
      in += n;
      bytes -= n;
      if (bytes == 0) break;
    }
  }
}

Flat Flat::in(const void* buf, int count, MPI_Datatype t) {
  check_count(count);
  Flat f;
  f.type_ = dtype_ref(t);
  check_buffer(buf, count, *f.type_);
  f.count_ = count;
  f.bytes_ = f.type_->size * static_cast<uint64_t>(count);
  if (buf == MPI_IN_PLACE || f.type_->dense() || f.bytes_ == 0) {
    f.data_ = const_cast<void*>(buf);
    if (buf != MPI_IN_PLACE && buf != nullptr && !f.type_->segs.empty()) {
      f.data_ = static_cast<std::byte*>(const_cast<void*>(buf)) + f.type_->segs[0].first;
    }
    if (f.bytes_ == 0) f.data_ = const_cast<void*>(buf);
    return f;
  }
  f.temp_.resize(f.bytes_);
  pack(buf, count, *f.type_, f.temp_.data());  // buf may be MPI_BOTTOM (absolute addresses)
  f.data_ = f.temp_.data();
  return f;
}

Flat Flat::out(void* buf, int count, MPI_Datatype t) {
  check_count(count);
  Flat f;
  f.type_ = dtype_ref(t);
  check_buffer(buf, count, *f.type_);
  f.count_ = count;
  f.bytes_ = f.type_->size * static_cast<uint64_t>(count);
  if (buf == MPI_IN_PLACE || f.type_->dense() || f.bytes_ == 0) {
    f.data_ = buf;
    return f;
  }
  f.temp_.resize(f.bytes_);
  f.user_ = buf;
  f.unpack_ = true;
  f.data_ = f.temp_.data();
  return f;
}

void Flat::finish(uint64_t received) {
  if (!unpack_) return;
  unpack(temp_.data(), std::min(received, bytes_), user_, count_, *type_);
}

int byte_count(uint64_t bytes) {
  if (bytes > static_cast<uint64_t>(INT32_MAX)) {
    fail(MPI_ERR_COUNT, fmt::format("a message of {} bytes (more than 2 GiB) is not supported", bytes));
  }
  return static_cast<int>(bytes);
}

// ------------------------------------------------------------------ requests

MPI_Request new_request(Request** out) {
  RankState& st = state();
  uint32_t i;
  if (!st.free_requests.empty()) {
    i = st.free_requests.back();
    st.free_requests.pop_back();
  } else {
    i = static_cast<uint32_t>(st.requests.size());
    st.requests.emplace_back();
  }
  st.requests[i] = Request{};
  *out = &st.requests[i];
  return static_cast<MPI_Request>(kRequestKind | i);
}

Request& request(MPI_Request r) {
  RankState& st = state();
  const uint32_t i = static_cast<uint32_t>(r) & ~kKindMask;
  if ((static_cast<uint32_t>(r) & kKindMask) != kRequestKind || i >= st.requests.size() ||
      st.requests[i].kind == Request::Kind::kFree) {
    fail(MPI_ERR_REQUEST, r == MPI_REQUEST_NULL ? "MPI_REQUEST_NULL" : fmt::format("invalid request {:#x}", r));
  }
  return st.requests[i];
}

void free_request(MPI_Request* r) {
  RankState& st = state();
  const uint32_t i = static_cast<uint32_t>(*r) & ~kKindMask;
  st.requests[i] = Request{};
  st.free_requests.push_back(i);
  *r = MPI_REQUEST_NULL;
}

bool is_active(MPI_Request r) {
  if (r == MPI_REQUEST_NULL) return false;
  const Request& q = request(r);
  return !q.persistent || q.active;
}

namespace {

bool world_complete(MGEN_Request inner) {
  return scope().rank().requests[static_cast<uint32_t>(inner - 1)].complete;
}

// Completes request `r` (known complete): unpacks, fills the status, frees or deactivates.
// Host overheads were charged by whatever waited for it.
int finish(MPI_Request* rp, MPI_Status* status) {
  Request& q = request(*rp);
  if (q.kind == Request::Kind::kGeneralized) {
    const int error = finish_generalized(q, status);
    free_request(rp);
    return error;
  }
  MGEN_Status ms{};
  bool cancelled = false;
  int error = MPI_SUCCESS;
  if (q.kind == Request::Kind::kP2P) {
    Rank& r = scope().rank();
    const uint32_t w = static_cast<uint32_t>(q.inner - 1);
    const Status& s = r.requests[w].status;
    cancelled = s.cancelled;
    ms.MGEN_SOURCE = s.source;
    ms.MGEN_TAG = s.tag;
    ms.MGEN_ERROR = s.error;
    ms.count_bytes = static_cast<long long>(s.bytes);
    if (s.error == kErrTruncated) {
      error = MPI_ERR_TRUNCATE;
      state().error_text = api::truncation_text(r.requests[w]);
    }
    r.free_request_slot(w);
    if (q.unpack && !cancelled) unpack(q.temp.data(), s.bytes, q.user_buf, q.count, *q.type);
  } else if (q.kind == Request::Kind::kDone) {
    ms = q.done_status;
    cancelled = q.cancelled;
  } else {
    ms.MGEN_SOURCE = MGEN_ANY_SOURCE;
    ms.MGEN_TAG = MGEN_ANY_TAG;
  }
  set_status(status, ms);
  if (status != MPI_STATUS_IGNORE && status != nullptr) {
    if (cancelled) status->count_hi_and_cancelled |= 1;
    status->MPI_ERROR = error;
  }
  q.temp.clear();
  if (q.persistent) {
    q.active = false;
    q.inner = MGEN_REQUEST_NULL;
  } else {
    free_request(rp);
  }
  return error;
}

// MPI_Wait, MPI_Test, MPI_Recv...: a single completion reports an error by its return code and
// leaves the status's MPI_ERROR as it was (MPI-4.0 §3.2.5, as MPICH does).
void finish_single(MPI_Request* rp, MPI_Status* status) {
  const bool has = status != MPI_STATUS_IGNORE && status != nullptr;
  const int before = has ? status->MPI_ERROR : MPI_SUCCESS;
  if (finish(rp, status) != MPI_SUCCESS) fail(MPI_ERR_TRUNCATE, state().error_text);
  if (has) status->MPI_ERROR = before;
}

// Blocks until one of `qs` (world request indices) completes.
void block_any(std::vector<uint32_t>& qs) {
  if (qs.empty()) fail(MPI_ERR_INTERN, "waiting on nothing");
  scope().world().wait_any(scope().rank(), qs.data(), static_cast<uint32_t>(qs.size()));
}

void inner_of(MPI_Request r, std::vector<uint32_t>& out) {
  if (!is_active(r)) return;
  const Request& q = request(r);
  if (q.kind == Request::Kind::kP2P && !world_complete(q.inner)) out.push_back(static_cast<uint32_t>(q.inner - 1));
}

}  // namespace

bool is_complete(MPI_Request r) {
  if (!is_active(r)) return true;
  const Request& q = request(r);
  switch (q.kind) {
    case Request::Kind::kP2P:
      return world_complete(q.inner);
    case Request::Kind::kGeneralized:
      return q.grequest.done;
    default:
      return true;
  }
}

void sync_engine() {
  std::vector<uint32_t> qs;
  RankState& st = state();
  for (uint32_t i = 0; i < st.requests.size() && qs.empty(); ++i) {
    const Request& q = st.requests[i];
    if (q.kind == Request::Kind::kP2P && q.inner != MGEN_REQUEST_NULL && !world_complete(q.inner)) {
      qs.push_back(static_cast<uint32_t>(q.inner - 1));
    }
  }
  for (uint32_t q : qs) {
    if (!scope().rank().requests[q].complete) {
      scope().world().test(scope().rank(), q);
      return;
    }
  }
}

void wait(MPI_Request* rp, MPI_Status* status) {
  if (!is_active(*rp)) {
    set_status_empty(status);
    return;
  }
  Request& q = request(*rp);
  if (q.kind == Request::Kind::kP2P) {
    const uint32_t w = static_cast<uint32_t>(q.inner - 1);
    scope().world().wait_all(scope().rank(), &w, 1);  // charges the receive overhead
  }
  finish_single(rp, status);
}

bool test(MPI_Request* rp, MPI_Status* status) {
  if (!is_active(*rp)) {
    set_status_empty(status);
    return true;
  }
  if (!is_complete(*rp)) {
    Request& q = request(*rp);
    if (q.kind == Request::Kind::kP2P) {
      scope().world().test(scope().rank(), static_cast<uint32_t>(q.inner - 1));
    } else {
      sync_engine();
    }
    if (!is_complete(*rp)) return false;
  }
  finish_single(rp, status);
  return true;
}

bool wait_some_ready(int n, MPI_Request reqs[]) {
  for (;;) {
    bool any_active = false;
    for (int i = 0; i < n; ++i) {
      if (!is_active(reqs[i])) continue;
      any_active = true;
      if (is_complete(reqs[i])) return true;
    }
    if (!any_active) return false;
    std::vector<uint32_t> qs;
    for (int i = 0; i < n; ++i)
      inner_of(reqs[i], qs);
    block_any(qs);
  }
}

int complete(MPI_Request* r, MPI_Status* status) {
  return finish(r, status);
}

}  // namespace mgen::mpi::abi

namespace mgen::mpi {
void mpi_program_begin() {
  abi::mpi_program_begin_impl();
}
void mpi_program_end() {
  abi::mpi_program_end_impl();
}
void mpi_program_status(int status, bool by_exit, const char* entry) {
  World* w = World::active();
  if (status == 0 || w == nullptr || !w->in_rank()) return;
  const RankId r = w->current().id;
  w->fail(by_exit ? fmt::format("rank {} called exit({})", r, status)
                  : fmt::format("rank {} returned {} from {}", r, status, entry));
}
void forget_unwound_frames() {
  runtime::forget_unwound_frames();
}
int current_rank() {
  World* w = World::active();
  return w != nullptr && w->in_rank() ? static_cast<int>(w->current().id) : -1;
}
}  // namespace mgen::mpi
