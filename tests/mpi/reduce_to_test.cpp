// reduce_apply_to (out = in op with, one pass: the folding receive of Rabenseifner's first
// halving step) must leave the same bytes as the two-pass way it replaces, a copy of `with`
// into `out` followed by reduce_apply, for every predefined (op, type) pair; and it must
// decline (return false, write nothing) wherever there is no such loop or the pair is invalid.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/datatype.hpp"

using namespace mgen::mpi;

namespace {

// Operand bytes every loop may read: small integers in every integer and floating type (no NaN,
// whose payload may depend on the operand order an instruction takes), 0 and 1 in logical ones.
std::vector<unsigned char> operand(const TypeInfo& t, uint64_t n, unsigned seed) {
  std::vector<unsigned char> v(n * t.size, 0);
  for (uint64_t i = 0; i < n; ++i) {
    const int value = static_cast<int>((i * 7 + seed * 13) % 23) - 11;
    unsigned char* e = v.data() + i * t.size;
    switch (t.kind) {
      case TypeInfo::Kind::kFloating:
      case TypeInfo::Kind::kComplex:
        if (t.size == sizeof(float) || t.size == 2 * sizeof(float)) {
          const float f = static_cast<float>(value) * 0.75f;
          std::memcpy(e, &f, sizeof f);
        } else if (t.size == sizeof(double) || t.size == 2 * sizeof(double)) {
          const double d = static_cast<double>(value) * 0.375;
          std::memcpy(e, &d, sizeof d);
        } else {
          e[0] = static_cast<unsigned char>(value & 0x7f);  // a long double's low mantissa byte
        }
        break;
      case TypeInfo::Kind::kLogical:
        e[0] = static_cast<unsigned char>(value > 0);
        break;
      default:
        for (uint32_t b = 0; b < t.size; ++b)
          e[b] = static_cast<unsigned char>(value * 37 + static_cast<int>(b) * 11);
        break;
    }
  }
  return v;
}

}  // namespace

TEST_CASE("reduce_apply_to: the same bytes as a copy then reduce_apply, for every predefined op and type") {
  constexpr uint64_t kCount = 37;  // odd: the vector loops' remainders run too
  int fast = 0, declined = 0;
  bool double_sum_fast = false;
  for (int type = 1; type < kExtraBase; ++type) {
    const TypeInfo* t = type_info(type);
    if (t == nullptr || t->size == 0) continue;
    for (int op = kOpMax; op <= kOpReplace; ++op) {
      const std::vector<unsigned char> in = operand(*t, kCount, 1), with = operand(*t, kCount, 2);
      std::vector<unsigned char> two_pass = with;
      const bool valid = reduce_apply(op, type, in.data(), two_pass.data(), kCount).empty();
      const std::vector<unsigned char> untouched(in.size(), 0xa5);
      std::vector<unsigned char> one_pass = untouched;
      const bool done = reduce_apply_to(op, type, in.data(), with.data(), one_pass.data(), kCount);
      INFO("type " << t->name << ", op " << op);
      if (!done) {
        ++declined;
        CHECK(one_pass == untouched);
        continue;
      }
      ++fast;
      REQUIRE(valid);
      CHECK(one_pass == two_pass);
      if (type == kTypeDouble && op == kOpSum) double_sum_fast = true;
    }
  }
  CHECK(double_sum_fast);
  CHECK(fast > 100);  // the integer, floating and complex types with their operations
  CHECK(declined > 0);
}

TEST_CASE("reduce_apply_to declines user operations, pair types and MPI_REPLACE") {
  double in[2] = {1, 2}, with[2] = {3, 4}, out[2] = {0, 0};
  CHECK_FALSE(reduce_apply_to(kExtraBase, kTypeDouble, in, with, out, 2));
  CHECK_FALSE(reduce_apply_to(kOpReplace, kTypeDouble, in, with, out, 2));
  CHECK_FALSE(reduce_apply_to(kOpMaxloc, kTypeDoubleInt, in, with, out, 1));
  CHECK_FALSE(reduce_apply_to(kOpSum, kTypeLongDouble, in, with, out, 1));  // padded elements
  CHECK(out[0] == 0);
  CHECK(reduce_apply_to(kOpSum, kTypeDouble, in, with, out, 2));
  CHECK(out[0] == 4);
  CHECK(out[1] == 6);
}
