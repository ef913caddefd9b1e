// Pending-event sets. Both give exactly the order of `before()`: time, then insertion sequence.
//
// HeapQueue: an implicit 4-ary min-heap. Simple and the reference the fast queue is tested
// against; it also holds the calendar's far-future events.
//
// EventQueue: a calendar (timing wheel) of 2^bucket_bits buckets, each 2^bucket_shift ps wide,
// covering the near future, plus a HeapQueue for events beyond it. Network events land a link
// latency or a serialisation time ahead, so almost every push is an append to an unsorted
// bucket, and a bucket is sorted once when time reaches it. A bitmap of occupied buckets makes
// skipping empty ones cheap. Both queues only grow their storage: after warm-up nothing is
// allocated per event. The best width follows the spacing of the events: about a nanosecond
// for packet hops, wider for message-level models (the network model sets it).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "mgen/simcore/event.hpp"

namespace mgen::simcore {

class HeapQueue {
 public:
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  void reserve(size_t n) { heap_.reserve(n); }
  const Event& top() const { return heap_.front(); }

  void push(const Event& e) {
    heap_.push_back(e);
    size_t i = heap_.size() - 1;
    while (i > 0) {
      const size_t parent = (i - 1) / kArity;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }

  Event pop() {
    const Event out = heap_.front();
    const Event last = heap_.back();
    heap_.pop_back();
    const size_t n = heap_.size();
    if (n == 0) return out;
    size_t i = 0;
    for (;;) {
      const size_t first = i * kArity + 1;
      if (first >= n) break;
      const size_t end = std::min(first + kArity, n);
      size_t best = first;
      for (size_t c = first + 1; c < end; ++c) {
        if (before(heap_[c], heap_[best])) best = c;
      }
      if (!before(heap_[best], last)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = last;
    return out;
  }

 private:
  static constexpr size_t kArity = 4;
  std::vector<Event> heap_;
};

class EventQueue {
 public:
  // At least 64 buckets (one bitmap word).
  explicit EventQueue(unsigned bucket_shift = 10, unsigned bucket_bits = 12)
      : shift_(bucket_shift),
        mask_((uint64_t{1} << std::max(bucket_bits, 6u)) - 1),
        buckets_(mask_ + 1),
        occupied_((mask_ + 1) / 64) {}

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  void reserve(size_t n) { far_.reserve(n / 8); }
  unsigned bucket_shift() const { return shift_; }

  // Changes the bucket width to 2^shift ps. Only while empty: the calendar is laid out by it.
  void set_bucket_shift(unsigned shift) {
    if (size_ != 0) throw std::logic_error("the event calendar's bucket width changes only while it is empty");
    shift_ = shift;
    current_ = 0;
    pos_ = 0;
    open_ = false;
  }

  void push(const Event& e) {
    ++size_;
    const uint64_t abs = bucket_of(e);
    // Callers never schedule before the last popped event, so abs >= current_.
    if (abs >= current_ + buckets_.size()) {
      far_.push(e);
    } else if (abs == current_ && open_) {
      // The bucket being consumed is sorted already; late arrivals wait in a small heap
      // (thousands of ranks resuming at one instant land here).
      late_.push(e);
    } else {
      buckets_[abs & mask_].push_back(e);
      mark(abs & mask_);
    }
  }

  // The earliest event. Does not advance the calendar, so later pushes may still be earlier
  // than this event (as long as they are not before the last popped one).
  const Event& top() const {
    if (open_ && (pos_ < buckets_[current_ & mask_].size() || !late_.empty())) return *open_min();
    const uint64_t slot = next_occupied(current_ & mask_);
    if (slot == kNoSlot) return far_.top();
    const std::vector<Event>& b = buckets_[slot];
    const Event* best = &b.front();
    for (const Event& e : b) {
      if (before(e, *best)) best = &e;
    }
    return *best;
  }

  // The next event of the bucket being consumed, if it is at hand (else null): a hint for
  // prefetching, not necessarily the next event popped.
  const Event* peek_hint(size_t ahead) const {
    if (!open_) return nullptr;
    const std::vector<Event>& cur = buckets_[current_ & mask_];
    return pos_ + ahead < cur.size() ? &cur[pos_ + ahead] : nullptr;
  }

  Event pop() {
    if (!open_ || (pos_ == buckets_[current_ & mask_].size() && late_.empty())) advance();
    std::vector<Event>& cur = buckets_[current_ & mask_];
    const Event* from_sorted = pos_ < cur.size() ? &cur[pos_] : nullptr;
    Event out;
    if (from_sorted != nullptr && (late_.empty() || before(*from_sorted, late_.top()))) {
      out = *from_sorted;
      ++pos_;
    } else {
      out = late_.pop();
    }
    if (pos_ == cur.size() && late_.empty()) {
      // Exhausted: free the slot now so that searches skip it. A burst (ten thousand ranks
      // resuming at one instant) must not leave every bucket holding its peak capacity.
      cur.clear();
      if (cur.capacity() > kRetainedEvents) std::vector<Event>().swap(cur);
      pos_ = 0;
      occupied_[(current_ & mask_) >> 6] &= ~(uint64_t{1} << (current_ & mask_ & 63));
    }
    --size_;
    return out;
  }

 private:
  static constexpr uint64_t kNoSlot = ~uint64_t{0};
  static constexpr size_t kRetainedEvents = 512;

  void mark(uint64_t slot) { occupied_[slot >> 6] |= uint64_t{1} << (slot & 63); }

  uint64_t bucket_of(const Event& e) const { return static_cast<uint64_t>(e.time.count_ps()) >> shift_; }

  const Event* open_min() const {
    const std::vector<Event>& cur = buckets_[current_ & mask_];
    const Event* a = pos_ < cur.size() ? &cur[pos_] : nullptr;
    if (late_.empty()) return a;
    if (a == nullptr || before(late_.top(), *a)) return &late_.top();
    return a;
  }

  // First occupied slot at or after `from`, wrapping around; kNoSlot if the calendar is empty.
  uint64_t next_occupied(uint64_t from) const {
    const size_t words = occupied_.size();
    size_t w = from >> 6;
    uint64_t bits = occupied_[w] & (~uint64_t{0} << (from & 63));
    for (size_t n = 0; n <= words; ++n) {
      if (bits) return (w << 6) + static_cast<uint64_t>(std::countr_zero(bits));
      w = (w + 1) % words;
      bits = occupied_[w];
    }
    return kNoSlot;
  }

  // Moves to the next non-empty bucket, pulls newly near far-future events in, sorts it.
  void advance() {
    const uint64_t slot = next_occupied(current_ & mask_);
    if (slot == kNoSlot) {
      current_ = bucket_of(far_.top());
    } else {
      current_ += (slot - (current_ & mask_)) & mask_;
    }
    while (!far_.empty() && bucket_of(far_.top()) < current_ + buckets_.size()) {
      const Event e = far_.pop();
      const uint64_t abs = bucket_of(e);
      buckets_[abs & mask_].push_back(e);
      mark(abs & mask_);
    }
    std::vector<Event>& b = buckets_[current_ & mask_];
    std::sort(b.begin(), b.end(), [](const Event& x, const Event& y) { return before(x, y); });
    pos_ = 0;
    open_ = true;
  }

  unsigned shift_;
  uint64_t mask_;
  std::vector<std::vector<Event>> buckets_;
  std::vector<uint64_t> occupied_;
  HeapQueue far_;
  HeapQueue late_;        // pushed into the open bucket after it was sorted
  uint64_t current_ = 0;  // absolute bucket number of the bucket being consumed
  size_t pos_ = 0;        // next unconsumed event of the open (sorted) bucket
  bool open_ = false;
  size_t size_ = 0;
};

}  // namespace mgen::simcore
