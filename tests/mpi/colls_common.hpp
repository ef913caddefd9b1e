// Helpers shared by the collective tests: registry sweeps with a forced algorithm, reference
// values, roots.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "colls/colls.hpp"
#include "harness.hpp"

using namespace mgen::test;
using mgen::mpi::CollectiveConfig;
using mgen::simcore::transfer_time;

namespace colls_test {

using Body = std::function<void(int, int)>;
using Field = std::string CollectiveConfig::*;

inline const std::vector<int> kSizes = {1, 2, 3, 5, 8, 13, 64};

// The algorithms registered for one collective (the registry `mgen info` prints).
inline std::vector<std::string> algorithms(const std::string& collective) {
  std::vector<std::string> out;
  for (const auto& a : mgen::mpi::collective_algorithms()) {
    if (a.collective == collective) out.push_back(a.name);
  }
  return out;
}

inline mgen::mpi::MachineSetup machine_with(int p, Field field, const std::string& algorithm) {
  mgen::mpi::MachineSetup m = machine_for(static_cast<uint32_t>(p));
  m.collectives.*field = algorithm;
  return m;
}

// Runs `body` with `algorithm` forced; a failed run fails the test with the run's error.
inline mgen::mpi::RunReport run_with(int p, Field field, const std::string& algorithm, const Body& body) {
  const auto r = run(static_cast<uint32_t>(p), body, machine_with(p, field, algorithm));
  INFO(algorithm << " on " << p << " ranks: " << r.error);
  REQUIRE(r.ok);
  return r;
}

// Every algorithm of `collective` at every size of kSizes (or `sizes`).
inline void sweep(const std::string& collective, Field field, const std::function<Body(int p)>& make,
                  const std::vector<int>& sizes = kSizes) {
  const auto names = algorithms(collective);
  REQUIRE(!names.empty());
  for (const std::string& name : names) {
    for (int p : sizes) {
      INFO(collective << " " << name << " on " << p << " ranks");
      run_with(p, field, name, make(p));
    }
  }
}

// Small integers, some negative: sums of them are exact in any order, in any type.
inline long long val(int rank, int i) {
  return (rank * 7 + i * 3) % 11 - 4;
}
inline long long sum_over(int p, int i) {
  long long s = 0;
  for (int r = 0; r < p; ++r)
    s += val(r, i);
  return s;
}

inline std::vector<int> roots_of(int p) {
  std::vector<int> roots = {0, p - 1, p / 2};
  std::sort(roots.begin(), roots.end());
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  return roots;
}

inline int64_t ps(double seconds) {
  return std::llround(seconds * 1e12);
}

}  // namespace colls_test
