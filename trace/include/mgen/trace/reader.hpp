// Reading mgen traces (docs/trace-format.md): a rank's file, record by record, with every
// defect reported as the file, the offset and what is wrong.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "mgen/trace/format.hpp"

namespace mgen::trace {

class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How a receive completed: its source (rank in its communicator), tag and bytes.
struct Received {
  int64_t source = 0, tag = 0;
  uint64_t bytes = 0;
};

// A completed request of a Wait/Test family call: its position in the call's array and, for a
// receive, how it completed.
struct Completion {
  int64_t index = 0;
  bool receive = false;
  Received status;
};

// One record, decoded. Which fields mean something depends on `op` (docs/trace-format.md).
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
  uint64_t name = 0;   // Local / Other / Name: name id
  std::string text;    // Name: the name
  bool flag = false;   // Test*, Iprobe
  int64_t index = -1;  // Waitany / Testany
  std::vector<int64_t> requests;
  std::vector<uint64_t> counts, counts2;  // v-collectives (send, recv); Comm_new: world ranks
  std::vector<Completion> done;
  Received status;  // Recv, Sendrecv, Probe, Iprobe
};

class Reader {
 public:
  // Reads the whole file; throws TraceError if it is not a trace of a version this reads.
  explicit Reader(const std::filesystem::path& file);

  const Header& header() const { return header_; }
  const std::string& path() const { return path_; }
  // The next record, false at the end. Throws TraceError on a truncated or corrupt file.
  bool next(Record& r);
  // After next() returned false: whether the trace ended with its end record (a rank that
  // crashed or was killed leaves a trace without one).
  bool complete() const { return complete_; }
  // Names defined so far (Local / Other records refer to them).
  const std::string& name(uint64_t id) const;
  uint64_t records() const { return records_; }

 private:
  [[noreturn]] void fail(uint64_t offset, const std::string& what) const;
  bool next_block();
  uint64_t u();
  int64_t s();
  void received(Received& out);
  void completion(Completion& c, int64_t index);

  std::string path_;
  std::vector<uint8_t> data_;
  Header header_{};
  size_t pos_ = 0;        // next unread byte of data_
  size_t block_end_ = 0;  // end of the current block's payload
  uint64_t record_at_ = 0;
  bool complete_ = false, ended_ = false;
  uint64_t records_ = 0;
  std::vector<std::string> names_;
};

// The MPI function a record stands for ("MPI_Isend", "MPI_Iallreduce", "MPI_Wtime", ...).
std::string call_name(const Record& r, const Reader& reader);
// The record's payload bytes: its primary count times its datatype size (the send side where
// a call has two; the sum of the counts for v-forms with per-rank counts); 0 for calls without
// data (docs/trace-format.md).
uint64_t call_bytes(const Record& r);

// The rank files of a trace directory, in rank order; checks that ranks 0..size-1 are all
// there and agree on the size.
std::vector<std::filesystem::path> trace_files(const std::filesystem::path& dir);

}  // namespace mgen::trace
