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

// Operations and types beyond the predefined ones (numbered from kExtraBase): the MPI layer's
// user-defined operations (MPI_Op_create) and the datatypes they are applied to. The MPI layer
// installs these; they run on the calling rank's fiber.
inline constexpr int kExtraBase = 1000;
struct ExtraReductions {
  std::string (*reduce)(int op, int type, const void* in, void* inout, uint64_t count) = nullptr;
  const TypeInfo* (*type_info)(int type) = nullptr;
};
void set_extra_reductions(const ExtraReductions& extra);

}  // namespace mgen::mpi
