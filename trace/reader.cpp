#include "mgen/trace/reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <map>
#include <tuple>

namespace mgen::trace {

Reader::Reader(const std::filesystem::path& file) : path_(file.string()) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw TraceError(fmt::format("{}: offset 0: not a trace: {}", path_,
                                 std::filesystem::exists(file, ec) ? "not a regular file" : "no such file"));
  }
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) throw TraceError(fmt::format("{}: cannot open", path_));
  const std::streamoff end = in.tellg();
  if (end < 0) throw TraceError(fmt::format("{}: cannot read", path_));
  data_.resize(static_cast<size_t>(end));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(data_.data()), static_cast<std::streamsize>(data_.size()));
  if (!in) throw TraceError(fmt::format("{}: cannot read", path_));
  if (data_.size() < kHeaderBytesV1) {
    fail(0, fmt::format("too short for a trace header ({} bytes, a header needs at least {})", data_.size(),
                        kHeaderBytesV1));
  }
  std::memcpy(&header_, data_.data(), kHeaderBytesV1);  // the fields of every version
  if (std::memcmp(header_.magic, kMagic, sizeof kMagic) != 0) fail(0, "not an mgen trace (bad magic)");
  if (header_.version < kOldestVersion || header_.version > kVersion) {
    fail(8, fmt::format("trace format version {}, this mgen reads versions {} to {}", header_.version, kOldestVersion,
                        kVersion));
  }
  const size_t known = header_.version == 1 ? kHeaderBytesV1 : sizeof(Header);
  if (header_.header_bytes < known || header_.header_bytes > data_.size()) {
    fail(10, fmt::format("bad header size {} (version {} needs {}, the file has {} bytes)", header_.header_bytes,
                         header_.version, known, data_.size()));
  }
  std::memcpy(&header_, data_.data(), known);
  if (header_.size == 0 || header_.rank >= header_.size) {
    fail(12, fmt::format("rank {} of {} ranks", header_.rank, header_.size));
  }
  header_.host[kHostBytes - 1] = '\0';
  pos_ = block_end_ = header_.header_bytes;
}

void Reader::fail(uint64_t offset, const std::string& what) const {
  if (pos_ > 0) {  // the header was read: say whose trace it is
    throw TraceError(fmt::format("{}: rank {}: offset {}: {}", path_, header_.rank, offset, what));
  }
  throw TraceError(fmt::format("{}: offset {}: {}", path_, offset, what));
}

bool Reader::next_block() {
  if (pos_ == data_.size()) return false;
  if (data_.size() - pos_ < kBlockHeader) {
    fail(pos_, fmt::format("truncated: {} bytes where a block header needs {}", data_.size() - pos_, kBlockHeader));
  }
  uint32_t len = 0, crc = 0;
  std::memcpy(&len, &data_[pos_], 4);
  std::memcpy(&crc, &data_[pos_ + 4], 4);
  if (len == 0 || len > kMaxBlock * 4u) fail(pos_, fmt::format("corrupt: block length {}", len));
  if (data_.size() - pos_ - kBlockHeader < len) {
    fail(pos_,
         fmt::format("truncated: the block holds {} bytes, the file {} more", len, data_.size() - pos_ - kBlockHeader));
  }
  if (crc32(&data_[pos_ + kBlockHeader], len) != crc) fail(pos_, "corrupt: block checksum mismatch");
  pos_ += kBlockHeader;
  block_end_ = pos_ + len;
  return true;
}

uint64_t Reader::u() {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= block_end_) fail(record_at_, "corrupt: a record runs past the end of its block");
    const uint8_t b = data_[pos_++];
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return v;
  }
  fail(record_at_, "corrupt: an over-long number");
}

int64_t Reader::s() {
  const uint64_t z = u();
  return static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
}

void Reader::received(Received& out) {
  out.source = s();
  out.tag = s();
  out.bytes = u();
}

void Reader::completion(Completion& c, int64_t index) {
  c.index = index;
  const uint64_t kind = u();
  if (kind > 1) fail(record_at_, fmt::format("corrupt: completion kind {}", kind));
  c.receive = kind == 1;
  if (c.receive) received(c.status);
}

const std::string& Reader::name(uint64_t id) const {
  if (id >= names_.size()) fail(record_at_, fmt::format("corrupt: undefined name {}", id));
  return names_[id];
}

void Reader::list(std::vector<uint64_t>& out) {
  const uint64_t n = u();
  if (n > block_end_ - pos_) fail(record_at_, fmt::format("corrupt: a list of {} entries", n));
  out.resize(n);
  for (uint64_t& x : out)
    x = u();
}

int64_t Reader::checked_index(const Record& r, int64_t i) const {
  if (i < -1 || i >= static_cast<int64_t>(r.requests.size())) {
    fail(record_at_, fmt::format("corrupt: index {} of {} requests", i, r.requests.size()));
  }
  return i;
}

// The inverse of record.hpp's put_field, with every length and index checked.
void Reader::field(Field f, Record& r) {
  switch (f) {
    case Field::kRecords:
      r.records = u();
      return;
    case Field::kNameDef: {
      r.name = u();
      const uint64_t n = u();
      if (n > block_end_ - pos_) fail(record_at_, "corrupt: a name runs past its block");
      r.text.assign(reinterpret_cast<const char*>(&data_[pos_]), n);
      pos_ += n;
      return;
    }
    case Field::kName:
      r.name = u();
      name(r.name);
      return;
    case Field::kThreadLevel:
    case Field::kSendMode:
    case Field::kCommKind:
      r.mode = u();
      return;
    case Field::kComm:
    case Field::kParent:
      r.comm = s();
      return;
    case Field::kNewComm:
      r.new_comm = s();
      return;
    case Field::kMembers:
    case Field::kCounts:
      return list(r.counts);
    case Field::kCounts2:
      return list(r.counts2);
    case Field::kDest:
    case Field::kSource:
      r.peer = s();
      return;
    case Field::kTag:
      r.tag = s();
      return;
    case Field::kSource2:
      r.peer2 = s();
      return;
    case Field::kTag2:
      r.tag2 = s();
      return;
    case Field::kRoot:
      r.root = s();
      return;
    case Field::kCount:
      r.count = u();
      return;
    case Field::kTypeSize:
      r.type_size = u();
      return;
    case Field::kCount2:
      r.count2 = u();
      return;
    case Field::kTypeSize2:
      r.type_size2 = u();
      return;
    case Field::kReduceOp:
      r.reduce_op = u();
      return;
    case Field::kRequest:
      r.request = s();
      return;
    case Field::kRequests: {
      const uint64_t n = u();
      if (n > block_end_ - pos_) fail(record_at_, fmt::format("corrupt: a list of {} requests", n));
      r.requests.resize(n);
      for (int64_t& x : r.requests)
        x = s();
      return;
    }
    case Field::kOneRequest:
      r.requests = {s()};
      return;
    case Field::kIndex:
      r.index = checked_index(r, s());
      return;
    case Field::kFlag:
      r.flag = u() != 0;
      return;
    case Field::kStatusIfFlag:
      if (!r.flag) return;
      [[fallthrough]];
    case Field::kStatus:
      return received(r.status);
    case Field::kCompletionsIfFlag:
      if (!r.flag) return;
      [[fallthrough]];
    case Field::kCompletions:
      r.done.resize(r.requests.size());
      for (size_t i = 0; i < r.done.size(); ++i)
        completion(r.done[i], static_cast<int64_t>(i));
      return;
    case Field::kCompletionAtIndex:
      if (r.index < 0) return;
      r.done.resize(1);
      return completion(r.done[0], r.index);
    case Field::kSomeCompletions: {
      const uint64_t k = u();
      if (k > r.requests.size()) {
        fail(record_at_, fmt::format("corrupt: {} of {} requests completed", k, r.requests.size()));
      }
      r.done.resize(k);
      for (Completion& c : r.done)
        completion(c, checked_index(r, static_cast<int64_t>(u())));
      r.flag = k > 0;
      return;
    }
  }
}

bool Reader::next(Record& r) {
  if (ended_) return false;
  if (pos_ == block_end_ && !next_block()) {
    ended_ = true;
    return false;
  }
  record_at_ = pos_;
  const uint8_t op = data_[pos_++];
  if (op >= static_cast<uint8_t>(Op::kCount)) fail(record_at_, fmt::format("corrupt: unknown record type {}", op));
  r = Record{};
  r.op = static_cast<Op>(op);
  r.offset = record_at_;
  const CallRow& row = call_row(r.op);
  if (row.cls != CallClass::kTrace) {
    r.dt_cpu = u();
    r.dt_wall = u();
    r.dur = u();
  }
  for (Field f : row.fields())
    field(f, r);
  if (pos_ > block_end_) fail(record_at_, "corrupt: a record runs past the end of its block");
  if (r.op == Op::kEnd) {
    if (r.records != records_) {
      fail(record_at_, fmt::format("corrupt: the end record counts {} records, read {}", r.records, records_));
    }
    complete_ = ended_ = true;
    return false;
  }
  ++records_;
  if (r.op == Op::kName) {
    if (r.name != names_.size()) fail(record_at_, fmt::format("corrupt: name {} defined out of order", r.name));
    names_.push_back(r.text);
    return next(r);  // names are bookkeeping, not calls
  }
  return true;
}

std::string call_name(const Record& r, const Reader& reader) {
  const CallRow& row = call_row(r.op);
  size_t i = 0;
  switch (row.by) {
    case NameBy::kRecorded:
      return reader.name(r.name);
    case NameBy::kOne:
      break;
    case NameBy::kMode:
      i = r.mode;
      break;
    case NameBy::kLevel:
      i = r.mode == 0 ? 0 : 1;
      break;
    case NameBy::kBlocking:
      i = r.request < 0 ? 0 : 1;
      break;
  }
  // A mode beyond the row's names (CommKind::kOther) is named by the record type.
  if (i >= row.name_count()) return fmt::format("MPI_{}", row.op_name);
  return std::string(row.name(i));
}

uint64_t call_bytes(const Record& r) {
  const CallRow& row = call_row(r.op);
  if (row.has(Field::kCounts)) {  // per-rank counts of the send side
    uint64_t t = 0;
    for (uint64_t x : r.counts)
      t += x;
    return t * r.type_size;
  }
  return row.has(Field::kCount) ? r.count * r.type_size : 0;
}

namespace {

namespace fs = std::filesystem;

// A file of a trace directory and its header.
struct Member {
  fs::path file;
  Header h;
};

std::string run_of(const Header& h) {
  return h.version == 1 ? std::string("none (format version 1)") : run_id_hex(h.run_id);
}

// Why `m` is not of the run `run` (the header most files agree with; `n` of them).
std::string odd_file(const Member& m, const Header& run, size_t n, const fs::path& dir) {
  const std::string others = fmt::format("{} other file{} of {}", n, n == 1 ? "" : "s", dir.string());
  const bool same_run = m.h.version == run.version && std::memcmp(m.h.run_id, run.run_id, kRunIdBytes) == 0;
  if (same_run) {  // only the world size differs
    return fmt::format("{}: rank {}: offset {}: recorded with {} ranks, the {} with {}", m.file.string(), m.h.rank,
                       kSizeOffset, m.h.size, others, run.size);
  }
  return fmt::format("{}: rank {}: offset {}: from another run: run id {}{}, the {} have run id {}{}", m.file.string(),
                     m.h.rank, m.h.version == 1 ? offsetof(Header, version) : kRunIdOffset, run_of(m.h),
                     m.h.size == run.size ? "" : fmt::format(" with {} ranks", m.h.size), others, run_of(run),
                     m.h.size == run.size ? "" : fmt::format(" with {} ranks", run.size));
}

}  // namespace

TraceSet trace_set(const fs::path& dir) {
  if (!fs::is_directory(dir)) throw TraceError(fmt::format("{}: not a directory of traces", dir.string()));
  std::vector<Member> all;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".mgt") all.push_back({e.path(), Reader(e.path()).header()});
  }
  if (all.empty()) throw TraceError(fmt::format("{}: no trace files (*.mgt)", dir.string()));
  // By rank; of two files of one rank, the one named as the recorder names it comes first.
  auto misnamed = [](const Member& m) { return m.file.filename().string() != fmt::format("rank-{}.mgt", m.h.rank); };
  std::sort(all.begin(), all.end(), [&](const Member& a, const Member& b) {
    return std::make_tuple(a.h.rank, misnamed(a), a.file) < std::make_tuple(b.h.rank, misnamed(b), b.file);
  });

  // The run is what most files say (on a tie, the lowest rank's file); the others are named
  // with what differs, so that a stray file is blamed and not the good ones.
  auto key = [](const Header& h) { return std::make_tuple(h.version == 1, run_id_hex(h.run_id), h.size); };
  std::map<decltype(key(all[0].h)), size_t> votes;
  for (const Member& m : all)
    ++votes[key(m.h)];
  const Header* run = &all[0].h;
  for (const Member& m : all) {
    if (votes[key(m.h)] > votes[key(*run)]) run = &m.h;
  }
  const size_t agree = votes[key(*run)];
  std::vector<std::string> odd;
  for (const Member& m : all) {
    if (key(m.h) != key(*run)) odd.push_back(odd_file(m, *run, agree, dir));
  }
  constexpr size_t kShown = 8;
  if (!odd.empty()) {
    std::string what;
    for (size_t i = 0; i < odd.size() && i < kShown; ++i)
      what += (i == 0 ? "" : "\n") + odd[i];
    if (odd.size() > kShown) what += fmt::format("\n... and {} more files of other runs", odd.size() - kShown);
    throw TraceError(what);
  }

  // Ranks without a file, as ranges (a header may claim billions of ranks: no list per rank).
  std::vector<std::pair<uint64_t, uint64_t>> gaps;
  uint64_t next = 0, missing = 0;
  auto gap = [&](uint64_t first, uint64_t last) {
    gaps.emplace_back(first, last);
    missing += last - first + 1;
  };
  for (size_t i = 0; i < all.size(); ++i) {
    const Member& m = all[i];
    if (m.h.rank < next) {
      throw TraceError(fmt::format("{}: rank {}: offset {}: a second trace of rank {} (the first is {})",
                                   m.file.string(), m.h.rank, offsetof(Header, rank), m.h.rank,
                                   all[i - 1].file.string()));
    }
    if (m.h.rank > next) gap(next, m.h.rank - 1);
    next = uint64_t{m.h.rank} + 1;
  }
  if (next < run->size) gap(next, run->size - 1);
  if (missing == 1) {
    throw TraceError(fmt::format("{}: no trace of rank {} (the run had {} ranks): rank-{}.mgt is missing", dir.string(),
                                 gaps[0].first, run->size, gaps[0].first));
  }
  if (missing > 1) {
    constexpr size_t kRanges = 10;
    std::string ranks;
    for (size_t i = 0; i < gaps.size() && i < kRanges; ++i) {
      const auto [first, last] = gaps[i];
      ranks += (i == 0 ? "" : ", ") + (first == last ? std::to_string(first) : fmt::format("{}-{}", first, last));
    }
    if (gaps.size() > kRanges) ranks += ", ...";
    throw TraceError(
        fmt::format("{}: no trace of {} ranks: {} (the run had {} ranks)", dir.string(), missing, ranks, run->size));
  }
  std::vector<fs::path> out;
  for (const Member& m : all)
    out.push_back(m.file);
  TraceSet set{std::move(out), {}};
  if (run->version == 1) {
    set.note = fmt::format(
        "{}: trace format version 1 has no run identifier: not checked that the files are of one run", dir.string());
  }
  return set;
}

std::vector<std::filesystem::path> trace_files(const std::filesystem::path& dir) {
  return trace_set(dir).files;
}

}  // namespace mgen::trace
