// run_windows (mgen/net/partition.hpp) with stand-in partitions: lists of event times, counted
// by hand. The windows it opens, and that an error in any hook of any partition ends the run
// with that error on every thread, without a hang.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "mgen/net/partition.hpp"

using mgen::simcore::Time;
namespace net = mgen::net;

namespace {

// Partition i's pending events (ascending); run() consumes those up to `until` and logs them.
struct Fake {
  std::vector<std::vector<int64_t>> pending;
  std::vector<std::vector<int64_t>> ran;
  net::PartitionHooks hooks() {
    ran.assign(pending.size(), {});
    net::PartitionHooks h;
    h.next_time = [this](uint32_t i) { return pending[i].empty() ? Time::max() : Time::ps(pending[i].front()); };
    h.run = [this](uint32_t i, Time until) {
      while (!pending[i].empty() && pending[i].front() <= until.count_ps()) {
        ran[i].push_back(pending[i].front());
        pending[i].erase(pending[i].begin());
      }
    };
    h.pack = [](uint32_t, uint32_t, std::string&) { return Time::max(); };
    h.take = [](uint32_t, std::string_view, Time) {};
    return h;
  }
};

net::PartitionLayout threads(uint32_t n) {
  net::PartitionLayout l;
  l.parts = n;
  l.local = n;
  return l;
}

}  // namespace

TEST_CASE("windows open at the earliest pending event, a lookahead wide", "[partition]") {
  Fake f;
  f.pending = {{0, 5, 100}, {9, 50}};
  const net::WindowStats s = net::run_windows(threads(2), Time::ps(10), Time::max(), f.hooks());
  // [0, 10): 0, 5 and 9; then [50, 60): 50; then [100, 110): 100.
  CHECK(s.windows == 3);
  CHECK(f.ran[0] == std::vector<int64_t>{0, 5, 100});
  CHECK(f.ran[1] == std::vector<int64_t>{9, 50});
  // A crossing's time opens a window even where no partition has an event yet: partition 0
  // sends partition 1 something due at 30 in its first window.
  Fake g;
  g.pending = {{0}, {70}};
  net::PartitionHooks h = g.hooks();
  std::vector<int64_t> ends;  // the windows partition 1 took crossings at the end of
  bool sent = false;
  h.pack = [&sent](uint32_t i, uint32_t, std::string&) {
    if (i != 0 || sent) return Time::max();
    sent = true;
    return Time::ps(30);
  };
  h.take = [&ends](uint32_t i, std::string_view, Time end) {
    if (i == 1) ends.push_back(end.count_ps());
  };
  CHECK(net::run_windows(threads(2), Time::ps(10), Time::max(), h).windows == 3);  // [0,10) [30,40) [70,80)
  CHECK(ends == std::vector<int64_t>{10, 40, 80});
  CHECK(g.ran[1] == std::vector<int64_t>{70});
  // The limit: nothing after it runs.
  Fake l;
  l.pending = {{0, 15, 25}, {}};
  net::run_windows(threads(2), Time::ps(10), Time::ps(15), l.hooks());
  CHECK(l.ran[0] == std::vector<int64_t>{0, 15});
}

TEST_CASE("an error in any hook of any partition ends the run with it", "[partition][errors]") {
  for (int where = 0; where < 4; ++where) {
    INFO("hook " << where);
    Fake f;
    f.pending = {{0, 20, 40, 60}, {0, 20, 40, 60}, {0, 20, 40, 60}};
    net::PartitionHooks h = f.hooks();
    int calls = 0;
    auto fail_second = [&calls](const char* what) {
      if (++calls == 2) throw std::runtime_error(what);
    };
    const auto run = h.run;
    if (where == 0)
      h.run = [&, run](uint32_t i, Time u) {
        if (i == 2) fail_second("run failed");
        run(i, u);
      };
    if (where == 1)
      h.pack = [&](uint32_t i, uint32_t, std::string&) {
        if (i == 1) fail_second("pack failed");
        return Time::max();
      };
    if (where == 2)
      h.take = [&](uint32_t i, std::string_view, Time) {
        if (i == 0) fail_second("take failed");
      };
    if (where == 3) h.between = [&](uint64_t) { fail_second("between failed"); };
    const char* expected[] = {"run failed", "pack failed", "take failed", "between failed"};
    CHECK_THROWS_WITH(net::run_windows(threads(3), Time::ps(10), Time::max(), h), expected[where]);
  }
}
