#include "core/datatype.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstring>
#include <type_traits>

#include "mgen/mgen.h"

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
    case MGEN_MAX:
      for (uint64_t i = 0; i < n; ++i)
        io[i] = in[i] > io[i] ? in[i] : io[i];
      return true;
    case MGEN_MIN:
      for (uint64_t i = 0; i < n; ++i)
        io[i] = in[i] < io[i] ? in[i] : io[i];
      return true;
    case MGEN_SUM:
      for (uint64_t i = 0; i < n; ++i)
        io[i] = static_cast<T>(in[i] + io[i]);
      return true;
    case MGEN_PROD:
      for (uint64_t i = 0; i < n; ++i)
        io[i] = static_cast<T>(in[i] * io[i]);
      return true;
    case MGEN_LAND:
      for (uint64_t i = 0; i < n; ++i)
        io[i] = static_cast<T>(in[i] && io[i]);
      return true;
    case MGEN_LOR:
      for (uint64_t i = 0; i < n; ++i)
        io[i] = static_cast<T>(in[i] || io[i]);
      return true;
    case MGEN_LXOR:
      for (uint64_t i = 0; i < n; ++i)
        io[i] = static_cast<T>(!in[i] != !io[i]);
      return true;
    case MGEN_REPLACE:
      for (uint64_t i = 0; i < n; ++i)
        io[i] = in[i];
      return true;
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case MGEN_BAND:
        for (uint64_t i = 0; i < n; ++i)
          io[i] = static_cast<T>(in[i] & io[i]);
        return true;
      case MGEN_BOR:
        for (uint64_t i = 0; i < n; ++i)
          io[i] = static_cast<T>(in[i] | io[i]);
        return true;
      case MGEN_BXOR:
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
  if (op != MGEN_MINLOC && op != MGEN_MAXLOC) return op == MGEN_REPLACE && (std::memmove(io, in, n * sizeof *io), true);
  for (uint64_t i = 0; i < n; ++i) {
    const bool better = op == MGEN_MINLOC ? in[i].v < io[i].v : in[i].v > io[i].v;
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
  return op >= MGEN_MAX && op <= MGEN_REPLACE;
}

const char* op_name(int op) {
  return op >= 0 && op <= MGEN_REPLACE ? kOpNames[op] : "an invalid op";
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
  const bool logical_or_bitwise = op >= MGEN_LAND && op <= MGEN_BXOR;
  if (info && info->kind == K::kFloating && logical_or_bitwise) {
    return fmt::format("{} is not defined for {}", op_name(op), info->name);
  }
  switch (type) {
    case MGEN_CHAR:
      ok = arith<char>(op, in, io, n);
      break;
    case MGEN_SIGNED_CHAR:
    case MGEN_INT8_T:
      ok = arith<signed char>(op, in, io, n);
      break;
    case MGEN_UNSIGNED_CHAR:
    case MGEN_UINT8_T:
      ok = arith<unsigned char>(op, in, io, n);
      break;
    case MGEN_BYTE:
      ok = (op == MGEN_BAND || op == MGEN_BOR || op == MGEN_BXOR || op == MGEN_REPLACE) &&
           arith<unsigned char>(op, in, io, n);
      break;
    case MGEN_SHORT:
    case MGEN_INT16_T:
      ok = arith<short>(op, in, io, n);
      break;
    case MGEN_UNSIGNED_SHORT:
    case MGEN_UINT16_T:
      ok = arith<unsigned short>(op, in, io, n);
      break;
    case MGEN_INT:
    case MGEN_INT32_T:
      ok = arith<int>(op, in, io, n);
      break;
    case MGEN_UNSIGNED:
    case MGEN_UINT32_T:
      ok = arith<unsigned>(op, in, io, n);
      break;
    case MGEN_LONG:
      ok = arith<long>(op, in, io, n);
      break;
    case MGEN_UNSIGNED_LONG:
      ok = arith<unsigned long>(op, in, io, n);
      break;
    case MGEN_LONG_LONG:
    case MGEN_INT64_T:
      ok = arith<long long>(op, in, io, n);
      break;
    case MGEN_UNSIGNED_LONG_LONG:
    case MGEN_UINT64_T:
      ok = arith<unsigned long long>(op, in, io, n);
      break;
    case MGEN_FLOAT:
      ok = arith<float>(op, in, io, n);
      break;
    case MGEN_DOUBLE:
      ok = arith<double>(op, in, io, n);
      break;
    case MGEN_LONG_DOUBLE:
      ok = arith<long double>(op, in, io, n);
      break;
    case MGEN_C_BOOL:
      ok = (op == MGEN_LAND || op == MGEN_LOR || op == MGEN_LXOR || op == MGEN_REPLACE) && arith<bool>(op, in, io, n);
      break;
    case MGEN_FLOAT_INT:
      ok = loc<float>(op, in, io, n);
      break;
    case MGEN_DOUBLE_INT:
      ok = loc<double>(op, in, io, n);
      break;
    case MGEN_LONG_INT:
      ok = loc<long>(op, in, io, n);
      break;
    case MGEN_2INT:
      ok = loc<int>(op, in, io, n);
      break;
    case MGEN_SHORT_INT:
      ok = loc<short>(op, in, io, n);
      break;
    case MGEN_LONG_DOUBLE_INT:
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
