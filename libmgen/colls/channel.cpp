#include "colls/channel.hpp"

#include <fmt/format.h>

#include <cstring>

#include "colls/colls.hpp"
#include "core/datatype.hpp"

namespace mgen::mpi::colls {

void Channel::reduce(const void* in, void* inout, uint64_t count, int type, int op) {
  if (in == nullptr || inout == nullptr || count == 0) return;
  const std::string problem = reduce_apply(op, type, in, inout, count);
  if (!problem.empty()) world_.fail("rank " + std::to_string(rank_.id) + ": " + problem);
}

void Channel::truncated(uint32_t q) {
  const Request& r = rank_.requests[q];
  const char* call = rank_.call.name != nullptr ? rank_.call.name : "a collective";
  world_.fail(
      fmt::format("rank {}: {}: a piece of {} bytes from rank {} is longer than the {} bytes this rank's "
                  "arguments leave for it: the members' counts or datatypes do not match",
                  rank_.id, call, r.status.message_bytes, r.status.source, r.capacity));
}

void copy_block(void* to, const void* from, uint64_t bytes) {
  if (to == nullptr || from == nullptr || to == from || bytes == 0) return;
  std::memmove(to, from, bytes);
}

}  // namespace mgen::mpi::colls
