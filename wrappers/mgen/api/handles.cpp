// The MGEN facade's handles of predefined datatypes and operations are the core's numbers
// (libmgen/core/datatype.hpp): checked here, where both are visible.
#include "core/datatype.hpp"
#include "mgen/mgen.h"

namespace mgen::mpi {

static_assert(MGEN_DATATYPE_NULL == kTypeNull);
static_assert(MGEN_CHAR == kTypeChar);
static_assert(MGEN_SIGNED_CHAR == kTypeSignedChar);
static_assert(MGEN_UNSIGNED_CHAR == kTypeUnsignedChar);
static_assert(MGEN_BYTE == kTypeByte);
static_assert(MGEN_SHORT == kTypeShort);
static_assert(MGEN_UNSIGNED_SHORT == kTypeUnsignedShort);
static_assert(MGEN_INT == kTypeInt);
static_assert(MGEN_UNSIGNED == kTypeUnsigned);
static_assert(MGEN_LONG == kTypeLong);
static_assert(MGEN_UNSIGNED_LONG == kTypeUnsignedLong);
static_assert(MGEN_LONG_LONG == kTypeLongLong);
static_assert(MGEN_UNSIGNED_LONG_LONG == kTypeUnsignedLongLong);
static_assert(MGEN_FLOAT == kTypeFloat);
static_assert(MGEN_DOUBLE == kTypeDouble);
static_assert(MGEN_LONG_DOUBLE == kTypeLongDouble);
static_assert(MGEN_C_BOOL == kTypeCBool);
static_assert(MGEN_INT8_T == kTypeInt8T);
static_assert(MGEN_INT16_T == kTypeInt16T);
static_assert(MGEN_INT32_T == kTypeInt32T);
static_assert(MGEN_INT64_T == kTypeInt64T);
static_assert(MGEN_UINT8_T == kTypeUint8T);
static_assert(MGEN_UINT16_T == kTypeUint16T);
static_assert(MGEN_UINT32_T == kTypeUint32T);
static_assert(MGEN_UINT64_T == kTypeUint64T);
static_assert(MGEN_FLOAT_INT == kTypeFloatInt);
static_assert(MGEN_DOUBLE_INT == kTypeDoubleInt);
static_assert(MGEN_LONG_INT == kTypeLongInt);
static_assert(MGEN_2INT == kType2int);
static_assert(MGEN_SHORT_INT == kTypeShortInt);
static_assert(MGEN_LONG_DOUBLE_INT == kTypeLongDoubleInt);
static_assert(MGEN_OP_NULL == kOpNull);
static_assert(MGEN_MAX == kOpMax);
static_assert(MGEN_MIN == kOpMin);
static_assert(MGEN_SUM == kOpSum);
static_assert(MGEN_PROD == kOpProd);
static_assert(MGEN_LAND == kOpLand);
static_assert(MGEN_BAND == kOpBand);
static_assert(MGEN_LOR == kOpLor);
static_assert(MGEN_BOR == kOpBor);
static_assert(MGEN_LXOR == kOpLxor);
static_assert(MGEN_BXOR == kOpBxor);
static_assert(MGEN_MINLOC == kOpMinloc);
static_assert(MGEN_MAXLOC == kOpMaxloc);
static_assert(MGEN_REPLACE == kOpReplace);

}  // namespace mgen::mpi
