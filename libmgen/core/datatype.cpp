#include "core/datatype.hpp"

#include <fmt/format.h>

#include <atomic>
#include <complex>
#include <cstddef>
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

template <class T>
inline constexpr bool is_complex_v = false;
template <class T>
inline constexpr bool is_complex_v<std::complex<T>> = true;

// Which predefined operations apply to a type: MPI-4.0 §6.9.2's groups as MPICH 4.0 applies them
// (none at all on MPI_WCHAR, MPI_PACKED or MPI_COMPLEX32). On floating point MPICH 4.0.2 computes
// MPI_LXOR (its extension: (a != 0) != (b != 0), in the type) but aborts in MPI_LAND and MPI_LOR
// after its argument check let them through: LXOR is done as MPICH does, LAND and LOR are refused.
// MPI_REPLACE (accumulate) applies to every type.
enum Ops : uint16_t {
  kCompare = 1 << 0,   // MAX MIN
  kArith = 1 << 1,     // SUM PROD
  kLogical = 1 << 2,   // LAND LOR
  kBitwise = 1 << 3,   // BAND BOR BXOR
  kLocation = 1 << 4,  // MINLOC MAXLOC
  kXor = 1 << 5,       // LXOR
};
constexpr uint16_t kIntegerOps = kCompare | kArith | kLogical | kXor | kBitwise;
constexpr uint16_t kFloatingOps = kCompare | kArith | kXor;

uint16_t op_bit(int op) {
  switch (op) {
    case kOpMax:
    case kOpMin:
      return kCompare;
    case kOpSum:
    case kOpProd:
      return kArith;
    case kOpLand:
    case kOpLor:
      return kLogical;
    case kOpLxor:
      return kXor;
    case kOpBand:
    case kOpBor:
    case kOpBxor:
      return kBitwise;
    case kOpMinloc:
    case kOpMaxloc:
      return kLocation;
    default:
      return 0;
  }
}

// One reduction loop per (type, op): the op is chosen once per call, each loop is a plain
// element-wise loop the compiler vectorises.
using Reducer = void (*)(int op, const void* in, void* inout, uint64_t n);
// out[i] = in[i] op with[i], with `out` another buffer than `with` and `in`.
using ReducerTo = void (*)(int op, const void* in, const void* with, void* out, uint64_t n);

// out[i] = f(in[i], with[i]). The in-place case (with == out) keeps its own loop, so that the
// compiler sees the one array it reads and writes and vectorises it without an overlap check.
template <class T, class F>
inline void each(const T* in, const T* with, T* out, uint64_t n, F f) {
  if (with == out) {
    for (uint64_t i = 0; i < n; ++i)
      out[i] = f(in[i], out[i]);
  } else {
    for (uint64_t i = 0; i < n; ++i)
      out[i] = f(in[i], with[i]);
  }
}

// Integer SUM and PROD wrap around, as the machine's adds and multiplies do (what MPICH's C
// loops give in practice); computed in unsigned arithmetic, at least unsigned int wide, so that
// an overflow is not undefined behaviour (UBSan found `int` sums of random operands overflowing).
template <class T>
using WrapUnsigned = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
template <class T>
T sum(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return static_cast<T>(static_cast<WrapUnsigned<T>>(a) + static_cast<WrapUnsigned<T>>(b));
  } else {
    return static_cast<T>(a + b);
  }
}
template <class T>
T product(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return static_cast<T>(static_cast<WrapUnsigned<T>>(a) * static_cast<WrapUnsigned<T>>(b));
  } else {
    return static_cast<T>(a * b);
  }
}

template <class T>
void reduce_values_to(int op, const void* vin, const void* vwith, void* vout, uint64_t n) {
  const T* in = static_cast<const T*>(vin);
  const T* with = static_cast<const T*>(vwith);
  T* out = static_cast<T*>(vout);
  if constexpr (std::is_same_v<T, bool>) {
    // C's _Bool: only the logical operations reach here.
  } else {
    switch (op) {
      case kOpSum:
        return each(in, with, out, n, [](T a, T b) { return sum(a, b); });
      case kOpProd:
        return each(in, with, out, n, [](T a, T b) { return product(a, b); });
      default:
        break;
    }
  }
  if constexpr (!is_complex_v<T>) {
    switch (op) {
      case kOpMax:
        return each(in, with, out, n, [](T a, T b) { return a > b ? a : b; });
      case kOpMin:
        return each(in, with, out, n, [](T a, T b) { return a < b ? a : b; });
      case kOpLand:
        return each(in, with, out, n, [](T a, T b) { return static_cast<T>(a != T{} && b != T{}); });
      case kOpLor:
        return each(in, with, out, n, [](T a, T b) { return static_cast<T>(a != T{} || b != T{}); });
      case kOpLxor:
        return each(in, with, out, n, [](T a, T b) { return static_cast<T>((a != T{}) != (b != T{})); });
      default:
        break;
    }
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case kOpBand:
        return each(in, with, out, n, [](T a, T b) { return static_cast<T>(a & b); });
      case kOpBor:
        return each(in, with, out, n, [](T a, T b) { return static_cast<T>(a | b); });
      case kOpBxor:
        return each(in, with, out, n, [](T a, T b) { return static_cast<T>(a ^ b); });
      default:
        break;
    }
  }
}

template <class T>
void reduce_values(int op, const void* in, void* io, uint64_t n) {
  reduce_values_to<T>(op, in, io, io, n);
}

// The three-operand loop, except where an element has padding (x86's 10-byte long double in 16
// bytes): a copy brings the operand's padding bytes along, the loop would not.
template <class T>
constexpr ReducerTo reducer_to() {
  if constexpr (std::is_same_v<T, long double> || std::is_same_v<T, std::complex<long double>>) {
    return nullptr;
  } else {
    return &reduce_values_to<T>;
  }
}

// MINLOC / MAXLOC: the extreme value, and on ties the smaller index (MPI's definition).
// Pairs as C structs (the facade's MGEN_DOUBLE_INT, ...).
template <class V>
void reduce_pairs(int op, const void* vin, void* vio, uint64_t n) {
  const auto* in = static_cast<const ValueInt<V>*>(vin);
  auto* io = static_cast<ValueInt<V>*>(vio);
  const bool min = op == kOpMinloc;
  for (uint64_t i = 0; i < n; ++i) {
    const bool better = min ? in[i].v < io[i].v : in[i].v > io[i].v;
    if (better || (in[i].v == io[i].v && in[i].i < io[i].i)) io[i] = in[i];
  }
}

// Pairs packed as MPI sends them: the value, then the index, no padding.
template <class V, class I>
void reduce_packed_pairs(int op, const void* vin, void* vio, uint64_t n) {
  constexpr size_t kStride = sizeof(V) + sizeof(I);
  const auto* in = static_cast<const std::byte*>(vin);
  auto* io = static_cast<std::byte*>(vio);
  const bool min = op == kOpMinloc;
  for (uint64_t e = 0; e < n; ++e, in += kStride, io += kStride) {
    V a, b;
    I ia, ib;
    std::memcpy(&a, in, sizeof(V));
    std::memcpy(&b, io, sizeof(V));
    std::memcpy(&ia, in + sizeof(V), sizeof(I));
    std::memcpy(&ib, io + sizeof(V), sizeof(I));
    const bool better = min ? a < b : a > b;
    if (better || (a == b && ia < ib)) std::memcpy(io, in, kStride);
  }
}

void reduce_nothing(int, const void*, void*, uint64_t) {}

struct TypeEntry {
  TypeInfo info;
  uint16_t ops;
  Reducer reduce;
  ReducerTo reduce_to = nullptr;  // the element-wise types only
};

template <class T>
constexpr TypeEntry integer(const char* name) {
  return {{name, sizeof(T), K::kInteger}, kIntegerOps, &reduce_values<T>, reducer_to<T>()};
}
template <class T>
constexpr TypeEntry floating(const char* name) {
  return {{name, sizeof(T), K::kFloating}, kFloatingOps, &reduce_values<T>, reducer_to<T>()};
}
template <class T>
constexpr TypeEntry complex_type(const char* name) {
  return {{name, sizeof(T), K::kComplex}, kArith, &reduce_values<T>, reducer_to<T>()};
}
template <class V>
constexpr TypeEntry pair(const char* name) {
  return {{name, sizeof(ValueInt<V>), K::kPair}, kLocation, &reduce_pairs<V>};
}
template <class V, class I>
constexpr TypeEntry packed_pair(const char* name) {
  return {{name, sizeof(V) + sizeof(I), K::kPair}, kLocation, &reduce_packed_pairs<V, I>};
}
constexpr TypeEntry opaque(const char* name, uint32_t size) {
  return {{name, size, K::kOpaque}, 0, &reduce_nothing};
}

// Indexed by handle (mgen.h numbers them densely from 1; the MPI layer's own from 31).
const TypeEntry kTypes[] = {
    opaque("MGEN_DATATYPE_NULL", 0),
    integer<char>("MGEN_CHAR"),
    integer<signed char>("MGEN_SIGNED_CHAR"),
    integer<unsigned char>("MGEN_UNSIGNED_CHAR"),
    {{"MGEN_BYTE", 1, K::kByte}, kBitwise, &reduce_values<unsigned char>},
    integer<short>("MGEN_SHORT"),
    integer<unsigned short>("MGEN_UNSIGNED_SHORT"),
    integer<int>("MGEN_INT"),
    integer<unsigned>("MGEN_UNSIGNED"),
    integer<long>("MGEN_LONG"),
    integer<unsigned long>("MGEN_UNSIGNED_LONG"),
    integer<long long>("MGEN_LONG_LONG"),
    integer<unsigned long long>("MGEN_UNSIGNED_LONG_LONG"),
    floating<float>("MGEN_FLOAT"),
    floating<double>("MGEN_DOUBLE"),
    floating<long double>("MGEN_LONG_DOUBLE"),
    {{"MGEN_C_BOOL", sizeof(bool), K::kLogical}, kLogical | kXor, &reduce_values<bool>},
    integer<int8_t>("MGEN_INT8_T"),
    integer<int16_t>("MGEN_INT16_T"),
    integer<int32_t>("MGEN_INT32_T"),
    integer<int64_t>("MGEN_INT64_T"),
    integer<uint8_t>("MGEN_UINT8_T"),
    integer<uint16_t>("MGEN_UINT16_T"),
    integer<uint32_t>("MGEN_UINT32_T"),
    integer<uint64_t>("MGEN_UINT64_T"),
    pair<float>("MGEN_FLOAT_INT"),
    pair<double>("MGEN_DOUBLE_INT"),
    pair<long>("MGEN_LONG_INT"),
    pair<int>("MGEN_2INT"),
    pair<short>("MGEN_SHORT_INT"),
    pair<long double>("MGEN_LONG_DOUBLE_INT"),
    complex_type<std::complex<float>>("MPI_C_FLOAT_COMPLEX"),
    complex_type<std::complex<double>>("MPI_C_DOUBLE_COMPLEX"),
    complex_type<std::complex<long double>>("MPI_C_LONG_DOUBLE_COMPLEX"),
    {{"MPI_LOGICAL", 4, K::kLogical}, kLogical | kXor, &reduce_values<int32_t>},
    packed_pair<double, int>("MPI_DOUBLE_INT"),
    packed_pair<long, int>("MPI_LONG_INT"),
    packed_pair<short, int>("MPI_SHORT_INT"),
    packed_pair<long double, int>("MPI_LONG_DOUBLE_INT"),
    packed_pair<float, float>("MPI_2REAL"),
    packed_pair<double, double>("MPI_2DOUBLE_PRECISION"),
    opaque("MPI_PACKED", 1),
    opaque("MPI_WCHAR", 4),
    opaque("MPI_COMPLEX32", 32),
};
constexpr int kTypeCount = static_cast<int>(sizeof(kTypes) / sizeof(kTypes[0]));
static_assert(kTypeCount == kTypeOpaque32 + 1);

const char* const kOpNames[] = {"MGEN_OP_NULL", "MGEN_MAX",    "MGEN_MIN",    "MGEN_SUM",    "MGEN_PROD",
                                "MGEN_LAND",    "MGEN_BAND",   "MGEN_LOR",    "MGEN_BOR",    "MGEN_LXOR",
                                "MGEN_BXOR",    "MGEN_MINLOC", "MGEN_MAXLOC", "MGEN_REPLACE"};

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
  return &kTypes[type].info;
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
  if (type <= 0 || type >= kTypeCount) return fmt::format("invalid datatype {}", type);
  const TypeEntry& t = kTypes[type];
  if (op == kOpReplace) {
    std::memmove(io, in, n * t.info.size);
    return {};
  }
  const uint16_t bit = op_bit(op);
  if (bit == 0 || (t.ops & bit) == 0) return fmt::format("{} is not defined for {}", op_name(op), t.info.name);
  t.reduce(op, in, io, n);
  return {};
}

bool reduce_apply_to(int op, int type, const void* in, const void* with, void* out, uint64_t n) {
  if (op >= kExtraBase || type >= kExtraBase || type <= 0 || type >= kTypeCount || op == kOpReplace) return false;
  const TypeEntry& t = kTypes[type];
  const uint16_t bit = op_bit(op);
  if (t.reduce_to == nullptr || bit == 0 || (t.ops & bit) == 0) return false;
  t.reduce_to(op, in, with, out, n);
  return true;
}

}  // namespace mgen::mpi
