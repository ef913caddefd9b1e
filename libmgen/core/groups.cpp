// Interned groups and Comm_split's exchange (core/groups.hpp).
#include "core/groups.hpp"

#include <algorithm>
#include <tuple>

namespace mgen::mpi {

std::shared_ptr<const Group> GroupTable::intern(std::vector<RankId> members) {
  const std::lock_guard lock(mutex_);
  return intern_locked(std::move(members));
}

std::shared_ptr<const Group> GroupTable::intern_locked(std::vector<RankId> members) {
  auto it = groups_.find(members);
  if (it != groups_.end()) {
    if (auto g = it->second.lock()) return g;
  }
  auto g = Group::of(members);
  groups_[std::move(members)] = g;
  return g;
}

void GroupTable::split_put(uint64_t id, int members, int index, int color, int key) {
  const std::lock_guard lock(mutex_);
  Split& x = splits_[id];
  if (x.color_key.empty()) {
    x.color_key.assign(static_cast<size_t>(members), {-1, 0});
    x.remaining = members;
  }
  x.color_key[static_cast<size_t>(index)] = {color, key};
}

std::shared_ptr<const Group> GroupTable::split_group(uint64_t id, const Comm& parent, int color) {
  const std::lock_guard lock(mutex_);
  Split& x = splits_.at(id);
  if (x.groups.empty() && !x.color_key.empty()) {
    // MPI orders each new communicator by key, ties by rank in the old one.
    std::vector<std::tuple<int, int, int>> order;  // (color, key, old rank)
    for (size_t i = 0; i < x.color_key.size(); ++i) {
      if (x.color_key[i].first >= 0)
        order.emplace_back(x.color_key[i].first, x.color_key[i].second, static_cast<int>(i));
    }
    std::sort(order.begin(), order.end());
    for (size_t i = 0; i < order.size();) {
      const int c = std::get<0>(order[i]);
      std::vector<RankId> members;
      for (; i < order.size() && std::get<0>(order[i]) == c; ++i)
        members.push_back(parent.world(std::get<2>(order[i])));
      x.groups[c] = intern_locked(std::move(members));
    }
    std::vector<std::pair<int, int>>().swap(x.color_key);
  }
  std::shared_ptr<const Group> g = color < 0 ? nullptr : x.groups.at(color);
  if (--x.remaining == 0) splits_.erase(id);
  return g;
}

}  // namespace mgen::mpi
