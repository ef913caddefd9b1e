// The application's compute time between two MPI calls, measured so that mgen's own work does
// not count and a loaded machine does not inflate it: what recompiled programs are charged
// (wrappers/mpi/shim.cpp) and what the recorder writes as dt_cpu (wrappers/recorder/).
//
// Which clock, and why (docs/PERFORMANCE.md, "Measured compute"):
// - The thread's CPU time (CLOCK_THREAD_CPUTIME_ID) is the quantity wanted: unlike a wall clock
//   it does not count the time the thread was descheduled, so a loaded machine does not make
//   the application look slower. But it is a system call (no vDSO), about 1.2-1.4 us of the
//   thread's own CPU time on this host (a VM with page-table isolation), and that cost lands in
//   the interval it measures: 1.5 us of false compute per MPI call before this clock existed.
// - The wall clock (CLOCK_MONOTONIC, vDSO, about 25 ns) equals the thread's CPU time over any
//   stretch in which the thread was not switched out. Linux tells when it was: a restartable-
//   sequence descriptor whose range contains no instruction, armed in the thread's rseq area,
//   is cleared by the kernel whenever it preempts the thread or delivers a signal to it
//   (linux/rseq.h, rseq_cs). So an interval without a switch is measured on the wall clock, and
//   one with a switch on the thread CPU clock, from a CPU reading extrapolated along the wall
//   clock since the last switch: a system call only after a context switch.
// - A hypervisor's stolen time is invisible to the guest (no switch, the wall clock runs on, the
//   CPU clock does not), so the wall clock is trusted for at most 100 us at a time: longer
//   intervals, and extrapolations from older readings, read the thread CPU clock too.
// - Each interval then loses the clocks' own time inside it (the median of empty intervals
//   measured once per process), clamped at zero.
// Without rseq (glibc before 2.35, GLIBC_TUNABLES=glibc.pthread.rseq=0, or a kernel that does
// not clear the descriptor on a switch, checked once per process) every interval is measured
// on the thread CPU clock, less its measured bias.
#pragma once

#include <time.h>

#include <cstdint>

namespace mgen::runtime {

// What measuring compute costs on this host, measured once per process (a few ms, on first
// use): for `mgen info` and `mgen calibrate`. Without switch detection, clock_read_ns, bias_ns
// and noise_ns are the thread CPU clock's (then equal to cpu_read_ns and the switch_ fields).
struct ComputeClockInfo {
  const char* method;     // the clocks used, in words
  bool switch_detection;  // rseq tells context switches apart: the wall clock is used between them
  double clock_read_ns;   // one read of the clock each call uses (median)
  double cpu_read_ns;     // one read of the thread CPU clock (median; a system call)
  double bias_ns;         // the measuring's own time in an interval without a switch (subtracted)
  double noise_ns;        // spread of such an empty interval: (p90 - p10) / 2
  double switch_bias_ns;  // the same for an interval with a context switch (thread CPU clock)
  double switch_noise_ns;
};
const ComputeClockInfo& compute_clock_info();

// A clock_gettime reading in ns (the stopwatch's, and the recorder's time stamps).
uint64_t clock_ns(clockid_t id);

// The calling thread's stopwatch of the application's compute: compute_start() when control
// goes back to the application (the last thing mgen does), compute_stop_ns() when it comes back
// (the first thing): the thread CPU time in between, less the clocks' own; 0 when the stopwatch
// was not started. One per thread, not per rank: rank fibers switch only inside MPI calls, so
// the interval open on a thread is always the running rank's.
void compute_start();
uint64_t compute_stop_ns();

}  // namespace mgen::runtime
