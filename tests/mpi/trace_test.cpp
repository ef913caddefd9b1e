// Trace files written here by hand (the format of docs/trace-format.md), then read back and
// replayed: decoding, every kind of damage, and replay decisions taken as recorded.
#include <unistd.h>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "harness.hpp"
#include "mgen/trace/reader.hpp"
#include "mgen/trace/replay.hpp"

using namespace mgen::trace;
namespace fs = std::filesystem;

namespace {

// One rank's trace under construction.
struct Writer {
  Header h{};
  std::vector<uint8_t> block;
  uint64_t records = 0;

  Writer(uint32_t rank, uint32_t size) {
    std::memcpy(h.magic, kMagic, sizeof h.magic);
    h.version = kVersion;
    h.header_bytes = sizeof h;
    h.rank = rank;
    h.size = size;
    h.t0_ns = 1000;
  }
  // A call record: op, times, then fields (signed ones zigzag-encoded by the caller's choice).
  Writer& call(Op op, uint64_t cpu_ns, std::initializer_list<std::pair<bool, int64_t>> fields) {
    block.push_back(static_cast<uint8_t>(op));
    put_u(block, cpu_ns);
    put_u(block, cpu_ns);
    put_u(block, 100);
    for (auto [is_signed, v] : fields) {
      if (is_signed) {
        put_s(block, v);
      } else {
        put_u(block, static_cast<uint64_t>(v));
      }
    }
    ++records;
    return *this;
  }
  Writer& name(uint64_t id, const std::string& s) {
    block.push_back(static_cast<uint8_t>(Op::kName));
    put_u(block, id);
    put_u(block, s.size());
    block.insert(block.end(), s.begin(), s.end());
    ++records;
    return *this;
  }
  std::vector<uint8_t> bytes(bool end = true) const {
    std::vector<uint8_t> payload = block;
    if (end) {
      payload.push_back(static_cast<uint8_t>(Op::kEnd));
      put_u(payload, records);
    }
    std::vector<uint8_t> out(sizeof h);
    std::memcpy(out.data(), &h, sizeof h);
    const auto len = static_cast<uint32_t>(payload.size());
    const uint32_t crc = crc32(payload.data(), payload.size());
    out.resize(out.size() + 8);
    std::memcpy(&out[sizeof h], &len, 4);
    std::memcpy(&out[sizeof h + 4], &crc, 4);
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
  }
};

constexpr std::pair<bool, int64_t> U(int64_t v) {
  return {false, v};
}
constexpr std::pair<bool, int64_t> S(int64_t v) {
  return {true, v};
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / fmt_name();
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  static std::string fmt_name() {
    static int n = 0;
    return "mgen_trace_test_" + std::to_string(::getpid()) + "_" + std::to_string(n++);
  }
  fs::path write(const std::string& name, const std::vector<uint8_t>& bytes) const {
    std::ofstream out(path / name, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return path / name;
  }
};

std::string error_of(const fs::path& file) {
  try {
    Reader r(file);
    Record rec;
    while (r.next(rec)) {
    }
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

// MPICH's wildcard values (mpi.h), which traces carry as recorded.
constexpr int64_t kAnySource = -2, kAnyTag = -1;

}  // namespace

TEST_CASE("records decode to what was written, with names and payload bytes", "[trace]") {
  TempDir d;
  Writer w(0, 2);
  w.call(Op::kInit, 0, {U(0)})
      .call(Op::kIsend, 500, {U(1), S(0), S(1), S(7), U(10), U(8), S(0)})
      .name(0, "MPI_Wtime")
      .call(Op::kLocal, 0, {U(0)})
      .call(Op::kWaitall, 20, {U(1), S(0), U(0)})
      .call(Op::kAllreduce, 30, {S(0), S(-1), U(4), U(8), U(3)})
      .call(Op::kFinalize, 0, {});
  const fs::path f = d.write("rank-0.mgt", w.bytes());
  Reader r(f);
  CHECK(r.header().rank == 0);
  CHECK(r.header().size == 2);
  std::vector<std::string> names;
  std::vector<uint64_t> bytes;
  Record rec;
  while (r.next(rec)) {
    names.push_back(call_name(rec, r));
    bytes.push_back(call_bytes(rec));
    if (rec.op == Op::kIsend) {
      CHECK(rec.dt_cpu == 500);
      CHECK(rec.peer == 1);
      CHECK(rec.tag == 7);
      CHECK(rec.request == 0);
    }
  }
  CHECK(r.complete());
  CHECK(names == std::vector<std::string>{"MPI_Init", "MPI_Issend", "MPI_Wtime", "MPI_Waitall", "MPI_Allreduce",
                                          "MPI_Finalize"});
  CHECK(bytes == std::vector<uint64_t>{0, 80, 0, 0, 32, 0});
}

TEST_CASE("damaged traces are reported with the rank and the offset", "[trace]") {
  TempDir d;
  Writer w(3, 4);
  for (int i = 0; i < 20; ++i)
    w.call(Op::kBarrier, 10, {S(0), S(-1)});
  const std::vector<uint8_t> good = w.bytes();

  std::vector<uint8_t> corrupt = good;
  corrupt[sizeof(Header) + 8 + 30] ^= 0x40;
  CHECK_THAT(error_of(d.write("c.mgt", corrupt)),
             Catch::Contains("rank 3: offset 112: corrupt: block checksum mismatch"));

  std::vector<uint8_t> truncated(good.begin(), good.end() - 5);
  CHECK_THAT(error_of(d.write("t.mgt", truncated)), Catch::Contains("rank 3: offset 112: truncated"));

  std::vector<uint8_t> magic = good;
  magic[0] = 'X';
  CHECK_THAT(error_of(d.write("m.mgt", magic)), Catch::Contains("not an mgen trace"));

  std::vector<uint8_t> version = good;
  version[8] = 9;
  CHECK_THAT(error_of(d.write("v.mgt", version)), Catch::Contains("trace format version 9"));

  CHECK_THAT(error_of(d.write("s.mgt", std::vector<uint8_t>(good.begin(), good.begin() + 40))),
             Catch::Contains("too short for a trace header"));

  // A block that is intact but whose record is cut short (a bad writer, not a bad disk).
  Writer bad(1, 2);
  bad.block = {static_cast<uint8_t>(Op::kSend), 1, 1};
  CHECK_THAT(error_of(d.write("r.mgt", bad.bytes(false))), Catch::Contains("runs past the end of its block"));

  // No end record: readable, but marked as the trace of a rank that died.
  Reader died(d.write("died.mgt", w.bytes(false)));
  Record rec;
  int n = 0;
  while (died.next(rec))
    ++n;
  CHECK(n == 20);
  CHECK_FALSE(died.complete());
}

TEST_CASE("a trace directory needs every rank", "[trace]") {
  TempDir d;
  d.write("rank-0.mgt", Writer(0, 3).bytes());
  d.write("rank-2.mgt", Writer(2, 3).bytes());
  CHECK_THROWS_WITH(trace_files(d.path), Catch::Contains("no trace of rank 1 (the run had 3 ranks)"));
}

namespace {

mgen::mpi::MachineSetup small_machine() {
  return mgen::test::machine_for(8);
}

}  // namespace

TEST_CASE("replay takes wildcard receives and Waitany as they went in the recorded run", "[trace][replay]") {
  // Rank 1 posts a wildcard receive and then a specific one; in the recorded run the
  // wildcard one got rank 2's message (tag 5), and Waitany completed it first. Ranks 0 and 2
  // send to rank 1; rank 2 only after 50 us of computation.
  TempDir d;
  Writer r0(0, 3), r1(1, 3), r2(2, 3);
  r0.call(Op::kSend, 0, {U(0), S(0), S(1), S(4), U(1), U(8)});
  r2.call(Op::kSend, 50000, {U(0), S(0), S(1), S(5), U(1), U(8)});
  r1.call(Op::kIrecv, 0, {S(0), S(kAnySource), S(kAnyTag), U(1), U(8), S(0)})
      .call(Op::kIrecv, 0, {S(0), S(0), S(4), U(1), U(8), S(1)})
      .call(Op::kWaitany, 0, {U(2), S(0), S(1), S(0), U(1), S(2), S(5), U(8)})
      .call(Op::kWait, 0, {S(1), U(1), S(0), S(4), U(8)});
  for (Writer* w : {&r0, &r1, &r2})
    w->call(Op::kFinalize, 0, {});
  d.write("rank-0.mgt", r0.bytes());
  d.write("rank-1.mgt", r1.bytes());
  d.write("rank-2.mgt", r2.bytes());
  mgen::mpi::JobConfig job;
  ReplayOptions o;
  o.durations = true;
  const ReplayResult a = replay(small_machine(), job, d.path, o);
  REQUIRE(a.report.ok);
  // Rank 1's Waitany waited for rank 2's message (sent after 50 us), although rank 0's was
  // there long before: the wildcard became "from 2, tag 5".
  double waitany = 0;
  for (const CallTiming& t : a.durations) {
    if (t.rank == 1 && t.call == "MPI_Waitany") waitany = t.simulated_start + t.simulated;
  }
  CHECK(waitany > 50e-6);
  CHECK(a.report.predicted_s() > 50e-6);
  const ReplayResult b = replay(small_machine(), job, d.path, o);
  CHECK(b.report.predicted_s() == a.report.predicted_s());  // deterministic
}

TEST_CASE("replay refuses calls it cannot reproduce, naming them", "[trace][replay]") {
  TempDir d;
  Writer r0(0, 1);
  r0.name(0, "MPI_File_open").call(Op::kOther, 0, {U(0)});
  d.write("rank-0.mgt", r0.bytes());
  const ReplayResult res = replay(small_machine(), mgen::mpi::JobConfig{}, d.path, ReplayOptions{});
  CHECK_FALSE(res.report.ok);
  // Named as the reader names a defect: file, rank, offset of the record (after the header, the
  // block's 8 bytes and the 16-byte name record).
  CHECK_THAT(res.report.error,
             Catch::Contains("rank-0.mgt: rank 0: offset 136: the recorded run called MPI_File_open, which mgen "
                             "cannot replay (record 0)"));
}
