// A rank's matching queues: receives posted before their message, and messages that arrived
// before their receive. MPI matches in order (the earliest posted receive, the earliest arrived
// message), so both are lists scanned in order. Each entry carries its source beside its id:
// a match for a named source skips every other source's entries without reading their
// request or envelope. In an all-to-all at a thousand ranks a late rank holds hundreds of early
// messages and looks for one sender's; reading each envelope cost a cache miss per entry.
// (Per-source bins would avoid the scan too, but cost more than they save on the short queues
// of ordinary programs.)
#pragma once

#include <cstdint>
#include <vector>

#include "core/types.hpp"

namespace mgen::mpi {

class MatchQueue {
 public:
  bool empty() const { return entries_.empty(); }

  // Appends `id` (a request or a transfer slot), filed under world rank `source`, or under
  // kAnySource for a wildcard receive.
  void push(uint32_t id, int source) { entries_.push_back(Entry{id, source}); }

  // The position of the earliest entry filed under `source` (any entry if source is
  // kAnySource) that accept(id) takes, or kNone. Messages: the receive's source filters.
  template <class Accept>
  uint32_t find(int source, Accept&& accept) const {
    for (size_t i = 0; i < entries_.size(); ++i) {
      if ((source == kAnySource || entries_[i].source == source) && accept(entries_[i].id))
        return static_cast<uint32_t>(i);
    }
    return kNone;
  }

  // The position of the earliest entry filed under `source` or under kAnySource that
  // accept(id) takes, or kNone. Posted receives: a message from `source` may match either.
  template <class Accept>
  uint32_t find_for(int source, Accept&& accept) const {
    for (size_t i = 0; i < entries_.size(); ++i) {
      const int s = entries_[i].source;
      if ((s == source || s == kAnySource) && accept(entries_[i].id)) return static_cast<uint32_t>(i);
    }
    return kNone;
  }

  uint32_t id(uint32_t position) const { return entries_[position].id; }

  // Removes the entry at a position find() or find_for() returned and gives its id.
  uint32_t erase(uint32_t position) {
    const uint32_t id = entries_[position].id;
    entries_.erase(entries_.begin() + static_cast<ptrdiff_t>(position));
    return id;
  }

  // Removes the entry with this id, if queued; false if it was not.
  bool remove(uint32_t id) {
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].id == id) {
        erase(static_cast<uint32_t>(i));
        return true;
      }
    }
    return false;
  }

 private:
  struct Entry {
    uint32_t id;
    int source;
  };
  std::vector<Entry> entries_;
};

}  // namespace mgen::mpi
