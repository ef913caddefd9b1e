// Derived datatypes: constructors, commit/free, sizes and extents, MPI_Pack/Unpack, and
// user-defined operations.
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <optional>

#include "mpi/attr.hpp"
#include "mpi/datatype.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;

namespace {

// Element runs beyond this many are not kept (MPI_Get_elements then counts whole elements only).
constexpr size_t kMaxElementRuns = 4096;

void append_elems(DType& t, const DType& o, uint64_t times) {
  if (o.elems.empty() && o.elements > 0) {
    t.elems.clear();
    return;
  }
  for (uint64_t k = 0; k < times; ++k) {
    for (const auto& run : o.elems) {
      if (!t.elems.empty() && t.elems.back().first == run.first) {
        t.elems.back().second += run.second;
      } else if (t.elems.size() >= kMaxElementRuns) {
        t.elems.clear();
        return;
      } else {
        t.elems.push_back(run);
      }
    }
    if (o.elems.size() == 1) {  // one run: the rest of the block merges into it
      t.elems.back().second += o.elems[0].second * (times - k - 1);
      return;
    }
  }
}

}  // namespace

namespace mgen::mpi::abi {

DType build(const std::vector<TypeBlock>& blocks, int combiner) {
  DType t;
  t.committed = false;
  t.combiner = combiner;
  bool first = true;
  bool same_base = true;
  bool keep_elems = true;
  int base = 0;
  MPI_Datatype mpi_base = 0;
  for (const TypeBlock& b : blocks) {
    if (b.count < 0) fail(MPI_ERR_COUNT, fmt::format("negative block length {}", b.count));
    const DType& o = dtype_any(b.type);
    // Empty blocks (and members of no size) take no part in the bounds (MPICH).
    if (b.count == 0 || o.size == 0) continue;
    const int64_t ext = o.extent();
    // Elements that abut make one segment however many there are (large counts).
    const bool dense = o.dense();
    const int64_t times = dense ? 1 : b.count;
    for (int64_t i = 0; i < times; ++i) {
      const int64_t at = b.disp + i * ext;
      for (auto [off, len] : o.segs) {
        if (dense) len *= static_cast<uint64_t>(b.count);
        if (!t.segs.empty() && t.segs.back().first + static_cast<int64_t>(t.segs.back().second) == at + off) {
          t.segs.back().second += len;
        } else if (len > 0) {
          t.segs.emplace_back(at + off, len);
        }
      }
    }
    const int64_t lo = b.disp + o.lb + std::min<int64_t>(0, (b.count - 1) * ext);
    const int64_t hi = b.disp + o.ub + std::max<int64_t>(0, (b.count - 1) * ext);
    const int64_t tlo = b.disp + o.true_lb + std::min<int64_t>(0, (b.count - 1) * ext);
    const int64_t thi = b.disp + o.true_ub + std::max<int64_t>(0, (b.count - 1) * ext);
    if (first) {
      t.lb = lo;
      t.ub = hi;
      t.true_lb = tlo;
      t.true_ub = thi;
      base = o.base;
      mpi_base = o.mpi_base;
      first = false;
    } else {
      t.lb = std::min(t.lb, lo);
      t.ub = std::max(t.ub, hi);
      t.true_lb = std::min(t.true_lb, tlo);
      t.true_ub = std::max(t.true_ub, thi);
    }
    if (o.base != base || o.base == 0) same_base = false;
    t.size += o.size * static_cast<uint64_t>(b.count);
    t.base_count += o.base_count * static_cast<uint64_t>(b.count);
    t.elements += o.elements * static_cast<uint64_t>(b.count);
    t.align = std::max(t.align, o.align);
    if (keep_elems) {
      append_elems(t, o, static_cast<uint64_t>(b.count));
      keep_elems = !t.elems.empty();
    }
  }
  t.base = same_base ? base : 0;
  t.mpi_base = same_base ? mpi_base : 0;
  // Segments relative to the buffer start; `dense` compares the first with offset 0.
  return t;
}

void record(DType& t, TypeArgs args) {
  t.c_ints = std::move(args.ints);
  t.c_addrs = std::move(args.addrs);
  t.c_types.clear();
  for (MPI_Datatype h : args.types) {
    if (auto d = derived_shared(h)) {
      t.c_types.push_back({MPI_DATATYPE_NULL, std::move(d)});
    } else {
      t.c_types.push_back({h, nullptr});
    }
  }
}

}  // namespace mgen::mpi::abi

namespace {

// MPICH pads a struct's extent to the alignment of its most aligned member, as a C compiler
// pads the struct it describes (double + int: 16 bytes, not 12), unless every member is of
// one type (MPICH then builds it as an hindexed type, which is not padded).
void pad_struct(DType& t, const std::vector<TypeBlock>& blocks) {
  MPI_Datatype only = MPI_DATATYPE_NULL;
  bool mixed = false;
  for (const TypeBlock& b : blocks) {
    if (b.count == 0 || dtype_any(b.type).size == 0) continue;
    if (only == MPI_DATATYPE_NULL) {
      only = b.type;
    } else if (b.type != only) {
      mixed = true;
    }
  }
  if (!mixed || t.align <= 1) return;
  const int64_t rest = t.extent() % t.align;
  if (rest != 0) t.ub += t.align - rest;
}

MPI_Datatype make(const std::vector<TypeBlock>& blocks, int combiner, TypeArgs args) {
  DType t = build(blocks, combiner);
  record(t, std::move(args));
  return add_type(std::move(t));
}

std::vector<int> ints_of(int n, const int* v) {
  return v == nullptr ? std::vector<int>{} : std::vector<int>(v, v + std::max(n, 0));
}
std::vector<MPI_Aint> addrs_of(int n, const MPI_Aint* v) {
  return v == nullptr ? std::vector<MPI_Aint>{} : std::vector<MPI_Aint>(v, v + std::max(n, 0));
}
template <class... V>
std::vector<int> cat(std::vector<int> a, const V&... more) {
  (a.insert(a.end(), more.begin(), more.end()), ...);
  return a;
}

}  // namespace

extern "C" {

int PMPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype* out) {
  return call("MPI_Type_contiguous", MPI_COMM_WORLD, [&] {
    *out = make({{0, count, old}}, MPI_COMBINER_CONTIGUOUS, {{count}, {}, {old}});
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_contiguous)

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype old, MPI_Datatype* out) {
  return call("MPI_Type_vector", MPI_COMM_WORLD, [&] {
    check_count(count);
    const int64_t ext = dtype_any(old).extent();
    std::vector<TypeBlock> b;
    for (int i = 0; i < count; ++i)
      b.push_back({static_cast<int64_t>(i) * stride * ext, blocklength, old});
    *out = make(b, MPI_COMBINER_VECTOR, {{count, blocklength, stride}, {}, {old}});
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_vector)

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype old, MPI_Datatype* out) {
  return call("MPI_Type_create_hvector", MPI_COMM_WORLD, [&] {
    check_count(count);
    std::vector<TypeBlock> b;
    for (int i = 0; i < count; ++i)
      b.push_back({static_cast<int64_t>(i) * stride, blocklength, old});
    *out = make(b, MPI_COMBINER_HVECTOR, {{count, blocklength}, {stride}, {old}});
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_create_hvector)

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype old, MPI_Datatype* out) {
  return PMPI_Type_create_hvector(count, blocklength, stride, old, out);
}
MGEN_MPI_ALIAS(Type_hvector)

int PMPI_Type_indexed(int count, const int lens[], const int displs[], MPI_Datatype old, MPI_Datatype* out) {
  return call("MPI_Type_indexed", MPI_COMM_WORLD, [&] {
    check_count(count);
    const int64_t ext = dtype_any(old).extent();
    std::vector<TypeBlock> b;
    for (int i = 0; i < count; ++i)
      b.push_back({static_cast<int64_t>(displs[i]) * ext, lens[i], old});
    *out = make(b, MPI_COMBINER_INDEXED, {cat({count}, ints_of(count, lens), ints_of(count, displs)), {}, {old}});
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_indexed)

int PMPI_Type_create_hindexed(int count, const int lens[], const MPI_Aint displs[], MPI_Datatype old,
                              MPI_Datatype* out) {
  return call("MPI_Type_create_hindexed", MPI_COMM_WORLD, [&] {
    check_count(count);
    std::vector<TypeBlock> b;
    for (int i = 0; i < count; ++i)
      b.push_back({displs[i], lens[i], old});
    *out = make(b, MPI_COMBINER_HINDEXED, {cat({count}, ints_of(count, lens)), addrs_of(count, displs), {old}});
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_create_hindexed)

int PMPI_Type_create_indexed_block(int count, int len, const int displs[], MPI_Datatype old, MPI_Datatype* out) {
  return call("MPI_Type_create_indexed_block", MPI_COMM_WORLD, [&] {
    check_count(count);
    const int64_t ext = dtype_any(old).extent();
    std::vector<TypeBlock> b;
    for (int i = 0; i < count; ++i)
      b.push_back({static_cast<int64_t>(displs[i]) * ext, len, old});
    *out = make(b, MPI_COMBINER_INDEXED_BLOCK, {cat({count, len}, ints_of(count, displs)), {}, {old}});
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_create_indexed_block)

int PMPI_Type_create_hindexed_block(int count, int len, const MPI_Aint displs[], MPI_Datatype old, MPI_Datatype* out) {
  return call("MPI_Type_create_hindexed_block", MPI_COMM_WORLD, [&] {
    check_count(count);
    std::vector<TypeBlock> b;
    for (int i = 0; i < count; ++i)
      b.push_back({displs[i], len, old});
    *out = make(b, MPI_COMBINER_HINDEXED_BLOCK, {{count, len}, addrs_of(count, displs), {old}});
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_create_hindexed_block)

int PMPI_Type_create_struct(int count, const int lens[], const MPI_Aint displs[], const MPI_Datatype types[],
                            MPI_Datatype* out) {
  return call("MPI_Type_create_struct", MPI_COMM_WORLD, [&] {
    check_count(count);
    // MPI_LB and MPI_UB (removed in MPI-3.0, still in MPICH) set the bounds of the struct of
    // the other members, as MPI_Type_create_resized would (MPICH builds it that way).
    std::vector<TypeBlock> b;
    std::optional<int64_t> lb_mark, ub_mark;
    for (int i = 0; i < count; ++i) {
      if (types[i] == MPI_LB) {
        lb_mark = displs[i];
      } else if (types[i] == MPI_UB) {
        ub_mark = displs[i];
      } else {
        b.push_back({displs[i], lens[i], types[i]});
      }
    }
    DType t = build(b, MPI_COMBINER_STRUCT);
    pad_struct(t, b);
    if (lb_mark) t.lb = *lb_mark;
    if (ub_mark) t.ub = *ub_mark;
    record(t, {cat({count}, ints_of(count, lens)), addrs_of(count, displs),
               std::vector<MPI_Datatype>(types, types + count)});
    *out = add_type(std::move(t));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_create_struct)

int PMPI_Type_struct(int count, int lens[], MPI_Aint displs[], MPI_Datatype types[], MPI_Datatype* out) {
  return PMPI_Type_create_struct(count, lens, displs, types, out);
}
MGEN_MPI_ALIAS(Type_struct)

int PMPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* out) {
  return call("MPI_Type_create_resized", MPI_COMM_WORLD, [&] {
    DType t = build({{0, 1, old}}, MPI_COMBINER_RESIZED);
    t.lb = lb;
    t.ub = lb + extent;
    record(t, {{}, {lb, extent}, {old}});
    *out = add_type(std::move(t));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_create_resized)

int PMPI_Type_dup(MPI_Datatype old, MPI_Datatype* out) {
  return call("MPI_Type_dup", MPI_COMM_WORLD, [&] {
    DType t = dtype_any(old);
    t.predefined = false;
    t.committed = true;
    t.combiner = MPI_COMBINER_DUP;
    record(t, {{}, {}, {old}});
    const MPI_Datatype dup = add_type(std::move(t));
    try {
      copy_type_attrs(old, dup);
    } catch (...) {
      // A copy callback failed: no duplicate (MPICH returns MPI_DATATYPE_NULL).
      forget_attrs(dup);
      state().types[static_cast<uint32_t>(dup) & 0x03ffffffu].reset();
      *out = MPI_DATATYPE_NULL;
      throw;
    }
    *out = dup;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_dup)

int PMPI_Type_commit(MPI_Datatype* type) {
  return call("MPI_Type_commit", MPI_COMM_WORLD, [&] {
    if (DType* d = derived(*type)) {
      d->committed = true;
    } else {
      dtype_any(*type);
    }
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_commit)

int PMPI_Type_free(MPI_Datatype* type) {
  return call("MPI_Type_free", MPI_COMM_WORLD, [&] {
    if (derived(*type) == nullptr) fail(MPI_ERR_TYPE, "MPI_Type_free of a predefined or invalid datatype");
    std::shared_ptr<DType> t = derived_shared(*type);
    free_type_attrs(*type, t);
    // The handle is free; requests and non-blocking collectives still using the type, and
    // types built from it, hold their own reference to it.
    state().types[static_cast<uint32_t>(*type) & 0x03ffffffu].reset();
    *type = MPI_DATATYPE_NULL;
    t.reset();
    sweep_type_attrs();
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_free)

int PMPI_Type_size(MPI_Datatype type, int* size) {
  return call("MPI_Type_size", MPI_COMM_WORLD, [&] {
    const uint64_t s = dtype_any(type).size;
    *size = s > INT_MAX ? MPI_UNDEFINED : static_cast<int>(s);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_size)

int PMPI_Type_size_x(MPI_Datatype type, MPI_Count* size) {
  return call("MPI_Type_size_x", MPI_COMM_WORLD, [&] {
    *size = static_cast<MPI_Count>(dtype_any(type).size);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_size_x)

int PMPI_Type_get_extent(MPI_Datatype type, MPI_Aint* lb, MPI_Aint* extent) {
  return call("MPI_Type_get_extent", MPI_COMM_WORLD, [&] {
    const DType& t = dtype_any(type);
    *lb = t.lb;
    *extent = t.extent();
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_get_extent)

int PMPI_Type_get_extent_x(MPI_Datatype type, MPI_Count* lb, MPI_Count* extent) {
  MPI_Aint l = 0, e = 0;
  const int rc = PMPI_Type_get_extent(type, &l, &e);
  *lb = l;
  *extent = e;
  return rc;
}
MGEN_MPI_ALIAS(Type_get_extent_x)

int PMPI_Type_extent(MPI_Datatype type, MPI_Aint* extent) {
  MPI_Aint lb = 0;
  return PMPI_Type_get_extent(type, &lb, extent);
}
MGEN_MPI_ALIAS(Type_extent)

int PMPI_Type_get_true_extent(MPI_Datatype type, MPI_Aint* lb, MPI_Aint* extent) {
  return call("MPI_Type_get_true_extent", MPI_COMM_WORLD, [&] {
    const DType& t = dtype_any(type);
    *lb = t.true_lb;
    *extent = t.true_ub - t.true_lb;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_get_true_extent)

int PMPI_Type_lb(MPI_Datatype type, MPI_Aint* lb) {
  MPI_Aint e = 0;
  return PMPI_Type_get_extent(type, lb, &e);
}
MGEN_MPI_ALIAS(Type_lb)

int PMPI_Type_ub(MPI_Datatype type, MPI_Aint* ub) {
  MPI_Aint lb = 0, e = 0;
  const int rc = PMPI_Type_get_extent(type, &lb, &e);
  *ub = lb + e;
  return rc;
}
MGEN_MPI_ALIAS(Type_ub)

int PMPI_Get_address(const void* location, MPI_Aint* address) {
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}
MGEN_MPI_ALIAS(Get_address)

int PMPI_Address(void* location, MPI_Aint* address) {
  return PMPI_Get_address(location, address);
}
MGEN_MPI_ALIAS(Address)

int PMPI_Type_set_name(MPI_Datatype type, const char* name) {
  return call("MPI_Type_set_name", MPI_COMM_WORLD, [&] {
    if (name == nullptr) fail(MPI_ERR_ARG, "null name");
    // MPICH renames predefined types too (for the calling process only).
    if (DType* d = derived(type)) {
      d->name = name;
    } else {
      dtype_any(type);
      state().type_names[type] = name;
    }
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_set_name)

int PMPI_Type_get_name(MPI_Datatype type, char* name, int* resultlen) {
  return call("MPI_Type_get_name", MPI_COMM_WORLD, [&] {
    const DType& t = dtype_any(type);
    auto renamed = state().type_names.find(type);
    const std::string& n = t.predefined && renamed != state().type_names.end() ? renamed->second : t.name;
    std::snprintf(name, MPI_MAX_OBJECT_NAME, "%s", n.c_str());
    *resultlen = static_cast<int>(std::strlen(name));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_get_name)

int PMPI_Pack_size(int incount, MPI_Datatype type, MPI_Comm, int* size) {
  return call("MPI_Pack_size", MPI_COMM_WORLD, [&] {
    check_count(incount);
    *size = byte_count(dtype(type).size * static_cast<uint64_t>(incount));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Pack_size)

int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype type, void* outbuf, int outsize, int* position, MPI_Comm) {
  return call("MPI_Pack", MPI_COMM_WORLD, [&] {
    check_count(incount);
    const DType& t = dtype(type);
    const uint64_t n = t.size * static_cast<uint64_t>(incount);
    if (*position < 0 || static_cast<uint64_t>(*position) + n > static_cast<uint64_t>(outsize)) {
      fail(MPI_ERR_TRUNCATE,
           fmt::format("packing {} bytes at position {} overflows the {}-byte buffer", n, *position, outsize));
    }
    pack(inbuf, incount, t, static_cast<std::byte*>(outbuf) + *position);
    *position += static_cast<int>(n);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Pack)

int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount, MPI_Datatype type, MPI_Comm) {
  return call("MPI_Unpack", MPI_COMM_WORLD, [&] {
    check_count(outcount);
    const DType& t = dtype(type);
    const uint64_t n = t.size * static_cast<uint64_t>(outcount);
    if (*position < 0 || static_cast<uint64_t>(*position) + n > static_cast<uint64_t>(insize)) {
      fail(MPI_ERR_TRUNCATE,
           fmt::format("unpacking {} bytes at position {} overruns the {}-byte buffer", n, *position, insize));
    }
    unpack(static_cast<const std::byte*>(inbuf) + *position, n, outbuf, outcount, t);
    *position += static_cast<int>(n);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Unpack)

int PMPI_Op_create(MPI_User_function* fn, int commute, MPI_Op* op) {
  return call("MPI_Op_create", MPI_COMM_WORLD, [&] {
    auto& ops = state().ops;
    if (ops.size() > 0xffff) fail(MPI_ERR_INTERN, "more than 65536 user-defined operations");
    const size_t i = ops.size();
    ops.push_back(UserOp{fn, commute != 0, true, false});
    *op = static_cast<MPI_Op>(0x98000000u | i);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Op_create)

int PMPI_Op_free(MPI_Op* op) {
  return call("MPI_Op_free", MPI_COMM_WORLD, [&] {
    if (user_op(*op) == nullptr) fail(MPI_ERR_OP, "MPI_Op_free of a predefined or invalid operation");
    UserOp& u = state().ops[static_cast<uint32_t>(*op) & 0xffff];
    u.used = false;
    u.freed = true;
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Op_free)

int PMPI_Op_commutative(MPI_Op op, int* commute) {
  return call("MPI_Op_commutative", MPI_COMM_WORLD, [&] {
    const UserOp* u = user_op(op);
    if (u == nullptr) mgen_op(op);
    *commute = u == nullptr || u->commute ? 1 : 0;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Op_commutative)

}  // extern "C"
