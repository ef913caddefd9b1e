// Collective arguments checked across ranks (coll_check.hpp). The first member to call the
// k-th collective of a communicator leaves its arguments; each later member compares its own
// with them; the record goes when the last member has called.
#include "api/coll_check.hpp"

#include "core/diagnostics.hpp"

#include <algorithm>
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
  // Members that called another collective than the first (communicator rank, call): they wait
  // (World::park) until every member has called, then the run stops naming the odd ones out.
  std::vector<std::pair<int, std::string>> odd;
  std::shared_ptr<const Group> group;  // with `odd`: who the members are, for the deadlock report
  uint64_t context = 0;
};

std::string mismatch_report(World& w, const Pending& p, uint64_t number, bool all_arrived);

struct Checks : World::Extension {
  explicit Checks(World& w) {
    // A mismatch where some member never reached the collective: the run deadlocks, and the
    // report says first who called what.
    add_deadlock_note(w, [this, &w] {
      std::string out;
      for (const auto& [key, p] : pending) {
        if (!p.odd.empty()) out += mismatch_report(w, p, std::get<2>(key), false) + "\n";
      }
      return out;
    });
  }
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

// World ranks, runs of three or more as ranges: "0-3,5,7,8".
std::string rank_list(std::vector<RankId> ranks) {
  std::sort(ranks.begin(), ranks.end());
  std::string out;
  size_t runs = 0;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
      ++j;
    if (j == i + 1) j = i;  // two in a row are listed, not a range
    if (++runs > 12) return out + fmt::format(",... ({} ranks)", ranks.size());
    out += (out.empty() ? "" : ",") + (j == i ? fmt::format("{}", ranks[i]) : fmt::format("{}-{}", ranks[i], ranks[j]));
    i = j + 1;
  }
  return out;
}

std::string ranks_text(const std::vector<RankId>& ranks) {
  return fmt::format("{} {}", ranks.size() == 1 ? "rank" : "ranks", rank_list(ranks));
}

// Whether the member at world rank `wr` has called collective `number` of the communicator
// with `context` whose first member is `first`.
bool has_called(const World& w, RankId wr, uint64_t context, RankId first, uint64_t number) {
  for (const auto& c : w.rank(wr).comms) {
    if (c && c->context == context && c->world(0) == first) return c->collectives > number;
  }
  return false;
}

// "rank 2: MPI_Finalize: mismatched collectives: rank 2 called MPI_Finalize while ranks 0-1,3
// are in MPI_Barrier on MPI_COMM_WORLD ...": the calls grouped, the largest group taken as what
// the members meant to call (in a tie, MPI_Finalize is the odd one: its rank skipped a
// collective), the others named as the odd ones out. World ranks, as every error names them.
std::string mismatch_report(World& w, const Pending& p, uint64_t number, bool all_arrived) {
  std::vector<std::pair<std::string, std::vector<RankId>>> calls;  // in order of first arrival
  std::vector<RankId> missing;
  auto add = [&](const std::string& call, RankId wr) {
    auto it = std::find_if(calls.begin(), calls.end(), [&](const auto& g) { return g.first == call; });
    if (it == calls.end()) it = calls.insert(calls.end(), {call, {}});
    it->second.push_back(wr);
  };
  add(p.call, p.group->world(p.first));
  for (int r = 0; r < p.group->size(); ++r) {
    if (r == p.first) continue;
    const RankId wr = p.group->world(r);
    auto o = std::find_if(p.odd.begin(), p.odd.end(), [&](const auto& x) { return x.first == r; });
    if (o != p.odd.end()) {
      add(o->second, wr);
    } else if (all_arrived || has_called(w, wr, p.context, p.group->world(0), number)) {
      add(p.call, wr);
    } else {
      missing.push_back(wr);
    }
  }
  auto finalize = [](const std::string& call) { return call.ends_with("Finalize"); };
  const auto meant = std::max_element(calls.begin(), calls.end(), [&](const auto& a, const auto& b) {
    if (a.second.size() != b.second.size()) return a.second.size() < b.second.size();
    return finalize(a.first) && !finalize(b.first);
  });
  const RankId first = p.group->world(p.first);
  const std::string comm = comm_label(w, first, p.context, p.call.starts_with("MGEN_") ? "MGEN_" : "MPI_");
  std::string odd;
  const std::pair<std::string, std::vector<RankId>>* blamed = nullptr;
  if (calls.size() < 2) return "mismatched collectives";  // (odd calls differ from the first's)
  for (const auto& g : calls) {
    if (&g == &*meant) continue;
    if (blamed == nullptr) blamed = &g;
    odd += fmt::format("{}{} called {}", odd.empty() ? "" : " and ", ranks_text(g.second), g.first);
  }
  std::string out =
      fmt::format("rank {}: {}: mismatched collectives: {} while {} {} in {} on {}",
                  *std::min_element(blamed->second.begin(), blamed->second.end()), blamed->first, odd,
                  ranks_text(meant->second), meant->second.size() == 1 ? "is" : "are", meant->first, comm);
  out += fmt::format(" (collective number {} there)", number + 1);
  if (!missing.empty())
    out += fmt::format(", and {} not called it yet", ranks_text(missing) + (missing.size() == 1 ? " has" : " have"));
  if (finalize(blamed->first)) {
    out += fmt::format(": did {} skip the {}?", ranks_text(blamed->second), meant->first);
  } else {
    out += ": every member must call the same collectives in the same order";
  }
  return out;
}

}  // namespace

void check_collective(Scope& s, Comm& c, const CollCall& call) {
  const int n = c.size(), me = c.rank;
  const uint64_t number = c.collectives++;
  if (s.rank().log_calls) {
    // The call log (OTF2 output): v-forms log the sum of the shares as their bytes.
    uint64_t bytes = call.bytes;
    if (bytes == kUnchecked && call.shares != nullptr) {
      bytes = 0;
      for (uint64_t share : *call.shares)
        bytes += share;
    }
    s.world().note_comm(c);
    CallEvent e = CallEvent::call(CallEvent::Kind::kCollective, call.kind);
    e.comm = c.context;
    e.peer = call.root;
    e.bytes = bytes;
    e.own = call.own;
    e.comm_size = static_cast<uint32_t>(n);
    e.comm_rank = static_cast<uint32_t>(me);
    s.rank().log_call(e);
  }
  // A partitioned run's members may be in other partitions' worlds: not checked there.
  if (n <= 1 || s.world().partitioned()) return;
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
  } else if (bare(p.call.c_str()) != bare(s.name()) || std::strcmp(p.kind, call.kind) != 0) {
    // Another collective than the first member's: which member is the odd one out shows only
    // once every member has called (the first may be it), so this one waits for the others.
    p.odd.emplace_back(me, bare(p.call.c_str()) == bare(s.name()) ? fmt::format("{} ({})", s.name(), call.kind)
                                                                  : std::string(s.name()));
    p.group = c.group;
    p.context = c.context;
    if (!last.last) park(s.world(), s.world().current_exec());
  } else {
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
  if (!p.odd.empty()) {
    if (last.last) s.world().fail(mismatch_report(s.world(), p, number, true));
    return;
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
