#include "mgen/trace/reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>

namespace mgen::trace {

Reader::Reader(const std::filesystem::path& file) : path_(file.string()) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) throw TraceError(fmt::format("{}: cannot open", path_));
  data_.resize(static_cast<size_t>(in.tellg()));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(data_.data()), static_cast<std::streamsize>(data_.size()));
  if (!in) throw TraceError(fmt::format("{}: cannot read", path_));
  if (data_.size() < sizeof(Header)) {
    fail(0, fmt::format("too short for a trace header ({} bytes, a header is {})", data_.size(), sizeof(Header)));
  }
  std::memcpy(&header_, data_.data(), sizeof header_);
  if (std::memcmp(header_.magic, kMagic, sizeof kMagic) != 0) fail(0, "not an mgen trace (bad magic)");
  if (header_.version != kVersion) {
    fail(8, fmt::format("trace format version {}, this mgen reads version {}", header_.version, kVersion));
  }
  if (header_.header_bytes < sizeof(Header) || header_.header_bytes > data_.size()) {
    fail(10, fmt::format("bad header size {}", header_.header_bytes));
  }
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
  auto list = [&](std::vector<uint64_t>& out) {
    const uint64_t n = u();
    if (n > block_end_ - pos_) fail(record_at_, fmt::format("corrupt: a list of {} entries", n));
    out.resize(n);
    for (uint64_t& x : out)
      x = u();
  };
  auto requests = [&] {
    const uint64_t n = u();
    if (n > block_end_ - pos_) fail(record_at_, fmt::format("corrupt: a list of {} requests", n));
    r.requests.resize(n);
    for (int64_t& x : r.requests)
      x = s();
  };
  auto endpoint = [&] {  // comm, peer, tag, count, type size: every point-to-point record
    r.comm = s();
    r.peer = s();
    r.tag = s();
    r.count = u();
    r.type_size = u();
  };
  auto index_ok = [&](int64_t i) {
    if (i < -1 || i >= static_cast<int64_t>(r.requests.size())) {
      fail(record_at_, fmt::format("corrupt: index {} of {} requests", i, r.requests.size()));
    }
    return i;
  };
  if (r.op == Op::kEnd) {
    const uint64_t n = u();
    if (n != records_) fail(record_at_, fmt::format("corrupt: the end record counts {} records, read {}", n, records_));
    complete_ = ended_ = true;
    return false;
  }
  if (r.op == Op::kName) {
    r.name = u();
    const uint64_t n = u();
    if (n > block_end_ - pos_) fail(record_at_, "corrupt: a name runs past its block");
    r.text.assign(reinterpret_cast<const char*>(&data_[pos_]), n);
    pos_ += n;
    if (r.name != names_.size()) fail(record_at_, fmt::format("corrupt: name {} defined out of order", r.name));
    names_.push_back(r.text);
    ++records_;
    return next(r);  // names are bookkeeping, not calls
  }
  r.dt_cpu = u();
  r.dt_wall = u();
  r.dur = u();
  switch (r.op) {
    case Op::kLocal:
    case Op::kOther:
      r.name = u();
      name(r.name);
      break;
    case Op::kInit:
      r.mode = u();
      break;
    case Op::kFinalize:
      break;
    case Op::kSend:
    case Op::kIsend:
    case Op::kSendInit:
      r.mode = u();
      endpoint();
      if (r.op != Op::kSend) r.request = s();
      break;
    case Op::kRecv:
    case Op::kIrecv:
    case Op::kRecvInit:
      endpoint();
      if (r.op == Op::kRecv) {
        received(r.status);
      } else {
        r.request = s();
      }
      break;
    case Op::kSendrecv:
    case Op::kSendrecvReplace:
      endpoint();
      r.peer2 = s();
      r.tag2 = s();
      r.count2 = u();
      r.type_size2 = u();
      received(r.status);
      break;
    case Op::kStart:
    case Op::kRequestFree:
    case Op::kCancel:
      r.request = s();
      break;
    case Op::kStartall:
      requests();
      break;
    case Op::kWait:
      r.requests = {s()};
      r.done.resize(1);
      completion(r.done[0], 0);
      break;
    case Op::kWaitall:
      requests();
      r.done.resize(r.requests.size());
      for (size_t i = 0; i < r.done.size(); ++i)
        completion(r.done[i], static_cast<int64_t>(i));
      break;
    case Op::kWaitany:
      requests();
      r.index = index_ok(s());
      if (r.index >= 0) {
        r.done.resize(1);
        completion(r.done[0], r.index);
      }
      break;
    case Op::kWaitsome:
    case Op::kTestsome: {
      requests();
      const uint64_t k = u();
      if (k > r.requests.size())
        fail(record_at_, fmt::format("corrupt: {} of {} requests completed", k, r.requests.size()));
      r.done.resize(k);
      for (Completion& c : r.done) {
        const int64_t i = static_cast<int64_t>(u());
        completion(c, index_ok(i));
      }
      r.flag = k > 0;
      break;
    }
    case Op::kTest:
      r.requests = {s()};
      r.flag = u() != 0;
      if (r.flag) {
        r.done.resize(1);
        completion(r.done[0], 0);
      }
      break;
    case Op::kTestall:
      requests();
      r.flag = u() != 0;
      if (r.flag) {
        r.done.resize(r.requests.size());
        for (size_t i = 0; i < r.done.size(); ++i)
          completion(r.done[i], static_cast<int64_t>(i));
      }
      break;
    case Op::kTestany:
      requests();
      r.flag = u() != 0;
      r.index = index_ok(s());
      if (r.index >= 0) {
        r.done.resize(1);
        completion(r.done[0], r.index);
      }
      break;
    case Op::kProbe:
      r.comm = s();
      r.peer = s();
      r.tag = s();
      received(r.status);
      r.flag = true;
      break;
    case Op::kIprobe:
      r.comm = s();
      r.peer = s();
      r.tag = s();
      r.flag = u() != 0;
      if (r.flag) received(r.status);
      break;
    case Op::kBarrier:
      r.comm = s();
      r.request = s();
      break;
    case Op::kBcast:
      r.comm = s();
      r.request = s();
      r.root = s();
      r.count = u();
      r.type_size = u();
      break;
    case Op::kReduce:
    case Op::kAllreduce:
    case Op::kScan:
    case Op::kExscan:
    case Op::kReduceScatterBlock:
      r.comm = s();
      r.request = s();
      if (r.op == Op::kReduce) r.root = s();
      r.count = u();
      r.type_size = u();
      r.reduce_op = u();
      break;
    case Op::kReduceScatter:
      r.comm = s();
      r.request = s();
      r.type_size = u();
      r.reduce_op = u();
      list(r.counts);
      break;
    case Op::kGather:
    case Op::kScatter:
    case Op::kAllgather:
    case Op::kAlltoall:
      r.comm = s();
      r.request = s();
      if (r.op == Op::kGather || r.op == Op::kScatter) r.root = s();
      r.count = u();
      r.type_size = u();
      r.count2 = u();
      r.type_size2 = u();
      break;
    case Op::kGatherv:
    case Op::kAllgatherv:
      r.comm = s();
      r.request = s();
      if (r.op == Op::kGatherv) r.root = s();
      r.count = u();
      r.type_size = u();
      r.type_size2 = u();
      list(r.counts2);
      break;
    case Op::kScatterv:
      r.comm = s();
      r.request = s();
      r.root = s();
      r.type_size = u();
      list(r.counts);
      r.count2 = u();
      r.type_size2 = u();
      break;
    case Op::kAlltoallv:
      r.comm = s();
      r.request = s();
      r.type_size = u();
      list(r.counts);
      r.type_size2 = u();
      list(r.counts2);
      break;
    case Op::kCommNew:
      r.mode = u();
      r.comm = s();
      r.new_comm = s();
      list(r.counts);
      break;
    case Op::kCommFree:
      r.comm = s();
      break;
    default:
      fail(record_at_, fmt::format("corrupt: unexpected record type {}", op));
  }
  if (pos_ > block_end_) fail(record_at_, "corrupt: a record runs past the end of its block");
  ++records_;
  return true;
}

std::string call_name(const Record& r, const Reader& reader) {
  static const char* const send_modes[] = {"", "s", "b", "r"};
  switch (r.op) {
    case Op::kLocal:
    case Op::kOther:
      return reader.name(r.name);
    case Op::kInit:
      return r.mode == 0 ? "MPI_Init" : "MPI_Init_thread";
    case Op::kSend: {
      const std::string m = send_modes[r.mode & 3];
      return m.empty() ? "MPI_Send" : fmt::format("MPI_{}send", static_cast<char>(std::toupper(m[0])));
    }
    case Op::kIsend:
      return fmt::format("MPI_I{}send", send_modes[r.mode & 3]);
    case Op::kSendInit: {
      const std::string m = send_modes[r.mode & 3];
      return m.empty() ? "MPI_Send_init" : fmt::format("MPI_{}send_init", static_cast<char>(std::toupper(m[0])));
    }
    case Op::kCommNew: {
      static const char* const kinds[] = {"MPI_Comm_dup",        "MPI_Comm_split", "MPI_Comm_create", "MPI_Cart_create",
                                          "MPI_Comm_split_type", "MPI_Cart_sub",   "MPI_Comm_new"};
      return kinds[std::min<uint64_t>(r.mode, 6)];
    }
    case Op::kBarrier:
    case Op::kBcast:
    case Op::kReduce:
    case Op::kAllreduce:
    case Op::kScan:
    case Op::kExscan:
    case Op::kReduceScatterBlock:
    case Op::kReduceScatter:
    case Op::kGather:
    case Op::kScatter:
    case Op::kAllgather:
    case Op::kAlltoall:
    case Op::kGatherv:
    case Op::kScatterv:
    case Op::kAllgatherv:
    case Op::kAlltoallv: {
      // The non-blocking form (a request) is MPI_I<lower-case name>.
      const std::string base = op_name(r.op);
      if (r.request < 0) return "MPI_" + base;
      return "MPI_I" + std::string(1, static_cast<char>(std::tolower(base[0]))) + base.substr(1);
    }
    default:
      return fmt::format("MPI_{}", op_name(r.op));
  }
}

uint64_t call_bytes(const Record& r) {
  auto sum = [](const std::vector<uint64_t>& v) {
    uint64_t t = 0;
    for (uint64_t x : v)
      t += x;
    return t;
  };
  switch (r.op) {
    case Op::kSend:
    case Op::kIsend:
    case Op::kSendInit:
    case Op::kRecv:
    case Op::kIrecv:
    case Op::kRecvInit:
    case Op::kSendrecv:
    case Op::kSendrecvReplace:
    case Op::kBcast:
    case Op::kReduce:
    case Op::kAllreduce:
    case Op::kScan:
    case Op::kExscan:
    case Op::kReduceScatterBlock:
    case Op::kGather:
    case Op::kScatter:
    case Op::kAllgather:
    case Op::kAlltoall:
    case Op::kGatherv:
    case Op::kAllgatherv:
      return r.count * r.type_size;
    case Op::kReduceScatter:
    case Op::kScatterv:
    case Op::kAlltoallv:
      return sum(r.counts) * r.type_size;
    default:
      return 0;
  }
}

std::vector<std::filesystem::path> trace_files(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) throw TraceError(fmt::format("{}: not a directory of traces", dir.string()));
  std::map<uint32_t, fs::path> by_rank;
  uint32_t size = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".mgt") continue;
    Reader r(e.path());
    if (size == 0) size = r.header().size;
    if (r.header().size != size) {
      throw TraceError(fmt::format("{}: recorded with {} ranks, other files of {} with {}", e.path().string(),
                                   r.header().size, dir.string(), size));
    }
    if (!by_rank.emplace(r.header().rank, e.path()).second) {
      throw TraceError(fmt::format("{}: two files for rank {}", dir.string(), r.header().rank));
    }
  }
  if (by_rank.empty()) throw TraceError(fmt::format("{}: no trace files (*.mgt)", dir.string()));
  std::vector<fs::path> out;
  for (uint32_t rank = 0; rank < size; ++rank) {
    auto it = by_rank.find(rank);
    if (it == by_rank.end()) {
      throw TraceError(fmt::format("{}: no trace of rank {} (the run had {} ranks)", dir.string(), rank, size));
    }
    out.push_back(it->second);
  }
  return out;
}

}  // namespace mgen::trace
