// The compute stopwatch (mgen/runtime/compute_clock.hpp): the wall clock between context
// switches, which a restartable-sequence descriptor reveals, and the thread CPU clock across
// them. Also compiled into the recorder (wrappers/recorder/), which links nothing of libmgen.
#include "mgen/runtime/compute_clock.hpp"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <vector>

#if defined(__linux__) && __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#endif

namespace mgen::runtime {

uint64_t clock_ns(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

namespace {

#if defined(MGEN_COMPUTE_CLOCK_TEST_STOLEN)
// Test seam (tests/mpi/compute_clock_stolen_test.cpp, its own build of this file): wall time a
// hypervisor took from the virtual CPU, which no clock inside the guest can tell from compute.
}  // namespace
uint64_t g_test_stolen_ns = 0;
namespace {
uint64_t wall_ns() {
  return clock_ns(CLOCK_MONOTONIC) + g_test_stolen_ns;
}
#else
uint64_t wall_ns() {
  return clock_ns(CLOCK_MONOTONIC);
}
#endif
uint64_t cpu_ns() {
  return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

// ---- context switches, from the thread's rseq area (glibc registers it; linux/rseq.h)
//
// The area's rseq_cs field (offset 8 in the kernel's ABI) points at the critical section the
// thread is in. On every preemption, migration or signal delivery the kernel looks at it and,
// when the thread's instruction pointer is outside the section's range, sets it to zero. The
// sentinel's range is empty, so the field keeps pointing at it exactly as long as the thread
// has not been switched out. The kernel checks that a descriptor's abort address follows the
// signature glibc registered (RSEQ_SIG); it never jumps there (no instruction is in range).
// Programs with critical sections of their own (tcmalloc's per-CPU caches) overwrite the
// field: that reads as a switch, which is always safe (the thread CPU clock is read).
#if defined(RSEQ_SIG)
struct alignas(32) RseqDescriptor {
  uint32_t version = 0, flags = 0;
  uint64_t start_ip = 0, post_commit_offset = 0, abort_ip = 0;
};
uint32_t g_signature[2] = {RSEQ_SIG, 0};
RseqDescriptor g_sentinel;
constexpr ptrdiff_t kCpuIdOffset = 4, kRseqCsOffset = 8;

char* rseq_area() {
  return static_cast<char*>(__builtin_thread_pointer()) + __rseq_offset;
}
bool rseq_registered() {
  if (__rseq_size < kRseqCsOffset + 8) return false;
  return *reinterpret_cast<volatile int32_t*>(rseq_area() + kCpuIdOffset) >= 0;  // -1, -2: not registered
}
volatile uint64_t& rseq_cs() {
  return *reinterpret_cast<volatile uint64_t*>(rseq_area() + kRseqCsOffset);
}
uint64_t sentinel_address() {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(&g_sentinel));
}
void arm() {
  std::atomic_signal_fence(std::memory_order_seq_cst);
  rseq_cs() = sentinel_address();
  std::atomic_signal_fence(std::memory_order_seq_cst);
}
void disarm() {
  rseq_cs() = 0;
}
bool not_switched() {
  std::atomic_signal_fence(std::memory_order_seq_cst);
  return rseq_cs() == sentinel_address();
}

// Whether this kernel clears the sentinel on a switch and only then: armed, it must survive a
// few back-to-back checks and be gone after a sleep (the thread is switched out).
bool switches_detected() {
  if (!rseq_registered()) return false;
  const auto after = reinterpret_cast<uintptr_t>(&g_signature[1]);
  g_sentinel.start_ip = after;
  g_sentinel.abort_ip = after;
  int kept = 0;
  for (int i = 0; i < 100; ++i) {
    arm();
    kept += not_switched() ? 1 : 0;
  }
  int cleared = 0;
  for (int i = 0; i < 3; ++i) {
    arm();
    const timespec nap{0, 20000};
    nanosleep(&nap, nullptr);
    cleared += not_switched() ? 0 : 1;
  }
  disarm();
  return kept >= 90 && cleared == 3;
}
#else
void arm() {}
void disarm() {}
bool not_switched() {
  return false;
}
bool switches_detected() {
  return false;
}
#endif

// Per thread: the CPU time and the wall clock read together while the sentinel was armed
// (while it stays armed, CPU time advances with the wall clock), and the open interval. In
// static TLS: libmgen.so and the recorder are loaded when the process starts, and the
// general-dynamic model would cost a __tls_get_addr call per read.
struct Thread {
  uint64_t anchor_cpu = 0, anchor_wall = 0;
  uint64_t wall0 = 0, cpu0 = 0;  // at compute_start()
  bool open = false;             // compute_start() called, compute_stop_ns() not yet
};
__attribute__((tls_model("initial-exec"))) thread_local Thread t_thread;

// Re-arms the sentinel and reads both clocks; returns the wall clock.
uint64_t anchor_now() {
  Thread& t = t_thread;
  arm();
  t.anchor_cpu = cpu_ns();
  t.anchor_wall = wall_ns();
  return t.anchor_wall;
}

// What one interval measured, before the clocks' own time is taken off.
struct Raw {
  int64_t ns;
  bool switched;
};

// The process-wide facts, and the two raw halves of the stopwatch they are measured with.
struct Clock {
  bool switches = false;  // switch detection works: wall clock between switches
  ComputeClockInfo info{};
  int64_t bias = 0, switch_bias = 0;  // ns, rounded
};
const Clock& clock();

// How long the wall clock is trusted without a context switch. A guest cannot see the time its
// hypervisor takes the virtual CPU away (steal time: host contention, a CPU quota): the thread
// is not switched out, the wall clock runs on, its CPU clock does not. That showed as 7% of
// false compute for one rank in CI (measured_compute, loaded), where this host shows none. So
// an interval longer than this is read on the thread CPU clock as well, and an anchor older
// than this is renewed before it is extrapolated from: at most one system call per 100 us of
// wall time besides the switches (under 1.5% even at 1.4 us a read), and a stolen stretch
// counts as compute only while shorter than 100 us.
constexpr uint64_t kWallTrustNs = 100000;

void start_raw(const Clock& c, uint64_t& wall0, uint64_t& cpu0) {
  if (!c.switches) {
    cpu0 = cpu_ns();
    return;
  }
  uint64_t w = wall_ns();
  // mgen's own work was switched out, or took long enough that time may have been stolen from
  // it: a fresh reading.
  if (!not_switched() || w - t_thread.anchor_wall > kWallTrustNs) w = anchor_now();
  cpu0 = t_thread.anchor_cpu + (w - t_thread.anchor_wall);
  wall0 = w;
}

Raw stop_raw(const Clock& c, uint64_t wall0, uint64_t cpu0) {
  if (!c.switches) return {static_cast<int64_t>(cpu_ns() - cpu0), true};
  const uint64_t w = wall_ns();
  if (not_switched() && w - wall0 <= kWallTrustNs) return {static_cast<int64_t>(w - wall0), false};
  anchor_now();
  return {static_cast<int64_t>(t_thread.anchor_cpu) - static_cast<int64_t>(cpu0), true};
}

// Median and (p90 - p10) / 2 of a sample, in ns.
void summarize(std::vector<int64_t>& v, double& median, double& spread) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  median = static_cast<double>(v[n / 2]);
  spread = static_cast<double>(v[n * 9 / 10] - v[n / 10]) / 2;
}

Clock measure() {
  Clock c;
  c.switches = switches_detected();
  constexpr int kWall = 4001, kCpu = 501;
  std::vector<int64_t> v;
  double unused = 0;
  for (int i = 0; i < kWall; ++i) {
    const uint64_t a = wall_ns();
    v.push_back(static_cast<int64_t>(wall_ns() - a));
  }
  summarize(v, c.info.clock_read_ns, unused);
  v.clear();
  for (int i = 0; i < kCpu; ++i) {
    const uint64_t a = cpu_ns();
    v.push_back(static_cast<int64_t>(cpu_ns() - a));
  }
  summarize(v, c.info.cpu_read_ns, unused);
  uint64_t wall0 = 0, cpu0 = 0;
  // Empty intervals across a switch (forced by clearing the sentinel), then without one.
  v.clear();
  for (int i = 0; i < kCpu; ++i) {
    start_raw(c, wall0, cpu0);
    if (c.switches) disarm();
    v.push_back(stop_raw(c, wall0, cpu0).ns);
  }
  summarize(v, c.info.switch_bias_ns, c.info.switch_noise_ns);
  if (c.switches) {
    v.clear();
    for (int i = 0; i < kWall; ++i) {
      start_raw(c, wall0, cpu0);
      const Raw r = stop_raw(c, wall0, cpu0);
      if (!r.switched) v.push_back(r.ns);
    }
    if (v.size() < static_cast<size_t>(kWall / 2)) c.switches = false;  // switched out all the time: no use
  }
  if (c.switches) {
    summarize(v, c.info.bias_ns, c.info.noise_ns);
    c.info.method =
        "wall clock (CLOCK_MONOTONIC) between context switches, seen through rseq; thread CPU time "
        "(CLOCK_THREAD_CPUTIME_ID) across them";
  } else {
    c.info.clock_read_ns = c.info.cpu_read_ns;
    c.info.bias_ns = c.info.switch_bias_ns;
    c.info.noise_ns = c.info.switch_noise_ns;
    c.info.method = "thread CPU time (CLOCK_THREAD_CPUTIME_ID; no context-switch detection through rseq here)";
  }
  c.info.switch_detection = c.switches;
  c.bias = std::llround(c.info.bias_ns);
  c.switch_bias = std::llround(c.info.switch_bias_ns);
  return c;
}

const Clock& clock() {
  static const Clock c = measure();
  return c;
}

uint64_t less_bias(int64_t ns, int64_t bias) {
  return ns > bias ? static_cast<uint64_t>(ns - bias) : 0;
}

}  // namespace

const ComputeClockInfo& compute_clock_info() {
  return clock().info;
}

void compute_start() {
  const Clock& c = clock();
  Thread& t = t_thread;
  t.open = true;
  start_raw(c, t.wall0, t.cpu0);
}

uint64_t compute_stop_ns() {
  Thread& t = t_thread;
  if (!t.open) return 0;
  t.open = false;
  const Clock& c = clock();
  const Raw r = stop_raw(c, t.wall0, t.cpu0);
  return less_bias(r.ns, r.switched ? c.switch_bias : c.bias);
}

}  // namespace mgen::runtime
