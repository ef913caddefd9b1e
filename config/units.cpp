// Exact parsing of quantities with units. A number is read as an integer mantissa and a power of
// ten, so "0.6ns" is 6 * 10^-1 * 10^3 ps = 600 ps with no floating-point rounding anywhere; the
// unit contributes an integer multiplier, a power of ten and (for bits) a divisor of 8.
#include "mgen/config/units.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>

namespace mgen::config {
namespace {

__extension__ using u128 = unsigned __int128;

// Every quantity must fit the int64 that Time holds; Bytes and Bandwidth use the same ceiling so
// all three behave alike.
constexpr u128 kLimit = static_cast<u128>(std::numeric_limits<int64_t>::max());
// Significant digits kept in the mantissa. 24 digits is far more than any int64 value needs
// (19) plus the 12 fractional digits a value in seconds may carry down to picoseconds, and keeps
// mantissa * multiplier (< 10^24 * 1024^4) well inside 128 bits.
constexpr int kMaxDigits = 24;

struct Unit {
  const char* name;
  uint64_t multiplier;  // binary prefixes
  int pow10;            // decimal prefixes
  uint32_t divisor;     // 8 for bit rates
  bool listed;          // shown in error messages; the others are accepted spellings
};

constexpr std::array kTimeUnits{
    Unit{"ps", 1, 0, 1, true}, Unit{"ns", 1, 3, 1, true},
    Unit{"us", 1, 6, 1, true}, Unit{"\xC2\xB5s", 1, 6, 1, false},  // "µs" in UTF-8
    Unit{"ms", 1, 9, 1, true}, Unit{"s", 1, 12, 1, true},
};

constexpr uint64_t kKi = 1024;
constexpr uint64_t kMi = kKi << 10;
constexpr uint64_t kGi = kKi << 20;
constexpr uint64_t kTi = kKi << 30;
constexpr std::array kByteUnits{
    Unit{"B", 1, 0, 1, true},     Unit{"KB", 1, 3, 1, true},    Unit{"kB", 1, 3, 1, false},
    Unit{"MB", 1, 6, 1, true},    Unit{"GB", 1, 9, 1, true},    Unit{"TB", 1, 12, 1, true},
    Unit{"KiB", kKi, 0, 1, true}, Unit{"MiB", kMi, 0, 1, true}, Unit{"GiB", kGi, 0, 1, true},
    Unit{"TiB", kTi, 0, 1, true},
};

constexpr std::array kRateUnits{
    Unit{"B/s", 1, 0, 1, true},     Unit{"KB/s", 1, 3, 1, true},     Unit{"kB/s", 1, 3, 1, false},
    Unit{"MB/s", 1, 6, 1, true},    Unit{"GB/s", 1, 9, 1, true},     Unit{"TB/s", 1, 12, 1, true},
    Unit{"KiB/s", kKi, 0, 1, true}, Unit{"MiB/s", kMi, 0, 1, true},  Unit{"GiB/s", kGi, 0, 1, true},
    Unit{"TiB/s", kTi, 0, 1, true}, Unit{"bit/s", 1, 0, 8, false},   Unit{"bps", 1, 0, 8, false},
    Unit{"Kb/s", 1, 3, 8, true},    Unit{"kb/s", 1, 3, 8, false},    Unit{"Kbit/s", 1, 3, 8, false},
    Unit{"kbit/s", 1, 3, 8, false}, Unit{"Kbps", 1, 3, 8, false},    Unit{"kbps", 1, 3, 8, false},
    Unit{"Mb/s", 1, 6, 8, true},    Unit{"Mbit/s", 1, 6, 8, false},  Unit{"Mbps", 1, 6, 8, false},
    Unit{"Gb/s", 1, 9, 8, true},    Unit{"Gbit/s", 1, 9, 8, false},  Unit{"Gbps", 1, 9, 8, false},
    Unit{"Tb/s", 1, 12, 8, true},   Unit{"Tbit/s", 1, 12, 8, false}, Unit{"Tbps", 1, 12, 8, false},
};

template <size_t N>
std::string listed_units(const std::array<Unit, N>& units) {
  std::string out;
  for (const Unit& u : units) {
    if (u.listed) out += std::string(out.empty() ? "" : ", ") + u.name;
  }
  return out;
}

// What is being parsed, for messages: "time" with its unit list, etc.
struct Kind {
  const char* what;
  const char* base;  // the unit results are counted in
  std::string units;
  const char* aliases;
};

[[noreturn]] void fail(const Kind& kind, std::string_view text, const std::string& problem) {
  throw UnitError(fmt::format("bad {} \"{}\": {} (units: {}{})", kind.what, text, problem, kind.units, kind.aliases));
}

bool is_space(char c) {
  return c == ' ' || c == '\t';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_space(s.back()))
    s.remove_suffix(1);
  return s;
}

u128 pow10(int n) {
  u128 r = 1;
  for (int i = 0; i < n; ++i)
    r *= 10;
  return r;
}

enum class Rounding { kExact, kNearest };

// Parses "<digits>[.<digits>] <unit>" into an integer in the base unit (ps, B, B/s).
template <size_t N>
uint64_t parse_quantity(std::string_view original, const std::array<Unit, N>& units, const Kind& kind,
                        Rounding rounding) {
  const std::string_view text = trim(original);
  if (text.empty()) fail(kind, original, "empty; expected a number followed by a unit");
  if (text.front() == '-') fail(kind, original, "cannot be negative");

  // Mantissa digits without leading zeros; exp10 counts the fractional digits consumed.
  size_t pos = 0;
  std::string digits;
  int exp10 = 0;
  bool any_digit = false;
  while (pos < text.size() && is_digit(text[pos])) {
    any_digit = true;
    if (!digits.empty() || text[pos] != '0') digits += text[pos];
    ++pos;
  }
  if (!any_digit) fail(kind, original, "expected a number followed by a unit");
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    if (pos >= text.size() || !is_digit(text[pos])) fail(kind, original, "expected digits after the decimal point");
    while (pos < text.size() && is_digit(text[pos])) {
      if (!digits.empty() || text[pos] != '0') digits += text[pos];
      --exp10;
      ++pos;
    }
  }
  // Trailing zeros carry no information; dropping them keeps the digit limit about precision.
  while (!digits.empty() && digits.back() == '0') {
    digits.pop_back();
    ++exp10;
  }
  if (static_cast<int>(digits.size()) > kMaxDigits) fail(kind, original, "too many significant digits");
  u128 mantissa = 0;
  for (char c : digits)
    mantissa = mantissa * 10 + static_cast<u128>(c - '0');

  const std::string_view unit_text = trim(text.substr(pos));
  if (unit_text.empty()) fail(kind, original, "missing unit");
  const Unit* unit = nullptr;
  for (const Unit& u : units) {
    if (unit_text == u.name) unit = &u;
  }
  if (unit == nullptr) fail(kind, original, fmt::format("unknown unit \"{}\"", unit_text));
  if (mantissa == 0) return 0;

  // value = mantissa * multiplier * 10^e / divisor, with e possibly negative.
  u128 num = mantissa * unit->multiplier;  // < 10^24 * 2^40, no overflow
  u128 den = unit->divisor;
  const int e = exp10 + unit->pow10;
  if (e > 0) {
    for (int i = 0; i < e; ++i) {
      num *= 10;
      if (num > kLimit * den) fail(kind, original, "too large");
    }
  } else if (e < 0) {
    // Beyond 10^36 the quotient is below 1 (num < 1.2 * 10^36), so it is a fraction or rounds to 0.
    if (-e > 36) {
      if (rounding == Rounding::kExact) fail(kind, original, fmt::format("not a whole number of {}", kind.base));
      return 0;
    }
    den *= pow10(-e);
  }
  u128 value = num / den;
  const u128 rem = num % den;
  if (rem != 0) {
    if (rounding == Rounding::kExact) fail(kind, original, fmt::format("not a whole number of {}", kind.base));
    if (rem * 2 >= den) ++value;  // nearest, halves up
  }
  if (value > kLimit) fail(kind, original, "too large");
  return static_cast<uint64_t>(value);
}

// Prints value / scale with up to three decimals, trailing zeros removed ("108.75", "2").
std::string decimal(uint64_t value, uint64_t scale) {
  const u128 milli = (static_cast<u128>(value) * 1000 + scale / 2) / scale;
  const auto whole = static_cast<uint64_t>(milli / 1000);
  const auto frac = static_cast<uint32_t>(milli % 1000);
  if (frac == 0) return fmt::format("{}", whole);
  std::string f = fmt::format("{:03}", frac);
  while (f.back() == '0')
    f.pop_back();
  return fmt::format("{}.{}", whole, f);
}

struct Scale {
  uint64_t factor;
  const char* name;
};

// The largest unit that keeps the printed value at least 1; if rounding to three decimals
// reaches 1000 of a unit, the next one up reads better ("1 us", not "1000 ns").
template <size_t N>
std::string format_scaled(uint64_t value, const std::array<Scale, N>& scales) {
  size_t i = 0;
  while (i + 1 < N && value < scales[i].factor)
    ++i;
  if (i > 0) {
    // Every table steps by 1000 between neighbouring units.
    const u128 milli = (static_cast<u128>(value) * 1000 + scales[i].factor / 2) / scales[i].factor;
    if (milli >= 1000 * 1000) --i;
  }
  return fmt::format("{} {}", decimal(value, scales[i].factor), scales[i].name);
}

}  // namespace

simcore::Time parse_time(std::string_view text) {
  const Kind kind{"time", "picoseconds", listed_units(kTimeUnits), ""};
  return simcore::Time::ps(static_cast<int64_t>(parse_quantity(text, kTimeUnits, kind, Rounding::kExact)));
}

simcore::Bytes parse_bytes(std::string_view text) {
  const Kind kind{"size", "bytes", listed_units(kByteUnits), ""};
  return simcore::Bytes(parse_quantity(text, kByteUnits, kind, Rounding::kExact));
}

simcore::Bandwidth parse_bandwidth(std::string_view text) {
  const Kind kind{"bandwidth", "bytes per second", listed_units(kRateUnits), "; also Gbit/s, Gbps"};
  const uint64_t bps = parse_quantity(text, kRateUnits, kind, Rounding::kNearest);
  if (bps == 0) fail(kind, text, "must be greater than zero");
  return simcore::Bandwidth::bytes_per_second(bps);
}

std::string format_time(simcore::Time t) {
  static constexpr std::array kScales{Scale{1000000000000ULL, "s"}, Scale{1000000000ULL, "ms"}, Scale{1000000ULL, "us"},
                                      Scale{1000ULL, "ns"}, Scale{1ULL, "ps"}};
  const int64_t ps = t.count_ps();
  if (ps == 0) return "0 s";
  // The magnitude of INT64_MIN does not fit int64; negate in unsigned arithmetic.
  const uint64_t magnitude = ps < 0 ? 0 - static_cast<uint64_t>(ps) : static_cast<uint64_t>(ps);
  return (ps < 0 ? "-" : "") + format_scaled(magnitude, kScales);
}

std::string format_bandwidth(simcore::Bandwidth bw) {
  static constexpr std::array kScales{Scale{1000000000ULL, "GB/s"}, Scale{1000000ULL, "MB/s"}, Scale{1000ULL, "KB/s"},
                                      Scale{1ULL, "B/s"}};
  return format_scaled(bw.bytes_per_s(), kScales);
}

std::string format_bytes(simcore::Bytes b) {
  static constexpr std::array kScales{Scale{kGi, "GiB"}, Scale{kMi, "MiB"}, Scale{kKi, "KiB"}};
  const uint64_t n = b.count();
  for (const Scale& s : kScales) {
    if (n != 0 && n % s.factor == 0) return fmt::format("{} {}", n / s.factor, s.name);
  }
  return fmt::format("{} B", n);
}

}  // namespace mgen::config
