// Units are checked against values worked out by hand, not against the parser's own arithmetic.
#include <catch2/catch.hpp>

#include <string>

#include "mgen/config/units.hpp"

using mgen::config::format_bandwidth;
using mgen::config::format_bytes;
using mgen::config::format_time;
using mgen::config::parse_bandwidth;
using mgen::config::parse_bytes;
using mgen::config::parse_time;
using mgen::config::UnitError;
using mgen::simcore::Bandwidth;
using mgen::simcore::Bytes;
using mgen::simcore::Time;

TEST_CASE("times parse exactly to picoseconds", "[config][units]") {
  CHECK(parse_time("108.75ns") == Time::ps(108750));  // Gemini per-hop latency
  CHECK(parse_time("0.6ns") == Time::ps(600));        // cable latency: 0.6 is not exact in binary
  CHECK(parse_time("1.27us") == Time::ps(1270000));
  CHECK(parse_time("128ns") == Time::ps(128000));
  CHECK(parse_time("4 ns") == Time::ps(4000));
  CHECK(parse_time("7ps") == Time::ps(7));
  CHECK(parse_time("2ms") == Time::ps(2000000000));
  CHECK(parse_time("1.5s") == Time::ps(1500000000000));
  CHECK(parse_time("3\xC2\xB5s") == Time::ps(3000000));  // µs
  CHECK(parse_time("0ns") == Time::zero());
  CHECK(parse_time("0.000001us") == Time::ps(1));
  CHECK(parse_time("0.000000000001s") == Time::ps(1));
  CHECK(parse_time("007.500ns") == Time::ps(7500));
  CHECK(parse_time("  20ns ") == Time::ps(20000));
  // The largest representable time, 2^63 - 1 ps.
  CHECK(parse_time("9223372036854775807ps") == Time::max());
}

TEST_CASE("sizes parse in decimal and binary units", "[config][units]") {
  CHECK(parse_bytes("2KiB") == Bytes(2048));
  CHECK(parse_bytes("16KiB") == Bytes(16384));
  CHECK(parse_bytes("32B") == Bytes(32));
  CHECK(parse_bytes("1KB") == Bytes(1000));
  CHECK(parse_bytes("1.5KiB") == Bytes(1536));
  CHECK(parse_bytes("3MiB") == Bytes(3145728));
  CHECK(parse_bytes("2 GB") == Bytes(2000000000));
  CHECK(parse_bytes("1GiB") == Bytes(1073741824));
  CHECK(parse_bytes("1TiB") == Bytes(1099511627776));
  CHECK(parse_bytes("1TB") == Bytes(1000000000000));
}

TEST_CASE("bandwidths parse in bytes and bits per second", "[config][units]") {
  CHECK(parse_bandwidth("4GB/s") == Bandwidth::bytes_per_second(4000000000));
  CHECK(parse_bandwidth("4 GB/s") == Bandwidth::bytes_per_second(4000000000));
  CHECK(parse_bandwidth("9.375GB/s") == Bandwidth::bytes_per_second(9375000000));
  CHECK(parse_bandwidth("4.68 GB/s") == Bandwidth::bytes_per_second(4680000000));
  CHECK(parse_bandwidth("2.8GB/s") == Bandwidth::bytes_per_second(2800000000));
  CHECK(parse_bandwidth("10Gb/s") == Bandwidth::bytes_per_second(1250000000));
  CHECK(parse_bandwidth("10Gbit/s") == Bandwidth::bytes_per_second(1250000000));
  CHECK(parse_bandwidth("10Gbps") == Bandwidth::bytes_per_second(1250000000));
  CHECK(parse_bandwidth("100Mbps") == Bandwidth::bytes_per_second(12500000));
  CHECK(parse_bandwidth("1Kb/s") == Bandwidth::bytes_per_second(125));
  CHECK(parse_bandwidth("1Tb/s") == Bandwidth::bytes_per_second(125000000000));
  CHECK(parse_bandwidth("500MB/s") == Bandwidth::bytes_per_second(500000000));
  CHECK(parse_bandwidth("1KiB/s") == Bandwidth::bytes_per_second(1024));
  CHECK(parse_bandwidth("1GiB/s") == Bandwidth::bytes_per_second(1073741824));
  CHECK(parse_bandwidth("7B/s") == Bandwidth::bytes_per_second(7));
  // Bit rates round to the nearest byte per second: 12 b/s = 1.5 B/s -> 2; 1.1 B/s -> 1.
  CHECK(parse_bandwidth("0.012Kb/s") == Bandwidth::bytes_per_second(2));
  CHECK(parse_bandwidth("1.1B/s") == Bandwidth::bytes_per_second(1));
  CHECK(parse_bandwidth("1.4B/s") == Bandwidth::bytes_per_second(1));
  CHECK(parse_bandwidth("1.6B/s") == Bandwidth::bytes_per_second(2));
}

TEST_CASE("malformed quantities are refused", "[config][units]") {
  for (const char* bad : {"", "   ", "ns", "abc", "-5ns", "128", "128 nsec", "4GB/s", "0.0001ns", "1.ns", "1.5.ns",
                          "1e3ns", "9223372036854775808ps", "10000000s", "0.5ps", "1,5ns", "+1ns"}) {
    INFO("time: \"" << bad << "\"");
    CHECK_THROWS_AS(parse_time(bad), UnitError);
  }
  for (const char* bad : {"", "KiB", "-1B", "2048", "2 KiBs", "0.5B", "1.0001KB", "10000000000GB", "2kib", "4GB/s"}) {
    INFO("bytes: \"" << bad << "\"");
    CHECK_THROWS_AS(parse_bytes(bad), UnitError);
  }
  for (const char* bad : {"", "GB/s", "-4GB/s", "4", "4GB", "4 gb/s", "0GB/s", "0.1B/s", "0.000000000001GB/s",
                          "10000000000GB/s", "4GB/h"}) {
    INFO("bandwidth: \"" << bad << "\"");
    CHECK_THROWS_AS(parse_bandwidth(bad), UnitError);
  }
}

TEST_CASE("unit errors quote the text and list the accepted units", "[config][units]") {
  try {
    parse_time("128 nsec");
    FAIL("no exception");
  } catch (const UnitError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("\"128 nsec\""));
    CHECK_THAT(what, Catch::Contains("unknown unit \"nsec\""));
    CHECK_THAT(what, Catch::Contains("ps, ns, us, ms, s"));
  }
  try {
    parse_time("0.0001ns");
    FAIL("no exception");
  } catch (const UnitError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("not a whole number of picoseconds"));
  }
  try {
    parse_bandwidth("4 gb/s");
    FAIL("no exception");
  } catch (const UnitError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("GB/s") && Catch::Contains("Gb/s"));
  }
  try {
    parse_bytes("2048");
    FAIL("no exception");
  } catch (const UnitError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("missing unit") && Catch::Contains("KiB"));
  }
}

TEST_CASE("formatting picks a readable unit", "[config][units]") {
  CHECK(format_time(Time::ps(108750)) == "108.75 ns");
  CHECK(format_time(Time::ps(1270000)) == "1.27 us");
  CHECK(format_time(Time::zero()) == "0 s");
  CHECK(format_time(Time::ps(600)) == "600 ps");
  CHECK(format_time(Time::ns(1)) == "1 ns");
  CHECK(format_time(Time::ms(3)) == "3 ms");
  CHECK(format_time(Time::ps(1500000000000)) == "1.5 s");
  CHECK(format_time(Time::ps(1234567)) == "1.235 us");  // rounded to three decimals
  CHECK(format_time(Time::ps(999999600)) == "1 ms");    // 999.9996 us reads as 1 ms, not 1000 us
  CHECK(format_time(Time::ps(-20000)) == "-20 ns");
  CHECK(format_bandwidth(Bandwidth::bytes_per_second(9375000000)) == "9.375 GB/s");
  CHECK(format_bandwidth(Bandwidth::bytes_per_second(4000000000)) == "4 GB/s");
  CHECK(format_bandwidth(Bandwidth::bytes_per_second(12500000)) == "12.5 MB/s");
  CHECK(format_bandwidth(Bandwidth::bytes_per_second(125)) == "125 B/s");
  CHECK(format_bandwidth(Bandwidth::bytes_per_second(1500)) == "1.5 KB/s");
  CHECK(format_bytes(Bytes(2048)) == "2 KiB");
  CHECK(format_bytes(Bytes(2080)) == "2080 B");
  CHECK(format_bytes(Bytes(0)) == "0 B");
  CHECK(format_bytes(Bytes(3145728)) == "3 MiB");
  CHECK(format_bytes(Bytes(1073741824)) == "1 GiB");
}

TEST_CASE("formatted quantities parse back to the same value", "[config][units]") {
  for (int64_t ps :
       {int64_t{1}, int64_t{600}, int64_t{108750}, int64_t{1270000}, int64_t{20000000}, int64_t{1500000000000}}) {
    const Time t = Time::ps(ps);
    INFO(format_time(t));
    CHECK(parse_time(format_time(t)) == t);
  }
  for (uint64_t bps : {uint64_t{1}, uint64_t{125}, uint64_t{4680000000}, uint64_t{9375000000}, uint64_t{12500000}}) {
    const Bandwidth bw = Bandwidth::bytes_per_second(bps);
    INFO(format_bandwidth(bw));
    CHECK(parse_bandwidth(format_bandwidth(bw)) == bw);
  }
  for (uint64_t n : {uint64_t{0}, uint64_t{32}, uint64_t{2048}, uint64_t{2080}, uint64_t{65536}, uint64_t{1} << 30}) {
    INFO(format_bytes(Bytes(n)));
    CHECK(parse_bytes(format_bytes(Bytes(n))) == Bytes(n));
  }
}
