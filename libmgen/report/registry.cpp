#include "colls/colls.hpp"
#include "mgen/mpi/run.hpp"

namespace mgen::mpi {

std::vector<CollectiveAlgorithmInfo> collective_algorithms() {
  std::vector<CollectiveAlgorithmInfo> out;
  auto add = [&out](const char* collective, const auto& table) {
    for (const auto& a : table)
      out.push_back({collective, a.name, a.description});
  };
  add("barrier", colls::barrier_algorithms());
  add("bcast", colls::bcast_algorithms());
  add("reduce", colls::reduce_algorithms());
  add("allreduce", colls::allreduce_algorithms());
  add("gather", colls::gather_algorithms());
  add("scatter", colls::scatter_algorithms());
  add("allgather", colls::allgather_algorithms());
  add("alltoall", colls::alltoall_algorithms());
  add("reduce_scatter", colls::reduce_scatter_algorithms());
  add("scan", colls::scan_algorithms());
  add("exscan", colls::exscan_algorithms());
  return out;
}

std::vector<CollectiveDecisionInfo> collective_decisions(const std::string& selector) {
  std::vector<CollectiveDecisionInfo> out;
  for (const colls::Decision& d : colls::decisions(selector)) {
    for (const colls::Rule& r : d.rules)
      out.push_back({d.collective, r.when, r.algorithm});
  }
  return out;
}

}  // namespace mgen::mpi
