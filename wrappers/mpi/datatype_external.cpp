// MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size: the "external32" data
// representation (MPI-4.0 §13.5.2): big-endian, IEEE formats, fixed sizes per predefined type
// (a C long is 4 bytes, long double a 16-byte IEEE quad, wchar_t 2 bytes). Data are converted
// element by element along the datatype's typemap.
#include <fmt/format.h>

#include <cstring>

#include "core/datatype_layout.hpp"
#include "mpi/datatype.hpp"

using namespace mgen::mpi::abi;

namespace {

using Typemap = std::vector<std::pair<int64_t, MPI_Datatype>>;

// ---- the typemap, rebuilt from the recorded constructor arguments

void walk(const DType::Member& m, int64_t at, Typemap& out);

// A pair type's members (value, index) at their offsets in the C struct MPICH describes.
bool split_pair(MPI_Datatype t, int64_t at, Typemap& out) {
  struct Pair {
    MPI_Datatype pair, value, index;
    int64_t index_at;
  };
  static const Pair kPairs[] = {
      {MPI_FLOAT_INT, MPI_FLOAT, MPI_INT, 4},
      {MPI_DOUBLE_INT, MPI_DOUBLE, MPI_INT, 8},
      {MPI_LONG_INT, MPI_LONG, MPI_INT, 8},
      {MPI_SHORT_INT, MPI_SHORT, MPI_INT, 4},
      {MPI_2INT, MPI_INT, MPI_INT, 4},
      {MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, MPI_INT, 16},
      {MPI_2INTEGER, MPI_INTEGER, MPI_INTEGER, 4},
      {MPI_2REAL, MPI_REAL, MPI_REAL, 4},
      {MPI_2DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, 8},
  };
  for (const Pair& p : kPairs) {
    if (p.pair == t) {
      out.emplace_back(at, p.value);
      out.emplace_back(at + p.index_at, p.index);
      return true;
    }
  }
  return false;
}

int64_t extent_of(const DType::Member& m) {
  return m.type ? m.type->extent() : dtype_any(m.handle).extent();
}

void walk_runs(const ArraySelection& a, const DType::Member& old, int64_t at, Typemap& out) {
  const int64_t ext = extent_of(old);
  for (const auto& [first, len] : mgen::mpi::array_runs(a.sizes, a.selected, a.c_order))
    for (int64_t j = 0; j < len; ++j)
      walk(old, at + (first + j) * ext, out);
}

void walk_derived(const DType& t, int64_t at, Typemap& out) {
  const auto& n = t.c_ints;
  const auto& a = t.c_addrs;
  const auto& ty = t.c_types;
  auto repeat = [&](const DType::Member& m, int64_t from, int count) {
    const int64_t ext = extent_of(m);
    for (int j = 0; j < count; ++j)
      walk(m, from + j * ext, out);
  };
  switch (t.combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
      walk(ty[0], at, out);
      return;
    case MPI_COMBINER_CONTIGUOUS:
      repeat(ty[0], at, n[0]);
      return;
    case MPI_COMBINER_VECTOR:
      for (int i = 0; i < n[0]; ++i)
        repeat(ty[0], at + static_cast<int64_t>(i) * n[2] * extent_of(ty[0]), n[1]);
      return;
    case MPI_COMBINER_HVECTOR:
      for (int i = 0; i < n[0]; ++i)
        repeat(ty[0], at + i * a[0], n[1]);
      return;
    case MPI_COMBINER_INDEXED:
      for (int i = 0; i < n[0]; ++i)
        repeat(ty[0], at + static_cast<int64_t>(n[1 + n[0] + i]) * extent_of(ty[0]), n[1 + i]);
      return;
    case MPI_COMBINER_HINDEXED:
      for (int i = 0; i < n[0]; ++i)
        repeat(ty[0], at + a[i], n[1 + i]);
      return;
    case MPI_COMBINER_INDEXED_BLOCK:
      for (int i = 0; i < n[0]; ++i)
        repeat(ty[0], at + static_cast<int64_t>(n[2 + i]) * extent_of(ty[0]), n[1]);
      return;
    case MPI_COMBINER_HINDEXED_BLOCK:
      for (int i = 0; i < n[0]; ++i)
        repeat(ty[0], at + a[i], n[1]);
      return;
    case MPI_COMBINER_STRUCT:
      for (int i = 0; i < n[0]; ++i) {
        if (!ty[i].type && (ty[i].handle == MPI_LB || ty[i].handle == MPI_UB)) continue;
        repeat(ty[i], at + a[i], n[1 + i]);
      }
      return;
    case MPI_COMBINER_SUBARRAY: {
      const int d = n[0];
      walk_runs(subarray_selection(d, &n[1], &n[1 + d], &n[1 + 2 * d], n[1 + 3 * d]), ty[0], at, out);
      return;
    }
    case MPI_COMBINER_DARRAY: {
      const int d = n[2];
      walk_runs(darray_selection(n[0], n[1], d, &n[3], &n[3 + d], &n[3 + 2 * d], &n[3 + 3 * d], n[3 + 4 * d]), ty[0],
                at, out);
      return;
    }
    default:
      fail(MPI_ERR_TYPE, fmt::format("no typemap for combiner {}", t.combiner));
  }
}

void walk(const DType::Member& m, int64_t at, Typemap& out) {
  if (m.type) {
    walk_derived(*m.type, at, out);
  } else if (m.handle != MPI_LB && m.handle != MPI_UB && !split_pair(m.handle, at, out)) {
    out.emplace_back(at, m.handle);
  }
}

// ---- external32

enum class Rep : uint8_t { kSigned, kUnsigned, kFloat, kLongDouble, kRaw };
struct External {
  uint32_t size;   // bytes of one part in external32
  uint32_t parts;  // complex: 2
  Rep rep;
};

External external_of(MPI_Datatype t) {
  switch (t) {
    case MPI_CHAR:
    case MPI_SIGNED_CHAR:
    case MPI_INT8_T:
    case MPI_CHARACTER:
    case MPI_INTEGER1:
      return {1, 1, Rep::kSigned};
    case MPI_UNSIGNED_CHAR:
    case MPI_BYTE:
    case MPI_PACKED:
    case MPI_UINT8_T:
    case MPI_C_BOOL:
    case MPI_CXX_BOOL:
      return {1, 1, Rep::kUnsigned};
    case MPI_SHORT:
    case MPI_INT16_T:
    case MPI_INTEGER2:
      return {2, 1, Rep::kSigned};
    case MPI_UNSIGNED_SHORT:
    case MPI_UINT16_T:
    case MPI_WCHAR:
      return {2, 1, Rep::kUnsigned};
    case MPI_INT:
    case MPI_LONG:
    case MPI_INT32_T:
    case MPI_INTEGER:
    case MPI_INTEGER4:
    case MPI_LOGICAL:
      return {4, 1, Rep::kSigned};
    case MPI_UNSIGNED:
    case MPI_UNSIGNED_LONG:
    case MPI_UINT32_T:
      return {4, 1, Rep::kUnsigned};
    case MPI_LONG_LONG_INT:
    case MPI_INT64_T:
    case MPI_INTEGER8:
    case MPI_AINT:
    case MPI_OFFSET:
    case MPI_COUNT:
      return {8, 1, Rep::kSigned};
    case MPI_UNSIGNED_LONG_LONG:
    case MPI_UINT64_T:
      return {8, 1, Rep::kUnsigned};
    case MPI_FLOAT:
    case MPI_REAL:
    case MPI_REAL4:
      return {4, 1, Rep::kFloat};
    case MPI_DOUBLE:
    case MPI_DOUBLE_PRECISION:
    case MPI_REAL8:
      return {8, 1, Rep::kFloat};
    case MPI_LONG_DOUBLE:
      return {16, 1, Rep::kLongDouble};
    case MPI_C_FLOAT_COMPLEX:
    case MPI_CXX_FLOAT_COMPLEX:
    case MPI_COMPLEX:
    case MPI_COMPLEX8:
      return {4, 2, Rep::kFloat};
    case MPI_C_DOUBLE_COMPLEX:
    case MPI_CXX_DOUBLE_COMPLEX:
    case MPI_DOUBLE_COMPLEX:
    case MPI_COMPLEX16:
      return {8, 2, Rep::kFloat};
    case MPI_C_LONG_DOUBLE_COMPLEX:
    case MPI_CXX_LONG_DOUBLE_COMPLEX:
      return {16, 2, Rep::kLongDouble};
    default:
      fail(MPI_ERR_TYPE, fmt::format("{} has no external32 representation in mgen", dtype_any(t).name));
  }
}

// x87 80-bit extended (little-endian, in 16 bytes) <-> IEEE binary128 (big-endian): the same
// sign and 15-bit exponent; the extended format's explicit integer bit is dropped, its 63
// fraction bits lead the quad's 112.
void x87_to_quad(const unsigned char* in, unsigned char* out) {
  uint64_t mant;
  uint16_t se;
  std::memcpy(&mant, in, 8);
  std::memcpy(&se, in + 8, 2);
  const uint64_t frac = mant << 1;  // 63 fraction bits, left-aligned
  const uint64_t hi = (static_cast<uint64_t>(se) << 48) | (frac >> 16);
  const uint64_t lo = frac << 48;
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<unsigned char>(hi >> (56 - 8 * i));
    out[8 + i] = static_cast<unsigned char>(lo >> (56 - 8 * i));
  }
}

void quad_to_x87(const unsigned char* in, unsigned char* out) {
  uint64_t hi = 0, lo = 0;
  for (int i = 0; i < 8; ++i) {
    hi = (hi << 8) | in[i];
    lo = (lo << 8) | in[8 + i];
  }
  const uint16_t se = static_cast<uint16_t>(hi >> 48);
  const uint64_t frac = (hi << 16) | (lo >> 48);
  const bool normal = (se & 0x7fff) != 0;
  const uint64_t mant = (frac >> 1) | (normal ? (uint64_t{1} << 63) : 0);
  std::memset(out, 0, 16);
  std::memcpy(out, &mant, 8);
  std::memcpy(out + 8, &se, 2);
}

// One basic element: native bytes at `native` <-> external32 bytes at `ext`.
void convert(MPI_Datatype t, std::byte* native, std::byte* ext, bool to_external) {
  const External e = external_of(t);
  const uint32_t nsize = static_cast<uint32_t>(dtype_any(t).size) / e.parts;
  for (uint32_t p = 0; p < e.parts; ++p) {
    auto* n = reinterpret_cast<unsigned char*>(native) + p * nsize;
    auto* x = reinterpret_cast<unsigned char*>(ext) + p * e.size;
    switch (e.rep) {
      case Rep::kLongDouble:
        if (to_external) {
          x87_to_quad(n, x);
        } else {
          quad_to_x87(x, n);
        }
        break;
      case Rep::kFloat:
      case Rep::kRaw:
        for (uint32_t i = 0; i < nsize; ++i) {
          if (to_external) {
            x[i] = n[nsize - 1 - i];
          } else {
            n[nsize - 1 - i] = x[i];
          }
        }
        break;
      case Rep::kSigned:
      case Rep::kUnsigned: {
        // Little-endian native of nsize bytes <-> big-endian of e.size: truncated or extended.
        if (to_external) {
          for (uint32_t i = 0; i < e.size; ++i)
            x[e.size - 1 - i] = i < nsize ? n[i] : 0;
          if (e.rep == Rep::kSigned && e.size > nsize && (n[nsize - 1] & 0x80))
            for (uint32_t i = nsize; i < e.size; ++i)
              x[e.size - 1 - i] = 0xff;
        } else {
          const bool negative = e.rep == Rep::kSigned && (x[0] & 0x80);
          for (uint32_t i = 0; i < nsize; ++i)
            n[i] = i < e.size ? x[e.size - 1 - i] : (negative ? 0xff : 0);
        }
        break;
      }
    }
  }
}

void check_datarep(const char* datarep) {
  if (datarep == nullptr || std::strcmp(datarep, "external32") != 0) {
    fail(MPI_ERR_ARG, fmt::format("data representation \"{}\" (MPI defines only \"external32\" here)",
                                  datarep ? datarep : "(null)"));
  }
}

uint64_t external_bytes(const Typemap& map) {
  uint64_t n = 0;
  for (const auto& [off, t] : map) {
    const External e = external_of(t);
    n += static_cast<uint64_t>(e.size) * e.parts;
  }
  return n;
}

}  // namespace

namespace mgen::mpi::abi {

Typemap typemap(MPI_Datatype t) {
  Typemap out;
  walk(DType::Member{derived_shared(t) ? MPI_DATATYPE_NULL : t, derived_shared(t)}, 0, out);
  return out;
}

}  // namespace mgen::mpi::abi

extern "C" {

int PMPI_Pack_external_size(const char* datarep, int count, MPI_Datatype type, MPI_Aint* size) {
  return call("MPI_Pack_external_size", MPI_COMM_WORLD, [&] {
    check_datarep(datarep);
    check_count(count);
    dtype(type);
    *size = static_cast<MPI_Aint>(external_bytes(typemap(type)) * static_cast<uint64_t>(count));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Pack_external_size)

int PMPI_Pack_external(const char* datarep, const void* inbuf, int count, MPI_Datatype type, void* outbuf,
                       MPI_Aint outsize, MPI_Aint* position) {
  return call("MPI_Pack_external", MPI_COMM_WORLD, [&] {
    check_datarep(datarep);
    check_count(count);
    const DType& t = dtype(type);
    const Typemap map = typemap(type);
    const uint64_t n = external_bytes(map) * static_cast<uint64_t>(count);
    if (*position < 0 || static_cast<uint64_t>(*position) + n > static_cast<uint64_t>(outsize)) {
      fail(MPI_ERR_TRUNCATE,
           fmt::format("packing {} bytes at position {} overflows the {}-byte buffer", n, *position, outsize));
    }
    auto* out = static_cast<std::byte*>(outbuf) + *position;
    auto* in = const_cast<std::byte*>(static_cast<const std::byte*>(inbuf));
    for (int i = 0; i < count; ++i) {
      for (const auto& [off, b] : map) {
        convert(b, in + i * t.extent() + off, out, true);
        const External e = external_of(b);
        out += e.size * e.parts;
      }
    }
    *position += static_cast<MPI_Aint>(n);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Pack_external)

int PMPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize, MPI_Aint* position, void* outbuf,
                         int count, MPI_Datatype type) {
  return call("MPI_Unpack_external", MPI_COMM_WORLD, [&] {
    check_datarep(datarep);
    check_count(count);
    const DType& t = dtype(type);
    const Typemap map = typemap(type);
    const uint64_t n = external_bytes(map) * static_cast<uint64_t>(count);
    if (*position < 0 || static_cast<uint64_t>(*position) + n > static_cast<uint64_t>(insize)) {
      fail(MPI_ERR_TRUNCATE,
           fmt::format("unpacking {} bytes at position {} overruns the {}-byte buffer", n, *position, insize));
    }
    auto* in = const_cast<std::byte*>(static_cast<const std::byte*>(inbuf)) + *position;
    auto* out = static_cast<std::byte*>(outbuf);
    for (int i = 0; i < count; ++i) {
      for (const auto& [off, b] : map) {
        convert(b, out + i * t.extent() + off, in, false);
        const External e = external_of(b);
        in += e.size * e.parts;
      }
    }
    *position += static_cast<MPI_Aint>(n);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Unpack_external)

}  // extern "C"
