// IS: NPB 3.3 MPI's integer sort (bucket sort of uniformly seeded, bell-shaped keys). Every
// ranking sums the bucket sizes of all processes (MPI_Allreduce), tells every process how many
// keys it will get (MPI_Alltoall) and moves the keys there (MPI_Alltoallv); the full
// verification passes one key along the process chain. The skeleton generates NPB's own keys
// (create_seq), so its bucket counts, and with them every alltoallv size, are NPB's.
// Derivation: nas/docs/is.md.
#include <fmt/format.h>

#include <array>
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

// randlc's generator, x_{k+1} = a x_k mod 2^46, in integers: randlc returns x 2^-46 and every
// step of its double arithmetic is exact, so the integers are the same numbers.
constexpr uint64_t kModMask = (uint64_t{1} << 46) - 1;
constexpr uint64_t kSeed = 314159265, kMultiplier = 1220703125;

// Modulo 2^64 first (unsigned wrap-around), which keeps the product modulo 2^46.
uint64_t mul46(uint64_t a, uint64_t b) {
  return (a * b) & kModMask;
}

uint64_t pow46(uint64_t a, uint64_t e) {
  uint64_t r = 1;
  for (; e > 0; e >>= 1, a = mul46(a, a)) {
    if (e & 1) r = mul46(r, a);
  }
  return r;
}

// One process's keys as rank() sees them: how many fall in each bucket, and the first
// 2 MAX_ITERATIONS + 1 keys, which rank() overwrites on process 0.
struct Keys {
  std::vector<int32_t> buckets;
  std::array<int64_t, 2 * kIterations + 1> first{};
};

// create_seq on process `me` of `np`: find_my_seed starts it 4 NUM_KEYS numbers into the
// stream per process before it; key = MAX_KEY/4 (x1 + x2 + x3 + x4), which in integers is the
// sum shifted right by 48 - MAX_KEY_LOG_2, and its bucket the sum shifted by 48 -
// NUM_BUCKETS_LOG_2. The stream is stepped as four interleaved chains (a^4 apart), which
// gives the same numbers without waiting on one multiplication at a time.
Keys create_seq(const IsClass& c, uint64_t keys, uint64_t me, uint64_t generate) {
  Keys k;
  k.buckets.assign(size_t{1} << c.buckets_log2, 0);
  const uint64_t a4 = pow46(kMultiplier, 4);
  uint64_t x[4];
  x[0] = mul46(kSeed, pow46(kMultiplier, 4 * keys * me + 1));
  for (int j = 1; j < 4; ++j)
    x[j] = mul46(x[j - 1], kMultiplier);
  const int key_shift = 48 - c.max_key_log2, bucket_shift = 48 - c.buckets_log2;
  for (uint64_t i = 0; i < generate; ++i) {
    const uint64_t sum = x[0] + x[1] + x[2] + x[3];
    ++k.buckets[sum >> bucket_shift];
    if (i < k.first.size()) k.first[i] = static_cast<int64_t>(sum >> key_shift);
    for (uint64_t& v : x)
      v = mul46(v, a4);
  }
  return k;
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
    const uint64_t keys = (uint64_t{1} << c.total_keys_log2) / static_cast<uint64_t>(r.size()) *
                          static_cast<uint64_t>(c.min_procs);  // NUM_KEYS
    r.bcast(1, 4, 0);                                          // timeron
    // create_seq: four randlc per key, summed and scaled to an integer key.
    Keys k = create_seq(c, keys, static_cast<uint64_t>(r.rank()), keys);
    r.compute(static_cast<double>(keys) * (4 * kRandlc + 5), 4 * static_cast<double>(keys));
    Ranking last = rank(c, keys, 1, k, r);  // one untimed ranking
    r.timer_start();
    for (int it = 1; it <= timed_iterations(p, kIterations); ++it)
      last = rank(c, keys, it, k, r);
    r.timer_stop();
    r.reduce(1, 8, 0);  // the slowest time (MPI_MAX)
    full_verify(last.keys, r);
    r.reduce(1, 4, 0);  // passed_verification
  }

 private:
  // What a ranking leaves this process: the keys it ranked (full_verify sorts them).
  struct Ranking {
    uint64_t keys = 0;
  };

  // is.c's rank(iteration).
  static Ranking rank(const IsClass& c, uint64_t keys, int iteration, Keys& k, Rank& r) {
    const double n = static_cast<double>(keys), buckets = static_cast<double>(k.buckets.size());
    const size_t np = static_cast<size_t>(r.size()), me = static_cast<size_t>(r.rank());
    // Process 0 overwrites two keys each iteration: key[it] = it, key[it + 10] = MAX_KEY - it.
    if (me == 0) {
      const int shift = c.max_key_log2 - c.buckets_log2;
      auto set = [&](size_t i, int64_t key) {
        --k.buckets[static_cast<size_t>(k.first[i] >> shift)];
        ++k.buckets[static_cast<size_t>(key >> shift)];
        k.first[i] = key;
      };
      set(static_cast<size_t>(iteration), iteration);
      set(static_cast<size_t>(iteration + kIterations), (int64_t{1} << c.max_key_log2) - iteration);
    }
    // Clear the bucket arrays; count keys per bucket (read key, shift, increment); prefix sums;
    // scatter every key into its bucket (read 4 bytes, write 4 with the line's allocation).
    r.compute(5 * n + 2 * buckets, 16 * n + 16 * buckets);
    std::vector<int32_t> sizes(k.buckets), totals;
    sizes.resize(k.buckets.size() + kTestKeys, 0);  // the test keys' values do not matter here
    r.allreduce(sizes, totals);
    // Owner j gets the buckets from where owner j - 1 stopped to the first where the running
    // total reaches (j + 1) NUM_KEYS; one owner at most per bucket, so near np = NUM_BUCKETS
    // the last owners get none (first > last).
    std::vector<int32_t> send_count(np, 0), recv_count;
    std::vector<int64_t> first(np, 1), last(np, 0);
    first.at(0) = 0;
    int64_t total = 0, local = 0;
    size_t j = 0;
    for (size_t i = 0; i < k.buckets.size(); ++i) {
      total += totals[i];
      local += k.buckets[i];
      if (j < np && total >= static_cast<int64_t>((j + 1) * keys)) {
        send_count[j] = static_cast<int32_t>(local);
        if (j > 0) first[j] = last[j - 1] + 1;
        last[j++] = static_cast<int64_t>(i);
        local = 0;
      }
    }
    r.compute(4 * buckets, 8 * buckets);
    r.alltoall(send_count, recv_count);
    std::vector<uint64_t> send(np), recv(np);
    Ranking out;
    for (size_t q = 0; q < np; ++q) {
      send[q] = 4 * static_cast<uint64_t>(send_count[q]);
      recv[q] = 4 * static_cast<uint64_t>(recv_count[q]);
      out.keys += static_cast<uint64_t>(recv_count[q]);
    }
    r.alltoallv(send, recv);
    // Clear this process's key range (its buckets' keys); count each received key (read it,
    // increment its slot); prefix-sum the range into ranks; the lesser-key totals over the
    // bucket table.
    const double range = first[me] <= last[me] ? std::ldexp(static_cast<double>(last[me] - first[me] + 1),
                                                            c.max_key_log2 - c.buckets_log2)
                                               : 0.0;
    const double ranked = static_cast<double>(out.keys);
    r.compute(2 * ranked + range + 2 * buckets, 12 * ranked + 16 * range);
    return out;
  }

  // Untimed: the final sort of the keys this process ranked, its largest key to the next
  // process, the order check.
  static void full_verify(uint64_t ranked, Rank& r) {
    const double n = static_cast<double>(ranked);
    r.compute(3 * n, 20 * n);
    MGEN_Request q = MGEN_REQUEST_NULL;
    if (r.rank() > 0) q = r.irecv(r.rank() - 1, 4, 1000);
    if (r.rank() < r.size() - 1) r.send(r.rank() + 1, 4, 1000);
    if (r.rank() > 0) r.wait(q);
    r.compute(n, 4 * n);
  }
};

}  // namespace

std::vector<int64_t> is_first_keys(char cls, int np, int rank) {
  const IsClass& c = params(cls);
  const uint64_t keys =
      (uint64_t{1} << c.total_keys_log2) / static_cast<uint64_t>(np) * static_cast<uint64_t>(c.min_procs);
  const Keys k = create_seq(c, keys, static_cast<uint64_t>(rank), 2 * kIterations + 1);
  return {k.first.begin(), k.first.end()};
}

std::unique_ptr<Kernel> make_is() {
  return std::make_unique<Is>();
}

}  // namespace mgen::nas
