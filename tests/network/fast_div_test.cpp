// FastDiv (network/include/mgen/net/fast_div.hpp) against the hardware's division: every
// divisor the routing tables use and the extremes of 32 bits, for the numerators where an
// off-by-one of the multiplier would show (around multiples of d, and at 2^32 - 1).
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "mgen/net/fast_div.hpp"

TEST_CASE("FastDiv divides like the hardware for every 32-bit divisor tried", "[fast_div]") {
  std::vector<uint32_t> divisors = {
      1,   2,   3,   5,    6,    7,       10,    12,    16,    17,          24,          48,          64,         100,
      255, 256, 641, 1000, 4096, 6700417, 65535, 65536, 65537, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu};
  std::mt19937 rng(7);
  for (int i = 0; i < 200; ++i)
    divisors.push_back(rng() | 1u);
  for (int i = 0; i < 200; ++i)
    divisors.push_back(rng() % 5000 + 1);
  for (const uint32_t d : divisors) {
    const mgen::net::FastDiv f(d);
    REQUIRE(f.divisor() == d);
    std::vector<uint32_t> ns = {0, 1, 2, 0xfffffffeu, 0xffffffffu, 0x80000000u, 0x7fffffffu};
    for (uint64_t k : {uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{1000}, uint64_t{0xffffffffu} / d}) {
      const uint64_t m = k * d;
      for (const uint64_t n : {m - 1, m, m + 1})
        if (n <= 0xffffffffu) ns.push_back(static_cast<uint32_t>(n));
    }
    for (int i = 0; i < 300; ++i)
      ns.push_back(rng());
    for (const uint32_t n : ns) {
      INFO(n << " / " << d);
      REQUIRE(f.div(n) == n / d);
      REQUIRE(f.mod(n) == n % d);
    }
  }
}
