// Division of 32-bit unsigned integers by a divisor fixed in advance, by one multiplication:
// the packet model's per-hop routing divides destinations by a topology's radices, and a
// hardware divide costs 10-40 cycles where this costs about 4 (issue 18: no division on the
// per-packet path).
//
// With M = ceil(2^64 / d), floor(n / d) is the high 64 bits of M * n for every n and d below
// 2^32 (D. Lemire, O. Kaser, N. Kurz, "Faster remainder by direct computation", 2019, Thm. 1).
// M does not fit 64 bits only for d = 1, which is kept apart.
#pragma once

#include <cstdint>

namespace mgen::net {

class FastDiv {
  __extension__ using u128 = unsigned __int128;

 public:
  FastDiv() = default;
  explicit FastDiv(uint32_t d) : d_(d), m_(d <= 1 ? 0 : ~uint64_t{0} / d + 1) {}

  uint32_t divisor() const { return d_; }
  uint32_t div(uint32_t n) const {
    const auto q = static_cast<uint32_t>((static_cast<u128>(m_) * n) >> 64);
    return d_ == 1 ? n : q;
  }
  uint32_t mod(uint32_t n) const { return n - div(n) * d_; }

 private:
  uint32_t d_ = 1;
  uint64_t m_ = 0;
};

}  // namespace mgen::net
