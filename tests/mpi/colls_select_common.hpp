// The selection tests' one dispatch: the registry name of the algorithm a selector picks for
// (collective, signature) under a configuration.
#pragma once

#include "colls/colls.hpp"
#include "mgen/mpi/run.hpp"

namespace mgen::mpi::colls::test {

inline const char* selected(Collective coll, const Signature& s, const CollectiveConfig& c) {
  switch (coll) {
    case Collective::kBarrier:
      return select_barrier(s, c).name;
    case Collective::kBcast:
      return select_bcast(s, c).name;
    case Collective::kReduce:
      return select_reduce(s, c).name;
    case Collective::kAllreduce:
      return select_allreduce(s, c).name;
    case Collective::kGather:
      return select_gather(s, c).name;
    case Collective::kScatter:
      return select_scatter(s, c).name;
    case Collective::kAllgather:
      return select_allgather(s, c).name;
    case Collective::kAlltoall:
      return select_alltoall(s, c).name;
    case Collective::kReduceScatter:
      return select_reduce_scatter(s, c).name;
    case Collective::kScan:
      return select_scan(s, c).name;
    case Collective::kExscan:
      return select_exscan(s, c).name;
    default:
      return "?";
  }
}

}  // namespace mgen::mpi::colls::test
