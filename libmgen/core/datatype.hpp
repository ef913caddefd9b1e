// Predefined datatypes and reduction operations (MPI's, with MGEN handles from mgen.h).
#pragma once

#include <cstdint>
#include <string>

namespace mgen::mpi {

struct TypeInfo {
  const char* name;
  uint32_t size;  // bytes per element
  // What reductions may do with it.
  enum class Kind : uint8_t { kInteger, kFloating, kLogical, kByte, kPair } kind;
};

// Null for an invalid or null handle.
const TypeInfo* type_info(int type);

// Applies `inout[i] = in[i] op inout[i]` for `count` elements. Returns an empty string on
// success, or why the op does not apply to the type (MPI: "invalid op for datatype").
std::string reduce_apply(int op, int type, const void* in, void* inout, uint64_t count);
const char* op_name(int op);
bool op_valid(int op);

}  // namespace mgen::mpi
