// run_windows (mgen/net/partition.hpp) with stand-in partitions: lists of event times, counted
// by hand. The windows it opens, and that an error in any hook of any partition ends the run
// with that error on every thread, without a hang; the same over processes (threads playing
// them: fake_transport.hpp).
#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "fake_transport.hpp"
#include "mgen/net/partition.hpp"

using mgen::simcore::Time;
namespace net = mgen::net;
namespace test = mgen::test;

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

namespace {

// Partition i sends every other partition, after each window in which it ran events, one record
// "i>j@t" for the last event t it ran, due a lookahead after t; the receiver logs what it takes
// and at which window's end.
struct Talk : Fake {
  std::vector<std::vector<std::string>> took;
  std::vector<std::vector<int64_t>> fresh;  // run in the window just ended
  net::PartitionHooks hooks(Time lookahead) {
    net::PartitionHooks h = Fake::hooks();
    took.assign(pending.size(), {});
    fresh.assign(pending.size(), {});
    h.run = [this, run = h.run](uint32_t i, Time until) {
      const size_t before = ran[i].size();
      run(i, until);
      fresh[i].assign(ran[i].begin() + static_cast<std::ptrdiff_t>(before), ran[i].end());
    };
    h.pack = [this, lookahead](uint32_t i, uint32_t j, std::string& out) {
      if (fresh[i].empty()) return Time::max();
      const int64_t t = fresh[i].back();
      out += std::to_string(i) + ">" + std::to_string(j) + "@" + std::to_string(t) + ";";
      return Time::ps(t) + lookahead;
    };
    h.take = [this](uint32_t i, std::string_view bytes, Time end) {
      if (!bytes.empty()) took[i].push_back(std::string(bytes) + "|" + std::to_string(end.count_ps()));
    };
    return h;
  }
};

}  // namespace

TEST_CASE("partitions over processes see the windows and crossings of partitions on threads", "[partition]") {
  const std::vector<std::vector<int64_t>> events = {{0, 35}, {12}, {3, 70}, {41}};
  Talk serial;
  serial.pending = events;
  const net::WindowStats one = net::run_windows(threads(4), Time::ps(10), Time::max(), serial.hooks(Time::ps(10)));
  // [0,10): 0 and 3 run, their records are due at 10 and 13; [10,20): 12, due 22; [22,32):
  // nothing runs; [35,45): 35 and 41; [45,55); [70,80): 70; [80,90).
  CHECK(one.windows == 7);
  CHECK(serial.took[1] == std::vector<std::string>{"0>1@0;|10", "2>1@3;|10", "0>1@35;|45", "3>1@41;|45", "2>1@70;|80"});
  // The same partitions as 2 processes of 2 threads, and as 4 processes of 1: same windows, and
  // every partition takes the same bytes at the same window ends.
  for (uint32_t procs : {2u, 4u}) {
    INFO(procs << " processes");
    test::TransportHub hub(procs);
    Talk cut;
    cut.pending = events;
    const net::PartitionHooks h = cut.hooks(Time::ps(10));
    std::vector<net::WindowStats> stats(procs);
    std::vector<test::FakeTransport> transports;
    for (uint32_t p = 0; p < procs; ++p)
      transports.emplace_back(hub, p);
    std::vector<std::thread> players;
    for (uint32_t p = 0; p < procs; ++p) {
      players.emplace_back([&, p] {
        net::PartitionLayout l;
        l.parts = 4;
        l.local = 4 / procs;
        l.transport = &transports[p];
        stats[p] = net::run_windows(l, Time::ps(10), Time::max(), h);
      });
    }
    for (std::thread& t : players)
      t.join();
    for (uint32_t p = 0; p < procs; ++p)
      CHECK(stats[p].windows == one.windows);
    CHECK(cut.ran == serial.ran);
    CHECK(cut.took == serial.took);
  }
}

TEST_CASE("a partition that fails in one process stops the others", "[partition][errors]") {
  test::TransportHub hub(2);
  std::vector<test::FakeTransport> transports{{hub, 0}, {hub, 1}};
  Fake f;
  f.pending = {{0, 20, 40, 60}, {0, 20, 40, 60}, {0, 20, 40, 60}, {0, 20, 40, 60}};
  net::PartitionHooks h = f.hooks();
  const auto run = h.run;
  std::atomic<int> calls{0};
  h.run = [&, run](uint32_t i, Time u) {
    if (i == 3 && ++calls == 2) throw std::runtime_error("partition 3 failed");
    run(i, u);
  };
  std::string what[2];
  std::vector<std::thread> players;
  for (uint32_t p = 0; p < 2; ++p) {
    players.emplace_back([&, p] {
      net::PartitionLayout l;
      l.parts = 4;
      l.local = 2;
      l.transport = &transports[p];
      try {
        net::run_windows(l, Time::ps(10), Time::max(), h);
      } catch (const std::exception& e) {
        what[p] = e.what();
      }
    });
  }
  for (std::thread& t : players)
    t.join();
  CHECK(what[1] == "partition 3 failed");
  CHECK(what[0] == "a partition of another process failed");
  // Both stopped after the same window: the second, where partition 3 failed.
  CHECK(f.ran[0] == std::vector<int64_t>{0, 20});
  CHECK(transports[0].calls() == transports[1].calls());
}
