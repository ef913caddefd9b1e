// Pending-event set: an implicit 4-ary min-heap over a vector.
//
// A 4-ary heap halves the depth of a binary heap and keeps a node's children in one cache line
// (4 x 32-byte events = 128 bytes, two lines). The vector only grows: after warm-up a steady
// simulation allocates nothing per event.
#pragma once

#include <cstddef>
#include <vector>

#include "mgen/simcore/event.hpp"

namespace mgen::simcore {

class EventQueue {
 public:
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  size_t capacity() const { return heap_.capacity(); }
  void reserve(size_t n) { heap_.reserve(n); }
  const Event& top() const { return heap_.front(); }

  void push(const Event& e) {
    heap_.push_back(e);
    sift_up(heap_.size() - 1);
  }

  Event pop() {
    Event out = heap_.front();
    Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    return out;
  }

  void clear() { heap_.clear(); }

 private:
  static constexpr size_t kArity = 4;

  void sift_up(size_t i) {
    Event e = heap_[i];
    while (i > 0) {
      const size_t parent = (i - 1) / kArity;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }

  // Places `e` (the former last element) starting from the root.
  void sift_down(const Event& e) {
    const size_t n = heap_.size();
    size_t i = 0;
    for (;;) {
      const size_t first = i * kArity + 1;
      if (first >= n) break;
      const size_t last = first + kArity < n ? first + kArity : n;
      size_t best = first;
      for (size_t c = first + 1; c < last; ++c) {
        if (before(heap_[c], heap_[best])) best = c;
      }
      if (!before(heap_[best], e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
};

}  // namespace mgen::simcore
