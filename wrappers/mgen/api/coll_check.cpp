// Collective arguments checked across ranks (coll_check.hpp). The first member to call the
// k-th collective of a communicator leaves its arguments; each later member compares its own
// with them; the record goes when the last member has called.
#include "api/coll_check.hpp"

#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <tuple>

namespace mgen::mpi::api {

namespace {

struct Pending {
  std::string call;  // the first caller's call name (compared without its MPI_/MGEN_ prefix)
  const char* kind = "";
  int first = 0;  // communicator rank of the first caller
  int root = -1, op = -1;
  uint64_t bytes = kUnchecked;
  std::vector<uint64_t> own;     // by communicator rank, kUnchecked until known
  std::vector<uint64_t> shares;  // empty until some member passes them
  int shares_from = -1;
  int arrived = 0;
};

struct Checks : World::Extension {
  explicit Checks(World&) {}
  // By (context, first member's world rank, call number): the two sides of an
  // intercommunicator run their local parts on groups that share a context.
  std::map<std::tuple<uint64_t, RankId, uint64_t>, Pending> pending;
};
constexpr char kChecksKey = 0;

std::string_view bare(const char* name) {
  std::string_view n(name);
  for (std::string_view prefix : {"MGEN_", "MPI_", "PMPI_"}) {
    if (n.substr(0, prefix.size()) == prefix) return n.substr(prefix.size());
  }
  return n;
}

// Rank `rank`'s own share against the count array that rank `p.shares_from` passed. Messages
// name world ranks, as every error message does.
void check_share(Scope& s, const Comm& c, const Pending& p, int rank) {
  if (p.shares.empty() || p.own[rank] == kUnchecked || p.own[rank] == p.shares[rank]) return;
  s.fail(MGEN_ERR_TRUNCATE,
         fmt::format("rank {}'s counts give rank {} {} bytes, but rank {} passes {} bytes: the members' counts or "
                     "datatypes do not match (MPI requires the same type signature on both sides)",
                     c.world(p.shares_from), c.world(rank), p.shares[rank], c.world(rank), p.own[rank]));
}

}  // namespace

void check_collective(Scope& s, Comm& c, const CollCall& call) {
  const int n = c.size(), me = c.rank;
  const uint64_t number = c.collectives++;
  if (n <= 1) return;
  Checks& checks = s.world().extension<Checks>(&kChecksKey);
  const auto key = std::make_tuple(c.coll_context(), c.world(0), number);
  auto [it, fresh] = checks.pending.try_emplace(key);
  Pending& p = it->second;
  // The record goes with the last member, whether its call passes or fails.
  struct Last {
    Checks& checks;
    decltype(it) at;
    bool last;
    ~Last() {
      if (last) checks.pending.erase(at);
    }
  } last{checks, it, ++p.arrived == n};
  if (fresh) {
    p.call = s.name();
    p.kind = call.kind;
    p.first = me;
    p.root = call.root;
    p.op = call.op;
    p.bytes = call.bytes;
    p.own.assign(static_cast<size_t>(n), kUnchecked);
  } else {
    if (bare(p.call.c_str()) != bare(s.name()) || std::strcmp(p.kind, call.kind) != 0) {
      s.fail(MGEN_ERR_OTHER,
             fmt::format("mismatched collectives: rank {} calls {} as collective number {} on this communicator, "
                         "where rank {} called {}: every member must call the same collectives in the same order",
                         c.world(me), s.name(), number + 1, c.world(p.first), p.call));
    }
    if (p.root != call.root) {
      s.fail(MGEN_ERR_ROOT, fmt::format("rank {} passes root {}, rank {} passed root {}", c.world(me), call.root,
                                        c.world(p.first), p.root));
    }
    if (p.op != call.op) {
      s.fail(MGEN_ERR_OP,
             fmt::format("rank {} passes another reduction operation than rank {}", c.world(me), c.world(p.first)));
    }
    if (call.bytes != kUnchecked) {
      if (p.bytes == kUnchecked) {
        p.bytes = call.bytes;
      } else if (p.bytes != call.bytes) {
        s.fail(MGEN_ERR_TRUNCATE,
               fmt::format("rank {} passes {} bytes, rank {} passed {} bytes: the members' counts or datatypes do not "
                           "match (MPI requires the same type signature on every member)",
                           c.world(me), call.bytes, c.world(p.first), p.bytes));
      }
    }
  }
  if (call.shares != nullptr) {
    if (p.shares.empty()) {
      p.shares = *call.shares;
      p.shares_from = me;
      for (int r = 0; r < n; ++r)
        check_share(s, c, p, r);
    } else if (p.shares != *call.shares) {
      int r = 0;
      while ((*call.shares)[r] == p.shares[r])
        ++r;
      s.fail(MGEN_ERR_TRUNCATE,
             fmt::format("rank {} passes {} bytes for rank {}, rank {} passed {} bytes: the count arrays differ "
                         "between members",
                         c.world(me), (*call.shares)[r], c.world(r), c.world(p.shares_from), p.shares[r]));
    }
  }
  if (call.own != kUnchecked) {
    p.own[me] = call.own;
    check_share(s, c, p, me);
  }
}

}  // namespace mgen::mpi::api
