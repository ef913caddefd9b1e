// The calendar's corner cases, each compared pop for pop with the reference heap.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "mgen/simcore/engine.hpp"

using namespace mgen::simcore;

namespace {

constexpr uint64_t kInsertion = uint64_t{1} << 63;  // as Engine marks insertion-ordered events

// The calendar under test and the reference heap, fed the same events.
struct Pair {
  EventQueue fast;
  HeapQueue reference;
  Time now = Time::zero();  // time of the last event popped (or of the last horizon reached)

  explicit Pair(unsigned shift = 10, unsigned bits = 12) : fast(shift, bits) {}

  void push(const Event& e) {
    REQUIRE(e.time >= now);
    fast.push(e);
    reference.push(e);
  }
  // Pops one event from both and checks they are the same event.
  Event pop() {
    REQUIRE(!reference.empty());
    const Event& top = fast.top();
    REQUIRE(top.time == reference.top().time);
    REQUIRE(top.seq == reference.top().seq);
    REQUIRE(top.data == reference.top().data);
    const Event a = fast.pop();
    const Event b = reference.pop();
    REQUIRE(a.time == b.time);
    REQUIRE(a.seq == b.seq);
    REQUIRE(a.data == b.data);
    REQUIRE(fast.size() == reference.size());
    now = a.time;
    return a;
  }
  void drain() {
    while (!reference.empty())
      pop();
    CHECK(fast.empty());
  }
};

Event at(int64_t ps, uint64_t seq, uint64_t data = 0) {
  return Event{Time::ps(ps), seq, 0, 1, 0, data};
}

}  // namespace

TEST_CASE("a burst into one bucket comes out in order and its memory is reused", "[engine][calendar]") {
  // Ten thousand ranks resuming at one instant: one bucket holds them all, pushed in an order
  // unrelated to their keys, some canonical (small keys), some insertion-ordered.
  Pair p(14);
  std::mt19937_64 rng(5);
  uint64_t seq = 0;
  auto burst = [&](int64_t t) {
    for (int i = 0; i < 20000; ++i) {
      const int64_t dt = static_cast<int64_t>(rng() % 3) * 100;  // a few distinct times in the bucket
      const uint64_t key = rng() % 2 ? rng() % 64 : kInsertion | (seq++ ^ (rng() % 8));
      p.push(at(t + dt, key, rng() % 4));
    }
  };
  burst(1 << 20);
  p.pop();
  // Some of the burst's instant again, pushed into the open bucket.
  for (int i = 0; i < 1000; ++i)
    p.push(at(p.now.count_ps() + static_cast<int64_t>(rng() % 200), rng() % 2 ? rng() % 64 : kInsertion | seq++));
  p.drain();
  const size_t nodes = p.fast.slab_nodes();
  const size_t open = p.fast.open_capacity();
  CHECK(nodes * EventQueue::kNodeEvents >= 20000);
  // The same burst again takes no new memory: the slab's nodes came back to its free list.
  burst(2 << 20);
  p.drain();
  CHECK(p.fast.slab_nodes() == nodes);
  CHECK(p.fast.open_capacity() == open);
  // A small bucket after the burst: the open array lets the burst's capacity go.
  p.push(at(3 << 20, kInsertion | seq++));
  p.pop();
  CHECK(p.fast.open_capacity() < 4096);
}

TEST_CASE("a hold model allocates nothing after warm-up", "[engine][calendar]") {
  Pair p(10, 8);
  std::mt19937_64 rng(9);
  uint64_t seq = 0;
  for (int i = 0; i < 5000; ++i)
    p.push(at(static_cast<int64_t>(rng() % 200000), kInsertion | seq++));
  auto hold = [&](int events) {
    for (int i = 0; i < events; ++i) {
      const Event e = p.pop();
      p.push(at(e.time.count_ps() + static_cast<int64_t>(rng() % 200000), kInsertion | seq++));
    }
  };
  hold(50000);
  const size_t nodes = p.fast.slab_nodes();
  hold(200000);
  // Bucket occupancy fluctuates, so a few more partly filled nodes may be live at a peak;
  // a leak (nodes never returned) would need thousands more.
  CHECK(p.fast.slab_nodes() <= nodes + nodes / 10);
  p.drain();
}

TEST_CASE("events pushed into the open bucket at the current time sort before or after the rest",
          "[engine][calendar]") {
  // One 1 us bucket holding events at 0, 10 and 20 ns; after the first pop, events for "now"
  // arrive that sort before everything left (small canonical keys), between, and after
  // (insertion-ordered at the same time, and later times in the bucket).
  for (int popped = 1; popped <= 4; ++popped) {
    INFO("popped " << popped);
    Pair p(20);
    for (uint64_t i = 0; i < 3; ++i) {
      p.push(at(0, kInsertion | (10 + i)));
      p.push(at(10000, kInsertion | (20 + i)));
      p.push(at(20000, kInsertion | (30 + i)));
    }
    p.push(at(0, 5));  // canonical: before the insertion-ordered events of time 0
    for (int i = 0; i < popped; ++i)
      p.pop();
    const int64_t now = p.now.count_ps();
    p.push(at(now, 1));                 // canonical, before everything left
    p.push(at(now, kInsertion | 100));  // after the same-time events left
    p.push(at(now, 3));                 // canonical again, pushed after an insertion-ordered one
    p.push(at(now + 5000, kInsertion | 101));
    p.push(at(20000, kInsertion | 102));  // the same time as the bucket's last events, after them
    p.push(at(20000, 2));                 // before them
    p.push(at(30000, kInsertion | 103));  // after the bucket's last event: appended
    CHECK(p.pop().seq == 1);
    CHECK(p.pop().seq == 3);
    p.drain();
  }
}

TEST_CASE("the open bucket's array stays small while same-time events chain", "[engine][calendar]") {
  // Two events pending at one instant; each pop schedules another at the same instant, which
  // sorts after both and is appended to the open array. The array must not keep every event
  // the instant ever saw.
  Pair p;
  uint64_t seq = 0;
  p.push(at(500, kInsertion | seq++));
  p.push(at(500, kInsertion | seq++));
  for (int i = 0; i < 300000; ++i) {
    p.pop();
    p.push(at(500, kInsertion | seq++));
  }
  CHECK(p.fast.open_capacity() < 4096);
  p.drain();
}

TEST_CASE("events beyond the calendar's horizon come back in order as it turns", "[engine][calendar]") {
  // 64 buckets of 16 ps: a horizon of 1,024 ps. Events just inside, at and just past it, and
  // several turns of the wheel away, with pops in between so that the wheel wraps.
  for (unsigned shift : {0u, 4u}) {
    INFO("shift " << shift);
    Pair p(shift, 6);
    const int64_t width = int64_t{1} << shift;
    const int64_t horizon = 64 * width;
    std::mt19937_64 rng(shift + 17);
    uint64_t seq = 0;
    for (int round = 0; round < 20000; ++round) {
      const int64_t base = p.now.count_ps() - p.now.count_ps() % width;  // start of the current bucket
      const int64_t edge = base + horizon;
      switch (rng() % 6) {
        case 0:
          p.push(at(edge - 1, kInsertion | seq++));
          break;
        case 1:
          p.push(at(edge, kInsertion | seq++));
          break;
        case 2:
          p.push(at(edge + 1, rng() % 16));  // canonical: ties with the other side's events
          break;
        case 3:
          p.push(at(p.now.count_ps() + static_cast<int64_t>(rng() % 5) * horizon + static_cast<int64_t>(rng() % 3),
                    kInsertion | seq++));
          break;
        case 4:
          p.push(at(p.now.count_ps(), kInsertion | seq++));
          break;
        default:
          p.push(at(edge, rng() % 16, rng() % 2));
          break;
      }
      if (rng() % 3 != 0 && !p.reference.empty()) p.pop();
    }
    p.drain();
  }
}

TEST_CASE("pop_until stops before a later bucket and leaves room to schedule at the horizon", "[engine][calendar]") {
  EventQueue q(10, 6);
  q.push(at(100, kInsertion | 0));
  q.push(at(50000, kInsertion | 1));     // 48 buckets ahead
  q.push(at(10000000, kInsertion | 2));  // beyond the horizon
  Event e;
  REQUIRE(q.pop_until(Time::ps(1000), e));
  CHECK(e.seq == (kInsertion | 0));
  CHECK_FALSE(q.pop_until(Time::ps(3000), e));  // the next bucket starts after the horizon
  q.push(at(3000, kInsertion | 5));             // so time may stand there and schedule
  REQUIRE(q.pop_until(Time::ps(49500), e));
  CHECK(e.seq == (kInsertion | 5));
  CHECK_FALSE(q.pop_until(Time::ps(49500), e));  // its bucket has started, its event has not
  // Time stands at the horizon now: events there must still come first.
  q.push(at(49500, kInsertion | 3));
  q.push(at(49600, 7));
  REQUIRE(q.pop_until(Time::ps(9999999), e));
  CHECK(e.seq == (kInsertion | 3));
  REQUIRE(q.pop_until(Time::ps(9999999), e));
  CHECK(e.seq == 7);
  REQUIRE(q.pop_until(Time::ps(9999999), e));
  CHECK(e.seq == (kInsertion | 1));
  CHECK_FALSE(q.pop_until(Time::ps(9999999), e));  // only the far event is left
  q.push(at(9999999, kInsertion | 4));
  REQUIRE(q.pop_until(Time::max(), e));
  CHECK(e.seq == (kInsertion | 4));
  REQUIRE(q.pop_until(Time::max(), e));
  CHECK(e.seq == (kInsertion | 2));
  CHECK_FALSE(q.pop_until(Time::max(), e));
  CHECK(q.empty());
}

TEST_CASE("the engine's horizon falls inside a bucket and later events still come in order", "[engine][calendar]") {
  Engine engine;
  engine.set_bucket_shift(20);  // 1 us buckets: the horizons below fall inside one
  std::vector<uint32_t> seen;
  auto record = [&](const Event& e) { seen.push_back(e.target); };
  engine.schedule(Time::ns(100), 1, 1);
  engine.schedule(Time::ns(400), 1, 2);
  engine.run(record, Time::ns(200));
  CHECK(engine.now() == Time::ns(200));
  engine.schedule(Time::ns(200), 1, 3);
  engine.schedule_canonical(Time::ns(300), 1, 4);  // both before the bucket's event at 400 ns
  engine.run(record, Time::ns(250));
  CHECK(seen == std::vector<uint32_t>{1, 3});  // the horizon also holds back the early arrivals
  CHECK(engine.now() == Time::ns(250));
  engine.run(record, Time::ns(350));
  engine.schedule(Time::ns(350), 1, 5);
  engine.run(record);
  CHECK(seen == std::vector<uint32_t>{1, 3, 4, 5, 2});
}

TEST_CASE("the bucket width changes while empty, at any time, and the order stays exact", "[engine][calendar]") {
  {
    // 1 ps buckets up to 1 ns, then 1 ns buckets: the calendar must not read its old bucket
    // number (1000) in the new width (where it would mean 1 us), or an event due now would
    // wait behind one due later.
    Pair p(0, 6);
    p.push(at(1000, kInsertion | 0));
    p.drain();
    p.fast.set_bucket_shift(10);
    p.push(at(1000, kInsertion | 1));
    p.push(at(1050000, kInsertion | 2));
    p.drain();
  }
  Pair p(10, 6);
  std::mt19937_64 rng(23);
  uint64_t seq = 0;
  for (unsigned shift : {10u, 16u, 0u, 12u, 3u}) {
    INFO("shift " << shift);
    p.fast.set_bucket_shift(shift);
    // Straight after the change, events at the current time and just after it, then a mix.
    p.push(at(p.now.count_ps(), kInsertion | seq++));
    p.push(at(p.now.count_ps(), rng() % 8));
    p.push(at(p.now.count_ps() + 1, kInsertion | seq++));
    for (int round = 0; round < 5000; ++round) {
      for (int i = static_cast<int>(rng() % 3); i > 0; --i) {
        const int64_t delay = static_cast<int64_t>(rng() % (rng() % 2 ? 300 : 3000000));
        p.push(at(p.now.count_ps() + delay, rng() % 4 ? kInsertion | seq++ : rng() % 8, rng() % 2));
      }
      if (!p.reference.empty()) p.pop();
    }
    p.drain();
  }
}

TEST_CASE("equal times interleave canonical and insertion-ordered events as the heap does", "[engine][calendar]") {
  // Few distinct times, many events at each, pushed and popped interleaved; canonical keys
  // repeat (their data decides), insertion sequences are unique.
  for (unsigned shift : {0u, 2u, 10u}) {
    INFO("shift " << shift);
    Pair p(shift, 6);
    std::mt19937_64 rng(shift + 31);
    uint64_t seq = 0;
    for (int round = 0; round < 40000; ++round) {
      for (int i = static_cast<int>(rng() % 4); i > 0; --i) {
        const int64_t t = p.now.count_ps() + static_cast<int64_t>(rng() % 3) * 4;
        if (rng() % 2) {
          p.push(at(t, rng() % 6, rng() % 3));
        } else {
          p.push(at(t, kInsertion | seq++));
        }
      }
      if (!p.reference.empty()) p.pop();
    }
    p.drain();
  }
}

TEST_CASE("full buckets come out in order whichever way they are sorted", "[engine][calendar]") {
  // A bucket of more than 16 events is sorted by two counting passes over the time within the
  // bucket, then its runs of equal time by (seq, data); with few events for the digits, or
  // buckets wider than 2^16 ps, by a comparison sort. Buckets of 17 to 400 events at every
  // width around those limits, times drawn from a few or from many values (so that runs of
  // equal time are short or long), keys canonical (repeating, data decides) or insertion-ordered,
  // pushed in an order unrelated to their keys, each popped against the reference heap.
  for (unsigned shift : {5u, 10u, 14u, 16u, 17u, 20u}) {
    for (int distinct : {3, 1000000}) {
      INFO("shift " << shift << ", distinct times " << distinct);
      Pair p(shift, 6);
      std::mt19937_64 rng(shift * 7 + static_cast<unsigned>(distinct));
      uint64_t seq = 0;
      const int64_t width = int64_t{1} << shift;
      for (int bucket = 0; bucket < 60; ++bucket) {
        // Events for one bucket a few buckets ahead, then popped down to it.
        const int64_t start = (p.now.count_ps() / width + 2) * width;
        const int n = 17 + static_cast<int>(rng() % 384);
        for (int i = 0; i < n; ++i) {
          const int64_t t = start + static_cast<int64_t>(rng() % static_cast<uint64_t>(distinct)) % width;
          if (rng() % 2) {
            p.push(at(t, rng() % 5, rng() % 4));
          } else {
            p.push(at(t, kInsertion | (seq++ ^ (rng() % 16))));
          }
        }
        for (int i = n / 2; i > 0; --i)
          p.pop();
      }
      p.drain();
    }
  }
}
