// Strong types for simulated time, sizes and rates.
//
// Time is an integer count of picoseconds: every model quantity in the papers (0.6 ns cable
// latency, 108.75 ns per Gemini hop) is exact at this resolution, and integer arithmetic makes
// runs bit-identical. Bytes and Bandwidth are distinct types so a size can never be passed
// where a rate is expected. Units are parsed from strings only at the config boundary.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>

namespace mgen::simcore {

class Time {
 public:
  constexpr Time() = default;
  static constexpr Time ps(int64_t v) { return Time(v); }
  static constexpr Time ns(int64_t v) { return Time(v * 1000); }
  static constexpr Time us(int64_t v) { return Time(v * 1000 * 1000); }
  static constexpr Time ms(int64_t v) { return Time(v * 1000 * 1000 * 1000); }
  static constexpr Time zero() { return Time(0); }
  static constexpr Time max() { return Time(std::numeric_limits<int64_t>::max()); }

  constexpr int64_t count_ps() const { return ps_; }
  constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }
  constexpr double nanoseconds() const { return static_cast<double>(ps_) * 1e-3; }
  constexpr double microseconds() const { return static_cast<double>(ps_) * 1e-6; }

  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Time o) const { return Time(ps_ + o.ps_); }
  constexpr Time operator-(Time o) const { return Time(ps_ - o.ps_); }
  constexpr Time& operator+=(Time o) {
    ps_ += o.ps_;
    return *this;
  }
  constexpr Time& operator-=(Time o) {
    ps_ -= o.ps_;
    return *this;
  }
  constexpr Time operator*(int64_t k) const { return Time(ps_ * k); }

 private:
  constexpr explicit Time(int64_t v) : ps_(v) {}
  int64_t ps_ = 0;
};

constexpr Time max(Time a, Time b) {
  return a < b ? b : a;
}
constexpr Time min(Time a, Time b) {
  return a < b ? a : b;
}

class Bytes {
 public:
  constexpr Bytes() = default;
  constexpr explicit Bytes(uint64_t v) : n_(v) {}
  constexpr uint64_t count() const { return n_; }
  constexpr auto operator<=>(const Bytes&) const = default;
  constexpr Bytes operator+(Bytes o) const { return Bytes(n_ + o.n_); }
  constexpr Bytes operator-(Bytes o) const { return Bytes(n_ - o.n_); }
  constexpr Bytes& operator+=(Bytes o) {
    n_ += o.n_;
    return *this;
  }
  constexpr Bytes& operator-=(Bytes o) {
    n_ -= o.n_;
    return *this;
  }

 private:
  uint64_t n_ = 0;
};

// A rate in bytes per second. "GB/s" means 10^9 bytes per second, as network specifications
// (and the papers) use it.
class Bandwidth {
 public:
  constexpr Bandwidth() = default;
  static constexpr Bandwidth bytes_per_second(uint64_t v) { return Bandwidth(v); }
  static constexpr Bandwidth gigabytes_per_second(uint64_t v) { return Bandwidth(v * 1000000000ULL); }
  constexpr uint64_t bytes_per_s() const { return bps_; }
  constexpr double gbytes_per_s() const { return static_cast<double>(bps_) * 1e-9; }
  constexpr bool is_zero() const { return bps_ == 0; }
  constexpr auto operator<=>(const Bandwidth&) const = default;

 private:
  constexpr explicit Bandwidth(uint64_t v) : bps_(v) {}
  uint64_t bps_ = 0;
};

// Time to push `n` bytes through a channel of rate `bw`, rounded up to the next picosecond
// (a channel never finishes early). Exact for any size: 64-bit arithmetic while n * 10^12
// fits, 128-bit beyond.
constexpr Time transfer_time(Bytes n, Bandwidth bw) {
  constexpr uint64_t kPsPerS = 1000000000000ULL;
  const uint64_t bytes = n.count();
  const uint64_t rate = bw.bytes_per_s();
  if (bytes <= 18446744ULL) return Time::ps(static_cast<int64_t>((bytes * kPsPerS + rate - 1) / rate));
  __extension__ using u128 = unsigned __int128;
  const u128 num = static_cast<u128>(bytes) * kPsPerS;
  return Time::ps(static_cast<int64_t>((num + rate - 1) / rate));
}

}  // namespace mgen::simcore
