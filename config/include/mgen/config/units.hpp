// Quantities with units, as written in machine files: "128ns", "4GB/s", "2KiB". Parsed here and
// nowhere else, with exact decimal arithmetic (0.6ns is exactly 600 ps).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "mgen/simcore/units.hpp"

namespace mgen::config {

class UnitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Time: ps, ns, us, ms, s. Must be a whole number of picoseconds and not negative.
simcore::Time parse_time(std::string_view text);
// Size: B, KB, MB, GB (powers of 1000), KiB, MiB, GiB (powers of 1024). Whole bytes.
simcore::Bytes parse_bytes(std::string_view text);
// Rate: B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, and bits: Kb/s, Mb/s, Gb/s, Tb/s
// (also spelled Gbit/s, Gbps). Rounded to the nearest byte per second; must be positive.
simcore::Bandwidth parse_bandwidth(std::string_view text);

// Readable forms for summaries ("108.75 ns", "9.375 GB/s", "2 KiB").
std::string format_time(simcore::Time t);
std::string format_bandwidth(simcore::Bandwidth bw);
std::string format_bytes(simcore::Bytes b);

}  // namespace mgen::config
