// LU: NPB 3.3 MPI's SSOR solver for the 3-D compressible Navier-Stokes equations, factored
// into lower and upper block-triangular sweeps. Processes form an xdim x ydim grid over the
// (i, j) plane, each owning every k; the lower sweep is a wavefront from the north-west
// corner, plane by plane (exchange_1: receive a row from the north and a column from the
// west, solve the plane, pass them on south and east), the upper sweep the mirror image.
// The right-hand side exchanges two-deep halos (exchange_3); the final surface integral
// passes boundary lines along the grid (exchange_4/5/6). Derivation: nas/docs/lu.md.
#include <fmt/format.h>

#include <stdexcept>

#include "kernels.hpp"

namespace mgen::nas {
namespace {

struct LuClass {
  char cls;
  int n, itmax;  // grid edge (nx0 = ny0 = nz0), SSOR iterations
};
constexpr LuClass kClasses[] = {{'S', 12, 50},   {'W', 33, 300},  {'A', 64, 250},  {'B', 102, 250},
                                {'C', 162, 250}, {'D', 408, 300}, {'E', 1020, 300}};
// applu.incl's message tags, named after where the message comes from.
constexpr int kFromS = 1, kFromN = 2, kFromE = 3, kFromW = 4;
// subdomain (NPB 3.3.1 and 3.4): every process needs this many points along x and y; it stops
// only below 3 ("SUBDOMAIN SIZE IS TOO SMALL"), so class S runs on 8, 12 and 16 processes.
constexpr int kMinLocal = 3;

const LuClass& params(char cls) {
  for (const LuClass& c : kClasses) {
    if (c.cls == cls) return c;
  }
  throw std::invalid_argument(fmt::format("LU has no class {}", cls));
}

// proc_grid as NPB 3.3.1 builds it (setparams' isqrt2 picks xdim at compile time): the factor
// pair np = xdim x ydim closest to square, xdim >= ydim, searched upwards from xdim =
// ceil(sqrt(np)), and only while xdim <= 2 ydim. For powers of two this is NPB 3.3's
// xdim = 2^ceil(log2(np) / 2). False if there is none (14 = 7 x 2, 22 = 11 x 2).
bool process_grid(int np, int& xdim, int& ydim) {
  xdim = 1;
  while (xdim * xdim < np)
    ++xdim;
  ydim = np / xdim;
  while (xdim * ydim != np && 2 * ydim >= xdim) {
    ++xdim;
    ydim = np / xdim;
  }
  return xdim * ydim == np && 2 * ydim >= xdim;
}

// One process's place (proc_grid, neighbors, subdomain, setcoeff), with NPB's 1-based
// indices: rows i = 1..nx at global offset ipt, columns j = 1..ny at jpt, all k = 1..nz.
struct Layout {
  int xdim = 1, ydim = 1, row = 1, col = 1;
  int north = -1, south = -1, west = -1, east = -1;
  int nx = 0, ny = 0, nz = 0, ipt = 0, jpt = 0;
  int ist = 0, iend = 0, jst = 0, jend = 0;  // the points the solver updates
  int isiz1 = 0, isiz2 = 0;                  // npbparams' array extents
  long plane() const { return static_cast<long>(iend - ist + 1) * (jend - jst + 1); }
  long interior() const { return plane() * (nz - 2); }
  long volume() const { return static_cast<long>(nx) * ny * nz; }
};

// An extent split over `parts` processes as subdomain does: the first n mod parts get one more.
void split(int n, int parts, int index, int& size, int& offset) {
  const int mm = n % parts;
  if (index <= mm) {
    size = n / parts + 1;
    offset = (index - 1) * size;
  } else {
    size = n / parts;
    offset = (index - 1) * size + mm;
  }
}

Layout layout(int n, int np, int id) {
  Layout l;
  process_grid(np, l.xdim, l.ydim);
  l.row = id % l.xdim + 1;
  l.col = id / l.xdim + 1;
  if (l.row > 1) l.north = id - 1;
  if (l.row < l.xdim) l.south = id + 1;
  if (l.col > 1) l.west = id - l.xdim;
  if (l.col < l.ydim) l.east = id + l.xdim;
  split(n, l.xdim, l.row, l.nx, l.ipt);
  split(n, l.ydim, l.col, l.ny, l.jpt);
  l.nz = n;
  l.ist = l.north == -1 ? 2 : 1;
  l.iend = l.south == -1 ? l.nx - 1 : l.nx;
  l.jst = l.west == -1 ? 2 : 1;
  l.jend = l.east == -1 ? l.ny - 1 : l.ny;
  l.isiz1 = (n + l.xdim - 1) / l.xdim;
  l.isiz2 = (n + l.ydim - 1) / l.ydim;
  return l;
}

// pintgr's integration ranges on this process (ii1 = 2, ii2 = nx0 - 1, ji1 = 2,
// ji2 = ny0 - 2, ki1 = 3, ki2 = nz0 - 1 from setcoeff).
struct Surface {
  int ibeg, ifin, ifin1, jbeg, jfin, jfin1;
};

Surface surface(const Layout& l, int n) {
  const int ii1 = 2, ii2 = n - 1, ji1 = 2, ji2 = n - 2;
  Surface s{l.nx + 1, 0, 0, l.ny + 1, 0, 0};
  const int i1 = l.ipt + 1, i2 = l.ipt + l.nx;
  if (i1 >= ii1 && i2 < ii2 + l.nx) s.ibeg = 1;
  if (i1 > ii1 - l.nx && i2 <= ii2) s.ifin = l.nx;
  if (ii1 >= i1 && ii1 <= i2) s.ibeg = ii1 - l.ipt;
  if (ii2 >= i1 && ii2 <= i2) s.ifin = ii2 - l.ipt;
  const int j1 = l.jpt + 1, j2 = l.jpt + l.ny;
  if (j1 >= ji1 && j2 < ji2 + l.ny) s.jbeg = 1;
  if (j1 > ji1 - l.ny && j2 <= ji2) s.jfin = l.ny;
  if (ji1 >= j1 && ji1 <= j2) s.jbeg = ji1 - l.jpt;
  if (ji2 >= j1 && ji2 <= j2) s.jfin = ji2 - l.jpt;
  s.ifin1 = l.ipt + s.ifin == ii2 ? s.ifin - 1 : s.ifin;
  s.jfin1 = l.jpt + s.jfin == ji2 ? s.jfin - 1 : s.jfin;
  return s;
}

// Operation counts per grid point. The flops apportion NPB's own count, the leading
// 1984.77 n^3 of its Mop/s formula, over the phases of one SSOR iteration in proportion to
// their loop bodies; the bytes are the arrays each phase streams (5 doubles per point for u,
// rsd, frct, flux; 4 blocks of 25 for the Jacobian of a plane).
constexpr double kRhsFlops = 200, kRhsBytes = 200;      // each of the xi, eta, zeta parts
constexpr double kJacFlops = 400, kJacBytes = 840;      // jacld / jacu: four 5x5 blocks
constexpr double kSweepFlops = 285, kSweepBytes = 880;  // blts / buts: block solve of a plane
constexpr double kExactFlops = 150;                     // exact(): five 13-term polynomials

class Lu final : public Kernel {
 public:
  const char* name() const override { return "lu"; }

  std::string check(const Problem& p) const override {
    std::string why = check_class("LU", p.cls, "SWABCDE");
    if (!why.empty()) return why;
    int xdim = 1, ydim = 1;
    if (p.ranks < 1 || !process_grid(p.ranks, xdim, ydim)) {
      return fmt::format(
          "LU needs a process count that factors as xdim x ydim with ydim <= xdim <= 2 ydim (NPB 3.3.1's "
          "proc_grid; got {})",
          p.ranks);
    }
    const int n = params(p.cls).n;
    if (n / xdim < kMinLocal || n / ydim < kMinLocal) {
      return fmt::format(
          "LU class {} ({}^3) on {} processes: the {}x{} process grid leaves subdomains of {}x{} points; "
          "each needs at least {} along x and y",
          p.cls, n, p.ranks, xdim, ydim, n / xdim, n / ydim, kMinLocal);
    }
    return "";
  }

  int iterations(const Problem& p) const override { return params(p.cls).itmax; }

  double mops(const Problem& p) const override {
    const LuClass& c = params(p.cls);
    // print_results' count with nx0 = ny0 = nz0 = n; avg is (nx0 + ny0 + nz0) / 3.
    const double n = c.n, avg = (n + n + n) / 3.0;
    return c.itmax * (1984.77 * n * n * n - 10923.3 * avg * avg + 27770.9 * avg - 144010.0) / 1e6;
  }

  void run(const Problem& p, Rank& r) const override {
    const LuClass& c = params(p.cls);
    const Layout l = layout(c.n, r.size(), r.rank());
    // bcast_inputs: ipr, inorm, itmax, dt, omega, tolrsd(5), nx0, ny0, nz0, timeron.
    for (int i = 0; i < 3; ++i)
      r.bcast(1, 4, 0);
    r.bcast(1, 8, 0);
    r.bcast(1, 8, 0);
    r.bcast(5, 8, 0);
    for (int i = 0; i < 4; ++i)
      r.bcast(1, 4, 0);
    set_values(l, r);
    erhs(l, r);
    ssor(l, r, 1, false);  // one iteration to touch all data
    set_values(l, r);
    ssor(l, r, timed_iterations(p, c.itmax), true);
    error(l, r);
    pintgr(l, c.n, r);
  }

 private:
  // setbv (exact values on the boundary faces) and setiv (transfinite interpolation of six
  // exact values into the interior).
  static void set_values(const Layout& l, Rank& r) {
    const double faces =
        2.0 * (static_cast<double>(l.nx) * l.ny + static_cast<double>(l.nx) * l.nz + static_cast<double>(l.ny) * l.nz);
    const double n = static_cast<double>(l.interior());
    r.compute(kExactFlops * faces + (6 * kExactFlops + 100) * n, 40.0 * faces + 40.0 * n);
  }

  // exchange_3: two-deep halos of a 5-component array, north/south (iex = 0, 10 ny nz
  // doubles) or west/east (iex = 1, 10 nx nz doubles): receive from one side while sending to
  // the other, then the reverse.
  static void exchange_3(const Layout& l, int iex, Rank& r) {
    const int lo = iex == 0 ? l.north : l.west, hi = iex == 0 ? l.south : l.east;
    const int from_lo = iex == 0 ? kFromN : kFromW, from_hi = iex == 0 ? kFromS : kFromE;
    const uint64_t bytes = 80 * static_cast<uint64_t>(iex == 0 ? l.ny : l.nx) * static_cast<uint64_t>(l.nz);
    if (lo != -1) {
      MGEN_Request q = r.irecv(lo, bytes, from_lo);
      if (hi != -1) r.send(hi, bytes, from_lo);
      r.wait(q);
    } else if (hi != -1) {
      r.send(hi, bytes, from_lo);
    }
    if (hi != -1) {
      MGEN_Request q = r.irecv(hi, bytes, from_hi);
      if (lo != -1) r.send(lo, bytes, from_hi);
      r.wait(q);
    } else if (lo != -1) {
      r.send(lo, bytes, from_hi);
    }
  }

  // erhs: the forcing term from the exact solution, with rhs's flux differences.
  static void erhs(const Layout& l, Rank& r) {
    const double v = static_cast<double>(l.volume()), n = static_cast<double>(l.interior());
    r.compute(kExactFlops * v, 120.0 * v);
    exchange_3(l, 0, r);
    r.compute(kRhsFlops * n, kRhsBytes * n);
    exchange_3(l, 1, r);
    r.compute(2 * kRhsFlops * n, 2 * kRhsBytes * n);
  }

  // rhs: rsd = -frct, then the xi fluxes after the north/south halo, the eta and zeta fluxes
  // after the west/east one.
  static void rhs(const Layout& l, Rank& r) {
    const double n = static_cast<double>(l.interior());
    r.compute(0, 80.0 * static_cast<double>(l.volume()));
    exchange_3(l, 0, r);
    r.compute(kRhsFlops * n, kRhsBytes * n);
    exchange_3(l, 1, r);
    r.compute(2 * kRhsFlops * n, 2 * kRhsBytes * n);
  }

  // l2norm: sums of squares of the five components, summed over all processes.
  static void l2norm(const Layout& l, Rank& r) {
    const double n = static_cast<double>(l.interior());
    r.compute(10.0 * n, 40.0 * n);
    r.allreduce(5, 8);
  }

  // One plane of the lower sweep: jacld, then blts between exchange_1's receives from the
  // north and west (iex = 0) and its sends to the south and east (iex = 2).
  static void lower(const Layout& l, Rank& r) {
    const double n = static_cast<double>(l.plane());
    const uint64_t ns = 40 * static_cast<uint64_t>(l.jend - l.jst + 1);
    const uint64_t we = 40 * static_cast<uint64_t>(l.iend - l.ist + 1);
    r.compute(kJacFlops * n, kJacBytes * n);
    if (l.north != -1) r.recv(l.north, ns, kFromN);
    if (l.west != -1) r.recv(l.west, we, kFromW);
    r.compute(kSweepFlops * n, kSweepBytes * n);
    if (l.south != -1) r.send(l.south, ns, kFromN);
    if (l.east != -1) r.send(l.east, we, kFromW);
  }

  // One plane of the upper sweep: jacu, then buts between receives from the south and east
  // (iex = 1) and sends to the north and west (iex = 3).
  static void upper(const Layout& l, Rank& r) {
    const double n = static_cast<double>(l.plane());
    const uint64_t ns = 40 * static_cast<uint64_t>(l.jend - l.jst + 1);
    const uint64_t we = 40 * static_cast<uint64_t>(l.iend - l.ist + 1);
    r.compute(kJacFlops * n, kJacBytes * n);
    if (l.south != -1) r.recv(l.south, ns, kFromS);
    if (l.east != -1) r.recv(l.east, we, kFromE);
    r.compute(kSweepFlops * n, kSweepBytes * n);
    if (l.north != -1) r.send(l.north, ns, kFromS);
    if (l.west != -1) r.send(l.west, we, kFromE);
  }

  // ssor(niter): residual and its norm, then niter SSOR steps (timed in the second call);
  // NPB prints norms every inorm = itmax steps, so only the last timed step adds the two
  // l2norms (also when fewer steps are sampled).
  static void ssor(const Layout& l, Rank& r, int niter, bool timed) {
    const double n = static_cast<double>(l.interior());
    r.compute(0, 4 * 25 * 8.0 * l.isiz1 * l.isiz2);  // a, b, c, d = 0
    rhs(l, r);
    l2norm(l, r);
    r.barrier();
    if (timed) r.timer_start();
    for (int istep = 1; istep <= niter; ++istep) {
      r.compute(5.0 * n, 80.0 * n);  // rsd = dt rsd
      for (int k = 2; k <= l.nz - 1; ++k)
        lower(l, r);
      for (int k = l.nz - 1; k >= 2; --k)
        upper(l, r);
      r.compute(10.0 * n, 120.0 * n);  // u = u + rsd / (omega (2 - omega))
      if (timed && istep == niter) l2norm(l, r);
      rhs(l, r);
      if (timed && istep == niter) l2norm(l, r);
    }
    if (timed) r.timer_stop();
    r.allreduce(1, 8);  // maxtime
  }

  // error: the RMS error against exact() over the interior, summed over all processes.
  static void error(const Layout& l, Rank& r) {
    const double n = static_cast<double>(l.interior());
    r.compute((kExactFlops + 15) * n, 40.0 * n);
    r.allreduce(5, 8);
  }

  // exchange_4: the two surfaces' first lines pass west (2 nx doubles, received from the
  // east first) then north (2 (ny + 2) doubles, received from the south first).
  static void exchange_4(const Layout& l, const Surface& s, Rank& r) {
    const uint64_t we = 16 * static_cast<uint64_t>(l.nx), ns = 16 * static_cast<uint64_t>(l.ny + 2);
    if (s.jfin1 == l.ny && l.east != -1) {
      MGEN_Request q = r.irecv(l.east, we, kFromE);
      r.wait(q);
    }
    if (s.jbeg == 1 && l.west != -1) r.send(l.west, we, kFromE);
    if (s.ifin1 == l.nx && l.south != -1) {
      MGEN_Request q = r.irecv(l.south, ns, kFromS);
      r.wait(q);
    }
    if (s.ibeg == 1 && l.north != -1) r.send(l.north, ns, kFromS);
  }

  // exchange_5 (north, along i) and exchange_6 (west, along j): one line of nz doubles.
  static void exchange_5(const Layout& l, const Surface& s, Rank& r) {
    const uint64_t bytes = 8 * static_cast<uint64_t>(l.nz);
    if (s.ifin1 == l.nx && l.south != -1) {
      MGEN_Request q = r.irecv(l.south, bytes, kFromS);
      r.wait(q);
    }
    if (s.ibeg == 1 && l.north != -1) r.send(l.north, bytes, kFromS);
  }

  static void exchange_6(const Layout& l, const Surface& s, Rank& r) {
    const uint64_t bytes = 8 * static_cast<uint64_t>(l.nz);
    if (s.jfin1 == l.ny && l.east != -1) {
      MGEN_Request q = r.irecv(l.east, bytes, kFromE);
      r.wait(q);
    }
    if (s.jbeg == 1 && l.west != -1) r.send(l.west, bytes, kFromE);
  }

  // pintgr: the surface integral over three pairs of faces, each local part summed over all
  // processes; the faces of constant j belong to the first and last process columns, those of
  // constant i to the first and last rows.
  static void pintgr(const Layout& l, int n, Rank& r) {
    const Surface s = surface(l, n);
    const int ji1 = 2, ji2 = n - 2, ii1 = 2, ii2 = n - 1, ki1 = 3, ki2 = n - 1;
    const double clear = 2 * 8.0 * (l.isiz2 + 2) * (n + 2);  // phi1, phi2 = 0
    const auto span = [](int a, int b) { return b >= a ? static_cast<double>(b - a + 1) : 0.0; };
    const double ij = span(s.ibeg, s.ifin) * span(s.jbeg, s.jfin), depth = span(ki1, ki2);
    r.compute(2 * 15.0 * ij, clear + 2 * 48.0 * ij);
    exchange_4(l, s, r);
    r.compute(8.0 * ij, 16.0 * ij);
    r.allreduce(1, 8);
    const bool j_lo = l.jpt + s.jbeg == ji1, j_hi = l.jpt + s.jfin == ji2;
    const double ik = span(s.ibeg, s.ifin) * depth * ((j_lo ? 1 : 0) + (j_hi ? 1 : 0));
    r.compute(15.0 * ik, clear + 48.0 * ik);
    if (j_lo) exchange_5(l, s, r);
    if (j_hi) exchange_5(l, s, r);
    r.compute(8.0 * ik, 16.0 * ik);
    r.allreduce(1, 8);
    const bool i_lo = l.ipt + s.ibeg == ii1, i_hi = l.ipt + s.ifin == ii2;
    const double jk = span(s.jbeg, s.jfin) * depth * ((i_lo ? 1 : 0) + (i_hi ? 1 : 0));
    r.compute(15.0 * jk, clear + 48.0 * jk);
    if (i_lo) exchange_6(l, s, r);
    if (i_hi) exchange_6(l, s, r);
    r.compute(8.0 * jk, 16.0 * jk);
    r.allreduce(1, 8);
  }
};

}  // namespace

std::unique_ptr<Kernel> make_lu() {
  return std::make_unique<Lu>();
}

}  // namespace mgen::nas
