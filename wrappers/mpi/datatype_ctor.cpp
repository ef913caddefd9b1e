// The array constructors (MPI_Type_create_subarray, MPI_Type_create_darray: MPI-3.1 §4.1.12-13),
// MPI-1's MPI_Type_hindexed, and MPI_Type_match_size.
#include <fmt/format.h>

#include "core/datatype_layout.hpp"
#include "mpi/datatype.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;

namespace {

// The selected elements of an array of `old` as a datatype: the runs in memory order, with lb 0
// and the whole array's extent (MPI builds both types resized so).
DType array_type(const ArraySelection& a, MPI_Datatype old, int combiner) {
  const int64_t ext = dtype_any(old).extent();
  DType t = build(array_blocks(a, old), combiner);
  int64_t total = ext;
  for (int64_t s : a.sizes)
    total *= s;
  t.lb = 0;
  t.ub = total;
  if (t.size == 0) t.true_lb = t.true_ub = 0;
  return t;
}

bool c_order_of(int order) {
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
    fail(MPI_ERR_ARG, fmt::format("order {} is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order));
  }
  return order == MPI_ORDER_C;
}

std::vector<int> ints_of(int n, const int* v) {
  return std::vector<int>(v, v + n);
}

}  // namespace

namespace mgen::mpi::abi {

std::vector<TypeBlock> array_blocks(const ArraySelection& a, MPI_Datatype old) {
  const int64_t ext = dtype_any(old).extent();
  std::vector<TypeBlock> blocks;
  for (const auto& [first, len] : array_runs(a.sizes, a.selected, a.c_order)) {
    blocks.push_back({first * ext, len, old});
  }
  return blocks;
}

ArraySelection subarray_selection(int ndims, const int sizes[], const int subsizes[], const int starts[], int order) {
  if (ndims <= 0) fail(MPI_ERR_ARG, fmt::format("ndims {} (at least 1)", ndims));
  ArraySelection a;
  a.c_order = c_order_of(order);
  a.selected.resize(ndims);
  for (int d = 0; d < ndims; ++d) {
    if (sizes[d] <= 0 || subsizes[d] < 0 || starts[d] < 0 || starts[d] + subsizes[d] > sizes[d]) {
      fail(MPI_ERR_ARG, fmt::format("dimension {}: a subarray of {} from {} does not fit in {}", d, subsizes[d],
                                    starts[d], sizes[d]));
    }
    a.sizes.push_back(sizes[d]);
    for (int i = 0; i < subsizes[d]; ++i)
      a.selected[d].push_back(starts[d] + i);
  }
  return a;
}

ArraySelection darray_selection(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                                const int dargs[], const int psizes[], int order) {
  if (ndims <= 0) fail(MPI_ERR_ARG, fmt::format("ndims {} (at least 1)", ndims));
  if (size <= 0 || rank < 0 || rank >= size) fail(MPI_ERR_ARG, fmt::format("rank {} of {} processes", rank, size));
  ArraySelection a;
  a.c_order = c_order_of(order);
  int64_t procs = 1;
  for (int d = 0; d < ndims; ++d) {
    if (psizes[d] <= 0) fail(MPI_ERR_ARG, fmt::format("dimension {}: {} processes", d, psizes[d]));
    procs *= psizes[d];
  }
  if (procs != size) fail(MPI_ERR_ARG, fmt::format("the process grid holds {} processes, not {}", procs, size));
  const std::vector<int> coords = grid_coords(rank, std::vector<int>(psizes, psizes + ndims));
  a.selected.resize(ndims);
  for (int d = 0; d < ndims; ++d) {
    if (gsizes[d] <= 0) fail(MPI_ERR_ARG, fmt::format("dimension {}: global size {}", d, gsizes[d]));
    Distribution dist;
    switch (distribs[d]) {
      case MPI_DISTRIBUTE_BLOCK:
        dist = Distribution::kBlock;
        break;
      case MPI_DISTRIBUTE_CYCLIC:
        dist = Distribution::kCyclic;
        break;
      case MPI_DISTRIBUTE_NONE:
        dist = Distribution::kNone;
        break;
      default:
        fail(MPI_ERR_ARG, fmt::format("dimension {}: distribution {}", d, distribs[d]));
    }
    const int darg = dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? kDefaultDarg : dargs[d];
    if (darg != kDefaultDarg && darg <= 0) fail(MPI_ERR_ARG, fmt::format("dimension {}: darg {}", d, dargs[d]));
    std::string error;
    a.selected[d] = darray_indices(gsizes[d], dist, darg, psizes[d], coords[d], &error);
    if (!error.empty()) fail(MPI_ERR_ARG, fmt::format("dimension {}: {}", d, error));
    a.sizes.push_back(gsizes[d]);
  }
  return a;
}

}  // namespace mgen::mpi::abi

extern "C" {

int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[], int order,
                              MPI_Datatype old, MPI_Datatype* out) {
  return call("MPI_Type_create_subarray", MPI_COMM_WORLD, [&] {
    DType t = array_type(subarray_selection(ndims, sizes, subsizes, starts, order), old, MPI_COMBINER_SUBARRAY);
    std::vector<int> ints{ndims};
    for (const int* v : {sizes, subsizes, starts})
      for (int x : ints_of(ndims, v))
        ints.push_back(x);
    ints.push_back(order);
    record(t, {ints, {}, {old}});
    *out = add_type(std::move(t));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_create_subarray)

int PMPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[], const int dargs[],
                            const int psizes[], int order, MPI_Datatype old, MPI_Datatype* out) {
  return call("MPI_Type_create_darray", MPI_COMM_WORLD, [&] {
    DType t = array_type(darray_selection(size, rank, ndims, gsizes, distribs, dargs, psizes, order), old,
                         MPI_COMBINER_DARRAY);
    std::vector<int> ints{size, rank, ndims};
    for (const int* v : {gsizes, distribs, dargs, psizes})
      for (int x : ints_of(ndims, v))
        ints.push_back(x);
    ints.push_back(order);
    record(t, {ints, {}, {old}});
    *out = add_type(std::move(t));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_create_darray)

// ---- large counts (MPI-4.0 §5.1: the _c constructors and queries). Their contents are recorded
// as MPI_Type_get_contents (int) sees them; MPI_Type_get_contents_c is not provided.

namespace {
int int_or_fail(MPI_Count v) {
  if (v < 0) fail(MPI_ERR_COUNT, fmt::format("negative count {}", v));
  return v > INT32_MAX ? INT32_MAX : static_cast<int>(v);
}
MPI_Datatype make_large(const std::vector<TypeBlock>& blocks, int combiner, TypeArgs args) {
  DType t = build(blocks, combiner);
  record(t, std::move(args));
  return add_type(std::move(t));
}
}  // namespace

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype old, MPI_Datatype* out) {
  return call("MPI_Type_contiguous_c", MPI_COMM_WORLD, [&] {
    *out = make_large({{0, count, old}}, MPI_COMBINER_CONTIGUOUS, {{int_or_fail(count)}, {}, {old}});
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_contiguous_c)

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count lens[], const MPI_Count displs[], MPI_Datatype old,
                                MPI_Datatype* out) {
  return call("MPI_Type_create_hindexed_c", MPI_COMM_WORLD, [&] {
    std::vector<TypeBlock> b;
    std::vector<int> ints{int_or_fail(count)};
    std::vector<MPI_Aint> addrs;
    for (MPI_Count i = 0; i < count; ++i) {
      b.push_back({displs[i], lens[i], old});
      ints.push_back(int_or_fail(lens[i]));
      addrs.push_back(displs[i]);
    }
    *out = make_large(b, MPI_COMBINER_HINDEXED, {ints, addrs, {old}});
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_create_hindexed_c)

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count len, const MPI_Count displs[], MPI_Datatype old,
                                     MPI_Datatype* out) {
  return call("MPI_Type_create_indexed_block_c", MPI_COMM_WORLD, [&] {
    const int64_t ext = dtype_any(old).extent();
    std::vector<TypeBlock> b;
    std::vector<int> ints{int_or_fail(count), int_or_fail(len)};
    for (MPI_Count i = 0; i < count; ++i) {
      b.push_back({displs[i] * ext, len, old});
      ints.push_back(int_or_fail(displs[i]));
    }
    *out = make_large(b, MPI_COMBINER_INDEXED_BLOCK, {ints, {}, {old}});
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_create_indexed_block_c)

int PMPI_Type_size_c(MPI_Datatype type, MPI_Count* size) {
  return call("MPI_Type_size_c", MPI_COMM_WORLD, [&] {
    *size = static_cast<MPI_Count>(dtype_any(type).size);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_size_c)

int PMPI_Type_get_extent_c(MPI_Datatype type, MPI_Count* lb, MPI_Count* extent) {
  return call("MPI_Type_get_extent_c", MPI_COMM_WORLD, [&] {
    const DType& t = dtype_any(type);
    *lb = t.lb;
    *extent = t.extent();
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_get_extent_c)

int PMPI_Type_get_true_extent_c(MPI_Datatype type, MPI_Count* lb, MPI_Count* extent) {
  return call("MPI_Type_get_true_extent_c", MPI_COMM_WORLD, [&] {
    const DType& t = dtype_any(type);
    *lb = t.true_lb;
    *extent = t.true_ub - t.true_lb;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_get_true_extent_c)

int PMPI_Type_hindexed(int count, int lens[], MPI_Aint displs[], MPI_Datatype old, MPI_Datatype* out) {
  return PMPI_Type_create_hindexed(count, lens, displs, old, out);
}
MGEN_MPI_ALIAS(Type_hindexed)

// The predefined type of the class with that size: MPICH 4.0.2 answers with Fortran's sized
// types (MPI_REAL4 ..., MPI_INTEGER1 ..., MPI_COMPLEX8 ...).
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* out) {
  return call("MPI_Type_match_size", MPI_COMM_WORLD, [&] {
    static const MPI_Datatype kReal[] = {MPI_REAL4, MPI_REAL8, MPI_REAL16};
    static const MPI_Datatype kInteger[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8};
    static const MPI_Datatype kComplex[] = {MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32};
    std::vector<MPI_Datatype> candidates;
    switch (typeclass) {
      case MPI_TYPECLASS_REAL:
        candidates.assign(std::begin(kReal), std::end(kReal));
        break;
      case MPI_TYPECLASS_INTEGER:
        candidates.assign(std::begin(kInteger), std::end(kInteger));
        break;
      case MPI_TYPECLASS_COMPLEX:
        candidates.assign(std::begin(kComplex), std::end(kComplex));
        break;
      default:
        fail(MPI_ERR_ARG, fmt::format("type class {} is none of MPI_TYPECLASS_REAL, _INTEGER, _COMPLEX", typeclass));
    }
    for (MPI_Datatype t : candidates) {
      if (dtype_any(t).size == static_cast<uint64_t>(size)) {
        *out = t;
        return MPI_SUCCESS;
      }
    }
    fail(MPI_ERR_ARG, fmt::format("no predefined type of that class has {} bytes", size));
  });
}
MGEN_MPI_ALIAS(Type_match_size)

}  // extern "C"
