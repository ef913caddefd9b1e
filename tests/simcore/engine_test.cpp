#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "mgen/simcore/engine.hpp"

using namespace mgen::simcore;

TEST_CASE("event queue pops in (time, insertion) order", "[engine]") {
  std::mt19937_64 rng(7);
  EventQueue q;
  std::vector<Event> reference;
  for (uint64_t i = 0; i < 20000; ++i) {
    Event e{Time::ps(static_cast<int64_t>(rng() % 500)), i, static_cast<uint32_t>(i), 1, 0, i};
    q.push(e);
    reference.push_back(e);
  }
  // Independent order: a stable sort by time keeps insertion order among equal times.
  std::stable_sort(reference.begin(), reference.end(), [](const Event& a, const Event& b) { return a.time < b.time; });
  for (const Event& expected : reference) {
    REQUIRE(!q.empty());
    const Event got = q.pop();
    REQUIRE(got.time == expected.time);
    REQUIRE(got.seq == expected.seq);
  }
  CHECK(q.empty());
}

TEST_CASE("interleaved pushes and pops keep the order", "[engine]") {
  std::mt19937_64 rng(11);
  EventQueue q;
  uint64_t seq = 0;
  Time last = Time::zero();
  uint64_t last_seq = 0;
  for (int round = 0; round < 50000; ++round) {
    const int pushes = static_cast<int>(rng() % 3);
    for (int i = 0; i < pushes; ++i) {
      q.push(Event{last + Time::ps(static_cast<int64_t>(rng() % 100)), seq++, 0, 1, 0, 0});
    }
    if (!q.empty()) {
      const Event e = q.pop();
      REQUIRE(e.time >= last);
      if (round > 0 && e.time == last) REQUIRE(e.seq > last_seq);
      last = e.time;
      last_seq = e.seq;
    }
  }
}

TEST_CASE("engine dispatches in order and advances time", "[engine]") {
  Engine engine;
  std::vector<std::pair<int64_t, uint32_t>> seen;
  engine.schedule(Time::ns(5), 1, 2);
  engine.schedule(Time::ns(1), 1, 1);
  engine.schedule(Time::ns(5), 1, 3);
  auto dispatch = [&](const Event& e) {
    seen.emplace_back(engine.now().count_ps(), e.target);
    if (e.target == 1) engine.schedule_in(Time::ns(4), 1, 4);  // lands at 5 ns, after targets 2 and 3
  };
  CHECK(engine.run(dispatch) == 4);
  REQUIRE(seen.size() == 4);
  CHECK(seen[0] == std::make_pair<int64_t, uint32_t>(1000, 1));
  CHECK(seen[1] == std::make_pair<int64_t, uint32_t>(5000, 2));
  CHECK(seen[2] == std::make_pair<int64_t, uint32_t>(5000, 3));
  CHECK(seen[3] == std::make_pair<int64_t, uint32_t>(5000, 4));
  CHECK(engine.now() == Time::ns(5));
}

TEST_CASE("canonical events run by (kind, target, port, data), before insertion-ordered ones", "[engine]") {
  // The same events scheduled in two different orders are dispatched in one order.
  struct Spec {
    bool canonical;
    uint16_t kind;
    uint32_t target;
    uint16_t port;
    uint64_t data;
  };
  const std::vector<Spec> specs = {{false, 9, 0, 0, 1}, {true, 3, 7, 1, 0}, {true, 2, 9, 0, 0}, {true, 3, 7, 0, 5},
                                   {false, 1, 0, 0, 2}, {true, 3, 7, 0, 4}, {true, 3, 2, 8, 0}, {true, 2, 9, 0, 0}};
  auto dispatch_order = [&](bool reversed) {
    Engine engine;
    engine.schedule(Time::ns(1), 1, 0);
    std::vector<size_t> order(specs.size());
    for (size_t i = 0; i < specs.size(); ++i)
      order[i] = reversed ? specs.size() - 1 - i : i;
    for (size_t i : order) {
      const Spec& s = specs[i];
      if (s.canonical) {
        engine.schedule_canonical(Time::ns(5), s.kind, s.target, s.port, s.data);
      } else {
        engine.schedule(Time::ns(5), s.kind, s.target, s.port, s.data);
      }
    }
    std::vector<std::tuple<uint16_t, uint32_t, uint16_t, uint64_t>> seen;
    engine.run([&](const Event& e) {
      if (e.time == Time::ns(5)) seen.emplace_back(e.kind, e.target, e.port, e.data);
    });
    return seen;
  };
  const auto forward = dispatch_order(false);
  const std::vector<std::tuple<uint16_t, uint32_t, uint16_t, uint64_t>> expected = {
      {2, 9, 0, 0}, {2, 9, 0, 0}, {3, 2, 8, 0}, {3, 7, 0, 4}, {3, 7, 0, 5}, {3, 7, 1, 0}, {9, 0, 0, 1}, {1, 0, 0, 2}};
  CHECK(forward == expected);
  // Insertion-ordered events keep their insertion order, so only they change with the order.
  auto reversed = dispatch_order(true);
  std::swap(reversed[6], reversed[7]);
  CHECK(reversed == expected);
}

TEST_CASE("a canonical event scheduled for now that sorts first runs next", "[engine]") {
  Engine engine;
  std::vector<uint16_t> kinds;
  engine.schedule_canonical(Time::ns(2), 5, 0);
  engine.schedule_canonical(Time::ns(2), 6, 0);
  engine.run([&](const Event& e) {
    kinds.push_back(e.kind);
    if (e.kind == 5) engine.schedule_canonical(engine.now(), 4, 1);
  });
  CHECK(kinds == std::vector<uint16_t>{5, 4, 6});
  CHECK(engine.events_scheduled() == 3);
}

TEST_CASE("engine refuses events in the past", "[engine]") {
  Engine engine;
  engine.schedule(Time::ns(10), 1, 0);
  engine.run([](const Event&) {});
  CHECK_THROWS_AS(engine.schedule(Time::ns(9), 1, 0), std::logic_error);
}

TEST_CASE("run stops at a horizon and resumes", "[engine]") {
  Engine engine;
  int count = 0;
  for (int i = 1; i <= 10; ++i)
    engine.schedule(Time::ns(i), 1, 0);
  engine.run([&](const Event&) { ++count; }, Time::ns(4));
  CHECK(count == 4);
  CHECK(engine.now() == Time::ns(4));
  engine.run([&](const Event&) { ++count; });
  CHECK(count == 10);
  CHECK(engine.events_processed() == 10);
}

TEST_CASE("stop() from a handler ends the run", "[engine]") {
  Engine engine;
  for (int i = 1; i <= 10; ++i)
    engine.schedule(Time::ns(i), 1, 0);
  int count = 0;
  engine.run([&](const Event&) {
    if (++count == 3) engine.stop();
  });
  CHECK(count == 3);
  CHECK(engine.pending() == 7);
}

TEST_CASE("the calendar queue pops exactly like the reference heap", "[engine]") {
  // Mixed horizons: same-time events, near events in the current bucket, events spread over
  // the calendar and far beyond it, with small calendars so that wrap-around is exercised.
  for (unsigned bits : {6u, 8u, 12u}) {
    for (unsigned shift : {0u, 4u, 10u}) {
      std::mt19937_64 rng(bits * 100 + shift);
      EventQueue fast(shift, bits);
      HeapQueue reference;
      uint64_t seq = 0;
      Time now = Time::zero();
      for (int round = 0; round < 60000; ++round) {
        const int pushes = static_cast<int>(rng() % 4);
        for (int i = 0; i < pushes; ++i) {
          int64_t delay;
          switch (rng() % 5) {
            case 0:
              delay = 0;
              break;
            case 1:
              delay = static_cast<int64_t>(rng() % 64);
              break;
            case 2:
              delay = static_cast<int64_t>(rng() % 5000);
              break;
            case 3:
              delay = static_cast<int64_t>(rng() % 300000);
              break;
            default:
              delay = static_cast<int64_t>(rng() % 100000000);
              break;
          }
          const Event e{now + Time::ps(delay), seq++, static_cast<uint32_t>(round), 1, 0, 0};
          fast.push(e);
          reference.push(e);
        }
        REQUIRE(fast.size() == reference.size());
        if (!reference.empty()) {
          REQUIRE(fast.top().seq == reference.top().seq);
          const Event a = fast.pop();
          const Event b = reference.pop();
          REQUIRE(a.seq == b.seq);
          REQUIRE(a.time == b.time);
          now = a.time;
        }
      }
      while (!reference.empty())
        REQUIRE(fast.pop().seq == reference.pop().seq);
      CHECK(fast.empty());
    }
  }
}

TEST_CASE("equal sequence numbers are ordered by data, the same in the calendar and the heap", "[engine]") {
  // Canonical events of one kind, target and port share a sequence number; their data decides.
  for (unsigned shift : {0u, 6u, 10u}) {
    std::mt19937_64 rng(shift + 1);
    EventQueue fast(shift, 6);
    HeapQueue reference;
    Time now = Time::zero();
    for (int round = 0; round < 30000; ++round) {
      for (int i = static_cast<int>(rng() % 3); i > 0; --i) {
        const Event e{now + Time::ps(static_cast<int64_t>(rng() % 50)), rng() % 4, 0, 1, 0, rng()};
        fast.push(e);
        reference.push(e);
      }
      if (!reference.empty()) {
        const Event a = fast.pop();
        const Event b = reference.pop();
        REQUIRE(a.time == b.time);
        REQUIRE(a.seq == b.seq);
        REQUIRE(a.data == b.data);
        now = a.time;
      }
    }
  }
}

TEST_CASE("the calendar's bucket width changes only while it is empty and stays exact after", "[engine]") {
  std::mt19937_64 rng(3);
  EventQueue fast(10, 8);
  HeapQueue reference;
  uint64_t seq = 0;
  Time now = Time::zero();
  auto pop_both = [&] {
    const Event a = fast.pop();
    REQUIRE(a.seq == reference.pop().seq);
    now = a.time;
  };
  auto drain = [&] {
    while (!reference.empty())
      pop_both();
  };
  auto phase = [&](int rounds) {
    for (int round = 0; round < rounds; ++round) {
      for (int i = static_cast<int>(rng() % 4); i > 0; --i) {
        const Event e{now + Time::ps(static_cast<int64_t>(rng() % (rng() % 2 ? 2000 : 5000000))), seq++, 0, 1, 0, 0};
        fast.push(e);
        reference.push(e);
      }
      if (!reference.empty()) pop_both();
    }
  };
  phase(20000);
  REQUIRE(!fast.empty());
  REQUIRE_THROWS_WITH(fast.set_bucket_shift(14), Catch::Contains("only while it is empty"));
  drain();
  // Wider, then narrower again, each time from where simulated time stands.
  for (unsigned shift : {14u, 4u, 10u}) {
    INFO("shift " << shift);
    fast.set_bucket_shift(shift);
    CHECK(fast.bucket_shift() == shift);
    phase(20000);
    drain();
  }
}

TEST_CASE("the engine hands out disjoint blocks of event kinds, never kind 0", "[engine]") {
  Engine e;
  const KindRange a = e.reserve_kinds(7);
  const KindRange b = e.reserve_kinds(3);
  const KindRange none = e.reserve_kinds(0);
  CHECK(a.begin == 1);
  CHECK(a.end == 8);
  CHECK(b.begin == a.end);
  CHECK(b.end == 11);
  CHECK(a[0] == 1);
  CHECK(b[2] == 10);
  CHECK(a.contains(7));
  CHECK_FALSE(a.contains(8));
  CHECK_FALSE(a.contains(0));
  CHECK(b.contains(8));
  CHECK(none.begin == none.end);
  CHECK_FALSE(none.contains(none.begin));
  e.reserve_kinds(static_cast<uint16_t>(0xFFFF - 11));
  CHECK_THROWS_AS(e.reserve_kinds(1), std::logic_error);
}

TEST_CASE("prefetch hints name events still to come and do not change the order", "[engine]") {
  // The same random workload run twice, with and without the prefetch hook: handlers schedule
  // successors, some at the current time, so hints can go stale. Every hint must be an event
  // that is later dispatched (it was pending when hinted), and the dispatch order must be equal.
  using Hint = std::pair<uint64_t, size_t>;  // (event hinted, events dispatched before the hint)
  auto workload = [](bool with_prefetch, std::vector<uint64_t>& order, std::vector<Hint>& hints) {
    Engine engine;
    std::mt19937_64 rng(7);
    uint64_t next_id = 0;
    for (int i = 0; i < 200; ++i)
      engine.schedule(Time::ps(static_cast<int64_t>(rng() % 5000)), 1, 0, 0, next_id++);
    auto handle = [&](const Event& e) {
      order.push_back(e.data);
      if (next_id < 5000) {
        const int64_t delay = rng() % 3 == 0 ? 0 : static_cast<int64_t>(rng() % 3000);
        engine.schedule(e.time + Time::ps(delay), 1, 0, 0, next_id++);
      }
    };
    if (with_prefetch) {
      engine.run(
          handle, [&](const Event& e) { hints.emplace_back(e.data, order.size()); }, Time::max());
    } else {
      engine.run(handle);
    }
  };
  std::vector<uint64_t> plain, prefetched;
  std::vector<Hint> unused, hints;
  workload(false, plain, unused);
  workload(true, prefetched, hints);
  CHECK(prefetched == plain);
  REQUIRE(hints.size() > 1000);
  std::vector<size_t> position(plain.size());
  for (size_t i = 0; i < plain.size(); ++i)
    position[plain[i]] = i;
  size_t late = 0;
  for (const auto& [h, dispatched] : hints) {
    REQUIRE(h < position.size());
    // The hint comes just before event number `dispatched` is handled and names a later one.
    if (position[h] <= dispatched) ++late;
  }
  CHECK(late == 0);
}
