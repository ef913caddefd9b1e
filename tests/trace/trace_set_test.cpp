// A directory of traces must be one recorded run: the files that differ in run identifier or
// world size from what most files say are named (not the good ones), missing and second files
// of a rank are named, and version 1 traces (no run identifier) are still read.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "mgen/trace/reader.hpp"

using namespace mgen::trace;
namespace fs = std::filesystem;

namespace {

// A complete trace of rank `rank` of `size` ranks (only the end record) of run `run`.
std::vector<uint8_t> trace(uint32_t rank, uint32_t size, uint8_t run, uint16_t version = kVersion) {
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof h.magic);
  h.version = version;
  h.header_bytes = version == 1 ? kHeaderBytesV1 : sizeof h;
  h.rank = rank;
  h.size = size;
  std::memset(h.run_id, run, sizeof h.run_id);
  std::vector<uint8_t> out(h.header_bytes);
  std::memcpy(out.data(), &h, out.size());
  const std::vector<uint8_t> payload = {static_cast<uint8_t>(Op::kEnd), 0};
  const auto len = static_cast<uint32_t>(payload.size());
  const uint32_t crc = crc32(payload.data(), payload.size());
  out.resize(out.size() + 8);
  std::memcpy(&out[out.size() - 8], &len, 4);
  std::memcpy(&out[out.size() - 4], &crc, 4);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

struct Dir {
  fs::path path = fs::temp_directory_path() / ("mgen_trace_set_" + std::to_string(::getpid()) + "_" + next());
  Dir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Dir() { fs::remove_all(path); }
  static std::string next() {
    static int n = 0;
    return std::to_string(n++);
  }
  void write(const std::string& name, const std::vector<uint8_t>& bytes) const {
    std::ofstream out(path / name, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  // rank-0 .. rank-(n-1) of one run.
  void run(uint32_t n, uint8_t id, uint16_t version = kVersion) const {
    for (uint32_t r = 0; r < n; ++r)
      write(fmt("rank-{}.mgt", r), trace(r, n, id, version));
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
  static std::string fmt(const char* pattern, uint32_t r) {
    std::string s = pattern;
    return s.replace(s.find("{}"), 2, std::to_string(r));
  }
  std::string error() const {
    try {
      trace_set(path);
    } catch (const TraceError& e) {
      return e.what();
    }
    return "";
  }
};

// The run identifier of trace(..., run) as mgen prints it.
std::string hex(uint8_t run) {
  uint8_t bytes[kRunIdBytes];
  std::memset(bytes, run, sizeof bytes);
  return run_id_hex(bytes);
}

}  // namespace

TEST_CASE("one run's files are read in rank order", "[trace][set]") {
  Dir d;
  d.run(4, 0xa1);
  const TraceSet set = trace_set(d.path);
  REQUIRE(set.files.size() == 4);
  for (uint32_t r = 0; r < 4; ++r)
    CHECK(set.files[r] == d.path / Dir::fmt("rank-{}.mgt", r));
  CHECK(set.note.empty());
  CHECK(hex(0xa1) == "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1");
}

TEST_CASE("a file of another run is named with both run ids", "[trace][set]") {
  Dir d;
  d.run(4, 0xa1);
  d.write("rank-2.mgt", trace(2, 4, 0xb2));
  const std::string e = d.error();
  CHECK(e == d.file("rank-2.mgt") + ": rank 2: offset 96: from another run: run id " + hex(0xb2) +
                 ", the 3 other files of " + d.path.string() + " have run id " + hex(0xa1));
}

TEST_CASE("a wrong world size blames the odd file, even when it is rank 0's", "[trace][set]") {
  Dir d;
  d.run(4, 0xa1);
  d.write("rank-0.mgt", trace(0, 5, 0xa1));
  CHECK(d.error() == d.file("rank-0.mgt") + ": rank 0: offset 16: recorded with 5 ranks, the 3 other files of " +
                         d.path.string() + " with 4");
}

TEST_CASE("an extra rank file of a larger run is named", "[trace][set]") {
  Dir d;
  d.run(4, 0xa1);
  d.write("rank-5.mgt", trace(5, 8, 0xb2));
  CHECK(d.error() == d.file("rank-5.mgt") + ": rank 5: offset 96: from another run: run id " + hex(0xb2) +
                         " with 8 ranks, the 4 other files of " + d.path.string() + " have run id " + hex(0xa1) +
                         " with 4 ranks");
}

TEST_CASE("every odd file is named, one a line", "[trace][set]") {
  Dir d;
  d.run(6, 0xa1);
  d.write("rank-1.mgt", trace(1, 6, 0xb2));
  d.write("rank-4.mgt", trace(4, 6, 0xb2));
  const std::string e = d.error();
  CHECK_THAT(e, Catch::StartsWith(d.file("rank-1.mgt") + ": rank 1: offset 96: from another run"));
  CHECK_THAT(e, Catch::Contains("\n" + d.file("rank-4.mgt") + ": rank 4: offset 96: from another run"));
  CHECK_THAT(e, Catch::Contains("the 4 other files"));
  CHECK_THAT(e, !Catch::Contains("rank-0.mgt") && !Catch::Contains("rank-5.mgt"));
}

TEST_CASE("missing ranks are named", "[trace][set]") {
  Dir d;
  d.write("rank-0.mgt", trace(0, 3, 1));
  d.write("rank-2.mgt", trace(2, 3, 1));
  CHECK(d.error() == d.path.string() + ": no trace of rank 1 (the run had 3 ranks): rank-1.mgt is missing");
  Dir many;
  for (uint32_t r : {0u, 2u, 5u})
    many.write(Dir::fmt("rank-{}.mgt", r), trace(r, 7, 1));
  CHECK(many.error() == many.path.string() + ": no trace of 4 ranks: 1, 3-4, 6 (the run had 7 ranks)");
  // A header that claims billions of ranks is answered at once, not with a list per rank.
  Dir huge;
  huge.write("rank-0.mgt", trace(0, 4000000000u, 1));
  CHECK(huge.error() ==
        huge.path.string() + ": no trace of 3999999999 ranks: 1-3999999999 (the run had 4000000000 ranks)");
}

TEST_CASE("a second file of a rank is named, not the recorder's own", "[trace][set]") {
  Dir d;
  d.run(3, 1);
  d.write("a-copy.mgt", trace(1, 3, 1));
  CHECK(d.error() == d.file("a-copy.mgt") + ": rank 1: offset 12: a second trace of rank 1 (the first is " +
                         d.file("rank-1.mgt") + ")");
}

TEST_CASE("version 1 traces are read, with a note that the run is not checked", "[trace][set]") {
  Dir d;
  d.run(2, 0, 1);
  const TraceSet set = trace_set(d.path);
  CHECK(set.files.size() == 2);
  CHECK(set.note ==
        d.path.string() + ": trace format version 1 has no run identifier: not checked that the files are of one run");
  Reader r(set.files[1]);
  CHECK(r.header().version == 1);
  CHECK(r.header().rank == 1);
  Record rec;
  CHECK_FALSE(r.next(rec));
  CHECK(r.complete());

  // A version 1 file among version 2 ones is another run's.
  Dir mixed;
  mixed.run(3, 0xa1);
  mixed.write("rank-1.mgt", trace(1, 3, 0, 1));
  CHECK(mixed.error() ==
        mixed.file("rank-1.mgt") +
            ": rank 1: offset 8: from another run: run id none (format version 1), the 2 other files of " +
            mixed.path.string() + " have run id " + hex(0xa1));
}

TEST_CASE("header versions and sizes the reader does not take", "[trace][set]") {
  Dir d;
  std::vector<uint8_t> v3 = trace(0, 1, 1);
  v3[8] = 3;
  d.write("v3.mgt", v3);
  CHECK_THROWS_WITH(Reader(d.path / "v3.mgt"),
                    Catch::Contains("offset 8: trace format version 3, this mgen reads versions 1 to 2"));
  std::vector<uint8_t> short_v2 = trace(0, 1, 1);
  short_v2[10] = 96;  // a version 2 header cut to version 1's size
  d.write("short.mgt", short_v2);
  CHECK_THROWS_WITH(Reader(d.path / "short.mgt"),
                    Catch::Contains("offset 10: bad header size 96 (version 2 needs 112"));
}
