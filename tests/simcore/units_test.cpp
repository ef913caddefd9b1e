#include <catch2/catch.hpp>

#include "mgen/simcore/units.hpp"

using namespace mgen::simcore;

TEST_CASE("time constructors are exact picosecond counts", "[units]") {
  CHECK(Time::ns(1).count_ps() == 1000);
  CHECK(Time::us(3).count_ps() == 3000000);
  CHECK((Time::ns(108) + Time::ps(750)).count_ps() == 108750);
  CHECK(max(Time::ns(1), Time::ns(2)) == Time::ns(2));
  CHECK(Time::ns(5) * 3 == Time::ns(15));
}

TEST_CASE("transfer time is bytes over rate, rounded up to a picosecond", "[units]") {
  // 4 GB/s = 250 ps per byte exactly.
  CHECK(transfer_time(Bytes(2048), Bandwidth::gigabytes_per_second(4)) == Time::ns(512));
  CHECK(transfer_time(Bytes(0), Bandwidth::gigabytes_per_second(4)) == Time::zero());
  // 3 B/s: one byte takes 333333333333.33 ps -> rounded up.
  CHECK(transfer_time(Bytes(1), Bandwidth::bytes_per_second(3)).count_ps() == 333333333334);
  // 9.375 GB/s: 96 bytes take 10.24 ns exactly.
  CHECK(transfer_time(Bytes(96), Bandwidth::bytes_per_second(9375000000)) == Time::ps(10240));
  // Sizes beyond the 64-bit fast path: 1 TB at 1 GB/s is 1000 s.
  CHECK(transfer_time(Bytes(1000000000000ULL), Bandwidth::gigabytes_per_second(1)) == Time::ms(1000000));
  // Both paths agree at the boundary.
  const Bandwidth odd = Bandwidth::bytes_per_second(4680000000ULL);
  const Time a = transfer_time(Bytes(18446744), odd);
  const Time b = transfer_time(Bytes(18446745), odd);
  CHECK(b - a >= Time::ps(213));
  CHECK(b - a <= Time::ps(214));
}
