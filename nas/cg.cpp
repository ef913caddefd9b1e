// CG: NPB 3.3 MPI's conjugate gradient (inverse power method on a random sparse matrix).
// Processes form an nprows x npcols grid (npcols = nprows, or 2 nprows when the count is not
// a square); sums across a process row are recursive-halving exchanges with
// reduce_exch_proc, each matrix-vector product ends with an exchange with the transpose
// process. Derivation: nas/README.md, "CG".
#include <fmt/format.h>

#include "kernels.hpp"

namespace mgen::nas {
namespace {

struct CgClass {
  char cls;
  long na;
  int nonzer, niter;
};
constexpr CgClass kClasses[] = {{'S', 1400, 7, 15},     {'W', 7000, 8, 15},    {'A', 14000, 11, 15},
                                {'B', 75000, 13, 75},   {'C', 150000, 15, 75}, {'D', 1500000, 21, 100},
                                {'E', 9000000, 26, 100}};
constexpr int kCgItMax = 25;

const CgClass& params(char cls) {
  for (const CgClass& c : kClasses) {
    if (c.cls == cls) return c;
  }
  throw std::invalid_argument(fmt::format("CG has no class {}", cls));
}

// One process's part of the grid, as setup_proc_info / setup_submatrix_info compute it.
struct Layout {
  int nprows, npcols, proc_row, proc_col;
  long firstrow, lastrow, firstcol, lastcol;
  long send_len;
  int exch_proc, l2npcols;
  std::vector<int> exch;             // reduce_exch_proc(1..l2npcols)
  std::vector<long> send_l, recv_l;  // reduce_send_lengths, reduce_recv_lengths
  long rows() const { return lastrow - firstrow + 1; }
  long cols() const { return lastcol - firstcol + 1; }
};

Layout layout(long naa, int nprocs, int me) {
  Layout l{};
  int log2 = 0;
  while ((1 << log2) < nprocs)
    ++log2;
  l.npcols = 1 << ((log2 + 1) / 2);  // npbparams: square grids, else twice as many columns
  l.nprows = nprocs / l.npcols;
  l.proc_row = me / l.npcols;
  l.proc_col = me - l.proc_row * l.npcols;
  const long npr = l.nprows, npc = l.npcols;
  if (naa / npc * npc == naa) {
    const long col_size = naa / npc, row_size = naa / npr;
    l.firstcol = l.proc_col * col_size + 1;
    l.lastcol = l.firstcol - 1 + col_size;
    l.firstrow = l.proc_row * row_size + 1;
    l.lastrow = l.firstrow - 1 + row_size;
  } else {
    const long extra_r = naa - naa / npr * npr;
    if (l.proc_row < extra_r) {
      const long row_size = naa / npr + 1;
      l.firstrow = l.proc_row * row_size + 1;
      l.lastrow = l.firstrow - 1 + row_size;
    } else {
      const long row_size = naa / npr;
      l.firstrow = extra_r * (row_size + 1) + (l.proc_row - extra_r) * row_size + 1;
      l.lastrow = l.firstrow - 1 + row_size;
    }
    if (npc == npr) {
      const long extra_c = naa - naa / npc * npc;
      const long col_size = l.proc_col < extra_c ? naa / npc + 1 : naa / npc;
      l.firstcol = l.proc_col < extra_c ? l.proc_col * col_size + 1
                                        : extra_c * (col_size + 1) + (l.proc_col - extra_c) * col_size + 1;
      l.lastcol = l.firstcol - 1 + col_size;
    } else {
      const long half = npc / 2, extra_c = naa - naa / half * half, pc = l.proc_col / 2;
      const long col_size = pc < extra_c ? naa / half + 1 : naa / half;
      l.firstcol = pc < extra_c ? pc * col_size + 1 : extra_c * (col_size + 1) + (pc - extra_c) * col_size + 1;
      l.lastcol = l.firstcol - 1 + col_size;
      if (me % 2 == 0) {
        l.lastcol = l.firstcol - 1 + (col_size - 1) / 2 + 1;
      } else {
        l.firstcol = l.firstcol + (col_size - 1) / 2 + 1;
        l.lastcol = l.firstcol - 1 + col_size / 2;
      }
    }
  }
  if (npc == npr) {
    l.send_len = l.rows();
    l.exch_proc = (me % l.nprows) * l.nprows + me / l.nprows;
  } else {
    l.send_len = me % 2 == 0 ? (1 + l.rows()) / 2 : l.rows() / 2;
    l.exch_proc = 2 * ((me / 2) % l.nprows * l.nprows + me / 2 / l.nprows) + me % 2;
  }
  for (int i = l.npcols / 2; i > 0; i /= 2)
    ++l.l2npcols;
  int div = l.npcols;
  for (int i = 0; i < l.l2npcols; ++i) {
    l.exch.push_back(l.proc_row * l.npcols + (l.proc_col + div / 2) % div + l.proc_col / div * div);
    div /= 2;
  }
  l.send_l.assign(static_cast<size_t>(l.l2npcols), 0);
  l.recv_l.assign(static_cast<size_t>(l.l2npcols), 0);
  for (int i = l.l2npcols; i >= 1; --i) {
    const size_t k = static_cast<size_t>(i - 1);
    if (npr == npc) {
      l.send_l[k] = l.send_len;
      l.recv_l[k] = l.rows();
    } else {
      l.recv_l[k] = l.send_len;
      l.send_l[k] = i == l.l2npcols ? l.rows() - l.send_len : l.send_len;
    }
  }
  return l;
}

class Cg final : public Kernel {
 public:
  const char* name() const override { return "cg"; }

  std::string check(const Problem& p) const override {
    std::string why = check_class("CG", p.cls, "SWABCDE");
    if (!why.empty()) return why;
    if (!power_of_two(p.ranks)) return fmt::format("CG needs a power-of-two number of processes (got {})", p.ranks);
    const Layout l = layout(params(p.cls).na, p.ranks, 0);
    if (params(p.cls).na / l.npcols < 2) {
      return fmt::format("CG class {} has {} rows: too few for {} processes", p.cls, params(p.cls).na, p.ranks);
    }
    return "";
  }

  int iterations(const Problem& p) const override { return params(p.cls).niter; }

  double mops(const Problem& p) const override {
    const CgClass& c = params(p.cls);
    const double nz = static_cast<double>(c.nonzer) * (c.nonzer + 1);
    return 2.0 * c.niter * static_cast<double>(c.na) * (3.0 + nz + 25.0 * (5.0 + nz) + 3.0) / 1e6;
  }

  void run(const Problem& p, Rank& r) const override {
    const CgClass& c = params(p.cls);
    const Layout l = layout(c.na, r.size(), r.rank());
    // This process's share of the matrix: about na * nonzer * (nonzer + 1) nonzeros in all.
    const double nnz = static_cast<double>(c.na) * c.nonzer * (c.nonzer + 1) / r.size();
    r.bcast(1, 4, 0);  // initialize_mpi: timeron
    // makea builds the matrix locally: ~ (nonzer+1)^2 updates per row generated, sorted.
    r.compute(20.0 * nnz, 40.0 * nnz);
    conj_grad(c, l, r, nnz);  // one untimed iteration
    norms(l, r);
    r.barrier();
    r.timer_start();
    for (int it = 0; it < timed_iterations(p, c.niter); ++it) {
      conj_grad(c, l, r, nnz);
      norms(l, r);
    }
    r.timer_stop();
    r.reduce(1, 8, 0);  // the slowest time
  }

 private:
  // Sums of one or two doubles across the process row: recursive halving with reduce_exch_proc.
  static void row_sum(const Layout& l, Rank& r, uint64_t doubles) {
    for (int i = 1; i <= l.l2npcols; ++i) {
      MGEN_Request q = r.irecv(l.exch[static_cast<size_t>(i - 1)], 8 * doubles, i);
      r.send(l.exch[static_cast<size_t>(i - 1)], 8 * doubles, i);
      r.wait(q);
    }
  }

  // q = A.p: the local product, the sum across the row, the exchange with the transpose.
  static void matvec(const Layout& l, Rank& r, double nnz) {
    r.compute(2.0 * nnz, 12.0 * nnz + 16.0 * static_cast<double>(l.rows()));
    for (int i = l.l2npcols; i >= 1; --i) {
      const size_t k = static_cast<size_t>(i - 1);
      MGEN_Request q = r.irecv(l.exch[k], 8 * static_cast<uint64_t>(l.recv_l[k]), i);
      r.send(l.exch[k], 8 * static_cast<uint64_t>(l.send_l[k]), i);
      r.wait(q);
      r.compute(static_cast<double>(l.recv_l[k]), 24.0 * static_cast<double>(l.recv_l[k]));
    }
    if (l.l2npcols != 0) {
      MGEN_Request q = r.irecv(l.exch_proc, 8 * static_cast<uint64_t>(l.cols()), 1);
      r.send(l.exch_proc, 8 * static_cast<uint64_t>(l.send_len), 1);
      r.wait(q);
    }
  }

  static void conj_grad(const CgClass&, const Layout& l, Rank& r, double nnz) {
    const double n = static_cast<double>(l.cols());
    r.compute(2.0 * n, 48.0 * n);  // r = x, p = r, rho = r.r
    row_sum(l, r, 1);
    for (int cgit = 0; cgit < kCgItMax; ++cgit) {
      matvec(l, r, nnz);
      r.compute(2.0 * n, 16.0 * n);  // p.q
      row_sum(l, r, 1);
      r.compute(6.0 * n, 64.0 * n);  // z, r updates and r.r
      row_sum(l, r, 1);
      r.compute(2.0 * n, 24.0 * n);  // p = r + beta p
    }
    matvec(l, r, nnz);  // A.z for the residual norm
    r.compute(3.0 * n, 16.0 * n);
    row_sum(l, r, 1);
  }

  // zeta: x.z and z.z summed across the row (two doubles), then x = z / ||z||.
  static void norms(const Layout& l, Rank& r) {
    const double n = static_cast<double>(l.cols());
    r.compute(4.0 * n, 16.0 * n);
    row_sum(l, r, 2);
    r.compute(n, 16.0 * n);
  }
};

}  // namespace

std::unique_ptr<Kernel> make_cg() {
  return std::make_unique<Cg>();
}

}  // namespace mgen::nas
