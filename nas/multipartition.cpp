#include "multipartition.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace mgen::nas::adi {
namespace {

int isqrt(int n) {
  int r = 0;
  while ((r + 1) * (r + 1) <= n)
    ++r;
  return r;
}

// Work per grid point, counted from NPB 3.3's loop bodies (nas/docs/bt.md, "Computation").
// compute_rhs: the forcing copied into rhs (5 doubles read and written); per direction the
// fluxes (~97 flops over u, the auxiliaries and rhs) and the fourth-order dissipation (~45 flops
// over u and rhs: 5 components x 9), 288 bytes; the final scaling by dt (5 flops).
constexpr Work kForcingCopy{0, 80};
constexpr Work kFluxes{3 * (97 + 45) + 5, 3 * 288 + 80};
// initialize: exact_solution (5 quartic polynomials in 3 variables: 130 flops) at the 6 face
// points of the transfinite interpolation and its 5 blends; u written.
constexpr Work kInitialize{6 * 130 + 5 * 12, 48};
// exact_rhs: exact_solution and the flux and dissipation differences of the forcing term
// along each direction; forcing zeroed, accumulated and negated.
constexpr Work kExactRhs{3 * (130 + 15 + 100 + 45), 200};
// error_norm: exact_solution and the squared difference; rhs_norm: the squares of rhs.
constexpr Work kErrorNorm{130 + 15, 40};
constexpr Work kRhsNorm{10, 40};

}  // namespace

const Grid& grid(std::span<const Grid> table, const char* kernel, char cls) {
  for (const Grid& g : table) {
    if (g.cls == cls) return g;
  }
  throw std::invalid_argument(fmt::format("{} has no class {}", kernel, cls));
}

std::string check(std::span<const Grid> table, const char* kernel, const Problem& p) {
  std::string why = check_class(kernel, p.cls, "SWABCDE");
  if (!why.empty()) return why;
  if (!square(p.ranks)) {
    return fmt::format("{} needs a square number of processes (1, 4, 9, 16, ...; got {})", kernel, p.ranks);
  }
  if (p.cls == 'S' && p.ranks > 16) {
    return fmt::format("{} class S runs on at most 16 processes: its cells would be too small (got {})", kernel,
                       p.ranks);
  }
  const int q = isqrt(p.ranks), n = grid(table, kernel, p.cls).n;
  if (n / q < 3) {
    return fmt::format("{} class {} on {} processes: cells of {} points per direction, fewer than the 3 make_set needs",
                       kernel, p.cls, p.ranks, n / q);
  }
  return "";
}

Multipartition make_set(int n, int nprocs, int node) {
  Multipartition m;
  const int q = isqrt(nprocs);
  m.q = q;
  m.cells.resize(static_cast<size_t>(q));
  // The bottom cell at (node mod q, node / q, 0); each plane up shifts x by +1 and y by -1
  // (cyclically), so the process meets every plane of every direction once.
  m.cells[0].coord = {node % q, node / q, 0};
  for (size_t c = 1; c < m.cells.size(); ++c) {
    const Cell& below = m.cells[c - 1];
    m.cells[c].coord = {(below.coord[0] + 1) % q, (below.coord[1] - 1 + q) % q, static_cast<int>(c)};
  }
  for (auto& s : m.slice)
    s.assign(static_cast<size_t>(q), 0);
  const int size = n / q, excess = n % q;
  for (size_t c = 0; c < m.cells.size(); ++c) {
    Cell& cell = m.cells[c];
    for (int d = 0; d < 3; ++d) {
      const int k = cell.coord[d];
      m.slice[d][static_cast<size_t>(k)] = static_cast<int>(c);
      cell.size[d] = k < excess ? size + 1 : size;
      cell.start[d] = k == 0 ? 1 : 0;
      cell.end[d] = k == q - 1 ? 1 : 0;
    }
  }
  // Neighbours of the bottom cell, as if the cell grid were periodic (the same processes hold
  // the neighbours of every plane).
  const int i = node % q, j = node / q;
  m.predecessor = {(i - 1 + q) % q + q * j, i + q * ((j - 1 + q) % q), (i + 1) % q + q * ((j - 1 + q) % q)};
  m.successor = {(i + 1) % q + q * j, i + q * ((j + 1) % q), (i - 1 + q) % q + q * ((j + 1) % q)};
  if (q == 1) return m;
  // Two planes of 5 doubles per face point, for the faces that are not on the grid boundary.
  for (const Cell& cell : m.cells) {
    const uint64_t yz = 10ULL * static_cast<uint64_t>(cell.size[1] * cell.size[2]);
    const uint64_t xz = 10ULL * static_cast<uint64_t>(cell.size[0] * cell.size[2]);
    const uint64_t xy = 10ULL * static_cast<uint64_t>(cell.size[0] * cell.size[1]);
    m.face[0] += cell.coord[0] != q - 1 ? yz : 0;  // east
    m.face[1] += cell.coord[0] != 0 ? yz : 0;      // west
    m.face[2] += cell.coord[1] != q - 1 ? xz : 0;  // north
    m.face[3] += cell.coord[1] != 0 ? xz : 0;      // south
    m.face[4] += cell.coord[2] != q - 1 ? xy : 0;  // top
    m.face[5] += cell.coord[2] != 0 ? xy : 0;      // bottom
  }
  return m;
}

Comms setup_mpi(Rank& r) {
  Comms c;
  c.setup = r.split(MGEN_COMM_WORLD, 0, r.rank());
  c.solve = r.dup(c.setup);
  c.rhs = r.dup(c.setup);
  return c;
}

void copy_faces(const Multipartition& m, const Comms& c, Rank& r, Work rhs) {
  if (m.q == 1) {
    compute(r, rhs);
    return;
  }
  double doubles = 0;
  for (uint64_t f : m.face)
    doubles += static_cast<double>(f);
  const Work pack{0, 16 * doubles};  // read u, write the buffer; the unpack the other way
  compute(r, pack);
  const auto& s = m.successor;
  const auto& p = m.predecessor;
  const auto& f = m.face;
  std::vector<MGEN_Request> q;
  q.push_back(r.irecv(s[0], 8 * f[0], kWest, c.rhs));
  q.push_back(r.irecv(p[0], 8 * f[1], kEast, c.rhs));
  q.push_back(r.irecv(s[1], 8 * f[2], kSouth, c.rhs));
  q.push_back(r.irecv(p[1], 8 * f[3], kNorth, c.rhs));
  q.push_back(r.irecv(s[2], 8 * f[4], kBottom, c.rhs));
  q.push_back(r.irecv(p[2], 8 * f[5], kTop, c.rhs));
  q.push_back(r.isend(s[0], 8 * f[0], kEast, c.rhs));
  q.push_back(r.isend(p[0], 8 * f[1], kWest, c.rhs));
  q.push_back(r.isend(s[1], 8 * f[2], kNorth, c.rhs));
  q.push_back(r.isend(p[1], 8 * f[3], kSouth, c.rhs));
  q.push_back(r.isend(s[2], 8 * f[4], kTop, c.rhs));
  q.push_back(r.isend(p[2], 8 * f[5], kBottom, c.rhs));
  r.waitall(q);
  compute(r, pack + rhs);
}

Work rhs_work(const Multipartition& m, Work aux) {
  Work w;
  for (const Cell& cell : m.cells)
    w = w + cell.with_ghosts() * aux + cell.points() * kForcingCopy + cell.interior() * kFluxes;
  return w;
}

void main_program(const Multipartition& m, const Comms& c, Rank& r, int niter, Work rhs, Work lhsinit,
                  const std::function<void()>& step) {
  double points = 0, interior = 0;
  for (const Cell& cell : m.cells) {
    points += cell.points();
    interior += cell.interior();
  }
  compute(r, points * kInitialize + points * lhsinit + interior * kExactRhs);
  step();  // one untimed step "to touch all code"
  compute(r, points * kInitialize);
  r.barrier(c.setup);
  r.timer_start();
  for (int i = 0; i < niter; ++i)
    step();
  r.timer_stop();
  compute(r, points * kErrorNorm);
  r.allreduce(5, 8, c.setup);
  copy_faces(m, c, r, rhs);
  compute(r, interior * kRhsNorm);
  r.allreduce(5, 8, c.setup);
  r.reduce(1, 8, 0, c.setup);  // the slowest time (MPI_MAX)
  r.barrier();                 // MPI_COMM_WORLD, before mpi_finalize
}

}  // namespace mgen::nas::adi
