// What NPB 3.3 MPI's BT and SP share: the multipartition of the grid into cells (make_set,
// lhsinit's boundary flags), the communicators of setup_mpi, the six-way face exchange before
// every right-hand side (copy_faces with compute_buffer_size's buffers), the main program
// around the time steps and the verification norms. The kernels differ in their line solves
// (nas/bt.cpp, nas/sp.cpp). Derivation: nas/docs/bt.md and nas/docs/sp.md.
//
// Multipartition (NPB 2.0 report NAS-95-020): q*q processes, each owning q cells of a
// q x q x q grid of cells, one in every plane of every direction, so every stage of a pipelined
// line sweep keeps all processes busy.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "nas.hpp"

namespace mgen::nas::adi {

// A class: n^3 grid points, niter time steps (setparams' problem_size and niter_default).
struct Grid {
  char cls;
  int n, niter;
};
// The class `cls` of `table`; throws if absent (check() reports it first).
const Grid& grid(std::span<const Grid> table, const char* kernel, char cls);
// "" if `kernel` runs p, else the rule it breaks: a known class, a square number of processes,
// at most 16 for class S (setparams), cells of at least 3 points per direction (make_set).
std::string check(std::span<const Grid> table, const char* kernel, const Problem& p);

// Modelled work: floating-point operations and bytes of memory traffic.
struct Work {
  double flops = 0, bytes = 0;
};
inline Work operator*(double times, Work w) {
  return {times * w.flops, times * w.bytes};
}
inline Work operator+(Work a, Work b) {
  return {a.flops + b.flops, a.bytes + b.bytes};
}
inline void compute(Rank& r, Work w) {
  r.compute(w.flops, w.bytes);
}

// One cell of a process; directions 0, 1, 2 are NPB's x, y, z (i, j, k).
struct Cell {
  std::array<int, 3> coord{};  // 0-based (NPB's cell_coord - 1)
  std::array<int, 3> size{};   // grid points (cell_size)
  std::array<int, 3> start{};  // 1 where the cell holds the grid's low boundary plane (lhsinit)
  std::array<int, 3> end{};    // 1 where it holds the high boundary plane
  // Points off the boundary planes in direction d: what the solves and fluxes loop over.
  int inner(int d) const { return size[d] - start[d] - end[d]; }
  double points() const { return 1.0 * size[0] * size[1] * size[2]; }
  double interior() const { return 1.0 * inner(0) * inner(1) * inner(2); }
  // Lines of a sweep in direction d (interior in the two other directions) and their points.
  double lines(int d) const { return 1.0 * inner((d + 1) % 3) * inner((d + 2) % 3); }
  double line_points(int d) const { return size[d] * lines(d); }
  // compute_rhs' first loop covers the cell and one ghost layer on every side.
  double with_ghosts() const { return (size[0] + 2.0) * (size[1] + 2.0) * (size[2] + 2.0); }
};

// make_set for process `node` of q*q, and compute_buffer_size(5).
struct Multipartition {
  int q = 1;                              // ncells
  std::vector<Cell> cells;                // cell c lies in z-plane c
  std::array<std::vector<int>, 3> slice;  // slice[d][k]: the cell in plane k of direction d
  std::array<int, 3> successor{}, predecessor{};
  // copy_faces' buffers in doubles: east, west, north, south, top, bottom.
  std::array<uint64_t, 6> face{};
};
Multipartition make_set(int n, int nprocs, int node);

// Message tags of header.h (copy_faces; BT's solves add the cell's position to them).
constexpr int kEast = 2000, kWest = 3000, kNorth = 4000, kSouth = 5000, kBottom = 6000, kTop = 7000;

// setup_mpi: comm_setup (split of the active processes: all of them, the count being square)
// and its two duplicates, comm_solve for the line solves and comm_rhs for copy_faces.
struct Comms {
  MGEN_Comm setup = MGEN_COMM_WORLD, solve = MGEN_COMM_WORLD, rhs = MGEN_COMM_WORLD;
};
Comms setup_mpi(Rank& r);

// copy_faces: pack, six Irecv and six Isend on comm_rhs, Waitall, unpack, then compute_rhs
// (`rhs`, all cells). One process: compute_rhs only.
void copy_faces(const Multipartition& m, const Comms& c, Rank& r, Work rhs);

// compute_rhs' work for all cells: `aux` per point with ghosts (reciprocal density, velocities,
// ...), the forcing copy, the three flux and dissipation sweeps and the dt scaling.
Work rhs_work(const Multipartition& m, Work aux);

// Everything of the main program after the broadcasts: initialize, lhsinit (`lhsinit` per
// point), exact_rhs, one untimed step, initialize again, barrier, `niter` timed steps, verify
// (error_norm's Allreduce, copy_faces, rhs_norm's Allreduce), the Reduce of the time and the
// final world barrier.
void main_program(const Multipartition& m, const Comms& c, Rank& r, int niter, Work rhs, Work lhsinit,
                  const std::function<void()>& step);

}  // namespace mgen::nas::adi
