#include "core/datatype.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstring>
#include <type_traits>

namespace mgen::mpi {
namespace {

using K = TypeInfo::Kind;

template <class V>
struct ValueInt {
  V v;
  int i;
};

// Indexed by handle (mgen.h numbers them densely from 1).
const TypeInfo kTypes[] = {
    {"MGEN_DATATYPE_NULL", 0, K::kByte},
    {"MGEN_CHAR", sizeof(char), K::kInteger},
    {"MGEN_SIGNED_CHAR", sizeof(signed char), K::kInteger},
    {"MGEN_UNSIGNED_CHAR", sizeof(unsigned char), K::kInteger},
    {"MGEN_BYTE", 1, K::kByte},
    {"MGEN_SHORT", sizeof(short), K::kInteger},
    {"MGEN_UNSIGNED_SHORT", sizeof(unsigned short), K::kInteger},
    {"MGEN_INT", sizeof(int), K::kInteger},
    {"MGEN_UNSIGNED", sizeof(unsigned), K::kInteger},
    {"MGEN_LONG", sizeof(long), K::kInteger},
    {"MGEN_UNSIGNED_LONG", sizeof(unsigned long), K::kInteger},
    {"MGEN_LONG_LONG", sizeof(long long), K::kInteger},
    {"MGEN_UNSIGNED_LONG_LONG", sizeof(unsigned long long), K::kInteger},
    {"MGEN_FLOAT", sizeof(float), K::kFloating},
    {"MGEN_DOUBLE", sizeof(double), K::kFloating},
    {"MGEN_LONG_DOUBLE", sizeof(long double), K::kFloating},
    {"MGEN_C_BOOL", sizeof(bool), K::kLogical},
    {"MGEN_INT8_T", 1, K::kInteger},
    {"MGEN_INT16_T", 2, K::kInteger},
    {"MGEN_INT32_T", 4, K::kInteger},
    {"MGEN_INT64_T", 8, K::kInteger},
    {"MGEN_UINT8_T", 1, K::kInteger},
    {"MGEN_UINT16_T", 2, K::kInteger},
    {"MGEN_UINT32_T", 4, K::kInteger},
    {"MGEN_UINT64_T", 8, K::kInteger},
    {"MGEN_FLOAT_INT", sizeof(ValueInt<float>), K::kPair},
    {"MGEN_DOUBLE_INT", sizeof(ValueInt<double>), K::kPair},
    {"MGEN_LONG_INT", sizeof(ValueInt<long>), K::kPair},
    {"MGEN_2INT", sizeof(ValueInt<int>), K::kPair},
    {"MGEN_SHORT_INT", sizeof(ValueInt<short>), K::kPair},
    {"MGEN_LONG_DOUBLE_INT", sizeof(ValueInt<long double>), K::kPair},
};
constexpr int kTypeCount = static_cast<int>(sizeof(kTypes) / sizeof(kTypes[0]));

const char* const kOpNames[] = {"MGEN_OP_NULL", "MGEN_MAX",    "MGEN_MIN",    "MGEN_SUM",    "MGEN_PROD",
                                "MGEN_LAND",    "MGEN_BAND",   "MGEN_LOR",    "MGEN_BOR",    "MGEN_LXOR",
                                "MGEN_BXOR",    "MGEN_MINLOC", "MGEN_MAXLOC", "MGEN_REPLACE"};

template <class T>
bool apply_arith(int op, const T* in, T* io, uint64_t n) {
  switch (op) {
    case kOpMax:
      for (uint64_t i = 0; i < n; ++i)
        io[i] = in[i] > io[i] ? in[i] : io[i];
      return true;
    case kOpMin:
      for (uint64_t i = 0; i < n; ++i)
        io[i] = in[i] < io[i] ? in[i] : io[i];
      return true;
    case kOpSum:
      for (uint64_t i = 0; i < n; ++i)
        io[i] = static_cast<T>(in[i] + io[i]);
      return true;
    case kOpProd:
      for (uint64_t i = 0; i < n; ++i)
        io[i] = static_cast<T>(in[i] * io[i]);
      return true;
    case kOpLand:
      for (uint64_t i = 0; i < n; ++i)
        io[i] = static_cast<T>(in[i] && io[i]);
      return true;
    case kOpLor:
      for (uint64_t i = 0; i < n; ++i)
        io[i] = static_cast<T>(in[i] || io[i]);
      return true;
    case kOpLxor:
      for (uint64_t i = 0; i < n; ++i)
        io[i] = static_cast<T>(!in[i] != !io[i]);
      return true;
    case kOpReplace:
      for (uint64_t i = 0; i < n; ++i)
        io[i] = in[i];
      return true;
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case kOpBand:
        for (uint64_t i = 0; i < n; ++i)
          io[i] = static_cast<T>(in[i] & io[i]);
        return true;
      case kOpBor:
        for (uint64_t i = 0; i < n; ++i)
          io[i] = static_cast<T>(in[i] | io[i]);
        return true;
      case kOpBxor:
        for (uint64_t i = 0; i < n; ++i)
          io[i] = static_cast<T>(in[i] ^ io[i]);
        return true;
      default:
        break;
    }
  }
  return false;
}

// MINLOC / MAXLOC: the extreme value, and on ties the smaller index (MPI's definition).
template <class V>
bool apply_loc(int op, const ValueInt<V>* in, ValueInt<V>* io, uint64_t n) {
  if (op != kOpMinloc && op != kOpMaxloc) return op == kOpReplace && (std::memmove(io, in, n * sizeof *io), true);
  for (uint64_t i = 0; i < n; ++i) {
    const bool better = op == kOpMinloc ? in[i].v < io[i].v : in[i].v > io[i].v;
    if (better || (in[i].v == io[i].v && in[i].i < io[i].i)) io[i] = in[i];
  }
  return true;
}

template <class T>
bool arith(int op, const void* in, void* io, uint64_t n) {
  return apply_arith<T>(op, static_cast<const T*>(in), static_cast<T*>(io), n);
}
template <class V>
bool loc(int op, const void* in, void* io, uint64_t n) {
  return apply_loc<V>(op, static_cast<const ValueInt<V>*>(in), static_cast<ValueInt<V>*>(io), n);
}

}  // namespace

namespace {
// The MPI layer installs the same two functions from every rank of every run, possibly from two
// simulations on two threads at once: atomics make that harmless.
std::atomic<std::string (*)(int, int, const void*, void*, uint64_t)> g_extra_reduce{nullptr};
std::atomic<const TypeInfo* (*)(int)> g_extra_type_info{nullptr};
}  // namespace

void set_extra_reductions(const ExtraReductions& extra) {
  g_extra_reduce.store(extra.reduce, std::memory_order_relaxed);
  g_extra_type_info.store(extra.type_info, std::memory_order_relaxed);
}

const TypeInfo* type_info(int type) {
  if (type >= kExtraBase) {
    auto* info = g_extra_type_info.load(std::memory_order_relaxed);
    return info ? info(type) : nullptr;
  }
  if (type <= 0 || type >= kTypeCount) return nullptr;
  return &kTypes[type];
}

bool op_valid(int op) {
  if (op >= kExtraBase) return g_extra_reduce.load(std::memory_order_relaxed) != nullptr;
  return op >= kOpMax && op <= kOpReplace;
}

const char* op_name(int op) {
  return op >= 0 && op <= kOpReplace ? kOpNames[op] : "an invalid op";
}

std::string reduce_apply(int op, int type, const void* in, void* io, uint64_t n) {
  if (op >= kExtraBase || type >= kExtraBase) {
    auto* reduce = g_extra_reduce.load(std::memory_order_relaxed);
    if (reduce == nullptr) return "no reduction for this operation and type";
    return reduce(op, type, in, io, n);
  }
  bool ok = false;
  const TypeInfo* info = type_info(type);
  // MPI defines the logical and bitwise ops on integers only, not on floating point.
  const bool logical_or_bitwise = op >= kOpLand && op <= kOpBxor;
  if (info && info->kind == K::kFloating && logical_or_bitwise) {
    return fmt::format("{} is not defined for {}", op_name(op), info->name);
  }
  switch (type) {
    case kTypeChar:
      ok = arith<char>(op, in, io, n);
      break;
    case kTypeSignedChar:
    case kTypeInt8T:
      ok = arith<signed char>(op, in, io, n);
      break;
    case kTypeUnsignedChar:
    case kTypeUint8T:
      ok = arith<unsigned char>(op, in, io, n);
      break;
    case kTypeByte:
      ok = (op == kOpBand || op == kOpBor || op == kOpBxor || op == kOpReplace) && arith<unsigned char>(op, in, io, n);
      break;
    case kTypeShort:
    case kTypeInt16T:
      ok = arith<short>(op, in, io, n);
      break;
    case kTypeUnsignedShort:
    case kTypeUint16T:
      ok = arith<unsigned short>(op, in, io, n);
      break;
    case kTypeInt:
    case kTypeInt32T:
      ok = arith<int>(op, in, io, n);
      break;
    case kTypeUnsigned:
    case kTypeUint32T:
      ok = arith<unsigned>(op, in, io, n);
      break;
    case kTypeLong:
      ok = arith<long>(op, in, io, n);
      break;
    case kTypeUnsignedLong:
      ok = arith<unsigned long>(op, in, io, n);
      break;
    case kTypeLongLong:
    case kTypeInt64T:
      ok = arith<long long>(op, in, io, n);
      break;
    case kTypeUnsignedLongLong:
    case kTypeUint64T:
      ok = arith<unsigned long long>(op, in, io, n);
      break;
    case kTypeFloat:
      ok = arith<float>(op, in, io, n);
      break;
    case kTypeDouble:
      ok = arith<double>(op, in, io, n);
      break;
    case kTypeLongDouble:
      ok = arith<long double>(op, in, io, n);
      break;
    case kTypeCBool:
      ok = (op == kOpLand || op == kOpLor || op == kOpLxor || op == kOpReplace) && arith<bool>(op, in, io, n);
      break;
    case kTypeFloatInt:
      ok = loc<float>(op, in, io, n);
      break;
    case kTypeDoubleInt:
      ok = loc<double>(op, in, io, n);
      break;
    case kTypeLongInt:
      ok = loc<long>(op, in, io, n);
      break;
    case kType2int:
      ok = loc<int>(op, in, io, n);
      break;
    case kTypeShortInt:
      ok = loc<short>(op, in, io, n);
      break;
    case kTypeLongDoubleInt:
      ok = loc<long double>(op, in, io, n);
      break;
    default:
      return fmt::format("invalid datatype {}", type);
  }
  if (ok) return {};
  const TypeInfo* t = type_info(type);
  return fmt::format("{} is not defined for {}", op_name(op), t ? t->name : "this datatype");
}

}  // namespace mgen::mpi
