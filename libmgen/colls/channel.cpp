#include "colls/channel.hpp"

#include <cstring>

#include "colls/colls.hpp"
#include "core/datatype.hpp"

namespace mgen::mpi::colls {

void Channel::reduce(const void* in, void* inout, uint64_t count, int type, int op) {
  if (in == nullptr || inout == nullptr || count == 0) return;
  const std::string problem = reduce_apply(op, type, in, inout, count);
  if (!problem.empty()) world_.fail("rank " + std::to_string(rank_.id) + ": " + problem);
}

void copy_block(void* to, const void* from, uint64_t bytes) {
  if (to == nullptr || from == nullptr || to == from || bytes == 0) return;
  std::memmove(to, from, bytes);
}

}  // namespace mgen::mpi::colls
