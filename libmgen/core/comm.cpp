#include "core/comm.hpp"

#include "mgen/net/routing.hpp"

namespace mgen::mpi {

std::shared_ptr<const Group> Group::identity(uint32_t n) {
  auto g = std::make_shared<Group>();
  g->n_ = n;
  g->identity_ = true;
  return g;
}

std::shared_ptr<const Group> Group::of(std::vector<RankId> members) {
  auto g = std::make_shared<Group>();
  g->n_ = static_cast<uint32_t>(members.size());
  g->members_ = std::move(members);
  g->index_.reserve(g->members_.size());
  for (size_t i = 0; i < g->members_.size(); ++i)
    g->index_.emplace(g->members_[i], static_cast<int>(i));
  return g;
}

int Group::rank_of(RankId w) const {
  if (identity_) return w < n_ ? static_cast<int>(w) : -1;
  const auto it = index_.find(w);
  return it == index_.end() ? -1 : it->second;
}

bool Group::same_members(const Group& o) const {
  if (n_ != o.n_) return false;
  for (uint32_t i = 0; i < n_; ++i) {
    if (world(static_cast<int>(i)) != o.world(static_cast<int>(i))) return false;
  }
  return true;
}

uint64_t Comm::derive_context(uint64_t color) {
  // 64-bit hash of (parent context, derivation count, color): collisions are negligible and,
  // unlike a shared counter, need no agreement between ranks.
  const uint64_t n = children++;
  const uint64_t h =
      (uint64_t{net::mix_hash(context ^ (n << 32))} << 32) | net::mix_hash(color * 0x9e3779b97f4a7c15ULL + n);
  return (h & ~uint64_t{1}) | 0x100;  // even, and clear of the reserved small contexts
}

}  // namespace mgen::mpi
