// Reading mgen traces (docs/trace-format.md): a rank's file, record by record, with every
// defect reported as the file, the offset and what is wrong.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "mgen/trace/record.hpp"

namespace mgen::trace {

class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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
  void list(std::vector<uint64_t>& out);
  int64_t checked_index(const Record& r, int64_t i) const;
  void field(Field f, Record& r);  // decodes one field of the record (calls.hpp)

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

// A directory of traces, checked to be one recorded run.
struct TraceSet {
  std::vector<std::filesystem::path> files;  // in rank order
  std::string note;                          // empty, or one line for the user (old format)
};

// The rank files of a trace directory, in rank order. Throws TraceError unless they are one
// run's: the same run identifier and world size in every file (the files that differ from what
// most say are named, with the field's offset and what differs), and one file for each rank
// 0..size-1 (a missing or second file of a rank is named).
TraceSet trace_set(const std::filesystem::path& dir);
std::vector<std::filesystem::path> trace_files(const std::filesystem::path& dir);  // trace_set(dir).files

}  // namespace mgen::trace
