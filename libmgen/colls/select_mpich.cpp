// MPICH 4.0.2's default algorithm choices for the blocking collectives on intracommunicators.
//
// In MPICH 4.0 "auto" (every MPIR_CVAR_<COLL>_INTRA_ALGORITHM's default) does not consult the
// old *_SHORT_MSG_SIZE CVARs: it walks a decision tree compiled in from
// maint/tuning/coll/mpir/generic.json (src/mpi/coll/src/coll_impl.c loads it unless
// MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE names another), evaluated by src/mpi/coll/src/csel.c.
// The rows below are that tree's flat branch ("comm_hierarchy=any"), in its order; the sizes:
//   avg_msg_size    count x type size of the call (alltoall: one block),
//   total_msg_size  allgather(v), reduce_scatter: the whole result,
//   count<pow2      count < comm->coll.pof2, the largest power of two <= p,
//   is_op_built_in  a predefined operation (all of MPICH's predefined reductions commute).
// The communicator conditions ("comm_size<8", "comm_size=pow2") are settled once per
// communicator, when csel.c's prune_tree() cuts the tree down for it (strict "<" there).
//
// Not reproduced: the node-aware ("comm_hierarchy=parent") branches and CH4's compositions that
// pick them (intranode + internode steps; mgen's ranks are flat), the in-place alltoall's
// sendrecv_replace exchange (pairwise here), and for operations that do not commute the MPI
// layer's own order-preserving paths win (reduce-scatter as reduce + scatterv; see
// wrappers/mpi/coll_args.hpp).
#include "colls/colls.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

namespace {

bool always(const Signature&) {
  return true;
}
uint64_t pof2(const Signature& s) {
  return static_cast<uint64_t>(pof2_floor(s.size));
}

}  // namespace

const DecisionTable& mpich_decisions() {
  static const DecisionTable table = {{
      // generic.json "collective=barrier": dissemination (smp only on hierarchical comms).
      {"barrier", {{"any", always, "dissemination"}}},
      // generic.json "collective=bcast"; MPIR_CVAR_BCAST_MIN_PROCS = 8, BCAST_SHORT_MSG_SIZE =
      // 12288, BCAST_LONG_MSG_SIZE = 524288 are the same numbers.
      {"bcast",
       {{"p < 8", [](const Signature& s) { return s.size < 8; }, "binomial"},
        {"p power of two, bytes <= 12288", [](const Signature& s) { return is_pof2(s.size) && s.bytes <= 12288; },
         "binomial"},
        {"p power of two, bytes <= 524288", [](const Signature& s) { return is_pof2(s.size) && s.bytes <= 524288; },
         "scatter_rd_allgather"},
        {"p power of two", [](const Signature& s) { return is_pof2(s.size); }, "scatter_allgather"},
        {"bytes <= 12288", [](const Signature& s) { return s.bytes <= 12288; }, "binomial"},
        {"any", always, "scatter_allgather"}}},
      // generic.json "collective=reduce" (MPIR_CVAR_REDUCE_SHORT_MSG_SIZE = 2048).
      {"reduce",
       {{"bytes <= 2048", [](const Signature& s) { return s.bytes <= 2048; }, "binomial"},
        {"user-defined op", [](const Signature& s) { return !s.builtin_op; }, "binomial"},
        {"count < pof2(p)", [](const Signature& s) { return s.count < pof2(s); }, "binomial"},
        {"any", always, "rabenseifner"}}},
      // generic.json "collective=allreduce": recursive doubling up to 8 bytes only (the JSON's
      // threshold, not MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE = 2048, which only the non-blocking
      // and group paths read), Rabenseifner from one element per pof2 block on.
      {"allreduce",
       {{"bytes <= 8", [](const Signature& s) { return s.bytes <= 8; }, "recursive_doubling"},
        {"user-defined op", [](const Signature& s) { return !s.builtin_op; }, "recursive_doubling"},
        {"count < pof2(p)", [](const Signature& s) { return s.count < pof2(s); }, "recursive_doubling"},
        {"any", always, "rabenseifner"}}},
      // generic.json "collective=gather" / "gatherv": binomial; the v form is linear.
      {"gather",
       {{"gatherv", [](const Signature& s) { return s.bytes == kVaried; }, "linear"}, {"any", always, "binomial"}}},
      {"scatter",
       {{"scatterv", [](const Signature& s) { return s.bytes == kVaried; }, "linear"}, {"any", always, "binomial"}}},
      // generic.json "collective=allgather" and "allgatherv" (the same tree) on the total:
      // MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE = 524288, ALLGATHER_SHORT_MSG_SIZE = 81920.
      {"allgather",
       {{"p power of two, total < 524288", [](const Signature& s) { return is_pof2(s.size) && s.bytes < 524288; },
         "recursive_doubling"},
        {"p power of two", [](const Signature& s) { return is_pof2(s.size); }, "ring"},
        {"total < 81920", [](const Signature& s) { return s.bytes < 81920; }, "bruck"},
        {"any", always, "ring"}}},
      // generic.json "collective=alltoall" and "alltoallv": MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE =
      // 256, ALLTOALL_MEDIUM_MSG_SIZE = 32768 on one block; alltoallv is always scattered.
      {"alltoall",
       {{"in place", [](const Signature& s) { return s.in_place; }, "pairwise"},
        {"alltoallv", [](const Signature& s) { return s.bytes == kVaried; }, "scattered"},
        {"p < 8, block <= 32768", [](const Signature& s) { return s.size < 8 && s.bytes <= 32768; }, "scattered"},
        {"p < 8", [](const Signature& s) { return s.size < 8; }, "pairwise"},
        {"block <= 256", [](const Signature& s) { return s.bytes <= 256; }, "bruck"},
        {"block <= 32768", [](const Signature& s) { return s.bytes <= 32768; }, "scattered"},
        {"any", always, "pairwise"}}},
      // generic.json "collective=reduce_scatter" and "reduce_scatter_block", commutative
      // branch (MPIR_CVAR_REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE = 524288).
      {"reduce_scatter",
       {{"total < 524288", [](const Signature& s) { return s.bytes < 524288; }, "recursive_halving"},
        {"any", always, "pairwise"}}},
      // generic.json "collective=scan" (not node-consecutive) and "exscan".
      {"scan", {{"any", always, "recursive_doubling"}}},
      {"exscan", {{"any", always, "recursive_doubling"}}},
  }};
  return table;
}

}  // namespace mgen::mpi::colls
