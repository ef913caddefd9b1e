// The matching structures against plain references: PeerCounters against std::map, and
// MatchQueue (which filters by source before looking at an entry) against one list of full
// entries scanned in order, which is what MPI's matching rule says.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "core/match_queue.hpp"

using mgen::mpi::PeerCounters;
using mgen::mpi::RankId;

TEST_CASE("Per-peer counters count like a map for few and many peers", "[mpi][counters]") {
  for (RankId peers : {1u, 8u, 9u, 33u, 1000u, 70000u}) {
    INFO(peers << " peers");
    PeerCounters c;
    std::map<RankId, uint32_t> want;
    std::mt19937 rng(peers);
    // Peers spread over the whole id range, including the largest ids, and strided ones (a
    // grid's column: every 64th rank).
    std::uniform_int_distribution<RankId> pick(0, peers - 1);
    for (int i = 0; i < 20 * static_cast<int>(peers); ++i) {
      const RankId r = pick(rng);
      const RankId p = i % 3 == 0 ? r * 64 : r * 61 % 0xFFFFFFF0u + (i % 7 == 0 ? 0xFFFFFFF0u - peers : 0);
      ++c[p];
      ++want[p];
    }
    auto wrong = [&] {
      size_t n = 0;
      for (const auto& [p, count] : want)
        n += c[p] != count;
      return n;
    };
    CHECK(wrong() == 0);
    // Asking for a new peer gives zero and does not disturb the others.
    CHECK(c[0xFFFFFFFEu] == 0);
    CHECK(wrong() == 0);
  }
}

TEST_CASE("The match queue finds what one ordered list would, wildcards included", "[mpi][match]") {
  // Entries: (id, source), source -1 for a wildcard receive. Random pushes, finds for a named
  // source or any, finds for an arriving message (named bin or wildcard bin), removals.
  struct Entry {
    uint32_t id;
    int source, tag;
  };
  std::mt19937 rng(7);
  for (int sources : {1, 3, 40}) {
    INFO(sources << " sources");
    mgen::mpi::MatchQueue q;
    std::vector<Entry> list;  // the reference, in arrival order
    std::vector<int> tag_of(100000);
    uint32_t next = 0;
    size_t mismatches = 0;
    for (int step = 0; step < 20000; ++step) {
      const int op = static_cast<int>(rng() % 4);
      const int source = static_cast<int>(rng() % static_cast<unsigned>(sources + 1)) - 1;  // -1: any
      const int tag = static_cast<int>(rng() % 3);
      auto accept = [&](uint32_t id) { return tag_of[id] == tag; };
      if (op == 0 || list.size() < 3) {
        tag_of[next] = tag;
        q.push(next, source);
        list.push_back({next++, source, tag});
      } else if (op == 1) {
        // A receive looking for a message: named source only, or any.
        size_t want = list.size();
        for (size_t i = 0; i < list.size() && want == list.size(); ++i) {
          if ((source == -1 || list[i].source == source) && list[i].tag == tag) want = i;
        }
        const uint32_t n = q.find(source, accept);
        if (want == list.size()) {
          mismatches += n != mgen::mpi::kNone;
        } else {
          mismatches += n == mgen::mpi::kNone || q.erase(n) != list[want].id;
          list.erase(list.begin() + static_cast<ptrdiff_t>(want));
        }
      } else if (op == 2 && source >= 0) {
        // A message from `source` looking for a posted receive: named or wildcard.
        size_t want = list.size();
        for (size_t i = 0; i < list.size() && want == list.size(); ++i) {
          if ((list[i].source == source || list[i].source == -1) && list[i].tag == tag) want = i;
        }
        const uint32_t n = q.find_for(source, accept);
        if (want == list.size()) {
          mismatches += n != mgen::mpi::kNone;
        } else {
          mismatches += n == mgen::mpi::kNone || q.erase(n) != list[want].id;
          list.erase(list.begin() + static_cast<ptrdiff_t>(want));
        }
      } else if (op == 3) {
        const size_t i = rng() % list.size();
        mismatches += !q.remove(list[i].id);
        list.erase(list.begin() + static_cast<ptrdiff_t>(i));
        mismatches += q.remove(100000 - 1);  // never pushed
      }
    }
    CHECK(mismatches == 0);
    CHECK(q.empty() == list.empty());
  }
}
