// The mgen trace format (docs/trace-format.md): one file per rank, a fixed header, then blocks
// of records, each block with its length and CRC-32 so that a reader can tell a clean end, a
// truncated file and a corrupt one apart. Records are an opcode and LEB128 varints.
//
// Header-only: the recorder (libmgen-preload.so, loaded into MPICH programs) includes it
// without linking libmgen.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace mgen::trace {

inline constexpr char kMagic[8] = {'M', 'G', 'E', 'N', 'T', 'R', 'C', '\0'};
inline constexpr uint16_t kVersion = 1;
inline constexpr size_t kHostBytes = 64;

// Fixed 96-byte header, little-endian.
struct Header {
  char magic[8];
  uint16_t version;
  uint16_t header_bytes;  // sizeof(Header): readers skip what they do not know
  uint32_t rank;          // MPI_COMM_WORLD rank
  uint32_t size;          // MPI_COMM_WORLD size
  uint32_t flags;
  uint64_t t0_ns;  // CLOCK_MONOTONIC when MPI_Init returned (one clock for all ranks of a host)
  char host[kHostBytes];
};
static_assert(sizeof(Header) == 96);

// Every block: u32 payload bytes, u32 CRC-32 of the payload, payload (whole records only).
inline constexpr size_t kBlockHeader = 8;
inline constexpr uint32_t kMaxBlock = 1u << 24;

// Operations. Every record: op (1 byte), then varints dt_cpu_ns (thread CPU time since the
// previous call returned), dt_wall_ns (wall time likewise), dur_ns (wall time in the call),
// then the op's fields (docs/trace-format.md). Values never change meaning; new ops are added
// at the end.
enum class Op : uint8_t {
  kEnd = 0,             // finalize reached: total records (u), then nothing more
  kName,                // name id (u), string: defines a name used by kLocal / kOther
  kLocal,               // name id: a call with no communication (Comm_rank, Type_size, Wtime...)
  kOther,               // name id: a call mgen cannot replay (MPI-IO, spawn...)
  kInit,                // 0 for MPI_Init; for MPI_Init_thread, the thread level provided + 1 (u)
  kFinalize,            //
  kSend,                // mode, comm, dest, tag, count, type size
  kIsend,               // mode, comm, dest, tag, count, type size, request
  kRecv,                // comm, source, tag, count, type size, [status]
  kIrecv,               // comm, source, tag, count, type size, request
  kSendrecv,            // comm, dest, send tag, send count, send type size, source, recv tag,
                        //   recv count, recv type size, [status]
  kSendInit,            // mode, comm, dest, tag, count, type size, request (persistent)
  kRecvInit,            // comm, source, tag, count, type size, request (persistent)
  kStart,               // request
  kStartall,            // n, requests
  kRequestFree,         // request
  kCancel,              // request
  kWait,                // request, [completion]
  kWaitall,             // n, requests, [completion] x n
  kWaitany,             // n, requests, index (-1 none), [completion]
  kWaitsome,            // n, requests, outcount, (index, [completion]) x outcount
  kTest,                // request, flag, [completion] if flag
  kTestall,             // n, requests, flag, [completion] x n if flag
  kTestany,             // n, requests, flag, index, [completion] if index >= 0
  kTestsome,            // n, requests, outcount, (index, [completion]) x outcount
  kProbe,               // comm, source, tag, [status]
  kIprobe,              // comm, source, tag, flag, [status] if flag
  kBarrier,             // comm, request (non-blocking forms; -1 for blocking)
  kBcast,               // comm, request, root, count, type size
  kReduce,              // comm, request, root, count, type size, op
  kAllreduce,           // comm, request, count, type size, op
  kScan,                // comm, request, count, type size, op
  kExscan,              // comm, request, count, type size, op
  kReduceScatterBlock,  // comm, request, count, type size, op
  kReduceScatter,       // comm, request, type size, op, n, counts x n
  kGather,              // comm, request, root, send count, send type size, recv count, recv type size
  kScatter,             // comm, request, root, send count, send type size, recv count, recv type size
  kAllgather,           // comm, request, send count, send type size, recv count, recv type size
  kAlltoall,            // comm, request, send count, send type size, recv count, recv type size
  kGatherv,             // comm, request, root, send count, send type size, recv type size, n, counts x n
  kScatterv,            // comm, request, root, send type size, n, counts x n, recv count, recv type size
  kAllgatherv,          // comm, request, send count, send type size, recv type size, n, counts x n
  kAlltoallv,           // comm, request, send type size, n, send counts x n, recv type size, recv counts x n
  kCommNew,             // kind, parent comm, new comm (-1: MPI_COMM_NULL), n, world ranks x n
  kCommFree,            // comm
  kSendrecvReplace,     // as kSendrecv
  kCount                // (number of ops)
};

// Send modes (kSend, kIsend, kSendInit).
enum class Mode : uint8_t { kStandard = 0, kSynchronous, kBuffered, kReady };
// How a communicator was made (kCommNew).
enum class CommKind : uint8_t { kDup = 0, kSplit, kCreate, kCart, kSplitType, kCartSub, kOther };

// [status] / [completion]: for a receive, source (comm rank), tag, bytes received; for a send
// or a collective request, nothing (a completion starts with a kind: 0 none, 1 receive status).

// Opcode names for dumps and errors.
inline const char* op_name(Op op) {
  static constexpr std::array<const char*, static_cast<size_t>(Op::kCount)> names = {"End",
                                                                                     "Name",
                                                                                     "Local",
                                                                                     "Other",
                                                                                     "Init",
                                                                                     "Finalize",
                                                                                     "Send",
                                                                                     "Isend",
                                                                                     "Recv",
                                                                                     "Irecv",
                                                                                     "Sendrecv",
                                                                                     "Send_init",
                                                                                     "Recv_init",
                                                                                     "Start",
                                                                                     "Startall",
                                                                                     "Request_free",
                                                                                     "Cancel",
                                                                                     "Wait",
                                                                                     "Waitall",
                                                                                     "Waitany",
                                                                                     "Waitsome",
                                                                                     "Test",
                                                                                     "Testall",
                                                                                     "Testany",
                                                                                     "Testsome",
                                                                                     "Probe",
                                                                                     "Iprobe",
                                                                                     "Barrier",
                                                                                     "Bcast",
                                                                                     "Reduce",
                                                                                     "Allreduce",
                                                                                     "Scan",
                                                                                     "Exscan",
                                                                                     "Reduce_scatter_block",
                                                                                     "Reduce_scatter",
                                                                                     "Gather",
                                                                                     "Scatter",
                                                                                     "Allgather",
                                                                                     "Alltoall",
                                                                                     "Gatherv",
                                                                                     "Scatterv",
                                                                                     "Allgatherv",
                                                                                     "Alltoallv",
                                                                                     "Comm_new",
                                                                                     "Comm_free",
                                                                                     "Sendrecv_replace"};
  const auto i = static_cast<size_t>(op);
  return i < names.size() ? names[i] : "?";
}

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
