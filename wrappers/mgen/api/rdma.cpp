// RDMA with NSIM-ACE's signatures (§3.2). Ranks are world ranks; sizes only (the ACP basic
// layer's addresses are not modelled). A put completes at the origin when the target NIC's
// control packet returns; MGEN_rdma_poll consumes one completed put of a tag at the target.
#include "api/facade.hpp"

using namespace mgen::mpi;
using mgen::mpi::api::Scope;

namespace {

void check_peer(Scope& s, int rank, const char* what) {
  const int n = static_cast<int>(s.world().size());
  if (rank < 0 || rank >= n) s.fail(MGEN_ERR_RANK, fmt::format("{} {} is not a rank (0 to {})", what, rank, n - 1));
}

}  // namespace

extern "C" {

MGEN_acp_handle MGEN_rdma_put(int dest_rank, int data_size, int tag) {
  Scope s("MGEN_rdma_put", dest_rank, tag);
  if (!s) return api::outside("MGEN_rdma_put"), 0;
  check_peer(s, dest_rank, "destination");
  if (data_size < 0) s.fail(MGEN_ERR_COUNT, fmt::format("negative data size {}", data_size));
  const uint32_t q = s.world().post_rdma(s.rank(), ReqKind::kPut, static_cast<RankId>(dest_rank),
                                         static_cast<uint64_t>(data_size), tag);
  return static_cast<MGEN_acp_handle>(q + 1);
}

MGEN_acp_handle MGEN_rdma_get(int src_rank, int data_size, int tag) {
  Scope s("MGEN_rdma_get", src_rank, tag);
  if (!s) return api::outside("MGEN_rdma_get"), 0;
  check_peer(s, src_rank, "source");
  if (data_size < 0) s.fail(MGEN_ERR_COUNT, fmt::format("negative data size {}", data_size));
  const uint32_t q = s.world().post_rdma(s.rank(), ReqKind::kGet, static_cast<RankId>(src_rank),
                                         static_cast<uint64_t>(data_size), tag);
  return static_cast<MGEN_acp_handle>(q + 1);
}

void MGEN_rdma_poll(int tag) {
  Scope s("MGEN_rdma_poll", static_cast<int>(kNone), tag);
  if (!s) {
    api::outside("MGEN_rdma_poll");
    return;
  }
  s.world().rdma_poll(s.rank(), tag);
}

void MGEN_acp_complete(MGEN_acp_handle handle) {
  Scope s("MGEN_acp_complete");
  if (!s) {
    api::outside("MGEN_acp_complete");
    return;
  }
  const uint32_t q = s.request(handle);
  if (q == kNone) return;
  const ReqKind kind = s.rank().requests[q].kind;
  if (kind != ReqKind::kPut && kind != ReqKind::kGet)
    s.fail(MGEN_ERR_REQUEST, fmt::format("handle {} is not an RDMA handle", handle));
  s.world().wait_all(s.rank(), &q, 1);
  s.rank().free_request_slot(q);
}

}  // extern "C"
