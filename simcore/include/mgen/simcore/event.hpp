// The engine's event: a small value with a total order.
#pragma once

#include <cstdint>

#include "mgen/simcore/units.hpp"

namespace mgen::simcore {

// Which component an event is for (a router, a NIC, a traffic source...). The meaning of
// `target`, `port` and `data` belongs to whoever owns the event's `kind`; the engine only orders.
struct Event {
  Time time;
  uint64_t seq = 0;  // breaks ties between equal times: insertion order, or (kind, target, port)
  uint32_t target = 0;
  uint16_t kind = 0;
  uint16_t port = 0;
  uint64_t data = 0;
};
static_assert(sizeof(Event) == 32, "events must stay small values");

// Total order: time first, then sequence, then data. Only identical events compare equal:
// insertion sequences are unique, and canonical events (Engine::schedule_canonical) with the
// same kind, target and port at the same time differ in their data or not at all.
constexpr bool before(const Event& a, const Event& b) {
  return a.time < b.time || (a.time == b.time && (a.seq < b.seq || (a.seq == b.seq && a.data < b.data)));
}

}  // namespace mgen::simcore
