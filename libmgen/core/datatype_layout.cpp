#include "core/datatype_layout.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace mgen::mpi {

std::vector<int64_t> darray_indices(int64_t gsize, Distribution d, int darg, int procs, int coord, std::string* error) {
  std::vector<int64_t> out;
  switch (d) {
    case Distribution::kNone:
      if (procs != 1) {
        *error = fmt::format("MPI_DISTRIBUTE_NONE over {} processes (it needs exactly 1)", procs);
        return {};
      }
      for (int64_t i = 0; i < gsize; ++i)
        out.push_back(i);
      return out;
    case Distribution::kBlock: {
      const int64_t block = darg == kDefaultDarg ? (gsize + procs - 1) / procs : darg;
      if (block <= 0 || block * procs < gsize) {
        *error =
            fmt::format("MPI_DISTRIBUTE_BLOCK of {} elements over {} processes with blocks of {}", gsize, procs, block);
        return {};
      }
      const int64_t first = block * coord;
      for (int64_t i = first; i < std::min(gsize, first + block); ++i)
        out.push_back(i);
      return out;
    }
    case Distribution::kCyclic: {
      const int64_t block = darg == kDefaultDarg ? 1 : darg;
      if (block <= 0) {
        *error = fmt::format("MPI_DISTRIBUTE_CYCLIC with a block of {}", block);
        return {};
      }
      // Blocks of `block` dealt round-robin: this process takes blocks coord, coord + procs, ...
      for (int64_t start = block * coord; start < gsize; start += block * procs)
        for (int64_t i = start; i < std::min(gsize, start + block); ++i)
          out.push_back(i);
      return out;
    }
  }
  return out;
}

std::vector<int> grid_coords(int rank, const std::vector<int>& psizes) {
  std::vector<int> c(psizes.size());
  for (size_t k = psizes.size(); k-- > 0;) {
    c[k] = rank % psizes[k];
    rank /= psizes[k];
  }
  return c;
}

std::vector<std::pair<int64_t, int64_t>> array_runs(const std::vector<int64_t>& sizes,
                                                    const std::vector<std::vector<int64_t>>& selected, bool c_order) {
  std::vector<std::pair<int64_t, int64_t>> runs;
  const size_t n = sizes.size();
  if (n == 0) return runs;
  for (const auto& s : selected)
    if (s.empty()) return runs;
  // Dimensions from slowest to fastest, and the stride (in elements) of each.
  std::vector<size_t> dims(n);
  for (size_t k = 0; k < n; ++k)
    dims[k] = c_order ? k : n - 1 - k;
  std::vector<int64_t> stride(n);
  int64_t s = 1;
  for (size_t k = n; k-- > 0;) {
    stride[dims[k]] = s;
    s *= sizes[dims[k]];
  }
  const size_t fast = dims[n - 1];
  std::vector<size_t> at(n, 0);  // position in `selected` per dimension (odometer)
  while (true) {
    int64_t base = 0;
    for (size_t k = 0; k + 1 < n; ++k)
      base += selected[dims[k]][at[dims[k]]] * stride[dims[k]];
    for (int64_t i : selected[fast]) {
      const int64_t off = base + i;
      if (!runs.empty() && runs.back().first + runs.back().second == off) {
        ++runs.back().second;
      } else {
        runs.emplace_back(off, 1);
      }
    }
    // Next row: advance the odometer over every dimension but the fastest.
    size_t k = n - 1;
    while (k-- > 0) {
      const size_t d = dims[k];
      if (++at[d] < selected[d].size()) break;
      at[d] = 0;
    }
    if (k == static_cast<size_t>(-1)) return runs;
  }
}

}  // namespace mgen::mpi
