// mgen's own default selection ([collectives] selector = "mgen"; the default before issue 20):
// MPICH's older thresholds (Thakur, Rabenseifner & Gropp 2005) plus the ring allreduce and
// reduce-scatter for long vectors, where measurements on a torus favoured them.
#include "colls/colls.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

namespace {

bool always(const Signature&) {
  return true;
}

// Whether the ring beats recursive halving (allreduce, reduce_scatter) for `bytes` in all.
// Measured on the 4x4x4 test torus at 4 GB/s for p = 8 to 200 and 16 KiB to 4 MiB: the ring's
// neighbour-only traffic beats recursive halving, whose partners at distance p/2, p/4 share
// torus links, once each of its p blocks is 4 KiB; at other sizes than powers of two, where
// Rabenseifner's fold moves the whole vector twice more, from 1 KiB. Below, the ring's
// 2 (p - 1) latencies cost more.
bool ring_pays(const Signature& s) {
  return s.bytes / static_cast<uint64_t>(s.size) >= (is_pof2(s.size) ? 4096u : 1024u);
}
// Rabenseifner needs an element (8 bytes: these rules do not read counts) per block of its
// reduce-scatter.
bool long_vector(const Signature& s) {
  return s.bytes > 2048 && s.bytes >= 8 * static_cast<uint64_t>(pof2_floor(s.size));
}

}  // namespace

const DecisionTable& mgen_decisions() {
  static const DecisionTable table = {{
      // Recursive doubling matches dissemination at powers of two; dissemination never needs
      // the extra steps otherwise.
      {"barrier",
       {{"p power of two", [](const Signature& s) { return is_pof2(s.size); }, "recursive_doubling"},
        {"any", always, "dissemination"}}},
      {"bcast",
       {{"bytes < 12288 or p < 8", [](const Signature& s) { return s.bytes < 12288 || s.size < 8; }, "binomial"},
        {"any", always, "scatter_allgather"}}},
      {"reduce",
       {{"bytes > 2048, >= 8 bytes per pof2(p) block", long_vector, "rabenseifner"}, {"any", always, "binomial"}}},
      {"allreduce",
       {{"bytes > 2048, >= 8 bytes per pof2(p) block, blocks >= 4 KiB (1 KiB if p not a power of two)",
         [](const Signature& s) { return long_vector(s) && ring_pays(s); }, "ring"},
        {"bytes > 2048, >= 8 bytes per pof2(p) block", long_vector, "rabenseifner"},
        {"any", always, "recursive_doubling"}}},
      {"gather",
       {{"gatherv", [](const Signature& s) { return s.bytes == kVaried; }, "linear"}, {"any", always, "binomial"}}},
      {"scatter",
       {{"scatterv", [](const Signature& s) { return s.bytes == kVaried; }, "linear"}, {"any", always, "binomial"}}},
      {"allgather",
       {{"p power of two, total < 524288", [](const Signature& s) { return is_pof2(s.size) && s.bytes < 524288; },
         "recursive_doubling"},
        {"total < 81920", [](const Signature& s) { return s.bytes < 81920; }, "bruck"},
        {"any", always, "ring"}}},
      {"alltoall",
       {{"block <= 256, p >= 8", [](const Signature& s) { return s.bytes <= 256 && s.size >= 8; }, "bruck"},
        {"any", always, "pairwise"}}},
      {"reduce_scatter",
       {{"blocks >= 4 KiB (1 KiB if p not a power of two)", ring_pays, "ring"}, {"any", always, "recursive_halving"}}},
      {"scan", {{"any", always, "recursive_doubling"}}},
      {"exscan", {{"any", always, "recursive_doubling"}}},
  }};
  return table;
}

}  // namespace mgen::mpi::colls
