// Engine throughput alone: a "hold" model (every event schedules one successor a random
// delay ahead) with a given number of pending events, for the calendar queue and for the
// reference 4-ary heap. Separates the engine's cost per event from the network model's.
#include <fmt/format.h>

#include <chrono>
#include <cstdint>

#include "mgen/simcore/engine.hpp"

namespace {

template <class Queue>
double run(size_t pending, uint64_t events, int64_t mean_delay_ps) {
  Queue q;
  uint64_t state = 12345, seq = 0;
  auto next = [&] {  // xorshift64*
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 2685821657736338717ULL;
  };
  for (size_t i = 0; i < pending; ++i) {
    q.push(mgen::simcore::Event{mgen::simcore::Time::ps(static_cast<int64_t>(next() % (2 * mean_delay_ps))), seq++, 0,
                                1, 0, 0});
  }
  const auto start = std::chrono::steady_clock::now();
  uint64_t sink = 0;
  for (uint64_t i = 0; i < events; ++i) {
    const mgen::simcore::Event e = q.pop();
    sink += e.target;
    q.push(mgen::simcore::Event{e.time + mgen::simcore::Time::ps(static_cast<int64_t>(next() % (2 * mean_delay_ps))),
                                seq++, static_cast<uint32_t>(i), 1, 0, 0});
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (sink == 42) fmt::print(" ");
  return static_cast<double>(events) / s;
}

}  // namespace

int main() {
  fmt::print("{:>10} {:>12} {:>18} {:>18}\n", "pending", "mean delay", "calendar Mev/s", "4-ary heap Mev/s");
  for (size_t pending : {1000, 10000, 100000, 1000000}) {
    for (int64_t delay : {100000, 1000000}) {
      const uint64_t n = 5000000;
      fmt::print("{:>10} {:>9} ns {:>18.1f} {:>18.1f}\n", pending, delay / 1000,
                 run<mgen::simcore::EventQueue>(pending, n, delay) * 1e-6,
                 run<mgen::simcore::HeapQueue>(pending, n, delay) * 1e-6);
    }
  }
}
