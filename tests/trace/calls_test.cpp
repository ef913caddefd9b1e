// The call table (calls.def) against the code it drives: every opcode has its row, and every
// row round-trips through the encoder the recorder uses (record.hpp) and the reader, with the
// MPI name `mgen trace` gives it. tests/mpi/trace_test.cpp checks the bytes themselves against
// docs/trace-format.md.
#include <unistd.h>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "mgen/trace/reader.hpp"

using namespace mgen::trace;
namespace fs = std::filesystem;

namespace {

// Values for every field a row lists; `full`: flags set, requests and completions present,
// the non-blocking form and the second MPI name; else the empty or blocking case.
Record example(const CallRow& row, bool full) {
  Record r;
  r.op = row.op;
  r.dt_cpu = 1234;
  r.dt_wall = 5678;
  r.dur = 1u << 30;
  const Received got{3, -7, 800};
  for (Field f : row.fields()) {
    switch (f) {
      case Field::kRecords:
        r.records = 2;
        break;
      case Field::kNameDef:
        r.text = "MPI_Example";
        break;
      case Field::kName:
        r.name = 0;
        break;
      case Field::kThreadLevel:
      case Field::kSendMode:
      case Field::kCommKind:
        r.mode = full ? 1 : 0;
        break;
      case Field::kComm:
      case Field::kParent:
        r.comm = 5;
        break;
      case Field::kNewComm:
        r.new_comm = full ? 7 : -1;
        break;
      case Field::kMembers:
      case Field::kCounts:
        r.counts = full ? std::vector<uint64_t>{4, 0, 1ull << 33} : std::vector<uint64_t>{};
        break;
      case Field::kCounts2:
        r.counts2 = {1, 2};
        break;
      case Field::kDest:
      case Field::kSource:
        r.peer = full ? -2 : 3;  // MPI_ANY_SOURCE
        break;
      case Field::kTag:
        r.tag = -1;  // MPI_ANY_TAG
        break;
      case Field::kSource2:
        r.peer2 = 1;
        break;
      case Field::kTag2:
        r.tag2 = 99;
        break;
      case Field::kRoot:
        r.root = 2;
        break;
      case Field::kCount:
        r.count = 1ull << 40;
        break;
      case Field::kTypeSize:
        r.type_size = 8;
        break;
      case Field::kCount2:
        r.count2 = 12;
        break;
      case Field::kTypeSize2:
        r.type_size2 = 4;
        break;
      case Field::kReduceOp:
        r.reduce_op = 0x58000003;
        break;
      case Field::kRequest:
        r.request = full ? 17 : -1;
        break;
      case Field::kRequests:
        r.requests = full ? std::vector<int64_t>{4, -1, 6} : std::vector<int64_t>{};
        break;
      case Field::kOneRequest:
        r.requests = {full ? 9 : -1};
        break;
      case Field::kIndex:
        r.index = full ? static_cast<int64_t>(r.requests.size()) - 1 : -1;
        break;
      case Field::kFlag:
        r.flag = full;
        break;
      case Field::kStatus:
        r.status = got;
        break;
      case Field::kStatusIfFlag:
        if (r.flag) r.status = got;
        break;
      case Field::kCompletionsIfFlag:
        if (!r.flag) break;
        [[fallthrough]];
      case Field::kCompletions:
        for (size_t i = 0; i < r.requests.size(); ++i) {
          const bool receive = i % 2 == 0;
          r.done.push_back({static_cast<int64_t>(i), receive, receive ? got : Received{}});
        }
        break;
      case Field::kCompletionAtIndex:
        if (r.index >= 0) r.done = {{r.index, true, got}};
        break;
      case Field::kSomeCompletions:
        if (full) r.done = {{2, true, got}, {0, false, {}}};
        r.flag = !r.done.empty();
        break;
    }
  }
  return r;
}

std::string expected_name(const CallRow& row, const Record& r) {
  switch (row.by) {
    case NameBy::kRecorded:
      return "MPI_Example";
    case NameBy::kOne:
      return std::string(row.name(0));
    case NameBy::kMode:
    case NameBy::kLevel:
      return std::string(row.name(r.mode));
    case NameBy::kBlocking:
      return std::string(row.name(r.request < 0 ? 0 : 1));
  }
  return "";
}

// A one-block trace of `records` (already encoded), ended by its End record.
fs::path write_trace(const std::vector<uint8_t>& records, uint64_t count) {
  std::vector<uint8_t> payload = records;
  Record end;
  end.op = Op::kEnd;
  end.records = count;
  encode(payload, end);
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof h.magic);
  h.version = kVersion;
  h.header_bytes = sizeof h;
  h.size = 1;
  const auto len = static_cast<uint32_t>(payload.size());
  const uint32_t crc = crc32(payload.data(), payload.size());
  static int n = 0;
  const fs::path file = fs::temp_directory_path() /
                        ("mgen_calls_test_" + std::to_string(::getpid()) + "_" + std::to_string(n++) + ".mgt");
  std::ofstream out(file, std::ios::binary);
  out.write(reinterpret_cast<const char*>(&h), sizeof h);
  out.write(reinterpret_cast<const char*>(&len), 4);
  out.write(reinterpret_cast<const char*>(&crc), 4);
  out.write(reinterpret_cast<const char*>(payload.data()), static_cast<std::streamsize>(payload.size()));
  return file;
}

}  // namespace

TEST_CASE("every opcode has exactly one row, and every MPI name one row", "[trace][calls]") {
  REQUIRE(kCalls.size() == static_cast<size_t>(Op::kCount));
  std::set<std::string> op_names, mpi_names;
  size_t n_names = 0;
  for (size_t i = 0; i < kCalls.size(); ++i) {
    INFO("opcode " << i);
    CHECK(static_cast<size_t>(kCalls[i].op) == i);
    CHECK(&call_row(static_cast<Op>(i)) == &kCalls[i]);
    op_names.insert(kCalls[i].op_name);
    for (size_t k = 0; k < kCalls[i].name_count(); ++k) {
      mpi_names.insert(std::string(kCalls[i].name(k)));
      ++n_names;
    }
  }
  CHECK(op_names.size() == kCalls.size());
  CHECK(mpi_names.size() == n_names);
  CHECK(n_names == 73);  // the hand-written wrappers of wrappers/recorder, less MPI_Abort and MPI_Pcontrol
}

TEST_CASE("every row round-trips through the encoder and the reader", "[trace][calls]") {
  for (const CallRow& row : kCalls) {
    if (row.cls == CallClass::kTrace) continue;  // End and Name frame every trace below
    for (bool full : {true, false}) {
      INFO(row.op_name << (full ? " (full)" : " (empty)"));
      Record name;
      name.op = Op::kName;
      name.name = 0;
      name.text = "MPI_Example";
      std::vector<uint8_t> bytes;
      encode(bytes, name);
      Record want = example(row, full);
      want.offset = sizeof(Header) + kBlockHeader + bytes.size();
      encode(bytes, want);
      const fs::path file = write_trace(bytes, 2);
      Reader reader(file);
      Record got;
      REQUIRE(reader.next(got));
      CHECK(got == want);
      CHECK(call_name(got, reader) == expected_name(row, want));
      CHECK_FALSE(reader.next(got));
      CHECK(reader.complete());
      fs::remove(file);
    }
  }
}

TEST_CASE("payload bytes: the send side, per-rank counts summed, none for calls without data", "[trace][calls]") {
  auto bytes = [](Op op) { return call_bytes(example(call_row(op), true)); };
  const uint64_t block = (1ull << 40) * 8, summed = (4 + (1ull << 33)) * 8;
  CHECK(bytes(Op::kIsend) == block);
  CHECK(bytes(Op::kRecv) == block);
  CHECK(bytes(Op::kSendrecv) == block);
  CHECK(bytes(Op::kGather) == block);
  CHECK(bytes(Op::kGatherv) == block);
  CHECK(bytes(Op::kAlltoallv) == summed);
  CHECK(bytes(Op::kScatterv) == summed);
  CHECK(bytes(Op::kReduceScatter) == summed);
  CHECK(bytes(Op::kCommNew) == 0);  // its list is members, not counts
  CHECK(bytes(Op::kBarrier) == 0);
  CHECK(bytes(Op::kWaitall) == 0);
  CHECK(bytes(Op::kProbe) == 0);
}
