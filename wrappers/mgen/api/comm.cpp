// Communicators, groups and Cartesian topologies (PPT Table 1, plus Comm_create and friends).
#include <algorithm>
#include <numeric>
#include <vector>

#include "api/facade.hpp"
#include "colls/algorithms.hpp"
#include "colls/colls.hpp"

using namespace mgen::mpi;
using mgen::mpi::api::Scope;

namespace {

MGEN_Comm add_comm(Rank& r, std::unique_ptr<Comm> c) {
  for (size_t h = 3; h < r.comms.size(); ++h) {
    if (!r.comms[h]) {
      r.comms[h] = std::move(c);
      return static_cast<MGEN_Comm>(h);
    }
  }
  r.comms.push_back(std::move(c));
  return static_cast<MGEN_Comm>(r.comms.size() - 1);
}

// The call log (JobConfig::call_log, OTF2 output): the rank made `made` (null: MPI_COMM_NULL)
// from `parent`.
void log_comm_made(Scope& s, const Comm& parent, MGEN_Comm made) {
  if (!s.rank().log_calls) return;
  CallEvent e = CallEvent::call(CallEvent::Kind::kCommMade, nullptr);
  e.comm = parent.context;
  e.own = ~uint64_t{0};
  s.world().note_comm(parent);
  if (made != MGEN_COMM_NULL) {
    const Comm& c = *s.rank().comms[static_cast<size_t>(made)];
    s.world().note_comm(c);
    e.own = c.context;
  }
  s.rank().log_call(e);
}

MGEN_Group add_group(Rank& r, std::shared_ptr<const Group> g) {
  for (size_t h = 2; h < r.groups.size(); ++h) {
    if (!r.groups[h]) {
      r.groups[h] = std::move(g);
      return static_cast<MGEN_Group>(h);
    }
  }
  r.groups.push_back(std::move(g));
  return static_cast<MGEN_Group>(r.groups.size() - 1);
}

const Group& group_of(Scope& s, MGEN_Group h) {
  Rank& r = s.rank();
  if (h <= 0 || static_cast<size_t>(h) >= r.groups.size() || !r.groups[h]) {
    s.fail(MGEN_ERR_GROUP, fmt::format("invalid group {}", h));
  }
  return *r.groups[h];
}

// Time of a context agreement among the members of `c` (MPICH allreduces a context mask).
void agree(Scope& s, Comm& c) {
  colls::Channel ch(s.world(), s.rank(), c);
  colls::select_barrier({.size = c.size()}, s.world().collectives()).fn(ch);
}

std::unique_ptr<Comm> make_comm(Scope& s, uint64_t context, std::shared_ptr<const Group> g) {
  auto c = std::make_unique<Comm>();
  c->context = context;
  c->rank = g->rank_of(s.rank().id);
  c->group = std::move(g);
  return c;
}

}  // namespace

extern "C" {

int MGEN_Comm_rank(MGEN_Comm comm, int* rank) {
  Scope s("MGEN_Comm_rank");
  if (!s) return api::outside("MGEN_Comm_rank");
  *rank = s.any_comm(comm).rank;
  return MGEN_SUCCESS;
}

int MGEN_Comm_size(MGEN_Comm comm, int* size) {
  Scope s("MGEN_Comm_size");
  if (!s) return api::outside("MGEN_Comm_size");
  *size = s.any_comm(comm).size();
  return MGEN_SUCCESS;
}

int MGEN_Comm_split(MGEN_Comm comm, int color, int key, MGEN_Comm* newcomm) {
  Scope s("MGEN_Comm_split", static_cast<int>(kNone), kAnyTag, comm);
  if (!s) return api::outside("MGEN_Comm_split");
  Comm& c = s.comm(comm);
  if (color < 0 && color != MGEN_UNDEFINED) s.fail(MGEN_ERR_ARG, fmt::format("negative color {}", color));
  // Every member derives the same exchange key (same parent, same count of derivations).
  const uint64_t exchange = c.derive_context(0x5311);
  World& w = s.world();
  const int own_color = color == MGEN_UNDEFINED ? -1 : color;
  // The (color, key) exchange costs what an allgather of 8 bytes per rank costs, by Bruck's
  // algorithm (log2 p rounds; what a scalable MPI uses for such small data). The pairs meet in
  // the run's group table, without per-rank tables (O(p) per rank would be O(p^2) in all),
  // except where members run in other processes: there the allgather carries them.
  colls::Channel ch(w, s.rank(), c);
  colls::BlockArgs a;
  a.send_bytes = 8;
  a.regular = true;
  a.block = 8;
  std::shared_ptr<const Group> g;
  if (w.distributed()) {
    const int32_t mine[2] = {own_color, key};
    std::vector<int32_t> all(2 * static_cast<size_t>(c.size()));
    a.send = mine;
    a.recv = all.data();
    colls::allgather_bruck(ch, a);
    if (own_color >= 0) {
      std::vector<std::pair<int, int>> order;  // (key, old rank): MPI orders by key, ties by rank
      for (int i = 0; i < c.size(); ++i) {
        if (all[2 * static_cast<size_t>(i)] == own_color) order.emplace_back(all[2 * static_cast<size_t>(i) + 1], i);
      }
      std::sort(order.begin(), order.end());
      std::vector<RankId> members;
      for (const auto& [k, i] : order)
        members.push_back(c.world(i));
      g = w.groups().intern(std::move(members));
    }
  } else {
    w.groups().split_put(exchange, c.size(), c.rank, own_color, key);
    colls::allgather_bruck(ch, a);
    g = w.groups().split_group(exchange, c, own_color);
  }
  const uint64_t context = c.derive_context(static_cast<uint64_t>(color) + 1);
  *newcomm = g ? add_comm(s.rank(), make_comm(s, context, std::move(g))) : MGEN_COMM_NULL;
  log_comm_made(s, c, *newcomm);
  return MGEN_SUCCESS;
}

int MGEN_Comm_dup(MGEN_Comm comm, MGEN_Comm* newcomm) {
  Scope s("MGEN_Comm_dup", static_cast<int>(kNone), kAnyTag, comm);
  if (!s) return api::outside("MGEN_Comm_dup");
  Comm& c = s.any_comm(comm);
  if (!c.inter()) agree(s, c);  // both sides of an intercommunicator derive the same context
  auto dup = make_comm(s, c.derive_context(0xd0d0), c.group);
  dup->cart = c.cart;
  dup->remote = c.remote;
  *newcomm = add_comm(s.rank(), std::move(dup));
  if (!c.inter()) log_comm_made(s, c, *newcomm);
  return MGEN_SUCCESS;
}

int MGEN_Comm_create(MGEN_Comm comm, MGEN_Group group, MGEN_Comm* newcomm) {
  Scope s("MGEN_Comm_create", static_cast<int>(kNone), kAnyTag, comm);
  if (!s) return api::outside("MGEN_Comm_create");
  Comm& c = s.comm(comm);
  const Group& g = group_of(s, group);
  for (int i = 0; i < g.size(); ++i) {
    if (c.group->rank_of(g.world(i)) < 0) s.fail(MGEN_ERR_GROUP, "the group is not a subset of the communicator");
  }
  agree(s, c);
  const uint64_t context = c.derive_context(0xc4ea);
  if (g.rank_of(s.rank().id) < 0) {
    *newcomm = MGEN_COMM_NULL;
    log_comm_made(s, c, *newcomm);
    return MGEN_SUCCESS;
  }
  *newcomm = add_comm(s.rank(), make_comm(s, context, s.rank().groups[group]));
  log_comm_made(s, c, *newcomm);
  return MGEN_SUCCESS;
}

int MGEN_Comm_free(MGEN_Comm* comm) {
  Scope s("MGEN_Comm_free");
  if (!s) return api::outside("MGEN_Comm_free");
  if (comm == nullptr) s.fail(MGEN_ERR_ARG, "null communicator pointer");
  if (*comm == MGEN_COMM_WORLD || *comm == MGEN_COMM_SELF)
    s.fail(MGEN_ERR_COMM, "cannot free a predefined communicator");
  s.any_comm(*comm);
  s.rank().comms[*comm].reset();
  *comm = MGEN_COMM_NULL;
  return MGEN_SUCCESS;
}

int MGEN_Comm_group(MGEN_Comm comm, MGEN_Group* group) {
  Scope s("MGEN_Comm_group");
  if (!s) return api::outside("MGEN_Comm_group");
  *group = add_group(s.rank(), s.any_comm(comm).group);
  return MGEN_SUCCESS;
}

// ---------------------------------------------------------------- intercommunicators

namespace {

// Point-to-point on the user's context of `c` (Intercomm_create's leaders talk on peer_comm
// with the caller's tag, as MPI specifies).
void exchange(Scope& s, Comm& c, int peer, int tag, const void* out, uint64_t out_bytes, void* in, uint64_t in_bytes) {
  World& w = s.world();
  const uint32_t qs[2] = {w.post_recv(s.rank(), in, in_bytes, static_cast<int>(c.peer(peer)), tag, c.context, false),
                          w.post_send(s.rank(), out, out_bytes, c.peer(peer), tag, c, c.context, false)};
  w.wait_all(s.rank(), qs, 2);
  const Status st = s.rank().requests[qs[0]].status;
  s.rank().free_request_slot(qs[0]);
  s.rank().free_request_slot(qs[1]);
  if (st.error != 0) {
    s.fail(MGEN_ERR_TRUNCATE, fmt::format("the leaders' exchange on the peer communicator (tag {}) received a "
                                          "{}-byte message where {} were expected",
                                          tag, st.message_bytes, in_bytes));
  }
}

void bcast(Scope& s, Comm& c, void* buf, uint64_t bytes, int root) {
  colls::Channel ch(s.world(), s.rank(), c);
  colls::select_bcast({.size = c.size(), .bytes = bytes}, s.world().collectives()).fn(ch, buf, bytes, root);
}

}  // namespace

int MGEN_Intercomm_create(MGEN_Comm local_comm, int local_leader, MGEN_Comm peer_comm, int remote_leader, int tag,
                          MGEN_Comm* newintercomm) {
  Scope s("MGEN_Intercomm_create", static_cast<int>(kNone), tag, local_comm);
  if (!s) return api::outside("MGEN_Intercomm_create");
  Comm& lc = s.comm(local_comm);
  s.check_root(lc, local_leader);
  s.check_tag(tag, false);
  // Every local member derives a candidate context; the group whose leader has the lower
  // world rank gives the one both sides use.
  const uint64_t mine = lc.derive_context(0x1c7e);
  // The leaders swap [leader's world rank, candidate context, group size] and member lists,
  // then each broadcasts what it learnt to its group.
  uint64_t head[3] = {0, 0, 0};
  std::vector<uint64_t> remote;
  if (lc.rank == local_leader) {
    Comm& pc = s.comm(peer_comm);
    s.check_rank(pc, remote_leader, "remote leader", false, false);
    const uint64_t out[3] = {s.rank().id, mine, static_cast<uint64_t>(lc.size())};
    exchange(s, pc, remote_leader, tag, out, sizeof out, head, sizeof head);
    std::vector<uint64_t> members(static_cast<size_t>(lc.size()));
    for (int i = 0; i < lc.size(); ++i)
      members[static_cast<size_t>(i)] = lc.world(i);
    remote.resize(head[2]);
    exchange(s, pc, remote_leader, tag, members.data(), members.size() * 8, remote.data(), remote.size() * 8);
  }
  bcast(s, lc, head, sizeof head, local_leader);
  remote.resize(head[2]);
  bcast(s, lc, remote.data(), remote.size() * 8, local_leader);
  std::vector<RankId> members(remote.begin(), remote.end());
  for (RankId m : members) {
    if (m >= s.world().size()) s.fail(MGEN_ERR_INTERN, "corrupt remote group");
    if (lc.group->rank_of(m) >= 0) {
      s.fail(MGEN_ERR_COMM, fmt::format("world rank {} is in both groups of the intercommunicator", m));
    }
  }
  const uint64_t context = lc.world(local_leader) < head[0] ? mine : head[1];
  auto ic = make_comm(s, context, lc.group);
  ic->remote = s.world().groups().intern(std::move(members));
  *newintercomm = add_comm(s.rank(), std::move(ic));
  return MGEN_SUCCESS;
}

int MGEN_Intercomm_merge(MGEN_Comm intercomm, int high, MGEN_Comm* newintracomm) {
  Scope s("MGEN_Intercomm_merge", static_cast<int>(kNone), kAnyTag, intercomm);
  if (!s) return api::outside("MGEN_Intercomm_merge");
  Comm& ic = s.any_comm(intercomm);
  if (!ic.inter()) s.fail(MGEN_ERR_COMM, "not an intercommunicator");
  // Each side learns the other's `high`: local rank r hears from remote rank r mod remote_size
  // and tells every remote rank j with j mod local_size == r (on the collective context).
  const int ls = ic.size(), rs = ic.peer_size();
  World& w = s.world();
  const int32_t mine = high != 0 ? 1 : 0;
  int32_t theirs = 0;
  std::vector<uint32_t> qs;
  qs.push_back(w.post_recv(s.rank(), &theirs, 4, static_cast<int>(ic.peer(ic.rank % rs)), 0, ic.coll_context(), true));
  for (int j = ic.rank; j < rs; j += ls)
    qs.push_back(w.post_send(s.rank(), &mine, 4, ic.peer(j), 0, ic, ic.coll_context(), true));
  w.wait_all(s.rank(), qs.data(), static_cast<uint32_t>(qs.size()));
  for (uint32_t q : qs)
    s.rank().free_request_slot(q);
  // The "low" group comes first; equal flags are ordered by the groups' first world ranks.
  const bool local_first = mine != theirs ? mine == 0 : ic.world(0) < ic.peer(0);
  const Group& first = local_first ? *ic.group : *ic.remote;
  const Group& second = local_first ? *ic.remote : *ic.group;
  std::vector<RankId> members;
  members.reserve(static_cast<size_t>(ls + rs));
  for (int i = 0; i < first.size(); ++i)
    members.push_back(first.world(i));
  for (int i = 0; i < second.size(); ++i)
    members.push_back(second.world(i));
  const uint64_t context = ic.derive_context(0x3e76);
  *newintracomm = add_comm(s.rank(), make_comm(s, context, w.groups().intern(std::move(members))));
  return MGEN_SUCCESS;
}

int MGEN_Comm_test_inter(MGEN_Comm comm, int* flag) {
  Scope s("MGEN_Comm_test_inter");
  if (!s) return api::outside("MGEN_Comm_test_inter");
  *flag = s.any_comm(comm).inter() ? 1 : 0;
  return MGEN_SUCCESS;
}

int MGEN_Comm_remote_size(MGEN_Comm comm, int* size) {
  Scope s("MGEN_Comm_remote_size");
  if (!s) return api::outside("MGEN_Comm_remote_size");
  Comm& c = s.any_comm(comm);
  if (!c.inter()) s.fail(MGEN_ERR_COMM, "not an intercommunicator");
  *size = c.peer_size();
  return MGEN_SUCCESS;
}

int MGEN_Comm_remote_group(MGEN_Comm comm, MGEN_Group* group) {
  Scope s("MGEN_Comm_remote_group");
  if (!s) return api::outside("MGEN_Comm_remote_group");
  Comm& c = s.any_comm(comm);
  if (!c.inter()) s.fail(MGEN_ERR_COMM, "not an intercommunicator");
  *group = add_group(s.rank(), c.remote);
  return MGEN_SUCCESS;
}

int MGEN_Group_size(MGEN_Group group, int* size) {
  Scope s("MGEN_Group_size");
  if (!s) return api::outside("MGEN_Group_size");
  *size = group_of(s, group).size();
  return MGEN_SUCCESS;
}

int MGEN_Group_rank(MGEN_Group group, int* rank) {
  Scope s("MGEN_Group_rank");
  if (!s) return api::outside("MGEN_Group_rank");
  const int r = group_of(s, group).rank_of(s.rank().id);
  *rank = r < 0 ? MGEN_UNDEFINED : r;
  return MGEN_SUCCESS;
}

int MGEN_Group_incl(MGEN_Group group, int n, const int ranks[], MGEN_Group* newgroup) {
  Scope s("MGEN_Group_incl");
  if (!s) return api::outside("MGEN_Group_incl");
  const Group& g = group_of(s, group);
  s.check_count(n, "rank count");
  std::vector<RankId> members;
  std::vector<char> seen(static_cast<size_t>(g.size()), 0);
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= g.size())
      s.fail(MGEN_ERR_RANK, fmt::format("rank {} is not in the group (size {})", ranks[i], g.size()));
    if (seen[ranks[i]]++) s.fail(MGEN_ERR_RANK, fmt::format("rank {} listed twice", ranks[i]));
    members.push_back(g.world(ranks[i]));
  }
  *newgroup = n == 0 ? MGEN_GROUP_EMPTY : add_group(s.rank(), s.world().groups().intern(std::move(members)));
  return MGEN_SUCCESS;
}

int MGEN_Group_excl(MGEN_Group group, int n, const int ranks[], MGEN_Group* newgroup) {
  Scope s("MGEN_Group_excl");
  if (!s) return api::outside("MGEN_Group_excl");
  const Group& g = group_of(s, group);
  s.check_count(n, "rank count");
  std::vector<char> out(static_cast<size_t>(g.size()), 0);
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= g.size())
      s.fail(MGEN_ERR_RANK, fmt::format("rank {} is not in the group (size {})", ranks[i], g.size()));
    if (out[ranks[i]]++) s.fail(MGEN_ERR_RANK, fmt::format("rank {} listed twice", ranks[i]));
  }
  std::vector<RankId> members;
  for (int i = 0; i < g.size(); ++i) {
    if (!out[i]) members.push_back(g.world(i));
  }
  *newgroup = members.empty() ? MGEN_GROUP_EMPTY : add_group(s.rank(), s.world().groups().intern(std::move(members)));
  return MGEN_SUCCESS;
}

int MGEN_Group_translate_ranks(MGEN_Group group1, int n, const int ranks1[], MGEN_Group group2, int ranks2[]) {
  Scope s("MGEN_Group_translate_ranks");
  if (!s) return api::outside("MGEN_Group_translate_ranks");
  const Group& a = group_of(s, group1);
  const Group& b = group_of(s, group2);
  for (int i = 0; i < n; ++i) {
    if (ranks1[i] == MGEN_PROC_NULL) {
      ranks2[i] = MGEN_PROC_NULL;
      continue;
    }
    if (ranks1[i] < 0 || ranks1[i] >= a.size())
      s.fail(MGEN_ERR_RANK, fmt::format("rank {} is not in the first group", ranks1[i]));
    const int r = b.rank_of(a.world(ranks1[i]));
    ranks2[i] = r < 0 ? MGEN_UNDEFINED : r;
  }
  return MGEN_SUCCESS;
}

int MGEN_Group_free(MGEN_Group* group) {
  Scope s("MGEN_Group_free");
  if (!s) return api::outside("MGEN_Group_free");
  group_of(s, *group);
  if (*group != MGEN_GROUP_EMPTY) s.rank().groups[*group].reset();
  *group = MGEN_GROUP_NULL;
  return MGEN_SUCCESS;
}

int MGEN_Dims_create(int nnodes, int ndims, int dims[]) {
  Scope s("MGEN_Dims_create");
  if (!s) return api::outside("MGEN_Dims_create");
  if (nnodes <= 0 || ndims <= 0) s.fail(MGEN_ERR_DIMS, fmt::format("{} nodes in {} dimensions", nnodes, ndims));
  int fixed = 1, free_dims = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) s.fail(MGEN_ERR_DIMS, fmt::format("dims[{}] = {} is negative", i, dims[i]));
    if (dims[i] > 0)
      fixed *= dims[i];
    else
      ++free_dims;
  }
  if (nnodes % fixed != 0)
    s.fail(MGEN_ERR_DIMS, fmt::format("{} nodes cannot be split with the fixed dimensions", nnodes));
  // Spread the prime factors of what is left over the free dimensions, largest first, each
  // onto the currently smallest dimension: as balanced as possible, in non-increasing order.
  std::vector<int> factors;
  for (int n = nnodes / fixed, p = 2; n > 1;) {
    if (n % p == 0) {
      factors.push_back(p);
      n /= p;
    } else {
      p = p * p > n ? n : p + 1;
    }
  }
  std::vector<int> got(static_cast<size_t>(free_dims), 1);
  if (free_dims == 0 && !factors.empty()) s.fail(MGEN_ERR_DIMS, "no free dimension left for the remaining nodes");
  std::sort(factors.rbegin(), factors.rend());
  for (int f : factors)
    *std::min_element(got.begin(), got.end()) *= f;
  std::sort(got.rbegin(), got.rend());
  for (int i = 0, k = 0; i < ndims; ++i) {
    if (dims[i] == 0) dims[i] = got[static_cast<size_t>(k++)];
  }
  return MGEN_SUCCESS;
}

int MGEN_Cart_create(MGEN_Comm comm, int ndims, const int dims[], const int periods[], int, MGEN_Comm* newcomm) {
  Scope s("MGEN_Cart_create", static_cast<int>(kNone), kAnyTag, comm);
  if (!s) return api::outside("MGEN_Cart_create");
  Comm& c = s.comm(comm);
  if (ndims < 0) s.fail(MGEN_ERR_DIMS, fmt::format("{} dimensions", ndims));
  int64_t cells = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) s.fail(MGEN_ERR_DIMS, fmt::format("dims[{}] = {}", i, dims[i]));
    cells *= dims[i];
  }
  if (cells > c.size()) {
    s.fail(MGEN_ERR_DIMS, fmt::format("a {}-cell grid does not fit in a communicator of {} ranks", cells, c.size()));
  }
  agree(s, c);
  const uint64_t context = c.derive_context(0xca27);
  if (c.rank >= cells) {
    *newcomm = MGEN_COMM_NULL;
    log_comm_made(s, c, *newcomm);
    return MGEN_SUCCESS;
  }
  // No reordering: grid rank i is old rank i (row-major, last dimension fastest).
  std::vector<RankId> members;
  for (int i = 0; i < cells; ++i)
    members.push_back(c.world(i));
  auto cart = make_comm(s, context, cells == c.size() ? c.group : s.world().groups().intern(std::move(members)));
  cart->cart = CartTopology{std::vector<int>(dims, dims + ndims), std::vector<int>(static_cast<size_t>(ndims), 0)};
  for (int i = 0; i < ndims; ++i)
    cart->cart->periods[static_cast<size_t>(i)] = periods[i] ? 1 : 0;
  *newcomm = add_comm(s.rank(), std::move(cart));
  log_comm_made(s, c, *newcomm);
  return MGEN_SUCCESS;
}

}  // extern "C"

namespace {

const CartTopology& cart_of(Scope& s, Comm& c) {
  if (!c.cart) s.fail(MGEN_ERR_TOPOLOGY, "the communicator has no Cartesian topology");
  return *c.cart;
}

void coords_of(const CartTopology& t, int rank, int* coords) {
  for (size_t i = t.dims.size(); i-- > 0;) {
    coords[i] = rank % t.dims[i];
    rank /= t.dims[i];
  }
}

}  // namespace

extern "C" {

int MGEN_Cart_coords(MGEN_Comm comm, int rank, int maxdims, int coords[]) {
  Scope s("MGEN_Cart_coords");
  if (!s) return api::outside("MGEN_Cart_coords");
  Comm& c = s.comm(comm);
  const CartTopology& t = cart_of(s, c);
  s.check_rank(c, rank, "rank", false, false);
  if (maxdims < static_cast<int>(t.dims.size()))
    s.fail(MGEN_ERR_ARG, fmt::format("maxdims {} < {} dimensions", maxdims, t.dims.size()));
  coords_of(t, rank, coords);
  return MGEN_SUCCESS;
}

int MGEN_Cart_rank(MGEN_Comm comm, const int coords[], int* rank) {
  Scope s("MGEN_Cart_rank");
  if (!s) return api::outside("MGEN_Cart_rank");
  const CartTopology& t = cart_of(s, s.comm(comm));
  int r = 0;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    int x = coords[i];
    if (t.periods[i]) {
      x = ((x % t.dims[i]) + t.dims[i]) % t.dims[i];
    } else if (x < 0 || x >= t.dims[i]) {
      s.fail(MGEN_ERR_ARG,
             fmt::format("coordinate {} = {} is outside the non-periodic dimension of size {}", i, x, t.dims[i]));
    }
    r = r * t.dims[i] + x;
  }
  *rank = r;
  return MGEN_SUCCESS;
}

int MGEN_Cart_shift(MGEN_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  Scope s("MGEN_Cart_shift");
  if (!s) return api::outside("MGEN_Cart_shift");
  Comm& c = s.comm(comm);
  const CartTopology& t = cart_of(s, c);
  if (direction < 0 || direction >= static_cast<int>(t.dims.size())) {
    s.fail(MGEN_ERR_DIMS, fmt::format("direction {} outside 0..{}", direction, t.dims.size() - 1));
  }
  std::vector<int> coords(t.dims.size());
  coords_of(t, c.rank, coords.data());
  auto shifted = [&](int delta) {
    std::vector<int> x = coords;
    const int k = t.dims[static_cast<size_t>(direction)];
    int v = x[static_cast<size_t>(direction)] + delta;
    if (t.periods[static_cast<size_t>(direction)]) {
      v = ((v % k) + k) % k;
    } else if (v < 0 || v >= k) {
      return MGEN_PROC_NULL;
    }
    x[static_cast<size_t>(direction)] = v;
    int r = 0;
    for (size_t i = 0; i < t.dims.size(); ++i)
      r = r * t.dims[i] + x[i];
    return r;
  };
  *rank_dest = shifted(disp);
  *rank_source = shifted(-disp);
  return MGEN_SUCCESS;
}

int MGEN_Cart_get(MGEN_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  Scope s("MGEN_Cart_get");
  if (!s) return api::outside("MGEN_Cart_get");
  Comm& c = s.comm(comm);
  const CartTopology& t = cart_of(s, c);
  if (maxdims < static_cast<int>(t.dims.size())) s.fail(MGEN_ERR_ARG, "maxdims smaller than the topology");
  for (size_t i = 0; i < t.dims.size(); ++i) {
    dims[i] = t.dims[i];
    periods[i] = t.periods[i];
  }
  coords_of(t, c.rank, coords);
  return MGEN_SUCCESS;
}

int MGEN_Cartdim_get(MGEN_Comm comm, int* ndims) {
  Scope s("MGEN_Cartdim_get");
  if (!s) return api::outside("MGEN_Cartdim_get");
  *ndims = static_cast<int>(cart_of(s, s.comm(comm)).dims.size());
  return MGEN_SUCCESS;
}

}  // extern "C"
