// Where `mgen replay` finds its traces (otf2.hpp): an OTF2 archive's calls written as mgen
// traces in a temporary directory, or the directory given.
#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "otf2.hpp"

namespace mgen::cli {

namespace fs = std::filesystem;
using trace::Op;
using trace::Record;

void write_mgen_trace(const fs::path& file, uint32_t rank, uint32_t size, const uint8_t (&run_id)[trace::kRunIdBytes],
                      const std::vector<Record>& records) {
  trace::Header h{};
  std::memcpy(h.magic, trace::kMagic, sizeof h.magic);
  h.version = trace::kVersion;
  h.header_bytes = sizeof(trace::Header);
  h.rank = rank;
  h.size = size;
  std::strncpy(h.host, "otf2", sizeof h.host - 1);
  std::memcpy(h.run_id, run_id, sizeof h.run_id);
  std::ofstream out(file, std::ios::binary);
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", file.string()));
  out.write(reinterpret_cast<const char*>(&h), sizeof h);
  std::vector<uint8_t> block;
  auto flush = [&] {
    if (block.empty()) return;
    const uint32_t len = static_cast<uint32_t>(block.size()), crc = trace::crc32(block.data(), block.size());
    out.write(reinterpret_cast<const char*>(&len), 4);
    out.write(reinterpret_cast<const char*>(&crc), 4);
    out.write(reinterpret_cast<const char*>(block.data()), static_cast<std::streamsize>(block.size()));
    block.clear();
  };
  for (const Record& r : records) {
    trace::encode(block, r);
    if (block.size() > (1u << 20)) flush();
  }
  Record end;
  trace::reset(end, Op::kEnd);
  end.records = records.size();
  trace::encode(block, end);
  flush();
  if (!out) throw std::runtime_error(fmt::format("failed writing {}", file.string()));
}

fs::path otf2_anchor(const fs::path& path) {
  std::error_code ec;
  if (path.extension() == ".otf2" && fs::is_regular_file(path, ec)) return path;
  if (fs::is_directory(path, ec) && fs::is_regular_file(path / "traces.otf2", ec)) return path / "traces.otf2";
  return {};
}
ReplaySource::ReplaySource(const fs::path& path) : dir_(path) {
  const fs::path anchor = otf2_anchor(path);
  if (anchor.empty()) return;
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = (fs::path(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") / "mgen-otf2-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error(fmt::format("cannot make a temporary directory {}: {}", pattern, std::strerror(errno)));
  }
  temp_ = dir_ = pattern;
  otf2_to_traces(anchor, dir_);
}

ReplaySource::~ReplaySource() {
  std::error_code ec;
  if (!temp_.empty()) fs::remove_all(temp_, ec);
}

}  // namespace mgen::cli
