// OTF2 (the Open Trace Format 2 of Score-P, Vampir and Scalasca) in and out (docs/otf2.md).
#pragma once

#include <filesystem>
#include <string>

#include "mgen/config/machine.hpp"
#include "mgen/mpi/run.hpp"
#include "mgen/trace/record.hpp"

namespace mgen::cli {

// The predicted run as the OTF2 archive DIR/traces.otf2 (otf2_export.cpp), from the report's
// call log (JobConfig::call_log): one location per rank, the modelled machine's nodes as the
// system tree, a region per MPI call and "compute" between calls, point-to-point and collective
// events. Timestamps are the simulated clock in picoseconds (timer resolution 10^12 per second).
void write_otf2(const std::filesystem::path& dir, const config::MachineConfig& m, const mpi::RunReport& r);

// Whether `path` is an OTF2 archive (an .otf2 anchor file) or a directory holding traces.otf2:
// the anchor file, or empty.
std::filesystem::path otf2_anchor(const std::filesystem::path& path);

// Reads the OTF2 archive (a Score-P trace, or mgen's own export) and writes one mgen trace per
// location (rank) into `out` (otf2_import.cpp), for `mgen replay`: the MPI calls recognised by
// their regions' names, with the peers, tags, sizes and communicators of the MPI events inside
// them; the time between leaving one MPI call and entering the next is computation. Throws
// std::invalid_argument (exit 2) for a record or call it cannot replay, naming the archive, the
// location and the event's number, and for a corrupt or truncated archive.
void otf2_to_traces(const std::filesystem::path& anchor, const std::filesystem::path& out);

// One rank's mgen trace (docs/trace-format.md): the header, the records in blocks, the end record
// (otf2_source.cpp).
void write_mgen_trace(const std::filesystem::path& file, uint32_t rank, uint32_t size,
                      const uint8_t (&run_id)[trace::kRunIdBytes], const std::vector<trace::Record>& records);

// The traces `mgen replay PATH` reads: PATH itself, or for an OTF2 archive (otf2_anchor), its
// mgen traces in a temporary directory that lives as long as this object.
class ReplaySource {
 public:
  explicit ReplaySource(const std::filesystem::path& path);
  ~ReplaySource();
  ReplaySource(const ReplaySource&) = delete;
  ReplaySource& operator=(const ReplaySource&) = delete;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_, temp_;
};

}  // namespace mgen::cli
