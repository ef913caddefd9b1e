// BT: NPB 3.3 MPI's block-tridiagonal solver (an ADI scheme for the 3-D compressible
// Navier-Stokes equations, 5x5 blocks). Multipartition of q*q processes (nas/multipartition.hpp);
// each time step exchanges faces and computes the right-hand side, then solves the x, y and z
// lines: a forward elimination pipelined through the q cells of a line of processes, each cell
// sending its last C' blocks and rhs' (MAX_CELL_DIM^2 (25 + 5) doubles) to the next, and a back
// substitution sending U back (MAX_CELL_DIM^2 5 doubles). Derivation: nas/docs/bt.md.
#include "kernels.hpp"
#include "multipartition.hpp"

namespace mgen::nas {
namespace {

using adi::Cell;
using adi::Multipartition;
using adi::Work;

constexpr adi::Grid kClasses[] = {{'S', 12, 60},   {'W', 24, 200},  {'A', 64, 200},  {'B', 102, 200},
                                  {'C', 162, 200}, {'D', 408, 250}, {'E', 1020, 250}};

// Work per grid point (nas/docs/bt.md, "Computation"). compute_rhs' auxiliaries: 1/rho, three
// velocities, the kinetic energy and qs from u (11 flops; 5 doubles in, 6 out).
constexpr Work kAux{11, 88};
// x_solve_cell per line point: the flux and viscous Jacobians (~90 flops), the three 5x5 blocks
// of the lhs (~310), rhs -= A rhs (50), B -= A C (250) and binvcrhs' Gauss-Jordan elimination
// of B against C and rhs (365); u, qs, rho_i and rhs read, rhs and the C block written.
constexpr Work kSolveCell{90 + 310 + 50 + 250 + 365, (7 + 10 + 25) * 8};
// Back substitution per line point: rhs -= C rhs (50 flops) over the C block and rhs.
constexpr Work kBacksub{50, (25 + 10) * 8};
// add: u += rhs.
constexpr Work kAdd{5, 15 * 8};
// lhsinit zeroes the C blocks.
constexpr Work kLhsinit{0, 25 * 8};

// Tags of the solves: the direction's base plus the cell's position in the other two.
constexpr int kForwardTag[3] = {adi::kWest, adi::kSouth, adi::kBottom};
constexpr int kBackTag[3] = {adi::kEast, adi::kNorth, adi::kTop};

int tag(int base, const Cell& c, int d, int q) {
  const int a = d == 0 ? 1 : 0, b = d == 2 ? 1 : 2;
  return base + c.coord[a] + c.coord[b] * q;
}

class Bt final : public Kernel {
 public:
  const char* name() const override { return "bt"; }

  std::string check(const Problem& p) const override { return adi::check(kClasses, "BT", p); }

  int iterations(const Problem& p) const override { return adi::grid(kClasses, "BT", p.cls).niter; }

  double mops(const Problem& p) const override {
    const adi::Grid& g = adi::grid(kClasses, "BT", p.cls);
    const double n = g.n, n3 = n * n * n;  // navg = n on cubic grids
    return 1e-6 * g.niter * (3478.8 * n3 - 17655.7 * n * n + 28023.7 * n);
  }

  void run(const Problem& p, Rank& r) const override {
    const adi::Grid& g = adi::grid(kClasses, "BT", p.cls);
    const adi::Comms c = adi::setup_mpi(r);
    // niter, dt, grid_points(1:3), wr_interval, rd_interval, timeron.
    r.bcast(1, 4, 0, c.setup);
    r.bcast(1, 8, 0, c.setup);
    r.bcast(3, 4, 0, c.setup);
    for (int i = 0; i < 3; ++i)
      r.bcast(1, 4, 0, c.setup);
    const Multipartition m = adi::make_set(g.n, r.size(), r.rank());
    const Work rhs = adi::rhs_work(m, kAux);
    // x_send_solve_info & co.: buffers of the compiled MAX_CELL_DIM = n / q + 1, whatever the cell.
    const uint64_t dim = static_cast<uint64_t>(g.n / m.q + 1);
    const Sizes sizes{dim * dim * 30, dim * dim * 5};
    Work add;
    for (const Cell& cell : m.cells)
      add = add + cell.interior() * kAdd;
    adi::main_program(m, c, r, timed_iterations(p, g.niter), rhs, kLhsinit, [&] {
      adi::copy_faces(m, c, r, rhs);
      for (int d = 0; d < 3; ++d)
        solve(m, c, r, d, sizes);
      adi::compute(r, add);
    });
  }

 private:
  struct Sizes {
    uint64_t forward, back;  // doubles per message
  };

  // x_solve (d = 0), y_solve, z_solve: stage k works on the cell in plane k of direction d.
  static void solve(const Multipartition& m, const adi::Comms& c, Rank& r, int d, const Sizes& s) {
    const int q = m.q;
    const Work pack_fwd{0, 16.0 * static_cast<double>(s.forward)}, pack_back{0, 16.0 * static_cast<double>(s.back)};
    MGEN_Request send = MGEN_REQUEST_NULL;
    for (int stage = 0; stage < q; ++stage) {
      const Cell& cell = m.cells[static_cast<size_t>(m.slice[d][static_cast<size_t>(stage)])];
      Work w = cell.line_points(d) * kSolveCell;
      if (stage > 0) {
        MGEN_Request recv = r.irecv(m.predecessor[d], 8 * s.forward, tag(kForwardTag[d], cell, d, q), c.solve);
        r.wait(send);
        r.wait(recv);
        w = w + pack_fwd;  // unpack C' and rhs' of the previous cell
      }
      if (stage < q - 1) w = w + pack_fwd;
      adi::compute(r, w);
      if (stage < q - 1) send = r.isend(m.successor[d], 8 * s.forward, tag(kForwardTag[d], cell, d, q), c.solve);
    }
    for (int stage = q - 1; stage >= 0; --stage) {
      const Cell& cell = m.cells[static_cast<size_t>(m.slice[d][static_cast<size_t>(stage)])];
      Work w = cell.line_points(d) * kBacksub;
      if (stage < q - 1) {
        MGEN_Request recv = r.irecv(m.successor[d], 8 * s.back, tag(kBackTag[d], cell, d, q), c.solve);
        r.wait(send);
        r.wait(recv);
        w = w + pack_back;
      }
      if (stage > 0) w = w + pack_back;
      adi::compute(r, w);
      if (stage > 0) send = r.isend(m.predecessor[d], 8 * s.back, tag(kBackTag[d], cell, d, q), c.solve);
    }
  }
};

}  // namespace

std::unique_ptr<Kernel> make_bt() {
  return std::make_unique<Bt>();
}

}  // namespace mgen::nas
