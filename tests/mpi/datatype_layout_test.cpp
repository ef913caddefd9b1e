// The element selections of MPI_Type_create_darray / _subarray (libmgen/core/datatype_layout),
// against examples worked by hand from MPI-3.1 §4.1.12-13.
#include <catch2/catch.hpp>

#include "core/datatype_layout.hpp"

using namespace mgen::mpi;
using Runs = std::vector<std::pair<int64_t, int64_t>>;
using Idx = std::vector<int64_t>;

TEST_CASE("darray BLOCK: ceil(gsize/procs) by default, the last process takes the rest", "[datatype]") {
  std::string err;
  CHECK(darray_indices(10, Distribution::kBlock, kDefaultDarg, 3, 0, &err) == Idx{0, 1, 2, 3});
  CHECK(darray_indices(10, Distribution::kBlock, kDefaultDarg, 3, 1, &err) == Idx{4, 5, 6, 7});
  CHECK(darray_indices(10, Distribution::kBlock, kDefaultDarg, 3, 2, &err) == Idx{8, 9});
  CHECK(err.empty());
  // BLOCK(3) over 4 processes: the last one owns a single element; a 4th process of BLOCK(3)
  // over 10 elements with 5 processes owns nothing.
  CHECK(darray_indices(10, Distribution::kBlock, 3, 4, 3, &err) == Idx{9});
  CHECK(darray_indices(10, Distribution::kBlock, 3, 5, 4, &err).empty());
  CHECK(err.empty());
  // darg * procs must cover the dimension.
  CHECK(darray_indices(10, Distribution::kBlock, 2, 4, 0, &err).empty());
  CHECK_FALSE(err.empty());
}

TEST_CASE("darray CYCLIC: blocks of darg dealt round-robin, 1 by default", "[datatype]") {
  std::string err;
  CHECK(darray_indices(10, Distribution::kCyclic, 2, 3, 0, &err) == Idx{0, 1, 6, 7});
  CHECK(darray_indices(10, Distribution::kCyclic, 2, 3, 1, &err) == Idx{2, 3, 8, 9});
  CHECK(darray_indices(10, Distribution::kCyclic, 2, 3, 2, &err) == Idx{4, 5});
  CHECK(darray_indices(10, Distribution::kCyclic, kDefaultDarg, 3, 1, &err) == Idx{1, 4, 7});
  // A cyclic block larger than the dimension: process 0 takes everything.
  CHECK(darray_indices(5, Distribution::kCyclic, 8, 2, 0, &err) == Idx{0, 1, 2, 3, 4});
  CHECK(darray_indices(5, Distribution::kCyclic, 8, 2, 1, &err).empty());
  CHECK(err.empty());
}

TEST_CASE("darray NONE: the whole dimension, on one process only", "[datatype]") {
  std::string err;
  CHECK(darray_indices(3, Distribution::kNone, kDefaultDarg, 1, 0, &err) == Idx{0, 1, 2});
  CHECK(err.empty());
  CHECK(darray_indices(3, Distribution::kNone, kDefaultDarg, 2, 0, &err).empty());
  CHECK_FALSE(err.empty());
}

TEST_CASE("process grids are numbered row-major", "[datatype]") {
  CHECK(grid_coords(5, {2, 3}) == std::vector<int>{1, 2});
  CHECK(grid_coords(3, {2, 2, 2}) == std::vector<int>{0, 1, 1});
  CHECK(grid_coords(0, {4}) == std::vector<int>{0});
}

TEST_CASE("array runs in memory order, C and Fortran", "[datatype]") {
  // 4 x 5 array, rows 1-2 whole: one run of 10 from element 5 (C order).
  CHECK(array_runs({4, 5}, {{1, 2}, {0, 1, 2, 3, 4}}, true) == Runs{{5, 10}});
  // Fortran order: dimension 0 is contiguous; (1..2, 3) starts at 3 * 4 + 1.
  CHECK(array_runs({4, 5}, {{1, 2}, {3}}, false) == Runs{{13, 2}});
  // Scattered elements stay separate runs, in increasing address.
  CHECK(array_runs({4, 5}, {{0, 2}, {1, 3}}, true) == Runs{{1, 1}, {3, 1}, {11, 1}, {13, 1}});
  CHECK(array_runs({4, 5}, {{0, 2}, {1, 3}}, false) == Runs{{4, 1}, {6, 1}, {12, 1}, {14, 1}});
  // 3-D, C order: a 2 x 2 x 3 block of a 3 x 4 x 5 array at (1, 1, 2).
  CHECK(array_runs({3, 4, 5}, {{1, 2}, {1, 2}, {2, 3, 4}}, true) == Runs{{27, 3}, {32, 3}, {47, 3}, {52, 3}});
  // Nothing selected in one dimension: no runs.
  CHECK(array_runs({3, 4}, {{}, {0, 1}}, true).empty());
}
