// FT: NPB 3.3 MPI's 3-D FFT PDE solver. The nx x ny x nz grid is cut into z slabs (1-D layout,
// np <= nz) or into pencils on an np1 x np2 = nz x np/nz grid (2-D layout); every 3-D FFT
// transposes with MPI_Alltoall, once over all processes (1-D) or once in each direction of the
// process grid (2-D). Derivation: nas/docs/ft.md.
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>

#include "kernels.hpp"

namespace mgen::nas {
namespace {

struct FtClass {
  char cls;
  uint64_t nx, ny, nz;
  int niter;
};
constexpr FtClass kClasses[] = {{'S', 64, 64, 64, 6},       {'W', 128, 128, 32, 6},   {'A', 256, 256, 128, 6},
                                {'B', 512, 256, 256, 20},   {'C', 512, 512, 512, 20}, {'D', 2048, 1024, 1024, 25},
                                {'E', 4096, 2048, 2048, 25}};
constexpr uint64_t kComplex = 16;  // dc_type, MPI_DOUBLE_COMPLEX
constexpr int kChecksumPoints = 1024;
// Flop equivalents: dexp (the twiddle factors), vranlc per number (Bailey's 2^46 LCG in 23-bit
// halves), sin or cos (fft_init's roots of unity).
constexpr double kExp = 20, kVranlc = 16, kTrig = 20;

const FtClass& params(char cls) {
  for (const FtClass& c : kClasses) {
    if (c.cls == cls) return c;
  }
  throw std::invalid_argument(fmt::format("FT has no class {}", cls));
}

enum class Layout { k0D, k1D, k2D };

// setup's default process grid (no inputft.data): 1 x 1, 1 x np while np <= nz, else
// nz x np/nz. Every process holds ntdivnp = (nx ny / np) nz points in each phase.
struct Grid {
  Layout layout;
  uint64_t np1, np2, points;
};

Grid grid(const FtClass& c, int np) {
  const uint64_t n = static_cast<uint64_t>(np);
  const uint64_t points = c.nx * c.ny / n * c.nz;
  if (n == 1) return {Layout::k0D, 1, 1, points};
  if (n <= c.nz) return {Layout::k1D, 1, n, points};
  return {Layout::k2D, c.nz, n / c.nz, points};
}

uint64_t log2u(uint64_t n) {
  uint64_t l = 0;
  while ((uint64_t{1} << l) < n)
    ++l;
  return l;
}

// Computation between two MPI calls, summed and charged in one MGEN_Comp_work.
struct Work {
  double flops = 0, bytes = 0;
  void add(double f, double b) {
    flops += f;
    bytes += b;
  }
  void flush(Rank& r) {
    r.compute(flops, bytes);
    flops = bytes = 0;
  }
};

class Ft final : public Kernel {
 public:
  const char* name() const override { return "ft"; }

  std::string check(const Problem& p) const override {
    std::string why = check_class("FT", p.cls, "SWABCDE");
    if (!why.empty()) return why;
    if (!power_of_two(p.ranks)) return fmt::format("FT needs a power-of-two number of processes (got {})", p.ranks);
    const FtClass& c = params(p.cls);
    const uint64_t n = static_cast<uint64_t>(p.ranks);
    if (c.nx * c.ny / n * c.nz > static_cast<uint64_t>(INT_MAX)) {
      return fmt::format("FT class {} on {} processes: ntdivnp = (nx ny / np) nz = {} overflows NPB's 32-bit integer",
                         p.cls, p.ranks, c.nx * c.ny / n * c.nz);
    }
    if (n > c.nz * c.nz) {
      return fmt::format(
          "FT class {} has nz = {}: the {} x {} process grid leaves processes without a z plane (at most "
          "nz^2 = {} processes)",
          p.cls, c.nz, c.nz, n / c.nz, c.nz * c.nz);
    }
    const Grid g = grid(c, p.ranks);
    const uint64_t peer = kComplex * g.points / (g.layout == Layout::k2D ? std::min(g.np1, g.np2) : g.np2);
    if (peer > static_cast<uint64_t>(INT_MAX) && g.layout != Layout::k0D) {
      return fmt::format(
          "FT class {} on {} processes: {} bytes to each peer of a transpose exceed mgen's int byte counts", p.cls,
          p.ranks, peer);
    }
    return "";
  }

  int iterations(const Problem& p) const override { return params(p.cls).niter; }

  // NPB: ntotal (14.8157 + 7.19641 ln ntotal + (5.23518 + 7.21113 ln ntotal) niter).
  double mops(const Problem& p) const override {
    const FtClass& c = params(p.cls);
    const double nt = static_cast<double>(c.nx * c.ny * c.nz), l = std::log(nt);
    return 1e-6 * nt * (14.8157 + 7.19641 * l + (5.23518 + 7.21113 * l) * c.niter);
  }

  void run(const Problem& p, Rank& r) const override {
    const FtClass& c = params(p.cls);
    const Grid g = grid(c, r.size());
    // setup: the grid, niter and timers_enabled from rank 0, then the row and column slices.
    for (int i = 0; i < 5; ++i)
      r.bcast(1, 4, 0);
    const int me1 = r.rank() / static_cast<int>(g.np2), me2 = r.rank() % static_cast<int>(g.np2);
    const MGEN_Comm slice1 = r.split(MGEN_COMM_WORLD, me1, me2);
    const MGEN_Comm slice2 = r.split(MGEN_COMM_WORLD, me2, me1);
    const Ctx x{c, g, slice1, slice2};
    Work w;
    // One untimed pass of the setup and forward FFT touches every page.
    initial(x, w);
    fft(x, r, w, true);
    w.flush(r);
    r.barrier();
    r.timer_start();
    initial(x, w);
    fft(x, r, w, true);
    const double n = static_cast<double>(g.points);
    for (int it = 0; it < timed_iterations(p, c.niter); ++it) {
      w.add(2 * n, 56 * n);  // evolve: u0 *= twiddle, u1 = u0
      fft(x, r, w, false);
      w.add(8 * kChecksumPoints, 0);  // checksum: 1024 probes of the owned points
      w.flush(r);
      r.reduce(2, 8, 0);  // the checksum, one double complex
    }
    r.timer_stop();
  }

 private:
  struct Ctx {
    const FtClass& c;
    Grid g;
    MGEN_Comm slice1, slice2;
  };

  // compute_indexmap (one exp per point), compute_initial_conditions (two numbers per point),
  // fft_init (the roots of unity for length nx).
  static void initial(const Ctx& x, Work& w) {
    const double n = static_cast<double>(x.g.points);
    w.add(n * (kExp + 6) + 2 * n * kVranlc + 2 * kTrig * static_cast<double>(x.c.nx), 8 * n + 16 * n);
  }

  // One set of 1-D FFTs of length `len` along the local lines (Stockham, 5 len log2 len flops per
  // line), copied through the blocked scratch array: every point read and written once.
  static void cffts(const Ctx& x, Work& w, uint64_t len) {
    const double n = static_cast<double>(x.g.points);
    w.add(5 * n * static_cast<double>(log2u(len)), 2 * kComplex * n);
  }

  // A local reordering step of a transpose: every point read and written once.
  static void shuffle(const Ctx& x, Work& w) { w.add(0, 2 * kComplex * static_cast<double>(x.g.points)); }

  static void transpose(const Ctx& x, Rank& r, Work& w, MGEN_Comm comm, uint64_t procs) {
    shuffle(x, w);
    w.flush(r);
    r.alltoall(kComplex * x.g.points / procs, comm);
    shuffle(x, w);
  }

  // fft(1, ...) runs x, y, z; fft(-1, ...) z, y, x, with the transposes between as NPB orders
  // them for each layout.
  static void fft(const Ctx& x, Rank& r, Work& w, bool forward) {
    const FtClass& c = x.c;
    switch (x.g.layout) {
      case Layout::k0D:
        cffts(x, w, c.nx);
        cffts(x, w, c.ny);
        cffts(x, w, c.nz);
        break;
      case Layout::k1D:  // transpose_xy_z / transpose_x_yz over all processes
        cffts(x, w, forward ? c.nx : c.nz);
        if (forward) cffts(x, w, c.ny);
        transpose(x, r, w, x.slice1, x.g.np2);
        if (!forward) cffts(x, w, c.ny);
        cffts(x, w, forward ? c.nz : c.nx);
        break;
      case Layout::k2D:  // transpose_x_y over commslice2, transpose_x_z over commslice1
        cffts(x, w, forward ? c.nx : c.nz);
        if (forward) {
          transpose(x, r, w, x.slice2, x.g.np1);
        } else {
          transpose(x, r, w, x.slice1, x.g.np2);
        }
        cffts(x, w, c.ny);
        if (forward) {
          transpose(x, r, w, x.slice1, x.g.np2);
        } else {
          transpose(x, r, w, x.slice2, x.g.np1);
        }
        cffts(x, w, forward ? c.nz : c.nx);
        break;
    }
  }
};

}  // namespace

std::unique_ptr<Kernel> make_ft() {
  return std::make_unique<Ft>();
}

}  // namespace mgen::nas
