// The compute stopwatch (mgen/runtime/compute_clock.hpp) against the thread's own CPU clock:
// time spent asleep (switched out) is not compute, time spent spinning is, and the stopwatch's
// own cost is taken off.
#include <time.h>

#include <catch2/catch.hpp>
#include <cstdint>

#include "compute_clock_truth.hpp"
#include "mgen/runtime/compute_clock.hpp"

using mgen::test::kSlack;
using mgen::test::thread_cpu_ns;

TEST_CASE("the compute stopwatch does not count time the thread slept", "[compute_clock]") {
  // POSIX: a sleeping thread uses no CPU time. A wall clock would read 20 ms.
  mgen::runtime::compute_start();
  const timespec nap{0, 20000000};
  nanosleep(&nap, nullptr);
  CHECK(mgen::runtime::compute_stop_ns() < 1000000);
}

TEST_CASE("the compute stopwatch counts CPU time spent computing", "[compute_clock]") {
  // The truth: the thread CPU clock read around the spin; its two reads are half inside the
  // stopwatch's interval, so up to one read's cost (a few us) may be added.
  volatile double x = 1;
  mgen::runtime::compute_start();
  const int64_t c0 = thread_cpu_ns();
  int64_t c1 = c0;
  while (c1 - c0 < 5000000) {
    for (int k = 0; k < 1000; ++k)
      x = x * 1.0000001;
    c1 = thread_cpu_ns();
  }
  const auto measured = static_cast<double>(mgen::runtime::compute_stop_ns());
  const auto truth = static_cast<double>(c1 - c0);
  CHECK(measured > truth * 0.99);
  CHECK(measured < truth * 1.01 + 20000 * kSlack);
}

TEST_CASE("the compute stopwatch takes its own cost off an empty interval", "[compute_clock]") {
  // Back to back: the clocks' own time is all there is, and it is subtracted (about 30 ns of
  // wall-clock reads if it were not; before the stopwatch, a thread-CPU-clock system call,
  // 1.2-1.5 us here). Without switch detection (no rseq) that system call's cost varies with
  // the host's load around the median taken off: at least half of it must go (100-450 ns are
  // left on this VM).
  constexpr int kN = 20000;
  uint64_t total = 0;
  for (int i = 0; i < kN; ++i) {
    mgen::runtime::compute_start();
    total += mgen::runtime::compute_stop_ns();
  }
  const mgen::runtime::ComputeClockInfo& c = mgen::runtime::compute_clock_info();
  CHECK(static_cast<double>(total) / kN < (c.switch_detection ? 15 * kSlack : c.cpu_read_ns / 2));
  // Not started (or already stopped): nothing.
  CHECK(mgen::runtime::compute_stop_ns() == 0);
}

TEST_CASE("compute_clock_info reports the clocks it measured", "[compute_clock]") {
  const mgen::runtime::ComputeClockInfo& c = mgen::runtime::compute_clock_info();
  REQUIRE(c.method != nullptr);
  CHECK(c.clock_read_ns > 0);
  CHECK(c.cpu_read_ns > 0);
  CHECK(c.bias_ns >= 0);
  CHECK(c.noise_ns >= 0);
  CHECK(c.switch_bias_ns > 0);  // a thread-CPU-clock read at least
  if (!c.switch_detection) CHECK(c.clock_read_ns == c.cpu_read_ns);
}
