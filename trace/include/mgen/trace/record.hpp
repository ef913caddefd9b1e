// One trace record as values (Record), and its encoding: the fields its row of calls.def
// lists, in that order. The recorder fills a Record and encodes it; the reader decodes into
// one (reader.cpp); tests/trace round-trips every row through both.
//
// Header-only and without MPI, like format.hpp: the recorder includes it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mgen/trace/calls.hpp"
#include "mgen/trace/format.hpp"

namespace mgen::trace {

// How a receive completed: its source (rank in its communicator), tag and bytes.
struct Received {
  int64_t source = 0, tag = 0;
  uint64_t bytes = 0;
  bool operator==(const Received&) const = default;
};

// A completed request of a Wait/Test family call: its position in the call's array and, for a
// receive, how it completed.
struct Completion {
  int64_t index = 0;
  bool receive = false;
  Received status;
  bool operator==(const Completion&) const = default;
};

// One record, decoded. Which members mean something depends on `op`: its row's fields
// (calls.hpp says which member each field is).
struct Record {
  Op op = Op::kEnd;
  uint64_t offset = 0;  // of the record in the file
  uint64_t dt_cpu = 0, dt_wall = 0, dur = 0;
  uint64_t mode = 0;  // send mode, communicator kind, thread level
  int64_t comm = -1, peer = 0, tag = 0, request = -1, root = 0;
  int64_t peer2 = 0, tag2 = 0;  // Sendrecv's receive side
  int64_t new_comm = -1;        // Comm_new
  uint64_t count = 0, type_size = 0, count2 = 0, type_size2 = 0;
  uint64_t reduce_op = 0;
  uint64_t name = 0;     // Local / Other / Name: name id
  uint64_t records = 0;  // End: records before it
  std::string text;      // Name: the name
  bool flag = false;     // Test*, Iprobe; Waitsome/Testsome: some completed
  int64_t index = -1;    // Waitany / Testany
  std::vector<int64_t> requests;
  std::vector<uint64_t> counts, counts2;  // v-collectives (send, recv); Comm_new: world ranks
  std::vector<Completion> done;
  Received status;  // Recv, Sendrecv, Probe, Iprobe

  bool operator==(const Record&) const = default;
};

// Back to a fresh record of `op`, keeping the vectors' memory (the recorder reuses one).
inline void reset(Record& r, Op op) {
  std::vector<int64_t> requests = std::move(r.requests);
  std::vector<uint64_t> counts = std::move(r.counts), counts2 = std::move(r.counts2);
  std::vector<Completion> done = std::move(r.done);
  r = Record{};
  r.op = op;
  r.requests = std::move(requests);
  r.counts = std::move(counts);
  r.counts2 = std::move(counts2);
  r.done = std::move(done);
  r.requests.clear();
  r.counts.clear();
  r.counts2.clear();
  r.done.clear();
}

namespace detail {
inline void put_status(std::vector<uint8_t>& out, const Received& s) {
  put_s(out, s.source);
  put_s(out, s.tag);
  put_u(out, s.bytes);
}
inline void put_completion(std::vector<uint8_t>& out, const Completion& c) {
  put_u(out, c.receive ? 1 : 0);
  if (c.receive) put_status(out, c.status);
}
inline void put_list(std::vector<uint8_t>& out, const std::vector<uint64_t>& v) {
  put_u(out, v.size());
  for (uint64_t x : v)
    put_u(out, x);
}

inline void put_field(std::vector<uint8_t>& out, Field f, const Record& r) {
  switch (f) {
    case Field::kRecords:
      return put_u(out, r.records);
    case Field::kNameDef:
      put_u(out, r.name);
      put_u(out, r.text.size());
      out.insert(out.end(), r.text.begin(), r.text.end());
      return;
    case Field::kName:
      return put_u(out, r.name);
    case Field::kThreadLevel:
    case Field::kSendMode:
    case Field::kCommKind:
      return put_u(out, r.mode);
    case Field::kComm:
    case Field::kParent:
      return put_s(out, r.comm);
    case Field::kNewComm:
      return put_s(out, r.new_comm);
    case Field::kMembers:
    case Field::kCounts:
      return put_list(out, r.counts);
    case Field::kCounts2:
      return put_list(out, r.counts2);
    case Field::kDest:
    case Field::kSource:
      return put_s(out, r.peer);
    case Field::kTag:
      return put_s(out, r.tag);
    case Field::kSource2:
      return put_s(out, r.peer2);
    case Field::kTag2:
      return put_s(out, r.tag2);
    case Field::kRoot:
      return put_s(out, r.root);
    case Field::kCount:
      return put_u(out, r.count);
    case Field::kTypeSize:
      return put_u(out, r.type_size);
    case Field::kCount2:
      return put_u(out, r.count2);
    case Field::kTypeSize2:
      return put_u(out, r.type_size2);
    case Field::kReduceOp:
      return put_u(out, r.reduce_op);
    case Field::kRequest:
      return put_s(out, r.request);
    case Field::kRequests:
      put_u(out, r.requests.size());
      for (int64_t q : r.requests)
        put_s(out, q);
      return;
    case Field::kOneRequest:
      return put_s(out, r.requests.empty() ? -1 : r.requests[0]);
    case Field::kIndex:
      return put_s(out, r.index);
    case Field::kFlag:
      return put_u(out, r.flag ? 1 : 0);
    case Field::kStatus:
      return put_status(out, r.status);
    case Field::kStatusIfFlag:
      if (r.flag) put_status(out, r.status);
      return;
    case Field::kCompletionsIfFlag:
      if (!r.flag) return;
      [[fallthrough]];
    case Field::kCompletions:
      for (const Completion& c : r.done)
        put_completion(out, c);
      return;
    case Field::kCompletionAtIndex:
      if (r.index >= 0 && !r.done.empty()) put_completion(out, r.done[0]);
      return;
    case Field::kSomeCompletions:
      put_u(out, r.done.size());
      for (const Completion& c : r.done) {
        put_u(out, static_cast<uint64_t>(c.index));
        put_completion(out, c);
      }
      return;
  }
}
}  // namespace detail

// Appends the record: op, the three times (except for End and Name), its row's fields.
// kCompletions writes `done` as it is: it must hold one completion per request.
inline void encode(std::vector<uint8_t>& out, const Record& r) {
  const CallRow& row = call_row(r.op);
  out.push_back(static_cast<uint8_t>(r.op));
  if (row.cls != CallClass::kTrace) {
    put_u(out, r.dt_cpu);
    put_u(out, r.dt_wall);
    put_u(out, r.dur);
  }
  for (Field f : row.fields())
    detail::put_field(out, f, r);
}

}  // namespace mgen::trace
