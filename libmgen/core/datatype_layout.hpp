// Which elements of an N-dimensional array MPI_Type_create_subarray and MPI_Type_create_darray
// select (MPI-3.1 §4.1.12 and §4.1.13), as pure functions of their arguments: the MPI layer
// turns the runs into a datatype.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mgen::mpi {

enum class Distribution : uint8_t { kBlock, kCyclic, kNone };
// MPI_DISTRIBUTE_DFLT_DARG: a block of ceil(gsize / procs) for BLOCK, 1 for CYCLIC.
inline constexpr int kDefaultDarg = -1;

// The global indices along one dimension of `gsize` elements that process coordinate `coord`
// of `procs` owns, ascending. Sets `error` (and returns nothing) when MPI forbids the
// arguments (a BLOCK darg too small to cover the dimension, NONE over several processes).
std::vector<int64_t> darray_indices(int64_t gsize, Distribution d, int darg, int procs, int coord, std::string* error);

// The coordinates of `rank` in a process grid numbered in row-major order (MPI-3.1 §4.1.13,
// whatever the array order).
std::vector<int> grid_coords(int rank, const std::vector<int>& psizes);

// The selected elements of an array of `sizes` (per dimension, the selected indices,
// ascending), in memory order, as runs of (offset of the first element, length) in elements.
// `c_order`: the last dimension varies fastest; otherwise the first (Fortran).
std::vector<std::pair<int64_t, int64_t>> array_runs(const std::vector<int64_t>& sizes,
                                                    const std::vector<std::vector<int64_t>>& selected, bool c_order);

}  // namespace mgen::mpi
