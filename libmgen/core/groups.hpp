// Groups of a run: immutable and interned (every member of a communicator shares one), and
// Comm_split's exchange without O(p^2) time or memory. One table serves every partition of a
// partitioned run, whose ranks run on several threads: its functions take a lock.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/comm.hpp"

namespace mgen::mpi {

class GroupTable {
 public:
  // The one group with these members, in this order.
  std::shared_ptr<const Group> intern(std::vector<RankId> members);
  // Comm_split: each member of `parent` deposits its (color, key) under `id`; after a
  // synchronising collective (which models the exchange's time) each asks for its new group.
  // The first to ask builds every color's group at once; the last frees the entry. A negative
  // color (MPI_UNDEFINED) gets null.
  void split_put(uint64_t id, int members, int index, int color, int key);
  std::shared_ptr<const Group> split_group(uint64_t id, const Comm& parent, int color);

 private:
  std::shared_ptr<const Group> intern_locked(std::vector<RankId> members);
  struct Split {
    std::vector<std::pair<int, int>> color_key;  // per parent rank
    std::map<int, std::shared_ptr<const Group>> groups;
    int remaining = 0;
  };
  std::map<uint64_t, Split> splits_;
  std::map<std::vector<RankId>, std::weak_ptr<const Group>> groups_;
  std::mutex mutex_;
};

}  // namespace mgen::mpi
