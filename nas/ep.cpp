// EP: NPB 3.3 MPI's embarrassingly parallel kernel (Gaussian pairs by acceptance-rejection
// from a linear congruential generator). Each process takes a contiguous run of the 2^(m-16)
// batches of 2^16 pairs and talks only at the end: three sums and the slowest time, all
// MPI_Allreduce. Derivation: nas/docs/ep.md.
#include <fmt/format.h>

#include <cmath>
#include <numbers>

#include "kernels.hpp"

namespace mgen::nas {
namespace {

struct EpClass {
  char cls;
  int m;  // log2 of the number of pairs
};
constexpr EpClass kClasses[] = {{'S', 24}, {'W', 25}, {'A', 28}, {'B', 30}, {'C', 32}, {'D', 36}, {'E', 40}};
constexpr int kMk = 16;  // log2 of the pairs per batch (mk)
constexpr int kNq = 10;  // annuli counted (nq)

// Operation costs in flop equivalents. vranlc splits the multiplier once, then 16 flops per
// number (Bailey's 2^46 LCG in two 23-bit halves); randlc splits it on every call.
constexpr double kVranlc = 16, kRandlc = 19;
// One accepted pair: log, divide and square root (counted as 20, 10, 10) and six multiply-adds.
constexpr double kAccepted = 20 + 10 + 10 + 6;
// Every pair: two scalings to (-1, 1), the squared radius, the test.
constexpr double kPair = 7;

const EpClass& params(char cls) {
  for (const EpClass& c : kClasses) {
    if (c.cls == cls) return c;
  }
  throw std::invalid_argument(fmt::format("EP has no class {}", cls));
}

// nn = 2^(m - mk) batches; the first nn mod np processes take one more.
uint64_t batches(int m, int np, int me) {
  const uint64_t nn = uint64_t{1} << (m - kMk), n = static_cast<uint64_t>(np);
  return nn / n + (static_cast<uint64_t>(me) < nn % n ? 1 : 0);
}

class Ep final : public Kernel {
 public:
  const char* name() const override { return "ep"; }

  std::string check(const Problem& p) const override {
    std::string why = check_class("EP", p.cls, "SWABCDE");
    if (!why.empty()) return why;
    if (p.ranks < 1) return fmt::format("EP needs at least one process (got {})", p.ranks);
    const int m = params(p.cls).m;
    const uint64_t nn = uint64_t{1} << (m - kMk);
    if (static_cast<uint64_t>(p.ranks) > nn) {
      return fmt::format(
          "EP class {} has 2^{} = {} batches of 2^{} pairs: at most {} processes, one batch each (got {})", p.cls,
          m - kMk, nn, kMk, nn, p.ranks);
    }
    return "";
  }

  // NPB passes nit = 0 to print_results: EP has no iterations.
  int iterations(const Problem&) const override { return 0; }

  // NPB: 2^(m+1) random numbers generated.
  double mops(const Problem& p) const override { return std::ldexp(1.0, params(p.cls).m + 1) / 1e6; }

  void run(const Problem& p, Rank& r) const override {
    const EpClass& c = params(p.cls);
    const double nk = std::ldexp(1.0, kMk);
    r.bcast(1, 4, 0);  // timers_enabled (MPI_LOGICAL)
    // Untimed: the generator is called once and x(1..2 nk) is set to touch its pages.
    r.compute(2 * kRandlc, 16.0 * nk);
    r.barrier();
    r.timer_start();
    // Per batch: its seed by binary powering (two randlc per bit of the batch number, at most
    // m - mk + 1 bits), 2 nk numbers from vranlc into x, then the pairs read back from x.
    const double per_batch =
        2.0 * kRandlc * (c.m - kMk + 1) + 2.0 * nk * kVranlc + nk * (kPair + std::numbers::pi / 4 * kAccepted);
    const double nb = static_cast<double>(batches(c.m, r.size(), r.rank()));
    r.compute((kMk + 1) * kRandlc + nb * per_batch, nb * 32.0 * nk);
    r.allreduce(1, 8);    // sx
    r.allreduce(1, 8);    // sy
    r.allreduce(kNq, 8);  // q(0..nq-1)
    r.timer_stop();
    r.allreduce(1, 8);  // the slowest time (MPI_MAX)
  }
};

}  // namespace

std::unique_ptr<Kernel> make_ep() {
  return std::make_unique<Ep>();
}

}  // namespace mgen::nas
