// Credits on their way back over one link (packet_network.hpp): timestamped entries in due order,
// the first N inline in the ring's own cache lines, any more in the link's overflow queue
// behind them. Where an entry sits changes nothing: absorb() adds the entries due by `now`, in
// due order, wherever they are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mgen/net/backend.hpp"

namespace mgen::net::packet {

// A credit in a link's overflow queue: due at `at` for `bytes` of VC `vc`.
struct PendingCredit {
  simcore::Time at;
  uint32_t bytes = 0;
  uint32_t vc = 0;
};

// A ring's credits beyond its inline slots, in due order: entries [head, size) of `q`.
// Contiguous per link, so that refilling the ring reads one run of memory.
struct CreditOverflow {
  std::vector<PendingCredit> q;
  size_t head = 0;
};

template <uint32_t N>
struct alignas(64) CreditRing {
  static constexpr uint32_t kSlots = N;
  simcore::Time at[N];
  uint32_t bytes[N] = {};
  uint8_t vc[N] = {};
  uint8_t first = 0, count = 0;
  uint32_t overflow = kNoId;  // index into the network's overflow queues, once the ring has overflowed
  uint32_t overflowing = 0;   // entries waiting there

  // Slot i places after the first (i < N).
  uint32_t slot(uint32_t i) const { return first + i < N ? first + i : first + i - N; }
  simcore::Time next() const { return count ? at[first] : simcore::Time::max(); }
  void prefetch() const {
    for (size_t line = 0; line < sizeof(CreditRing); line += 64)
      __builtin_prefetch(reinterpret_cast<const char*>(this) + line);
  }

  // The entry due last.
  simcore::Time last(const std::vector<CreditOverflow>& queues) const {
    if (overflowing != 0) return queues[overflow].q.back().at;
    return count ? at[slot(count - 1u)] : simcore::Time{};
  }

  // Credits for one link come from one downstream input port, whose packets leave in order, so
  // appending keeps the entries sorted by due time. The one exception is an ejection link with
  // the FMA transport: a response frees its buffer when its tail is in, while the data packet
  // before it waits for the receive DMA, so its credit can be due earlier (insert()).
  void push(simcore::Time due, uint32_t vc_index, uint32_t amount, std::vector<CreditOverflow>& queues) {
    if ((count != 0 || overflowing != 0) && due < last(queues)) [[unlikely]] {
      insert(due, vc_index, amount, queues);
      return;
    }
    if (overflowing == 0 && count < N) {
      const uint32_t i = slot(count);
      at[i] = due;
      bytes[i] = amount;
      vc[i] = static_cast<uint8_t>(vc_index);
      ++count;
      return;
    }
    if (overflow == kNoId) {
      overflow = static_cast<uint32_t>(queues.size());
      queues.emplace_back();
    }
    queues[overflow].q.push_back(PendingCredit{due, amount, vc_index});
    ++overflowing;
  }

  // Puts an entry due before the last one in its place: all entries out, one sorted list, back
  // in (rare: see push()). Among entries due at the same time the new one goes last.
  void insert(simcore::Time due, uint32_t vc_index, uint32_t amount, std::vector<CreditOverflow>& queues) {
    std::vector<PendingCredit> all;
    for (uint32_t i = 0; i < count; ++i)
      all.push_back(PendingCredit{at[slot(i)], bytes[slot(i)], vc[slot(i)]});
    if (overflowing != 0) {
      CreditOverflow& o = queues[overflow];
      all.insert(all.end(), o.q.begin() + static_cast<std::ptrdiff_t>(o.head), o.q.end());
      o.q.clear();
      o.head = 0;
    }
    size_t pos = all.size();
    while (pos > 0 && all[pos - 1].at > due)
      --pos;
    all.insert(all.begin() + static_cast<std::ptrdiff_t>(pos), PendingCredit{due, amount, vc_index});
    first = 0;
    count = 0;
    overflowing = 0;
    for (const PendingCredit& c : all)
      push(c.at, c.vc, c.bytes, queues);
  }

  // Adds every credit due by `now` to `credits[vc * stride]`.
  void absorb(int32_t* credits, size_t stride, simcore::Time now, std::vector<CreditOverflow>& queues) {
    for (;;) {
      if (count == 0) {
        if (overflowing == 0) return;
        // Move the oldest overflow entries into the ring.
        CreditOverflow& o = queues[overflow];
        while (overflowing != 0 && count < N) {
          const PendingCredit& c = o.q[o.head++];
          const uint32_t i = slot(count);
          at[i] = c.at;
          bytes[i] = c.bytes;
          vc[i] = static_cast<uint8_t>(c.vc);
          ++count;
          --overflowing;
        }
        if (overflowing == 0) {
          o.q.clear();
          o.head = 0;
        } else if (o.head >= 64 && 2 * o.head >= o.q.size()) {
          // A link that never drains (a long stream) must not grow its queue without end.
          o.q.erase(o.q.begin(), o.q.begin() + static_cast<std::ptrdiff_t>(o.head));
          o.head = 0;
        }
      }
      if (at[first] > now) return;
      credits[vc[first] * stride] += static_cast<int32_t>(bytes[first]);
      first = static_cast<uint8_t>(slot(1));
      --count;
    }
  }
};

// One cache line for links whose credits come back within a few packet times; three for long
// links: on 1 us links at 10 GB/s with 2 KiB packets a link has six or seven credits under way
// (up to eleven while a reduce-scatter streams), which four slots sent through the overflow
// queue on almost every packet, a cache miss on each side of it.
using NarrowRing = CreditRing<4>;
using WideRing = CreditRing<14>;
static_assert(sizeof(NarrowRing) == 64, "one cache line per narrow credit ring");
static_assert(sizeof(WideRing) == 192, "three cache lines per wide credit ring");

}  // namespace mgen::net::packet
