// The cells of one process in NPB's multipartition (BT, SP), written from the closed forms of
// nas/docs/bt.md rather than from make_set's recurrences: with q = sqrt(np), process r holds in
// z-plane z the cell at x = (r mod q + z) mod q, y = (r / q - z) mod q; a cell at coordinate a
// spans n / q points, one more if a < n mod q.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "nas_common.hpp"

namespace mgen::test {

struct AdiCell {
  int q = 1;                  // cells per direction
  std::array<int, 3> at{};    // cell coordinates x, y, z
  std::array<int, 3> size{};  // grid points
  // Points off the grid's boundary planes.
  uint64_t inner(int d) const { return static_cast<uint64_t>(size[d] - (at[d] == 0) - (at[d] == q - 1)); }
};

inline std::vector<AdiCell> adi_cells(int n, int np, int rank) {
  int q = 1;
  while ((q + 1) * (q + 1) <= np)
    ++q;
  std::vector<AdiCell> out;
  for (int z = 0; z < q; ++z) {
    AdiCell c;
    c.q = q;
    c.at = {(rank % q + z) % q, ((rank / q - z) % q + q) % q, z};
    for (int d = 0; d < 3; ++d)
      c.size[d] = n / q + (c.at[d] < n % q ? 1 : 0);
    out.push_back(c);
  }
  return out;
}

// copy_faces' doubles per exchange (sent = received): 2 planes of 5 doubles per face point, for
// each cell face that is not on the grid boundary.
inline uint64_t adi_face_doubles(const std::vector<AdiCell>& cells) {
  uint64_t f = 0;
  for (const AdiCell& c : cells) {
    for (int d = 0; d < 3; ++d) {
      const uint64_t area = static_cast<uint64_t>(c.size[(d + 1) % 3] * c.size[(d + 2) % 3]);
      const uint64_t faces = 2 - (c.at[d] == 0) - (c.at[d] == c.q - 1);
      f += 10 * area * faces;
    }
  }
  return f;
}

}  // namespace mgen::test
