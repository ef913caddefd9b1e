// The truth the compute stopwatch's tests hold it to: the calling thread's CPU clock, and the
// slack instrumented (sanitizer) builds get between two of its reads.
#pragma once

#include <time.h>

#include <cstdint>

namespace mgen::test {

inline int64_t thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr double kSlack = 10;  // instrumented code between the reads
#else
constexpr double kSlack = 1;
#endif

}  // namespace mgen::test
