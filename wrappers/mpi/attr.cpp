// Attributes (MPI-4 §7.7): keyvals and the values attached to communicators, windows and
// datatypes, the predefined communicator attributes, and the delete callbacks MPI_Finalize runs.
#include "mpi/attr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "core/world.hpp"
#include "mpi/intercomm.hpp"
#include "mpi/shim.hpp"
#include "mpi/topo.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;

namespace {

// What a keyval attaches to: MPI refuses a communicator keyval on a window and the reverse.
enum class Object : uint8_t { kComm, kWin, kType };

// Callbacks are stored with the communicator signature: the window and datatype ones differ
// only in the handle type, and MPI_Comm, MPI_Win and MPI_Datatype are all int in MPICH's ABI.
struct Keyval {
  MPI_Comm_copy_attr_function* copy = nullptr;
  MPI_Comm_delete_attr_function* del = nullptr;
  void* extra = nullptr;
  Object object = Object::kComm;
  bool freed = false;  // MPI_*_free_keyval: attributes already set keep their callbacks
};

// Attributes of one object in the order they were first set (MPI_Finalize deletes those of
// MPI_COMM_SELF in reverse order, MPI-4 §11.2.4).
using AttrList = std::vector<std::pair<int, void*>>;

// The attributes of a freed datatype handle whose type is still referenced (by types built
// from it, or by pending operations): deleted when the type itself goes.
struct Deferred {
  int handle;
  std::weak_ptr<DType> type;
  AttrList list;
};

struct RankAttrs {
  std::vector<Keyval> keyvals;              // user keyval k at index k - kFirstKeyval
  std::unordered_map<int, AttrList> attrs;  // by communicator, window or datatype handle (kinds differ)
  std::vector<Deferred> deferred;
};

// User keyvals are small integers, apart from the predefined ones (0x644000xx, 0x660000xx).
constexpr int kFirstKeyval = 16;

struct Attrs : World::Extension {
  explicit Attrs(World& w) : ranks(w.size()) {}
  std::vector<RankAttrs> ranks;
};
const char kAttrsKey = 0;

RankAttrs& mine() {
  World& w = scope().world();
  return w.extension<Attrs>(&kAttrsKey).ranks[scope().rank().id];
}

// A keyval freed by MPI_*_free_keyval still names the attributes set with it: as in MPICH, a
// saved copy of the handle may delete them, read them or free the keyval again.
Keyval& find_keyval(int k, Object object, bool freed_ok = true) {
  auto& ks = mine().keyvals;
  const size_t i = static_cast<size_t>(k) - kFirstKeyval;
  if (k < kFirstKeyval || i >= ks.size() || (ks[i].freed && !freed_ok) || ks[i].object != object) {
    fail(MPI_ERR_KEYVAL, k == MPI_KEYVAL_INVALID ? "MPI_KEYVAL_INVALID" : fmt::format("invalid keyval {}", k));
  }
  return ks[i];
}

// The keyval of an attribute already set (its keyval may have been freed since).
const Keyval& set_keyval(int k) {
  return mine().keyvals[static_cast<size_t>(k) - kFirstKeyval];
}

int create_keyval(MPI_Comm_copy_attr_function* copy, MPI_Comm_delete_attr_function* del, void* extra, Object object) {
  auto& ks = mine().keyvals;
  ks.push_back(Keyval{copy, del, extra, object, false});
  return static_cast<int>(ks.size() - 1) + kFirstKeyval;
}

void free_keyval(int* k, Object object) {
  find_keyval(*k, object).freed = true;
  *k = MPI_KEYVAL_INVALID;
}

// Runs a delete callback; a callback's error fails the call that ran it (MPI-4 §7.7.2).
void run_delete(int handle, int k, void* value) {
  const Keyval& kv = set_keyval(k);
  if (kv.del == nullptr) return;
  const int rc = kv.del(handle, k, value, kv.extra);
  if (rc != MPI_SUCCESS) fail(rc, fmt::format("the delete callback of keyval {} returned {}", k, rc));
}

void set_attr(int handle, int k, void* value, Object object) {
  find_keyval(k, object, false);
  AttrList& list = mine().attrs[handle];
  auto it = std::find_if(list.begin(), list.end(), [k](const auto& a) { return a.first == k; });
  if (it == list.end()) {
    list.emplace_back(k, value);
    return;
  }
  run_delete(handle, k, it->second);
  it->second = value;
}

bool get_attr(int handle, int k, void** value) {
  auto& all = mine().attrs;
  auto l = all.find(handle);
  if (l == all.end()) return false;
  for (const auto& [key, v] : l->second) {
    if (key == k) {
      *value = v;
      return true;
    }
  }
  return false;
}

void delete_attr(int handle, int k, Object object) {
  find_keyval(k, object);
  AttrList& list = mine().attrs[handle];
  auto it = std::find_if(list.begin(), list.end(), [k](const auto& a) { return a.first == k; });
  if (it == list.end()) fail(MPI_ERR_KEYVAL, fmt::format("no attribute with keyval {} is set", k));
  run_delete(handle, k, it->second);
  list.erase(it);
}

// Every attribute of `handle`, deleted last set first.
void delete_all(int handle) {
  auto& all = mine().attrs;
  auto l = all.find(handle);
  if (l == all.end()) return;
  AttrList list = std::move(l->second);
  all.erase(l);
  for (auto it = list.rbegin(); it != list.rend(); ++it)
    run_delete(handle, it->first, it->second);
}

// The attributes of `from` given to its duplicate `to` through their copy callbacks. A callback's
// error fails the duplication (MPI-4 §7.7.2); the caller then frees the duplicate.
void copy_all(int from, int to) {
  auto& all = mine().attrs;
  auto l = all.find(from);
  if (l == all.end()) return;
  const AttrList list = l->second;  // callbacks may set attributes
  for (const auto& [k, value] : list) {
    const Keyval& kv = set_keyval(k);
    if (kv.copy == nullptr) continue;  // MPI_*_NULL_COPY_FN
    void* out = nullptr;
    int flag = 0;
    const int rc = kv.copy(from, k, kv.extra, value, &out, &flag);
    if (rc != MPI_SUCCESS) fail(rc, fmt::format("the copy callback of keyval {} returned {}", k, rc));
    if (flag) mine().attrs[to].emplace_back(k, out);
  }
}

// The predefined communicator attributes (MPI-4 §11.1.2); values live as long as the rank.
struct Predefined {
  int tag_ub = MGEN_TAG_UB, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 1, universe = 0, appnum = 0;
  int last_code = MPI_ERR_LASTCODE;
};

bool predefined(int k, void** value) {
  static thread_local Predefined p;  // ranks are fibers on few threads: set before each use
  switch (k) {
    case MPI_TAG_UB:
      *value = &p.tag_ub;
      return true;
    case MPI_HOST:
      *value = &p.host;
      return true;
    case MPI_IO:
      *value = &p.io;
      return true;
    case MPI_WTIME_IS_GLOBAL:
      *value = &p.wtime_global;
      return true;
    case MPI_UNIVERSE_SIZE: {
      int n = 0;
      MGEN_Comm_size(MGEN_COMM_WORLD, &n);
      p.universe = n;
      *value = &p.universe;
      return true;
    }
    case MPI_APPNUM:
      *value = &p.appnum;
      return true;
    case MPI_LASTUSEDCODE:
      p.last_code = last_used_error_code();
      *value = &p.last_code;
      return true;
    default:
      return false;
  }
}

}  // namespace

namespace mgen::mpi::abi {

void copy_attrs(MPI_Comm from, MPI_Comm to) {
  copy_topology(from, to);
  copy_all(from, to);
}

void copy_attrs_or_free(MPI_Comm from, MPI_Comm* to) {
  try {
    copy_attrs(from, *to);
  } catch (...) {
    // A copy callback failed: the duplicate goes (MPICH returns MPI_COMM_NULL).
    forget_attrs(*to);
    forget_topology(*to);
    forget_inter(*to);
    MGEN_Comm h = comm(*to);
    MGEN_Comm_free(&h);
    *to = MPI_COMM_NULL;
    throw;
  }
}

void copy_type_attrs(MPI_Datatype from, MPI_Datatype to) {
  copy_all(from, to);
}

void free_type_attrs(MPI_Datatype t, const std::shared_ptr<DType>& type) {
  RankAttrs& r = mine();
  auto l = r.attrs.find(t);
  if (l == r.attrs.end()) return;
  // MPICH deletes a datatype's attributes when the type is destroyed, after its last
  // reference: freeing a type that a duplicate was made from runs nothing yet.
  if (type.use_count() <= 2) {  // the handle's slot and `type`: nobody else
    delete_all(t);
    return;
  }
  r.deferred.push_back(Deferred{t, type, std::move(l->second)});
  r.attrs.erase(l);
}

void sweep_type_attrs() {
  RankAttrs& r = mine();
  for (size_t i = 0; i < r.deferred.size();) {
    if (!r.deferred[i].type.expired()) {
      ++i;
      continue;
    }
    Deferred d = std::move(r.deferred[i]);
    r.deferred.erase(r.deferred.begin() + static_cast<std::ptrdiff_t>(i));
    for (auto it = d.list.rbegin(); it != d.list.rend(); ++it)
      run_delete(d.handle, it->first, it->second);
    i = 0;  // callbacks may free types too
  }
}

void forget_attrs(int handle) {
  mine().attrs.erase(handle);
}

void delete_attrs(MPI_Comm c) {
  delete_all(c);
  forget_topology(c);
}

void finalize_attrs() {
  delete_all(MPI_COMM_SELF);
  delete_all(MPI_COMM_WORLD);
}

}  // namespace mgen::mpi::abi

extern "C" {

// MPI_DUP_FN / MPI_COMM_DUP_FN / MPI_WIN_DUP_FN: MPICH's mpi.h names this function.
int MPIR_Dup_fn(MPI_Comm, int, void*, void* in, void* out, int* flag) {
  *static_cast<void**>(out) = in;
  *flag = 1;
  return MPI_SUCCESS;
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy, MPI_Comm_delete_attr_function* del, int* keyval,
                            void* extra) {
  return call("MPI_Comm_create_keyval", MPI_COMM_WORLD, [&] {
    *keyval = create_keyval(copy, del, extra, Object::kComm);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_create_keyval)

int PMPI_Keyval_create(MPI_Copy_function* copy, MPI_Delete_function* del, int* keyval, void* extra) {
  return call("MPI_Keyval_create", MPI_COMM_WORLD, [&] {
    *keyval = create_keyval(copy, del, extra, Object::kComm);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Keyval_create)

int PMPI_Comm_free_keyval(int* keyval) {
  return call("MPI_Comm_free_keyval", MPI_COMM_WORLD, [&] {
    free_keyval(keyval, Object::kComm);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_free_keyval)

int PMPI_Keyval_free(int* keyval) {
  return call("MPI_Keyval_free", MPI_COMM_WORLD, [&] {
    free_keyval(keyval, Object::kComm);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Keyval_free)

int PMPI_Comm_set_attr(MPI_Comm c, int keyval, void* value) {
  return call("MPI_Comm_set_attr", c, [&] {
    comm(c);
    set_attr(c, keyval, value, Object::kComm);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_set_attr)

int PMPI_Attr_put(MPI_Comm c, int keyval, void* value) {
  return call("MPI_Attr_put", c, [&] {
    comm(c);
    set_attr(c, keyval, value, Object::kComm);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Attr_put)

int PMPI_Comm_get_attr(MPI_Comm c, int keyval, void* value, int* flag) {
  return call("MPI_Comm_get_attr", c, [&] {
    comm(c);
    if (value == nullptr || flag == nullptr) fail(MPI_ERR_ARG, "null value or flag");
    void** out = static_cast<void**>(value);
    if (predefined(keyval, out)) {
      *flag = 1;
      return MPI_SUCCESS;
    }
    find_keyval(keyval, Object::kComm);
    *flag = get_attr(c, keyval, out) ? 1 : 0;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_get_attr)

int PMPI_Attr_get(MPI_Comm c, int keyval, void* value, int* flag) {
  return PMPI_Comm_get_attr(c, keyval, value, flag);
}
MGEN_MPI_ALIAS(Attr_get)

int PMPI_Comm_delete_attr(MPI_Comm c, int keyval) {
  return call("MPI_Comm_delete_attr", c, [&] {
    comm(c);
    delete_attr(c, keyval, Object::kComm);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_delete_attr)

int PMPI_Attr_delete(MPI_Comm c, int keyval) {
  return call("MPI_Attr_delete", c, [&] {
    comm(c);
    delete_attr(c, keyval, Object::kComm);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Attr_delete)

// ---- windows: user keyvals (the predefined MPI_WIN_* attributes are rma.cpp's)

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* copy, MPI_Win_delete_attr_function* del, int* keyval,
                           void* extra) {
  return call("MPI_Win_create_keyval", MPI_COMM_WORLD, [&] {
    *keyval = create_keyval(reinterpret_cast<MPI_Comm_copy_attr_function*>(copy),
                            reinterpret_cast<MPI_Comm_delete_attr_function*>(del), extra, Object::kWin);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_create_keyval)

int PMPI_Win_free_keyval(int* keyval) {
  return call("MPI_Win_free_keyval", MPI_COMM_WORLD, [&] {
    free_keyval(keyval, Object::kWin);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_free_keyval)

int PMPI_Win_set_attr(MPI_Win w, int keyval, void* value) {
  return call("MPI_Win_set_attr", MPI_COMM_WORLD, [&] {
    if (w == MPI_WIN_NULL) fail(MPI_ERR_WIN, "MPI_WIN_NULL");
    set_attr(w, keyval, value, Object::kWin);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_set_attr)

int PMPI_Win_delete_attr(MPI_Win w, int keyval) {
  return call("MPI_Win_delete_attr", MPI_COMM_WORLD, [&] {
    if (w == MPI_WIN_NULL) fail(MPI_ERR_WIN, "MPI_WIN_NULL");
    delete_attr(w, keyval, Object::kWin);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_delete_attr)

}  // extern "C"

namespace mgen::mpi::abi {

bool win_user_attr(MPI_Win w, int keyval, void** value) {
  find_keyval(keyval, Object::kWin);
  return get_attr(w, keyval, value);
}

void delete_win_attrs(MPI_Win w) {
  delete_all(w);
}

}  // namespace mgen::mpi::abi

// ---- datatypes

extern "C" {

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* copy, MPI_Type_delete_attr_function* del, int* keyval,
                            void* extra) {
  return call("MPI_Type_create_keyval", MPI_COMM_WORLD, [&] {
    *keyval = create_keyval(reinterpret_cast<MPI_Comm_copy_attr_function*>(copy),
                            reinterpret_cast<MPI_Comm_delete_attr_function*>(del), extra, Object::kType);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_create_keyval)

int PMPI_Type_free_keyval(int* keyval) {
  return call("MPI_Type_free_keyval", MPI_COMM_WORLD, [&] {
    free_keyval(keyval, Object::kType);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_free_keyval)

int PMPI_Type_set_attr(MPI_Datatype t, int keyval, void* value) {
  return call("MPI_Type_set_attr", MPI_COMM_WORLD, [&] {
    dtype_any(t);
    set_attr(t, keyval, value, Object::kType);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_set_attr)

int PMPI_Type_get_attr(MPI_Datatype t, int keyval, void* value, int* flag) {
  return call("MPI_Type_get_attr", MPI_COMM_WORLD, [&] {
    dtype_any(t);
    if (value == nullptr || flag == nullptr) fail(MPI_ERR_ARG, "null value or flag");
    find_keyval(keyval, Object::kType);
    *flag = get_attr(t, keyval, static_cast<void**>(value)) ? 1 : 0;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_get_attr)

int PMPI_Type_delete_attr(MPI_Datatype t, int keyval) {
  return call("MPI_Type_delete_attr", MPI_COMM_WORLD, [&] {
    dtype_any(t);
    delete_attr(t, keyval, Object::kType);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_delete_attr)

}  // extern "C"
