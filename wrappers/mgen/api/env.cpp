// Environment: init, finalize, time, computation, sizes.
#include <cmath>

#include "api/facade.hpp"
#include "core/datatype.hpp"

using namespace mgen::mpi;
using mgen::mpi::api::Scope;

extern "C" {

int MGEN_Init(int*, char***) {
  Scope s("MGEN_Init");
  if (!s) return api::outside("MGEN_Init");
  if (s.rank().initialized) s.fail(MGEN_ERR_OTHER, "called twice");
  s.rank().initialized = true;
  return MGEN_SUCCESS;
}

int MGEN_Finalize(void) {
  Scope s("MGEN_Finalize");
  if (!s) return api::outside("MGEN_Finalize");
  s.rank().finalized = true;
  return MGEN_SUCCESS;
}

int MGEN_Initialized(int* flag) {
  Scope s("MGEN_Initialized");
  if (!s) return api::outside("MGEN_Initialized");
  // The runtime is up for every rank from the start; MGEN_Init is optional.
  *flag = 1;
  return MGEN_SUCCESS;
}

int MGEN_Abort(MGEN_Comm, int errorcode) {
  Scope s("MGEN_Abort");
  if (!s) return api::outside("MGEN_Abort");
  s.world().fail(fmt::format("rank {} called MGEN_Abort with error code {}", s.rank().id, errorcode));
}

double MGEN_Wtime(void) {
  Scope s("MGEN_Wtime");
  if (!s) return 0.0;
  return s.rank().clock.seconds();
}

double MGEN_Wtick(void) {
  return 1e-12;
}

int MGEN_Comp(double seconds) {
  Scope s("MGEN_Comp");
  if (!s) return api::outside("MGEN_Comp");
  if (!(seconds >= 0) || seconds > 1e6)
    s.fail(MGEN_ERR_ARG, fmt::format("computation time {} s is not in [0, 1e6]", seconds));
  s.world().compute(s.rank(), mgen::simcore::Time::ps(std::llround(seconds * 1e12)));
  return MGEN_SUCCESS;
}

int MGEN_Comp_work(double flops, double bytes) {
  Scope s("MGEN_Comp_work");
  if (!s) return api::outside("MGEN_Comp_work");
  if (!(flops >= 0) || !(bytes >= 0) || flops > 1e21 || bytes > 1e21) {
    s.fail(MGEN_ERR_ARG, fmt::format("work of {} flops and {} bytes", flops, bytes));
  }
  const NodeConfig& n = s.world().node_config();
  const double t = std::max(flops / n.flop_rate, bytes / static_cast<double>(n.stream_bandwidth.bytes_per_s()));
  s.world().compute(s.rank(), mgen::simcore::Time::ps(std::llround(t * 1e12)));
  return MGEN_SUCCESS;
}

int MGEN_Type_size(MGEN_Datatype type, int* size) {
  Scope s("MGEN_Type_size");
  if (!s) return api::outside("MGEN_Type_size");
  *size = static_cast<int>(s.type_size(type));
  return MGEN_SUCCESS;
}

int MGEN_Get_count(const MGEN_Status* status, MGEN_Datatype type, int* count) {
  Scope s("MGEN_Get_count");
  if (!s) return api::outside("MGEN_Get_count");
  if (status == nullptr) s.fail(MGEN_ERR_ARG, "null status");
  const uint32_t size = s.type_size(type);
  const long long bytes = status->count_bytes;
  *count = size == 0 ? 0 : (bytes % size != 0 ? MGEN_UNDEFINED : static_cast<int>(bytes / size));
  return MGEN_SUCCESS;
}

}  // extern "C"
