// IS: NPB 3.3 MPI's integer sort (bucket sort of uniformly seeded, bell-shaped keys). Every
// ranking sums the bucket sizes of all processes (MPI_Allreduce), tells every process how many
// keys it will get (MPI_Alltoall) and moves the keys there (MPI_Alltoallv); the full
// verification passes one key along the process chain. Derivation: nas/docs/is.md.
#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "kernels.hpp"

namespace mgen::nas {
namespace {

struct IsClass {
  char cls;
  int total_keys_log2, max_key_log2, buckets_log2;
  int min_procs;  // class D's keys are scaled by its minimum of 4 processes
};
constexpr IsClass kClasses[] = {{'S', 16, 11, 9, 1},  {'W', 20, 16, 10, 1}, {'A', 23, 19, 10, 1},
                                {'B', 25, 21, 10, 1}, {'C', 27, 23, 10, 1}, {'D', 29, 27, 10, 4}};
constexpr int kIterations = 10;  // MAX_ITERATIONS
constexpr int kTestKeys = 5;     // TEST_ARRAY_SIZE: partial-verification keys ride on the allreduce
// randlc in flop equivalents: Bailey's 2^46 LCG split into 23-bit halves, multiplier split too.
constexpr double kRandlc = 19;

const IsClass& params(char cls) {
  for (const IsClass& c : kClasses) {
    if (c.cls == cls) return c;
  }
  throw std::invalid_argument(fmt::format("IS has no class {}", cls));
}

// What one process holds: NUM_KEYS keys, NUM_BUCKETS buckets, and after the exchange (in
// expectation, see nas/docs/is.md) a key range of MAX_KEY / np values.
struct Sizes {
  uint64_t keys, buckets, range;
};

Sizes sizes(const IsClass& c, int np) {
  const uint64_t n = static_cast<uint64_t>(np);
  return {(uint64_t{1} << c.total_keys_log2) / n * static_cast<uint64_t>(c.min_procs), uint64_t{1} << c.buckets_log2,
          (uint64_t{1} << c.max_key_log2) / n};
}

class Is final : public Kernel {
 public:
  const char* name() const override { return "is"; }

  std::string check(const Problem& p) const override {
    std::string why = check_class("IS", p.cls, "SWABCD");
    if (!why.empty()) return p.cls == 'E' ? why + ": NPB 3.3 defines no class E for IS" : why;
    if (!power_of_two(p.ranks)) return fmt::format("IS needs a power-of-two number of processes (got {})", p.ranks);
    const int min_procs = params(p.cls).min_procs, max_procs = p.cls == 'S' ? 128 : 1024;
    if (p.ranks < min_procs || p.ranks > max_procs) {
      return fmt::format("IS class {} runs on {} to {} processes (MIN_PROCS, MAX_PROCS; got {})", p.cls, min_procs,
                         max_procs, p.ranks);
    }
    return "";
  }

  int iterations(const Problem&) const override { return kIterations; }

  // NPB: MAX_ITERATIONS * TOTAL_KEYS * MIN_PROCS keys ranked.
  double mops(const Problem& p) const override {
    const IsClass& c = params(p.cls);
    return kIterations * std::ldexp(1.0, c.total_keys_log2) * c.min_procs / 1e6;
  }

  void run(const Problem& p, Rank& r) const override {
    const IsClass& c = params(p.cls);
    const Sizes s = sizes(c, r.size());
    const double keys = static_cast<double>(s.keys);
    r.bcast(1, 4, 0);  // timeron
    // create_seq: four randlc per key, summed and scaled to an integer key.
    r.compute(keys * (4 * kRandlc + 5), 4 * keys);
    // The expected split (nas/docs/is.md): NUM_KEYS / np keys to every process, the remainder
    // spread by a rotation so each process both sends and receives exactly NUM_KEYS keys.
    const uint64_t np = static_cast<uint64_t>(r.size()), me = static_cast<uint64_t>(r.rank());
    const uint64_t q = s.keys / np, rem = s.keys % np;
    std::vector<uint64_t> send(np), recv(np);
    for (uint64_t j = 0; j < np; ++j) {
      send[j] = 4 * (q + ((j + np - me) % np < rem ? 1 : 0));
      recv[j] = 4 * (q + ((me + np - j) % np < rem ? 1 : 0));
    }
    rank(s, r, send, recv);  // one untimed ranking
    r.timer_start();
    for (int it = 0; it < timed_iterations(p, kIterations); ++it)
      rank(s, r, send, recv);
    r.timer_stop();
    r.reduce(1, 8, 0);  // the slowest time (MPI_MAX)
    full_verify(s, r);
    r.reduce(1, 4, 0);  // passed_verification
  }

 private:
  static void rank(const Sizes& s, Rank& r, const std::vector<uint64_t>& send, const std::vector<uint64_t>& recv) {
    const double keys = static_cast<double>(s.keys), buckets = static_cast<double>(s.buckets),
                 range = static_cast<double>(s.range);
    // Clear the bucket arrays; count keys per bucket (read key, shift, increment); prefix sums;
    // scatter every key into its bucket (read 4 bytes, write 4 with the line's allocation).
    r.compute(5 * keys + 2 * buckets, 16 * keys + 16 * buckets);
    r.allreduce(s.buckets + kTestKeys, 4);
    r.compute(4 * buckets, 8 * buckets);  // cut the bucket totals into np runs of ~NUM_KEYS keys
    r.alltoall(4);                        // send_count -> recv_count
    r.alltoallv(send, recv);              // the keys
    // Clear the local key range; count each received key (read it, increment its slot);
    // prefix-sum the range into ranks; the lesser-key totals over the bucket table.
    r.compute(2 * keys + range + 2 * buckets, 12 * keys + 16 * range);
  }

  // Untimed: the final sort by the last ranking, the largest key to the next process, the
  // order check.
  static void full_verify(const Sizes& s, Rank& r) {
    const double keys = static_cast<double>(s.keys);
    r.compute(3 * keys, 20 * keys);
    MGEN_Request q = MGEN_REQUEST_NULL;
    if (r.rank() > 0) q = r.irecv(r.rank() - 1, 4, 1000);
    if (r.rank() < r.size() - 1) r.send(r.rank() + 1, 4, 1000);
    if (r.rank() > 0) r.wait(q);
    r.compute(keys, 4 * keys);
  }
};

}  // namespace

std::unique_ptr<Kernel> make_is() {
  return std::make_unique<Is>();
}

}  // namespace mgen::nas
