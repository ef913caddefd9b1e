// Pending-event sets. Both give exactly the order of `before()`: time, then insertion sequence.
//
// HeapQueue: an implicit 4-ary min-heap. Simple and the reference the fast queue is tested
// against; it also holds the calendar's far-future events.
//
// EventQueue: a calendar (timing wheel, Brown 1988, with a fixed width) of 2^bucket_bits
// buckets, each 2^bucket_shift ps wide, covering the near future, plus a HeapQueue for events
// beyond it. Network events land a link latency or a serialisation time ahead, so almost every
// push is an append to an unsorted bucket, and a bucket is sorted once when time reaches it.
//
// Storage: one slab of nodes of 16 events each, linked by 32-bit index. A bucket is a list of
// nodes, newest first, only the newest partly filled; a push writes the event and bumps the
// bucket's count, and takes a node from the free list every 16th time. Nodes of several events
// rather than one keep a bucket's events in runs of 512 bytes: a large calendar reads a bucket
// long after writing it, and chasing one link per event halved bench_engine's rate at a
// million pending events (8 events per node: 10% below the old vectors there, 16: level or
// better; the network and rank benchmarks do not tell 1, 8 and 16 apart, docs/PERFORMANCE.md).
// When time reaches a bucket, its events are copied (oldest first, so mostly in order already)
// into one array and sorted, and its nodes go back to the free list in one splice; after
// warm-up nothing is allocated per event. A bitmap of occupied buckets makes skipping empty
// ones cheap. Memory follows the peak number of pending events, never the number of buckets
// times the largest burst. The best width follows the spacing of the events: about a
// nanosecond for packet hops, wider for message-level models (the network model sets it).
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
  // Events per slab node: a bucket is read in runs of 512 bytes.
  static constexpr uint32_t kNodeEvents = 16;

  // At least 64 buckets (one bitmap word).
  explicit EventQueue(unsigned bucket_shift = 10, unsigned bucket_bits = 12)
      : shift_(bucket_shift),
        mask_((uint64_t{1} << std::max(bucket_bits, 6u)) - 1),
        buckets_(mask_ + 1),
        occupied_((mask_ + 1) / 64) {}

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  void reserve(size_t n) {
    nodes_.reserve(n / kNodeEvents);
    links_.reserve(n / kNodeEvents);
    far_.reserve(n / 8);
  }
  unsigned bucket_shift() const { return shift_; }
  // Nodes in the slab, in use or free: what the buckets held at their peak.
  size_t slab_nodes() const { return nodes_.size(); }
  // Capacity of the open bucket's array (the sorted copy of the bucket being consumed).
  size_t open_capacity() const { return open_.capacity(); }

  // Changes the bucket width to 2^shift ps. Only while empty: the calendar is laid out by it.
  void set_bucket_shift(unsigned shift) {
    if (size_ != 0) throw std::logic_error("the event calendar's bucket width changes only while it is empty");
    // Keep the calendar where time stands: later pushes are not before the start of the
    // current bucket, so they are not before the start of the new bucket holding it.
    current_ = (current_ << shift_) >> shift;
    shift_ = shift;
    open_.clear();
    pos_ = 0;
  }

  // Inlined into every schedule(): the common case is a few instructions.
  [[gnu::always_inline]] void push(const Event& e) {
    ++size_;
    const uint64_t abs = bucket_of(e);
    // Callers never schedule before the last popped event, so abs >= current_.
    if (abs - current_ >= buckets_.size()) [[unlikely]] {
      push_far(e);
    } else if (abs == current_ && is_open()) {
      push_open(e);
    } else {
      append(abs & mask_, e);
    }
  }

  // Removes the earliest event into `out` if there is one and it is not after `until`. This is
  // the engine's one call per event: no separate look at the top first.
  [[gnu::always_inline]] bool pop_until(Time until, Event& out) {
    if (!is_open() && !open_next(until)) return false;
    if (!late_.empty()) [[unlikely]]
      return pop_merged(until, out);
    if (open_[pos_].time > until) return false;
    out = open_[pos_++];
    --size_;
    return true;
  }

  // An event of the open bucket `ahead` places after the next one, if at hand (else null): a
  // hint for prefetching, not necessarily the event popped then.
  const Event* peek_hint(size_t ahead) const { return pos_ + ahead < open_.size() ? &open_[pos_ + ahead] : nullptr; }

  Event pop() {
    Event out;
    pop_until(Time::max(), out);
    return out;
  }

  // The earliest event. Does not advance the calendar, so later pushes may still be earlier
  // than this event (as long as they are not before the last popped one). Scans the next
  // bucket if none is open: for occasional looks (Engine::next_time()), not once per event.
  const Event& top() const {
    if (is_open()) {
      if (!late_.empty() && (pos_ == open_.size() || before(late_.top(), open_[pos_]))) return late_.top();
      return open_[pos_];
    }
    const uint64_t slot = next_occupied(current_ & mask_);
    if (slot == kNoSlot) return far_.top();
    const Bucket& b = buckets_[slot];
    const Event* best = &nodes_[b.head].events[0];
    uint32_t count = b.fill;
    for (uint32_t n = b.head; n != kNil; n = links_[n], count = kNodeEvents) {
      for (const Event* e = nodes_[n].events; e != nodes_[n].events + count; ++e) {
        if (before(*e, *best)) best = e;
      }
    }
    return *best;
  }

 private:
  static constexpr uint64_t kNoSlot = ~uint64_t{0};
  static constexpr uint32_t kNil = ~uint32_t{0};
  static constexpr size_t kInsertionSortMax = 16;
  static constexpr unsigned kRadixBits = 8;  // counting passes of at most 256 digits
  static constexpr size_t kCompactAfter = 1024;
  static constexpr size_t kRetainedEvents = 4096;

  // Aligned to a cache line, so that no event spans two (malloc's blocks start 16 bytes in).
  struct alignas(64) Node {
    Event events[kNodeEvents];
  };
  // A list of nodes, newest first; only the newest is partly filled.
  struct Bucket {
    uint32_t head = kNil;
    uint32_t fill = kNodeEvents;  // events in the head node (a full "no node" when empty)
  };

  [[gnu::always_inline]] void append(uint64_t slot, const Event& e) {
    Bucket& b = buckets_[slot];
    if (b.fill == kNodeEvents) {
      const uint32_t node = alloc();
      links_[node] = b.head;
      b.head = node;
      b.fill = 0;
    }
    nodes_[b.head].events[b.fill++] = e;
    occupied_[slot >> 6] |= uint64_t{1} << (slot & 63);
  }

  uint64_t bucket_of(const Event& e) const { return static_cast<uint64_t>(e.time.count_ps()) >> shift_; }

  // The open bucket still holds events. Pushes into bucket current_ go to a closed bucket's
  // list otherwise, and the next pop opens it again.
  bool is_open() const { return pos_ != open_.size() || !late_.empty(); }

  uint32_t alloc() {
    if (free_ != kNil) [[likely]] {
      const uint32_t node = free_;
      free_ = links_[node];
      return node;
    }
    return grow();
  }

  [[gnu::noinline]] uint32_t grow() {
    if (nodes_.size() >= kNil) throw std::length_error("the event calendar's slab is full");
    nodes_.emplace_back();
    links_.push_back(kNil);
    return static_cast<uint32_t>(nodes_.size() - 1);
  }

  // The open bucket's next event or the late heap's, whichever sorts first.
  [[gnu::noinline]] bool pop_merged(Time until, Event& out) {
    if (pos_ == open_.size() || before(late_.top(), open_[pos_])) {
      if (late_.top().time > until) return false;
      out = late_.pop();
    } else {
      if (open_[pos_].time > until) return false;
      out = open_[pos_++];
    }
    --size_;
    return true;
  }

  [[gnu::noinline]] void push_far(const Event& e) { far_.push(e); }

  // Into the open bucket: appended if it sorts last (the array stays sorted), else into a small
  // heap merged at pop time (thousands of ranks resuming at one instant land here).
  [[gnu::noinline]] void push_open(const Event& e) {
    if (pos_ == open_.size()) {
      open_.clear();
      pos_ = 0;
    } else if (pos_ >= kCompactAfter && 2 * pos_ >= open_.size()) {
      // A long run of same-bucket events appended while the bucket drains: drop the consumed
      // prefix so the array holds what is pending, not everything the bucket ever saw.
      open_.erase(open_.begin(), open_.begin() + static_cast<std::ptrdiff_t>(pos_));
      pos_ = 0;
    }
    if (pos_ == open_.size() || !before(e, open_.back())) {
      open_.push_back(e);
    } else {
      late_.push(e);
    }
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

  // Opens the next non-empty bucket, unless it starts after `until` (then the calendar stays
  // where it is: the caller may still schedule at `until`). Pulls newly near far-future
  // events in, moves the bucket's events into the sorted open array and frees its nodes.
  [[gnu::noinline]] bool open_next(Time until) {
    if (size_ == 0) return false;
    const uint64_t slot = next_occupied(current_ & mask_);
    uint64_t abs;
    if (slot == kNoSlot) {
      if (far_.top().time > until) return false;
      abs = bucket_of(far_.top());
    } else {
      abs = current_ + ((slot - (current_ & mask_)) & mask_);
      if (Time::ps(static_cast<int64_t>(abs << shift_)) > until) return false;
    }
    current_ = abs;
    while (!far_.empty() && bucket_of(far_.top()) - current_ < buckets_.size()) {
      const Event e = far_.pop();
      append(bucket_of(e) & mask_, e);
    }
    const uint64_t here = current_ & mask_;
    Bucket& b = buckets_[here];
    // The list holds the newest node first; copied oldest first, the events keep their push
    // order, which is mostly sorted already.
    chain_.clear();
    uint32_t tail = b.head;
    for (uint32_t n = b.head; n != kNil; n = links_[n]) {
      chain_.push_back(n);
      tail = n;
    }
    const size_t n = b.fill + kNodeEvents * (chain_.size() - 1);
    open_.clear();
    pos_ = 0;
    if (open_.capacity() > kRetainedEvents && n < open_.capacity() / 8) {
      // After a burst (ten thousand ranks resuming at one instant), keep no more than this
      // bucket needs (the sort's scratch neither); the slab keeps the burst's nodes for the next one.
      std::vector<Event>().swap(open_);
    }
    if (sorted_.capacity() > kRetainedEvents && n < sorted_.capacity() / 8) {
      std::vector<Event>().swap(sorted_);
      std::vector<uint64_t>().swap(keys_);
    }
    open_.reserve(n);
    for (size_t i = chain_.size(); i-- > 1;)
      open_.insert(open_.end(), nodes_[chain_[i]].events, nodes_[chain_[i]].events + kNodeEvents);
    open_.insert(open_.end(), nodes_[b.head].events, nodes_[b.head].events + b.fill);
    links_[tail] = free_;
    free_ = b.head;
    b = Bucket{};
    occupied_[here >> 6] &= ~(uint64_t{1} << (here & 63));
    sort_open();
    return true;
  }

  // Orders the open bucket by `before`. A comparison sort of a bucket's events mispredicts
  // about one branch per comparison (their order is random), which cost the packet model more
  // than any other part of an event. They differ mostly in time, and a time within the bucket
  // is its `shift_` low bits: two counting passes (low half of those bits, then high half, both
  // stable) order (offset, position) keys without a data-dependent branch, the events are
  // gathered in that order, and runs of equal time (rare in a network, long when many ranks
  // resume at one instant) are put in (seq, data) order.
  void sort_open() {
    const size_t n = open_.size();
    auto by_order = [](const Event& a, const Event& b) { return before(a, b); };
    if (n <= kInsertionSortMax) {
      insertion_sort(open_.data(), n);
      return;
    }
    if (std::is_sorted(open_.begin(), open_.end(), by_order)) return;
    const unsigned lo_bits = (shift_ + 1) / 2;
    if (shift_ > 2 * kRadixBits || (size_t{1} << lo_bits) > 4 * n) {
      std::sort(open_.begin(), open_.end(), by_order);
      return;
    }
    const size_t lo_digits = size_t{1} << lo_bits;
    const size_t hi_digits = size_t{1} << (shift_ - lo_bits);
    const uint64_t lo_mask = lo_digits - 1;
    const uint64_t base = current_ << shift_;
    keys_.resize(2 * n);
    uint64_t* const a = keys_.data();
    uint64_t* const b = a + n;
    uint32_t lo[(1u << kRadixBits) + 1];
    uint32_t hi[(1u << kRadixBits) + 1];
    std::fill_n(lo, lo_digits + 1, 0u);
    std::fill_n(hi, hi_digits + 1, 0u);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t offset = static_cast<uint64_t>(open_[i].time.count_ps()) - base;
      a[i] = offset << 32 | i;
      ++lo[(offset & lo_mask) + 1];
      ++hi[(offset >> lo_bits) + 1];
    }
    for (size_t d = 1; d <= lo_digits; ++d)
      lo[d] += lo[d - 1];
    for (size_t d = 1; d <= hi_digits; ++d)
      hi[d] += hi[d - 1];
    for (size_t i = 0; i < n; ++i)
      b[lo[(a[i] >> 32) & lo_mask]++] = a[i];
    for (size_t i = 0; i < n; ++i)
      a[hi[b[i] >> (32 + lo_bits)]++] = b[i];
    sorted_.resize(n);
    for (size_t i = 0; i < n; ++i)
      sorted_[i] = open_[static_cast<uint32_t>(a[i])];
    open_.swap(sorted_);
    // Runs of one time, in (seq, data) order: short ones by insertion, long ones (ranks resuming
    // at one instant) by a comparison sort.
    for (size_t first = 0, i = 1; i <= n; ++i) {
      if (i < n && open_[i].time == open_[first].time) [[unlikely]]
        continue;
      if (i - first > kInsertionSortMax) {
        std::sort(open_.begin() + static_cast<std::ptrdiff_t>(first), open_.begin() + static_cast<std::ptrdiff_t>(i),
                  by_order);
      } else if (i - first > 1) {
        insertion_sort(open_.data() + first, i - first);
      }
      first = i;
    }
  }

  static void insertion_sort(Event* events, size_t n) {
    for (size_t i = 1; i < n; ++i) {
      if (!before(events[i], events[i - 1])) [[likely]]
        continue;
      const Event x = events[i];
      size_t j = i;
      for (; j > 0 && before(x, events[j - 1]); --j)
        events[j] = events[j - 1];
      events[j] = x;
    }
  }

  unsigned shift_;
  uint64_t mask_;
  std::vector<Bucket> buckets_;
  std::vector<uint64_t> occupied_;  // one bit per bucket: its list is not empty
  std::vector<Node> nodes_;         // the slab: node i's events...
  std::vector<uint32_t> links_;     // ...and the next node of its list (bucket or free list)
  uint32_t free_ = kNil;
  std::vector<uint32_t> chain_;  // scratch: the nodes of the bucket being opened
  std::vector<Event> open_;      // bucket current_ once opened, sorted; consumed from pos_
  std::vector<Event> sorted_;    // scratch of sort_open(): the open bucket in order, then swapped in
  std::vector<uint64_t> keys_;   // scratch of sort_open(): (time offset in the bucket, position)
  size_t pos_ = 0;
  HeapQueue late_;        // pushed into the open bucket, sorting before its last event
  HeapQueue far_;         // beyond the calendar's horizon
  uint64_t current_ = 0;  // absolute bucket number of the bucket being consumed
  size_t size_ = 0;
};

}  // namespace mgen::simcore
