// The discrete-event engine. It knows nothing of networks or MPI: it keeps simulated time,
// orders events by (time, insertion sequence) - or, for events scheduled with
// schedule_canonical(), by (time, kind, target, port, data) - and hands each one to a
// dispatcher supplied by the caller. The dispatcher is a template parameter, so the hot loop
// is a direct call into the owner's `switch` on the event kind, never a virtual call.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "mgen/simcore/event_queue.hpp"

namespace mgen::simcore {

// A block of event kinds handed to one owner (a network backend, the MPI world, a traffic
// generator), so that owners never pick numbers by hand and never collide. Kind 0 is never
// handed out.
struct KindRange {
  uint16_t begin = 0, end = 0;
  constexpr bool contains(uint16_t kind) const { return kind >= begin && kind < end; }
  // The owner's own kind `local` (0, 1, ...) as the engine sees it.
  constexpr uint16_t operator[](uint16_t local) const { return static_cast<uint16_t>(begin + local); }
};

class Engine {
 public:
  // Hands out the next `count` event kinds.
  KindRange reserve_kinds(uint16_t count) {
    if (count > 0xFFFF - next_kind_) throw std::logic_error("the engine's 65,535 event kinds are all handed out");
    const KindRange r{next_kind_, static_cast<uint16_t>(next_kind_ + count)};
    next_kind_ = r.end;
    return r;
  }

  Time now() const { return now_; }
  uint64_t events_processed() const { return processed_; }
  uint64_t events_scheduled() const { return next_seq_; }
  size_t pending() const { return queue_.size(); }
  bool idle() const { return queue_.empty(); }
  Time next_time() const { return queue_.empty() ? Time::max() : queue_.top().time; }
  void reserve(size_t n) { queue_.reserve(n); }
  // The calendar's bucket width, 2^shift ps (default 2^10, about 1 ns). Only while no event is
  // pending; the order of events never depends on it, only the speed.
  void set_bucket_shift(unsigned shift) { queue_.set_bucket_shift(shift); }
  unsigned bucket_shift() const { return queue_.bucket_shift(); }

  // Schedules an event at absolute time `t`, which must not be in the past. Same-time events
  // run in the order they were scheduled.
  [[gnu::always_inline]] void schedule(Time t, uint16_t kind, uint32_t target, uint16_t port = 0, uint64_t data = 0) {
    check(t);
    queue_.push(Event{t, kInsertionOrder | next_seq_++, target, kind, port, data});
  }
  // Same-time events scheduled this way run in (kind, target, port, data) order, whatever order
  // they were scheduled in, and before same-time events scheduled with schedule(). A model whose
  // results must not depend on the order in which its code happens to schedule simultaneous
  // events uses it: its slow reference mode schedules more of them, a partitioned run would
  // schedule them in another order. Kinds are compared modulo 2^15 (the top bit of the tie-break
  // marks insertion order). An event scheduled for now that sorts before the one being handled
  // runs next.
  [[gnu::always_inline]] void schedule_canonical(Time t, uint16_t kind, uint32_t target, uint16_t port = 0,
                                                 uint64_t data = 0) {
    check(t);
    ++next_seq_;
    const uint64_t key = (uint64_t{kind} << 48 | uint64_t{target} << 16 | port) & ~kInsertionOrder;
    queue_.push(Event{t, key, target, kind, port, data});
  }
  void schedule_in(Time delay, uint16_t kind, uint32_t target, uint16_t port = 0, uint64_t data = 0) {
    schedule(now_ + delay, kind, target, port, data);
  }

  // Processes events in order until none is left, the next one lies after `until`, or
  // `stop()` was called from a handler. Returns the number processed by this call.
  template <class Dispatch>
  uint64_t run(Dispatch&& dispatch, Time until = Time::max()) {
    return run(dispatch, NoPrefetch{}, until);
  }

  // As run(), and before handling each event, hands the event likely to come next to
  // `prefetch` (which must not change anything): a model whose state is larger than the cache
  // starts loading the next event's data while it handles this one.
  template <class Dispatch, class Prefetch>
  uint64_t run(Dispatch&& dispatch, Prefetch&& prefetch, Time until) {
    stop_ = false;
    const uint64_t start = processed_;
    Event e;
    while (!stop_ && queue_.pop_until(until, e)) {
      if constexpr (!std::is_same_v<std::decay_t<Prefetch>, NoPrefetch>) {
        if (const Event* next = queue_.peek_hint(kPrefetchDistance)) prefetch(*next);
      }
      now_ = e.time;
      ++processed_;
      dispatch(e);
    }
    if (!stop_ && until != Time::max() && now_ < until) now_ = until;
    return processed_ - start;
  }

  void stop() { stop_ = true; }

 private:
  struct NoPrefetch {
    void operator()(const Event&) const {}
  };
  // How far ahead of the event being handled prefetching looks. Measured on 16^3 and 32^3 tori
  // (bench_network): 1 to 6 ahead are within noise of each other, all far better than none.
  static constexpr size_t kPrefetchDistance = 2;
  // Insertion-ordered events carry this bit in their sequence number; canonical ones do not.
  static constexpr uint64_t kInsertionOrder = uint64_t{1} << 63;

  void check(Time t) const {
    if (t < now_) [[unlikely]]
      in_the_past(t);
  }
  [[noreturn, gnu::noinline, gnu::cold]] static void in_the_past(Time t) {
    throw std::logic_error("event scheduled in the past at " + std::to_string(t.count_ps()) + " ps");
  }

  EventQueue queue_;
  Time now_;
  uint64_t next_seq_ = 0;
  uint64_t processed_ = 0;
  uint16_t next_kind_ = 1;
  bool stop_ = false;
};

}  // namespace mgen::simcore
