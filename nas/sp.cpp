// SP: NPB 3.3 MPI's scalar pentadiagonal solver (the Beam-Warming ADI scheme diagonalised:
// three scalar pentadiagonal systems per line, for the u, u+c and u-c eigenvalues).
// Multipartition of q*q processes (nas/multipartition.hpp); each time step exchanges faces,
// computes the right-hand side and its block-diagonal transform (txinvr), then solves the x, y
// and z lines with the Thomas algorithm pipelined through the q cells of a line of processes:
// the forward sweep sends the last two rows of every line (22 doubles), the back substitution
// the first two rows of the solution (10 doubles), sized by the cell's interior lines. Each
// stage computes while its receive is pending, as NPB does. Derivation: nas/docs/sp.md.
#include "kernels.hpp"
#include "multipartition.hpp"

namespace mgen::nas {
namespace {

using adi::Cell;
using adi::Multipartition;
using adi::Work;

constexpr adi::Grid kClasses[] = {{'S', 12, 100},  {'W', 36, 400},  {'A', 64, 400},  {'B', 102, 400},
                                  {'C', 162, 400}, {'D', 408, 500}, {'E', 1020, 500}};

constexpr int kDefaultTag = 0;  // every solve message (mpinpb.h's DEFAULT_TAG)

// Work per grid point or line (nas/docs/sp.md, "Computation"). compute_rhs' auxiliaries:
// BT's (1/rho, velocities, kinetic energy, qs) plus the speed of sound and its inverse.
constexpr Work kAux{17, 13 * 8};
// txinvr: the block-diagonal transform of rhs (28 flops; 7 auxiliaries read, rhs read and written).
constexpr Work kTxinvr{28, 17 * 8};
// lhsx / lhsy / lhsz per interior point: the viscous bound, the three diagonals of the first
// factor, the dissipation, the u+c and u-c factors (15 lhs values written).
constexpr Work kLhs{30, 20 * 8};
// Forward elimination per line point: 26 flops for the factor with 3 right-hand sides, 16 for
// each of the other two.
constexpr Work kForward{26 + 2 * 16, 34 * 8};
// Per line: folding in the predecessor's 22 doubles; packing 22 for the successor.
constexpr Work kUnpackForward{66, 50 * 8};
constexpr Work kPackForward{0, 22 * 16};
// Back substitution per line point: 2 multiply-subtracts for each of the 5 components.
constexpr Work kBacksub{20, 16 * 8};
// Per line: folding in the successor's 10 doubles, or starting the line in the last cell;
// packing 10 for the predecessor.
constexpr Work kUnpackBack{40, 30 * 8};
constexpr Work kFirstBack{10, 15 * 8};
constexpr Work kPackBack{0, 10 * 16};
// The inverse transforms after each direction's solve: ninvr, pinvr, tzetar.
constexpr Work kInvr[3] = {{7, 10 * 8}, {7, 10 * 8}, {27, 17 * 8}};
constexpr Work kAdd{5, 15 * 8};
// lhsinit zeroes the 15 lhs arrays and sets 3 diagonals.
constexpr Work kLhsinit{0, 18 * 8};

class Sp final : public Kernel {
 public:
  const char* name() const override { return "sp"; }

  std::string check(const Problem& p) const override { return adi::check(kClasses, "SP", p); }

  int iterations(const Problem& p) const override { return adi::grid(kClasses, "SP", p.cls).niter; }

  double mops(const Problem& p) const override {
    const adi::Grid& g = adi::grid(kClasses, "SP", p.cls);
    const double n = g.n;
    return (881.174 * n * n * n - 4683.91 * n * n + 11484.5 * n - 19272.4) * g.niter / 1e6;
  }

  void run(const Problem& p, Rank& r) const override {
    const adi::Grid& g = adi::grid(kClasses, "SP", p.cls);
    const adi::Comms c = adi::setup_mpi(r);
    r.bcast(1, 4, 0, c.setup);  // niter
    r.bcast(1, 8, 0, c.setup);  // dt
    r.bcast(3, 4, 0, c.setup);  // grid_points
    r.bcast(1, 4, 0, c.setup);  // timeron
    const Multipartition m = adi::make_set(g.n, r.size(), r.rank());
    const Work rhs = adi::rhs_work(m, kAux);
    Work txinvr, add;
    for (const Cell& cell : m.cells) {
      txinvr = txinvr + cell.interior() * kTxinvr;
      add = add + cell.interior() * kAdd;
    }
    adi::main_program(m, c, r, timed_iterations(p, g.niter), rhs, kLhsinit, [&] {
      adi::copy_faces(m, c, r, rhs);
      adi::compute(r, txinvr);
      for (int d = 0; d < 3; ++d)
        solve(m, c, r, d);
      adi::compute(r, add);
    });
  }

 private:
  // x_solve (d = 0), y_solve, z_solve. Stage k works on the cell in plane k of direction d; a
  // message carries 22 (forward) or 10 (back) doubles per interior line of that cell. Every
  // Waitall also completes the previous stage's send.
  static void solve(const Multipartition& m, const adi::Comms& c, Rank& r, int d) {
    const int q = m.q;
    const auto cell_at = [&](int stage) -> const Cell& {
      return m.cells[static_cast<size_t>(m.slice[d][static_cast<size_t>(stage)])];
    };
    const auto lines = [d](const Cell& cell) {
      return static_cast<uint64_t>(cell.inner((d + 1) % 3) * cell.inner((d + 2) % 3));
    };
    std::vector<MGEN_Request> pending;
    MGEN_Request send = MGEN_REQUEST_NULL;
    for (int stage = 0; stage < q; ++stage) {
      const Cell& cell = cell_at(stage);
      const double l = cell.lines(d);
      Work w = cell.line_points(d) * kForward;
      if (stage < q - 1) w = w + l * kPackForward;
      if (stage > 0) {
        const MGEN_Request recv = r.irecv(m.predecessor[d], 8 * 22 * lines(cell), kDefaultTag, c.solve);
        adi::compute(r, cell.interior() * kLhs);  // while the message travels
        pending = {recv, send};
        r.waitall(pending);
        adi::compute(r, l * kUnpackForward + w);
      } else {
        adi::compute(r, cell.interior() * kLhs + w);
      }
      if (stage < q - 1) send = r.isend(m.successor[d], 8 * 22 * lines(cell), kDefaultTag, c.solve);
    }
    for (int stage = q - 1; stage >= 0; --stage) {
      const Cell& cell = cell_at(stage);
      const double l = cell.lines(d);
      Work w = cell.line_points(d) * kBacksub;
      if (stage > 0) w = w + l * kPackBack;
      if (stage == 0) w = w + cell.interior() * kInvr[d];  // the last cell's inverse transform
      if (stage < q - 1) {
        const MGEN_Request recv = r.irecv(m.successor[d], 8 * 10 * lines(cell), kDefaultTag, c.solve);
        adi::compute(r, cell_at(stage + 1).interior() * kInvr[d]);  // the cell just finished
        pending = {recv, send};
        r.waitall(pending);
        adi::compute(r, l * kUnpackBack + w);
      } else {
        adi::compute(r, l * kFirstBack + w);
      }
      if (stage > 0) send = r.isend(m.predecessor[d], 8 * 10 * lines(cell), kDefaultTag, c.solve);
    }
  }
};

}  // namespace

std::unique_ptr<Kernel> make_sp() {
  return std::make_unique<Sp>();
}

}  // namespace mgen::nas
