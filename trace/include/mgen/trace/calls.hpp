// The table of recorded calls (calls.def) as constexpr data: for each record type its name,
// its class, the MPI functions it stands for and its fields in encoding order. The encoder
// (record.hpp), the reader, `mgen trace` and replay's dispatch are driven by it.
//
// Header-only and without MPI, like format.hpp: the recorder includes it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

#include "mgen/trace/format.hpp"

namespace mgen::trace {

// What a record's field is: how it is encoded (u: unsigned LEB128, s: zigzag) and which
// member of Record (record.hpp) holds it. A *status* is `s source, s tag, u bytes received`;
// a *completion* is `u kind` (0: not a receive, 1: a receive) and a status for receives.
enum class Field : uint8_t {
  kRecords,            // u: End: the number of records before it
  kNameDef,            // u id, u length, bytes: Name: defines `name`/`text`
  kName,               // u: name id (Local, Other)
  kThreadLevel,        // u mode: 0 for MPI_Init, provided thread level + 1 for MPI_Init_thread
  kSendMode,           // u mode: Mode (format.hpp)
  kCommKind,           // u mode: CommKind (format.hpp)
  kComm,               // s comm: communicator id (0 world, 1 self, then in order of creation)
  kParent,             // s comm: the communicator a new one was made from
  kNewComm,            // s new_comm: the new one (-1: MPI_COMM_NULL)
  kMembers,            // u n, u world rank x n (counts): a new communicator's members in its rank order
  kDest,               // s peer
  kSource,             // s peer (may be MPI_ANY_SOURCE)
  kTag,                // s tag
  kSource2,            // s peer2: Sendrecv's receive side
  kTag2,               // s tag2
  kRoot,               // s root
  kCount,              // u count: elements of the primary (send) buffer
  kTypeSize,           // u type_size: bytes of its datatype (MPI_Type_size)
  kCount2,             // u count2: the receive side
  kTypeSize2,          // u type_size2
  kCounts,             // u n, u count x n (counts): per-rank counts of the send side
  kCounts2,            // u n, u count x n (counts2): the receive side
  kReduceOp,           // u reduce_op: the MPI_Op handle
  kRequest,            // s request id (-1: none, the blocking form of a collective)
  kRequests,           // u n, s request x n (requests)
  kOneRequest,         // s request: requests = {it}
  kIndex,              // s index into requests (-1: none)
  kFlag,               // u flag
  kStatus,             // status
  kStatusIfFlag,       // status if flag
  kCompletions,        // completion x requests (done)
  kCompletionsIfFlag,  // completion x requests if flag
  kCompletionAtIndex,  // completion of requests[index] if index >= 0
  kSomeCompletions,    // u k, (u index, completion) x k; flag = k > 0
};

// What a call does (replay's and the documentation's grouping).
enum class CallClass : uint8_t {
  kTrace,         // bookkeeping records, not calls (End, Name)
  kEnv,           // MPI_Init, MPI_Finalize
  kLocal,         // no communication: replay skips it
  kOther,         // not replayable: replay stops naming it
  kSend,          // point-to-point send (blocking, non-blocking, persistent)
  kRecv,          // point-to-point receive
  kSendrecv,      // both at once
  kProbe,         // probe for a message
  kRequestOp,     // start, free or cancel requests
  kCompletion,    // Wait / Test families
  kCollective,    // blocking collective, or its non-blocking form with a request
  kCommunicator,  // make or free communicators
};

// Which of a row's MPI names a record stands for.
enum class NameBy : uint8_t {
  kOne,       // its only name
  kRecorded,  // the name the trace defines (Local, Other)
  kMode,      // names[mode] (send modes, communicator kinds)
  kLevel,     // names[0] for mode 0, else names[1] (MPI_Init, MPI_Init_thread)
  kBlocking,  // names[0] without a request, names[1] with one (MPI_Bcast, MPI_Ibcast)
};

inline constexpr size_t kMaxFields = 10;

struct CallRow {
  Op op = Op::kCount;
  const char* op_name = "?";
  CallClass cls = CallClass::kTrace;
  NameBy by = NameBy::kOne;
  std::string_view names;  // space-separated
  std::array<Field, kMaxFields> field{};
  size_t n_fields = 0;

  constexpr std::span<const Field> fields() const { return {field.data(), n_fields}; }
  constexpr bool has(Field f) const {
    for (Field x : fields())
      if (x == f) return true;
    return false;
  }
  constexpr size_t name_count() const {
    size_t n = 0;
    for (size_t i = 0; i < names.size(); ++i)
      n += names[i] != ' ' && (i == 0 || names[i - 1] == ' ');
    return n;
  }
  constexpr std::string_view name(size_t i) const {
    std::string_view rest = names;
    for (;; --i) {
      const size_t end = rest.find(' ');
      if (i == 0) return rest.substr(0, end);
      if (end == std::string_view::npos) return {};
      rest.remove_prefix(end + 1);
    }
  }
};

namespace detail {
constexpr CallRow row(Op op, const char* op_name, CallClass cls, NameBy by, std::string_view names,
                      std::initializer_list<Field> fields) {
  CallRow r{op, op_name, cls, by, names, {}, fields.size()};
  size_t i = 0;
  for (Field f : fields)
    r.field[i++] = f;  // a row with more than kMaxFields fails to compile here
  return r;
}

constexpr std::array<CallRow, static_cast<size_t>(Op::kCount)> make_calls() {
  using enum Field;
  using enum CallClass;
  using enum NameBy;
  return {{
#define MGEN_CALL(code, id, display, cls, by, names, ...) row(Op::k##id, display, cls, by, names, {__VA_ARGS__}),
#include "mgen/trace/calls.def"
#undef MGEN_CALL
  }};
}

// Every opcode has exactly its row, in opcode order, and each row as many names as its
// NameBy needs.
constexpr bool well_formed(const std::array<CallRow, static_cast<size_t>(Op::kCount)>& calls) {
  for (size_t i = 0; i < calls.size(); ++i) {
    const CallRow& r = calls[i];
    if (static_cast<size_t>(r.op) != i) return false;
    const size_t n = r.name_count();
    switch (r.by) {
      case NameBy::kOne:
        if (n != (r.cls == CallClass::kTrace ? 0 : 1)) return false;
        break;
      case NameBy::kRecorded:
        if (n != 0 || !r.has(Field::kName)) return false;
        break;
      case NameBy::kMode:
        if (n < 2 || !(r.has(Field::kSendMode) || r.has(Field::kCommKind))) return false;
        break;
      case NameBy::kLevel:
        if (n != 2 || !r.has(Field::kThreadLevel)) return false;
        break;
      case NameBy::kBlocking:
        if (n != 2 || !r.has(Field::kRequest)) return false;
        break;
    }
  }
  return true;
}
}  // namespace detail

inline constexpr std::array<CallRow, static_cast<size_t>(Op::kCount)> kCalls = detail::make_calls();
static_assert(detail::well_formed(kCalls), "calls.def: rows out of opcode order, or names that do not fit NameBy");

// The recorder writes modes and kinds as these enums; call_name() reads them as name indices.
static_assert(kCalls[static_cast<size_t>(Op::kIsend)].name(static_cast<size_t>(Mode::kReady)) == "MPI_Irsend");
static_assert(kCalls[static_cast<size_t>(Op::kCommNew)].name(static_cast<size_t>(CommKind::kCartSub)) ==
              "MPI_Cart_sub");

constexpr const CallRow& call_row(Op op) {
  return kCalls[static_cast<size_t>(op) < kCalls.size() ? static_cast<size_t>(op) : 0];
}

// Opcode names for dumps and errors.
constexpr const char* op_name(Op op) {
  return static_cast<size_t>(op) < kCalls.size() ? kCalls[static_cast<size_t>(op)].op_name : "?";
}

}  // namespace mgen::trace
