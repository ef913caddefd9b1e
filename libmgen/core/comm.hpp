// Groups and communicators. A group maps communicator ranks to world ranks; a communicator
// adds a context (so its messages never match another communicator's) and optionally a
// Cartesian topology. Groups are immutable and shared: 100K ranks share one world group.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/types.hpp"

namespace mgen::mpi {

class Group {
 public:
  static std::shared_ptr<const Group> identity(uint32_t n);
  static std::shared_ptr<const Group> of(std::vector<RankId> members);

  int size() const { return static_cast<int>(n_); }
  RankId world(int rank) const { return identity_ ? static_cast<RankId>(rank) : members_[rank]; }
  // The rank of a world rank in this group, or -1.
  int rank_of(RankId w) const;
  const std::vector<RankId>& members() const { return members_; }  // empty for identity groups
  bool is_identity() const { return identity_; }
  bool same_members(const Group& o) const;

 private:
  uint32_t n_ = 0;
  bool identity_ = false;
  std::vector<RankId> members_;
  std::unordered_map<RankId, int> index_;
};

struct CartTopology {
  std::vector<int> dims;
  std::vector<int> periods;
};

struct Comm {
  uint64_t context = 0;  // even; collectives use context + 1
  std::shared_ptr<const Group> group;
  int rank = 0;
  uint32_t children = 0;  // communicators derived so far: every member derives the same ids
  std::optional<CartTopology> cart;
  // Intercommunicators: the other group. Point-to-point ranks name its members; `group` and
  // `rank` stay the local side (MPI_Comm_size/rank).
  std::shared_ptr<const Group> remote;
  uint64_t one_steps = 0;    // one-step collectives so far: every member counts the same
  uint64_t collectives = 0;  // collective calls so far, for the argument check (api/coll_check)

  int size() const { return group->size(); }
  bool inter() const { return remote != nullptr; }
  // Ranks that point-to-point calls name: the remote group's for intercommunicators.
  int peer_size() const { return remote ? remote->size() : size(); }
  RankId peer(int r) const { return remote ? remote->world(r) : group->world(r); }
  uint64_t coll_context() const { return context + 1; }
  RankId world(int r) const { return group->world(r); }
  // Context of the next communicator derived from this one with `color` (collective calls in
  // the same order on every member give every member the same id).
  uint64_t derive_context(uint64_t color);
};

}  // namespace mgen::mpi
