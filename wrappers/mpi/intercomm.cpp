// Intercommunicators: the hidden companions every collective on them uses, MPI_Comm_split and
// MPI_Comm_create on them (MPI-4.0 §6.4.2), MPI_Comm_compare across them.
#include "mpi/intercomm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <tuple>
#include <unordered_map>

#include "core/world.hpp"
#include "mpi/coll_args.hpp"

using namespace mgen::mpi;
using mgen::mpi::api::Scope;

namespace mgen::mpi::abi {
namespace {

// What this file keeps per rank, for the run (World::extension, as shim.cpp keeps its state).
struct PerRank {
  // Intercommunicators' hidden companions: {local group, collective copy}.
  std::unordered_map<MPI_Comm, std::pair<MPI_Comm, MPI_Comm>> shadows;
  // MPI_Comm_create_group calls so far per (parent context, tag, members).
  std::unordered_map<uint64_t, uint32_t> create_group_seq;
};
struct InterState : World::Extension {
  explicit InterState(World& w) : ranks(w.size()) {}
  std::vector<PerRank> ranks;
};
const char kInterKey = 0;

PerRank& per_rank() {
  Scope& s = scope();
  return s.world().extension<InterState>(&kInterKey).ranks[s.rank().rank];
}

// splitmix64's finaliser: contexts derived without communication from ones both sides share.
uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A hash of a group's members in order. Each step mixes in rank + 1 from a nonzero start:
// mix(0) is 0, so hashing the bare ranks from 0 made {0, 1} hash like {1}, and two such groups
// built in one run got the same context (MPICH's comm_group_rand deadlocked).
uint64_t hash_members(const Group& g) {
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (int i = 0; i < g.size(); ++i)
    h = mix(h ^ (static_cast<uint64_t>(g.world(i)) + 1));
  return h;
}

// An even context clear of the reserved small ones (as Comm::derive_context makes them).
uint64_t context_from(uint64_t seed) {
  return (mix(seed) & ~uint64_t{1}) | 0x100;
}

Comm& comm_of(MPI_Comm c) {
  return *scope().rank().comms[comm(c)];
}

MPI_Comm adopt(std::unique_ptr<Comm> c) {
  auto& comms = scope().rank().comms;
  for (size_t h = 3; h < comms.size(); ++h) {
    if (!comms[h]) {
      comms[h] = std::move(c);
      return to_mpi_comm(static_cast<MGEN_Comm>(h));
    }
  }
  comms.push_back(std::move(c));
  return to_mpi_comm(static_cast<MGEN_Comm>(comms.size() - 1));
}

std::unique_ptr<Comm> make(uint64_t context, std::shared_ptr<const Group> local, std::shared_ptr<const Group> remote) {
  auto c = std::make_unique<Comm>();
  c->context = context;
  c->rank = local->rank_of(scope().rank().rank);
  c->group = std::move(local);
  c->remote = std::move(remote);
  return c;
}

// The hidden companions of intercommunicator `c`: {local group, collective copy}. The local
// groups of the two sides are disjoint, so both sides may use the same derived context.
const std::pair<MPI_Comm, MPI_Comm>& shadows(MPI_Comm c) {
  auto& all = per_rank().shadows;
  auto it = all.find(c);
  if (it != all.end()) return it->second;
  const Comm& ic = comm_of(c);
  const MPI_Comm local = adopt(make(context_from(ic.context ^ 0x10ca1), ic.group, nullptr));
  const MPI_Comm coll = adopt(make(ic.coll_context(), ic.group, ic.remote));
  return all.emplace(c, std::make_pair(local, coll)).first->second;
}

// Every remote process's (color, key), learnt by the local leaders' exchange: the local ones
// gathered, swapped between leaders on the collective copy, then broadcast. `mine` holds the
// local ones on return.
std::vector<int> swap_tables(MPI_Comm c, int color, int key, std::vector<int>& mine) {
  const auto& [local, coll] = shadows(c);
  const Comm& ic = comm_of(c);
  const int ls = ic.size(), rs = ic.peer_size();
  mine.assign(2 * static_cast<size_t>(ls), 0);
  const int pair[2] = {color, key};
  PMPI_Allgather(pair, 2, MPI_INT, mine.data(), 2, MPI_INT, local);
  std::vector<int> theirs(2 * static_cast<size_t>(rs));
  if (ic.rank == 0) {
    PMPI_Sendrecv(mine.data(), 2 * ls, MPI_INT, 0, 1, theirs.data(), 2 * rs, MPI_INT, 0, 1, coll, MPI_STATUS_IGNORE);
  }
  PMPI_Bcast(theirs.data(), 2 * rs, MPI_INT, 0, local);
  return theirs;
}

// The members of `g` with color `color` in a (color, key) table, ordered by key then rank.
std::shared_ptr<const Group> chosen(const Group& g, const std::vector<int>& table, int color) {
  std::vector<std::tuple<int, int>> picked;
  for (int i = 0; i < g.size(); ++i) {
    if (table[2 * static_cast<size_t>(i)] == color) picked.emplace_back(table[2 * static_cast<size_t>(i) + 1], i);
  }
  std::sort(picked.begin(), picked.end());
  std::vector<RankId> members;
  for (const auto& [key, i] : picked)
    members.push_back(g.world(i));
  if (members.empty()) return nullptr;
  return scope().world().groups().intern(std::move(members));
}

int compare_groups(const Group& a, const Group& b) {
  if (a.same_members(b)) return MPI_IDENT;
  if (a.size() != b.size()) return MPI_UNEQUAL;
  for (int i = 0; i < a.size(); ++i) {
    if (b.rank_of(a.world(i)) < 0) return MPI_UNEQUAL;
  }
  return MPI_SIMILAR;
}

}  // namespace

bool is_inter(MPI_Comm c) {
  return c != MPI_COMM_WORLD && c != MPI_COMM_SELF && comm_of(c).inter();
}

void inter_companions(MPI_Comm c, MPI_Comm* local, MPI_Comm* coll) {
  const auto& [l, x] = shadows(c);
  *local = l;
  *coll = x;
}

void forget_inter(MPI_Comm c) {
  auto& all = per_rank().shadows;
  auto it = all.find(c);
  if (it == all.end()) return;
  auto& comms = scope().rank().comms;
  comms[comm(it->second.first)].reset();
  comms[comm(it->second.second)].reset();
  all.erase(it);
}

void inter_split(MPI_Comm c, int color, int key, MPI_Comm* out) {
  const int mine_color = color == MPI_UNDEFINED ? -1 : color;
  std::vector<int> local_table;
  const std::vector<int> remote_table = swap_tables(c, mine_color, key, local_table);
  Comm& ic = comm_of(c);
  // Every member derives from the same parent in the same order, on both sides.
  const uint64_t base = ic.derive_context(0x5e17);
  *out = MPI_COMM_NULL;
  if (mine_color < 0) return;
  auto local = chosen(*ic.group, local_table, mine_color);
  auto remote = chosen(*ic.remote, remote_table, mine_color);
  if (!remote) return;  // a color only one side chose
  *out =
      adopt(make(context_from(base ^ (static_cast<uint64_t>(mine_color) << 8)), std::move(local), std::move(remote)));
}

void inter_create(MPI_Comm c, MPI_Group g, MPI_Comm* out) {
  MGEN_Group h = group(g);
  int in = MGEN_UNDEFINED;
  if (h != MGEN_GROUP_EMPTY) {
    const Group& sub = *scope().rank().groups.at(static_cast<size_t>(h));
    const Comm& ic = comm_of(c);
    for (int i = 0; i < sub.size(); ++i) {
      if (ic.group->rank_of(sub.world(i)) < 0) fail(MPI_ERR_GROUP, "the group is not a subset of the local group");
    }
    in = sub.rank_of(scope().rank().rank);
  }
  // Members of the group keep its order (the key); the others take no part.
  inter_split(c, in < 0 ? MPI_UNDEFINED : 0, in, out);
}

int inter_compare(MPI_Comm a, MPI_Comm b) {
  if (a == b) return MPI_IDENT;
  const Comm& x = comm_of(a);
  const Comm& y = comm_of(b);
  if (x.inter() != y.inter()) return MPI_UNEQUAL;
  const int l = compare_groups(*x.group, *y.group);
  const int r = compare_groups(*x.remote, *y.remote);
  if (l == MPI_IDENT && r == MPI_IDENT) return MPI_CONGRUENT;
  if (l != MPI_UNEQUAL && r != MPI_UNEQUAL) return MPI_SIMILAR;
  return MPI_UNEQUAL;
}

void create_group(MPI_Comm c, MPI_Group g, int tag, MPI_Comm* out) {
  const Comm& parent = comm_of(c);
  if (parent.inter()) fail(MPI_ERR_COMM, "MPI_Comm_create_group on an intercommunicator is not supported");
  if (tag < 0) fail(MPI_ERR_TAG, fmt::format("invalid tag {}", tag));
  *out = MPI_COMM_NULL;
  const MGEN_Group h = group(g);
  if (h == MGEN_GROUP_EMPTY) return;
  auto& groups = scope().rank().groups;
  if (h <= 0 || static_cast<size_t>(h) >= groups.size() || !groups[h]) fail(MPI_ERR_GROUP, "invalid group");
  const std::shared_ptr<const Group> sub = groups[h];
  for (int i = 0; i < sub->size(); ++i) {
    if (parent.group->rank_of(sub->world(i)) < 0) {
      fail(MPI_ERR_GROUP, fmt::format("world rank {} of the group is not in the communicator", sub->world(i)));
    }
  }
  const uint64_t members = hash_members(*sub);
  if (sub->rank_of(scope().rank().rank) < 0) fail(MPI_ERR_GROUP, "the calling process is not in the group");
  // Only the group's members take part, so the parent's derivation count (which every member
  // of the parent must see alike) stays untouched: the context comes from the parent's, the
  // tag, the members and how many such calls came before (the same on every member).
  const uint64_t key = mix(parent.context ^ mix(static_cast<uint64_t>(tag) + 1) ^ members);
  const uint32_t seq = per_rank().create_group_seq[key]++;
  *out = adopt(make(context_from(key + seq), sub, nullptr));
  // What the context agreement costs among the members (MPICH allreduces a context mask).
  PMPI_Barrier(*out);
}

void intercomm_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group, int remote_leader,
                           const char* stringtag, MPI_Comm* out) {
  auto& groups = scope().rank().groups;
  auto get = [&](MPI_Group g) {
    const MGEN_Group h = group(g);
    if (h <= 1 || static_cast<size_t>(h) >= groups.size() || !groups[h]) fail(MPI_ERR_GROUP, "invalid or empty group");
    return groups[h];
  };
  const std::shared_ptr<const Group> local = get(local_group), remote = get(remote_group);
  if (stringtag == nullptr) fail(MPI_ERR_ARG, "null stringtag");
  if (local_leader < 0 || local_leader >= local->size() || remote_leader < 0 || remote_leader >= remote->size()) {
    fail(MPI_ERR_RANK, fmt::format("leaders {} / {} outside groups of {} / {}", local_leader, remote_leader,
                                   local->size(), remote->size()));
  }
  if (local->rank_of(scope().rank().rank) < 0) fail(MPI_ERR_GROUP, "the calling process is not in the local group");
  // Both sides derive the same context from what both know: the tag and the two groups (summed,
  // so the order of the sides does not matter), numbered per such call.
  uint64_t key = 0;
  for (const char* c = stringtag; *c != 0; ++c)
    key = mix(key ^ static_cast<unsigned char>(*c));
  uint64_t sides = 0;
  for (const Group* g : {local.get(), remote.get()}) {
    for (int i = 0; i < g->size(); ++i) {
      if (g == local.get() && remote->rank_of(g->world(i)) >= 0) {
        fail(MPI_ERR_GROUP, fmt::format("world rank {} is in both groups", g->world(i)));
      }
    }
    sides += hash_members(*g);
  }
  key = mix(key ^ mix(sides) ^ 0xf20a);
  const uint32_t seq = per_rank().create_group_seq[key]++;
  *out = adopt(make(context_from(key + seq), local, remote));
  // What the context agreement costs (MPICH agrees through the leaders).
  PMPI_Barrier(*out);
}

MPI_Comm dup_now(MPI_Comm c) {
  Comm& parent = comm_of(c);
  // The context MGEN_Comm_dup derives (same constant, same count): deterministic, so no
  // exchange is needed to agree on it; the caller charges the agreement.
  auto dup = make(parent.derive_context(0xd0d0), parent.group, parent.remote);
  dup->cart = parent.cart;
  return adopt(std::move(dup));
}

void completed_request(MPI_Request* req) {
  if (req == nullptr) fail(MPI_ERR_ARG, "the request is null");
  Request* q = nullptr;
  *req = new_request(&q);
  q->kind = Request::Kind::kDone;
  q->done_status = MGEN_Status{MGEN_ANY_SOURCE, MGEN_ANY_TAG, 0, 0};
}

}  // namespace mgen::mpi::abi
