// The mgen trace format (docs/trace-format.md): one file per rank, a fixed header, then blocks
// of records, each block with its length and CRC-32 so that a reader can tell a clean end, a
// truncated file and a corrupt one apart. Records are an opcode and LEB128 varints.
//
// Header-only: the recorder (libmgen-preload.so, loaded into MPICH programs) includes it
// without linking libmgen.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace mgen::trace {

inline constexpr char kMagic[8] = {'M', 'G', 'E', 'N', 'T', 'R', 'C', '\0'};
// Version 2 added the run identifier; readers take versions 1 and 2 (a version 1 trace has no
// run identifier: its files cannot be told apart from another run's).
inline constexpr uint16_t kVersion = 2;
inline constexpr uint16_t kOldestVersion = 1;
inline constexpr size_t kHostBytes = 64;
inline constexpr size_t kRunIdBytes = 16;
inline constexpr size_t kHeaderBytesV1 = 96;  // a version 1 header ends before the run id

// Fixed 112-byte header, little-endian.
struct Header {
  char magic[8];
  uint16_t version;
  uint16_t header_bytes;  // sizeof(Header): readers skip what they do not know
  uint32_t rank;          // MPI_COMM_WORLD rank
  uint32_t size;          // MPI_COMM_WORLD size
  uint32_t flags;
  uint64_t t0_ns;  // CLOCK_MONOTONIC when MPI_Init returned (one clock for all ranks of a host)
  char host[kHostBytes];
  // The same in every rank's file of one run (rank 0 makes it in MPI_Init from the time, its pid
  // and random bits, and broadcasts it); all zero in version 1 traces.
  uint8_t run_id[kRunIdBytes];
};
static_assert(sizeof(Header) == 112);
inline constexpr size_t kRunIdOffset = offsetof(Header, run_id);
inline constexpr size_t kSizeOffset = offsetof(Header, size);
static_assert(kRunIdOffset == kHeaderBytesV1);

// The run identifier as 32 hex digits.
inline std::string run_id_hex(const uint8_t (&id)[kRunIdBytes]) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (uint8_t b : id) {
    s += kDigits[b >> 4];
    s += kDigits[b & 15];
  }
  return s;
}

// Every block: u32 payload bytes, u32 CRC-32 of the payload, payload (whole records only).
inline constexpr size_t kBlockHeader = 8;
inline constexpr uint32_t kMaxBlock = 1u << 24;

// Record types, one per row of calls.def (the table of recorded calls, with each type's fields;
// calls.hpp). Every record: op (1 byte), then varints dt_cpu_ns (thread CPU time since the
// previous call returned), dt_wall_ns (wall time likewise), dur_ns (wall time in the call),
// then the op's fields. Values never change meaning; new ops are added at the end.
enum class Op : uint8_t {
#define MGEN_CALL(code, id, ...) k##id = code,
#include "mgen/trace/calls.def"
#undef MGEN_CALL
  kCount  // (number of ops)
};

// Send modes (Send, Isend, Send_init), in the order of their rows' MPI names.
enum class Mode : uint8_t { kStandard = 0, kSynchronous, kBuffered, kReady };
// How a communicator was made (Comm_new), in the order of its row's MPI names.
enum class CommKind : uint8_t { kDup = 0, kSplit, kCreate, kCart, kSplitType, kCartSub, kOther };

// ---------------------------------------------------------------- encoding

inline void put_u(std::vector<uint8_t>& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}

// Signed values (ranks and tags may be negative wildcards) are zigzag-encoded.
inline void put_s(std::vector<uint8_t>& out, int64_t v) {
  put_u(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

inline uint32_t crc32(const uint8_t* data, size_t n) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; ++i)
    c = table[(c ^ data[i]) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

}  // namespace mgen::trace
