// Predefined datatypes and reduction operations (MPI's). Their numbers are the MGEN facade's
// handles (mgen/mgen.h), which wrappers/mgen/api/handles.cpp checks against these at compile
// time; the core itself sees no C header.
#pragma once

#include <cstdint>
#include <string>

namespace mgen::mpi {

enum PredefinedType : int {
  kTypeNull = 0,
  kTypeChar = 1,
  kTypeSignedChar = 2,
  kTypeUnsignedChar = 3,
  kTypeByte = 4,
  kTypeShort = 5,
  kTypeUnsignedShort = 6,
  kTypeInt = 7,
  kTypeUnsigned = 8,
  kTypeLong = 9,
  kTypeUnsignedLong = 10,
  kTypeLongLong = 11,
  kTypeUnsignedLongLong = 12,
  kTypeFloat = 13,
  kTypeDouble = 14,
  kTypeLongDouble = 15,
  kTypeCBool = 16,
  kTypeInt8T = 17,
  kTypeInt16T = 18,
  kTypeInt32T = 19,
  kTypeInt64T = 20,
  kTypeUint8T = 21,
  kTypeUint16T = 22,
  kTypeUint32T = 23,
  kTypeUint64T = 24,
  kTypeFloatInt = 25,
  kTypeDoubleInt = 26,
  kTypeLongInt = 27,
  kType2int = 28,
  kTypeShortInt = 29,
  kTypeLongDoubleInt = 30,
  // The MPI layer's types beyond the facade's (mgen.h stops at 30): MPI's complex types, Fortran
  // LOGICAL, the pair types as MPI lays them out in a packed buffer (value then index, no padding:
  // MPI_DOUBLE_INT is 12 bytes), Fortran's pairs of reals, and types no reduction applies to.
  kTypeFloatComplex = 31,
  kTypeDoubleComplex = 32,
  kTypeLongDoubleComplex = 33,
  kTypeFortranLogical = 34,
  kTypePackedDoubleInt = 35,
  kTypePackedLongInt = 36,
  kTypePackedShortInt = 37,
  kTypePackedLongDoubleInt = 38,
  kType2Float = 39,
  kType2Double = 40,
  kTypeOpaque1 = 41,   // MPI_PACKED
  kTypeOpaque4 = 42,   // MPI_WCHAR
  kTypeOpaque32 = 43,  // MPI_COMPLEX32 (MPICH defines no reduction on it)
};

enum PredefinedOp : int {
  kOpNull = 0,
  kOpMax = 1,
  kOpMin = 2,
  kOpSum = 3,
  kOpProd = 4,
  kOpLand = 5,
  kOpBand = 6,
  kOpLor = 7,
  kOpBor = 8,
  kOpLxor = 9,
  kOpBxor = 10,
  kOpMinloc = 11,
  kOpMaxloc = 12,
  kOpReplace = 13,
};

struct TypeInfo {
  const char* name;
  uint32_t size;  // bytes per element
  // What reductions may do with it.
  enum class Kind : uint8_t { kInteger, kFloating, kLogical, kByte, kPair, kComplex, kOpaque } kind;
};

// Null for an invalid or null handle.
const TypeInfo* type_info(int type);

// Applies `inout[i] = in[i] op inout[i]` for `count` elements. Returns an empty string on
// success, or why the op does not apply to the type (MPI: "invalid op for datatype").
std::string reduce_apply(int op, int type, const void* in, void* inout, uint64_t count);
// `out[i] = in[i] op with[i]`, the same arithmetic as reduce_apply on a copy of `with` (the same
// bits), without the copy; `out` overlaps neither operand. False, with nothing done, when there
// is no such loop for (op, type): user operations, pair and opaque types, invalid pairs.
bool reduce_apply_to(int op, int type, const void* in, const void* with, void* out, uint64_t count);
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
