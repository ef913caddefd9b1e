// MG: NPB 3.3 MPI's multigrid V-cycle for a 3-D Poisson problem on a periodic n^3 grid.
// Processes form a 3-D grid (setup: 2^(log2(np)/3) along x, then y, the rest along z); each
// level of the V-cycle halves the grid, so on the coarse levels some processes run out of
// points ("dead" levels) and their neighbours skip over them, and the prolongation back up
// hands the points out again (comm3_ex: give3_ex / take3_ex). Every smoothing, residual and
// restriction step ends with comm3: a face exchange per axis with both neighbours, whose
// receives are posted with the full buffer size nm2. Derivation: nas/docs/mg.md.
#include <fmt/format.h>

#include <stdexcept>

#include "kernels.hpp"

namespace mgen::nas {
namespace {

struct MgClass {
  char cls;
  int n, nit;  // grid edge (nx = ny = nz), timed V-cycles
};
constexpr MgClass kClasses[] = {{'S', 32, 4},   {'W', 128, 4},   {'A', 256, 4},  {'B', 256, 20},
                                {'C', 512, 20}, {'D', 1024, 50}, {'E', 2048, 50}};
// globals.h: the most processes the coarse-grid array sizing (nr) allows.
constexpr int kMaxProcs = 131072;
// zran3: the ten largest and ten smallest random values are located by allreduces.
constexpr int kZranPoints = 10;

const MgClass& params(char cls) {
  for (const MgClass& c : kClasses) {
    if (c.cls == cls) return c;
  }
  throw std::invalid_argument(fmt::format("MG has no class {}", cls));
}

int log2_floor(long v) {
  int l = 0;
  while ((2L << l) <= v)
    ++l;
  return l;
}

// setup's process grid: 2^(log2 np / 3) processes along x, half the rest (rounded down) along
// y, the remainder along z.
struct Grid {
  int p[3];
};
Grid process_grid(int np) {
  const int log_p = log2_floor(np);
  const int dx = log_p / 3, dy = (log_p - dx) / 2;
  return {{1 << dx, 1 << dy, np / ((1 << dx) * (1 << dy))}};
}

// One level of the V-cycle as this process sees it (setup's mi, dead, give_ex, take_ex, nbr).
struct Level {
  long m[3] = {0, 0, 0};  // local extent including the two ghost planes
  bool dead = false;      // holds no point on this level
  bool give_ex[3] = {false, false, false}, take_ex[3] = {false, false, false};  // comm3_ex roles
  int nbr[3][2] = {{0, 0}, {0, 0}, {0, 0}};  // partner along axis in direction -1 ([0]) and +1 ([1])
  long interior() const { return (m[0] - 2) * (m[1] - 2) * (m[2] - 2); }
  long volume() const { return m[0] * m[1] * m[2]; }
  // give3/take3 face (doubles): the interior of the face for x, then growing with the ghosts
  // already filled along the earlier axes.
  long face(int axis) const {
    if (axis == 0) return (m[1] - 2) * (m[2] - 2);
    if (axis == 1) return m[0] * (m[2] - 2);
    return m[0] * m[1];
  }
  // give3_ex's whole face (doubles), sent once in direction -1 and twice as deep in +1.
  long ex_face(int axis) const {
    if (axis == 0) return m[1] * m[2];
    if (axis == 1) return m[0] * m[2];
    return m[0] * m[1];
  }
};

struct Layout {
  int lt = 0;                // levels 1..lt, lt = log2 n
  long nm2 = 0;              // comm buffer (doubles): 2 (2 + 2^lm)^2, lm from npbparams
  std::vector<Level> level;  // [1..lt]
  const Level& at(int k) const { return level[static_cast<size_t>(k)]; }
};

Layout layout(int n, int np, int me) {
  Layout l;
  l.lt = log2_floor(n);
  const long nm = 2 + (1L << (l.lt - log2_floor(np) / 3));
  l.nm2 = 2 * nm * nm;
  l.level.resize(static_cast<size_t>(l.lt) + 1);
  const Grid g = process_grid(np);
  const long idi[3] = {me % g.p[0], (me / g.p[0]) % g.p[1], me / (g.p[0] * g.p[1])};
  long next[3] = {1, 1, 1};
  for (int k = l.lt; k >= 1; --k) {
    Level& v = l.level[static_cast<size_t>(k)];
    const long ng = static_cast<long>(n) >> (l.lt - k);
    for (int ax = 0; ax < 3; ++ax) {
      const long p = g.p[ax];
      const long mi = 2 + ((idi[ax] + 1) * ng) / p - (idi[ax] * ng) / p;
      // The extent of the process `next` further on: 2 means it holds nothing on this level.
      const long mip = 2 + ((next[ax] + idi[ax] + 1) * ng) / p - ((next[ax] + idi[ax]) * ng) / p;
      if (mip == 2 || mi == 2) next[ax] *= 2;
      if (k < l.lt) {
        Level& up = l.level[static_cast<size_t>(k) + 1];
        if (mip == 2 && mi == 3) up.give_ex[ax] = true;
        if (mip == 3 && mi == 2) up.take_ex[ax] = true;
      }
      v.m[ax] = mi;
      if (mi == 2) v.dead = true;
    }
    for (int ax = 0; ax < 3; ++ax) {
      for (int d = 0; d < 2; ++d) {
        long id[3] = {idi[0], idi[1], idi[2]};
        const long p = g.p[ax];
        id[ax] = (idi[ax] + (d == 0 ? -next[ax] : next[ax]) + p) % p;
        v.nbr[ax][d] = static_cast<int>(id[0] + g.p[0] * (id[1] + g.p[1] * id[2]));
      }
    }
  }
  return l;
}

// setup's msg_type(axis, dir): the tag of messages travelling in direction dir along axis.
int tag(int axis, int dir) {
  return 100 * (dir + 2 + 10 * (axis + 1));
}

class Mg final : public Kernel {
 public:
  const char* name() const override { return "mg"; }

  std::string check(const Problem& p) const override {
    std::string why = check_class("MG", p.cls, "SWABCDE");
    if (!why.empty()) return why;
    if (!power_of_two(p.ranks)) return fmt::format("MG needs a power-of-two number of processes (got {})", p.ranks);
    if (p.ranks > kMaxProcs) return fmt::format("MG runs on at most {} processes (got {})", kMaxProcs, p.ranks);
    const int n = params(p.cls).n;
    const Grid g = process_grid(p.ranks);
    if (g.p[2] > n) {
      return fmt::format(
          "MG class {} ({}^3) on {} processes: the {}x{}x{} process grid leaves processes without grid "
          "points along z (at most {} processes)",
          p.cls, n, p.ranks, g.p[0], g.p[1], g.p[2], static_cast<long>(n) * n * n);
    }
    return "";
  }

  int iterations(const Problem& p) const override { return params(p.cls).nit; }

  double mops(const Problem& p) const override {
    const MgClass& c = params(p.cls);
    const double nn = static_cast<double>(c.n) * c.n * c.n;
    return 58.0 * c.nit * nn / 1e6;
  }

  void run(const Problem& p, Rank& r) const override {
    const MgClass& c = params(p.cls);
    const Layout l = layout(c.n, r.size(), r.rank());
    const int lt = l.lt;
    r.barrier();
    // Inputs from the root: lt, nit, nx, ny, nz, debug_vec(0:7), timeron.
    for (int i = 0; i < 5; ++i)
      r.bcast(1, 4, 0);
    r.bcast(8, 4, 0);
    r.bcast(1, 4, 0);
    // u = 0 and v = the random charges; norms of v; r = v - Au and its norms.
    zran3(l, r);
    norm2u3(l, r);
    resid(l, lt, r);
    norm2u3(l, r);
    // One untimed iteration, then u and v again.
    mg3p(l, r);
    resid(l, lt, r);
    zran3(l, r);
    r.barrier();
    r.timer_start();
    resid(l, lt, r);
    norm2u3(l, r);
    for (int it = 0; it < timed_iterations(p, c.nit); ++it) {
      mg3p(l, r);
      resid(l, lt, r);
    }
    norm2u3(l, r);
    r.timer_stop();
    r.reduce(1, 8, 0);  // the slowest time
  }

 private:
  // Memory traffic of comm3 besides the messages: ready() clears an nm2 buffer per receive,
  // give3 packs and take3 unpacks each face (read + write). A dead level only zeroes its array.
  static double comm3_bytes(const Layout& l, const Level& v) {
    if (v.dead) return 8.0 * static_cast<double>(v.volume());
    double b = 0;
    for (int ax = 0; ax < 3; ++ax)
      b += 2 * 8.0 * static_cast<double>(l.nm2) + 4 * 16.0 * static_cast<double>(v.face(ax));
    return b;
  }

  static double comm3_ex_bytes(const Layout& l, const Level& v) {
    double b = 0;
    for (int ax = 0; ax < 3; ++ax) {
      if (v.take_ex[ax]) b += 2 * 8.0 * static_cast<double>(l.nm2) + 3 * 16.0 * static_cast<double>(v.ex_face(ax));
      if (v.give_ex[ax]) b += 3 * 16.0 * static_cast<double>(v.ex_face(ax));
    }
    return b;
  }

  // comm3: per axis, post both receives (full nm2 buffers), send the two faces, wait.
  static void comm3(const Layout& l, int k, Rank& r) {
    const Level& v = l.at(k);
    if (v.dead || r.size() == 1) return;
    const uint64_t cap = 8 * static_cast<uint64_t>(l.nm2);
    for (int ax = 0; ax < 3; ++ax) {
      const uint64_t bytes = 8 * static_cast<uint64_t>(v.face(ax));
      MGEN_Request from_plus = r.irecv(v.nbr[ax][1], cap, tag(ax, -1));
      MGEN_Request from_minus = r.irecv(v.nbr[ax][0], cap, tag(ax, +1));
      r.send(v.nbr[ax][1], bytes, tag(ax, +1));
      r.send(v.nbr[ax][0], bytes, tag(ax, -1));
      r.wait(from_plus);
      r.wait(from_minus);
    }
  }

  // comm3_ex after interp to level k: processes that were empty on level k-1 take whole faces
  // from both sides; those that held its points give them (twice as deep towards +1).
  static void comm3_ex(const Layout& l, int k, Rank& r) {
    const Level& v = l.at(k);
    if (r.size() == 1) return;
    const uint64_t cap = 8 * static_cast<uint64_t>(l.nm2);
    for (int ax = 0; ax < 3; ++ax) {
      const uint64_t bytes = 8 * static_cast<uint64_t>(v.ex_face(ax));
      if (v.take_ex[ax]) {
        MGEN_Request from_plus = r.irecv(v.nbr[ax][1], cap, tag(ax, -1));
        MGEN_Request from_minus = r.irecv(v.nbr[ax][0], cap, tag(ax, +1));
        r.wait(from_plus);
        r.wait(from_minus);
      }
      if (v.give_ex[ax]) {
        r.send(v.nbr[ax][1], 2 * bytes, tag(ax, +1));
        r.send(v.nbr[ax][0], bytes, tag(ax, -1));
      }
    }
  }

  // r = v - A u on level k: 15 flops per point (NPB: 12 adds, 3 multiplies with a(1) = 0),
  // reading u and v, writing r.
  static void resid(const Layout& l, int k, Rank& r) {
    const Level& v = l.at(k);
    const double n = static_cast<double>(v.interior());
    r.compute(15.0 * n, 32.0 * n + comm3_bytes(l, v));
    comm3(l, k, r);
  }

  // u = u + C r on level k: 16 flops per point (13 adds, 3 multiplies with c(3) = 0).
  static void psinv(const Layout& l, int k, Rank& r, double extra_bytes = 0) {
    const Level& v = l.at(k);
    const double n = static_cast<double>(v.interior());
    r.compute(16.0 * n, 24.0 * n + extra_bytes + comm3_bytes(l, v));
    comm3(l, k, r);
  }

  // Restriction from level k to k-1: 24 flops per coarse point (20 adds, 4 multiplies),
  // reading the eight fine points under it.
  static void rprj3(const Layout& l, int k, Rank& r) {
    const Level& v = l.at(k - 1);
    const double n = static_cast<double>(v.interior());
    r.compute(24.0 * n, 80.0 * n + comm3_bytes(l, v));
    comm3(l, k - 1, r);
  }

  // Prolongation from level k-1 onto level k (u zeroed first below the top): about 23 flops
  // per coarse cell, i.e. 3 per fine point, updating u in place.
  static void interp(const Layout& l, int k, Rank& r) {
    const Level& v = l.at(k);
    const double n = static_cast<double>(v.interior());
    const double zero = k < l.lt ? 8.0 * static_cast<double>(v.volume()) : 0.0;
    r.compute(3.0 * n, zero + 17.0 * n + comm3_ex_bytes(l, v));
    comm3_ex(l, k, r);
  }

  // The V-cycle: restrict down to level 1, smooth there, then interpolate, residual and
  // smooth on each level up to the finest.
  static void mg3p(const Layout& l, Rank& r) {
    for (int k = l.lt; k >= 2; --k)
      rprj3(l, k, r);
    psinv(l, 1, r, 8.0 * static_cast<double>(l.at(1).volume()));  // u = 0 on level 1 first
    for (int k = 2; k <= l.lt; ++k) {
      interp(l, k, r);
      resid(l, k, r);
      psinv(l, k, r);
    }
  }

  // L2 and max norms of the finest level: one pass, then a max and a sum over all processes.
  static void norm2u3(const Layout& l, Rank& r) {
    const double n = static_cast<double>(l.at(l.lt).interior());
    r.compute(3.0 * n, 8.0 * n);
    r.allreduce(1, 8);
    r.allreduce(1, 8);
  }

  // zran3: random numbers on every local point (vranlc, ~20 flops each) and a scan for the
  // local ten largest and smallest (charged here with the clearing of u and the two of v, and
  // the final comm3); then, per rank of the twenty, the value's max (min) and its owner's
  // coordinates (four integers) across all processes; then the charges' comm3.
  static void zran3(const Layout& l, Rank& r) {
    const Level& v = l.at(l.lt);
    const double n = static_cast<double>(v.interior());
    r.compute(22.0 * n, 16.0 * n + 32.0 * static_cast<double>(v.volume()) + comm3_bytes(l, v));
    r.barrier();
    for (int i = 0; i < kZranPoints; ++i) {
      r.allreduce(1, 8);
      r.allreduce(4, 4);
      r.allreduce(1, 8);
      r.allreduce(4, 4);
    }
    r.barrier();
    comm3(l, l.lt, r);
  }
};

}  // namespace

std::unique_ptr<Kernel> make_mg() {
  return std::make_unique<Mg>();
}

}  // namespace mgen::nas
