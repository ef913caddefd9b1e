// mgen calibrate's fit recovers the parameters that made a synthetic ping-pong curve. The curve
// is written here from mgen's protocol rules (docs/calibration.md): an eager message is one copy
// of bytes + envelope, a rendezvous one is two envelope copies and the data's copy, each copy
// taking the node's latency and its size over the rate for that size.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "calibrate/fit.hpp"

using mgen::calibrate::Fit;
using mgen::calibrate::Measurements;
using mgen::calibrate::Sample;

namespace {

struct Truth {
  double os = 0.15, orr = 0.12, lat = 0.20;  // us
  double env = 64;
  uint64_t eager = 16384;
  double base = 8e9;  // bytes/s
  std::vector<std::pair<uint64_t, double>> rows = {{65536, 12e9}, {2u << 20, 6e9}};
  double rate(double bytes) const {
    double r = base;
    for (const auto& [from, v] : rows)
      if (bytes >= static_cast<double>(from)) r = v;
    return r;
  }
  double oneway_us(uint64_t b) const {
    const double s = static_cast<double>(b);
    if (b <= eager) return os + orr + lat + (s + env) / rate(s + env) * 1e6;
    return os + orr + 3 * lat + 2 * env / base * 1e6 + s / rate(s) * 1e6;
  }
};

Measurements synthetic(const Truth& t, double noise) {
  Measurements m;
  m.ranks = 2;
  uint32_t seed = 12345;
  auto jitter = [&] {  // deterministic, in [-noise, noise]
    seed = seed * 1664525u + 1013904223u;
    return noise * (2.0 * (seed >> 8) / double(1u << 24) - 1.0);
  };
  for (uint64_t b = 1; b <= (16u << 20); b *= 2) {
    const double v = t.oneway_us(b) * (1 + jitter());
    m.pingpong.emplace_back(b, Sample{v * 1.005, v * 0.999, v * 1.01, 5, v});
  }
  m.overhead["isend"] = Sample{t.os, t.os, t.os, 5, t.os};
  m.overhead["iprobe"] = Sample{0.04, 0.04, 0.04, 5, 0.04};
  m.overhead["wtime"] = Sample{0.03, 0.03, 0.03, 5, 0.03};
  m.compute["gflops"] = Sample{5.4, 5.3, 5.5, 5, 5.5};
  m.compute["stream"] = Sample{8900, 8800, 9000, 5, 9000};
  m.complete = true;
  return m;
}

}  // namespace

TEST_CASE("the fit recovers the parameters of an exact curve", "[calibrate]") {
  const Truth t;
  const Fit f = mgen::calibrate::fit(synthetic(t, 0));
  CHECK(f.eager_threshold == t.eager);
  CHECK(f.send_overhead_ns == Approx(t.os * 1e3).epsilon(1e-6));
  CHECK(f.latency_ns == Approx(t.lat * 1e3).epsilon(0.01));
  CHECK(f.recv_overhead_ns == Approx(t.orr * 1e3).epsilon(0.01));
  CHECK(f.bandwidth == Approx(t.base).epsilon(0.01));
  REQUIRE(f.bandwidth_by_size.size() == 2);
  // 32 KiB, the first rendezvous size, runs at the base rate: no row of its own.
  CHECK(f.bandwidth_by_size[0].first == 65536);
  CHECK(f.bandwidth_by_size[0].second == Approx(12e9).epsilon(0.01));
  CHECK(f.bandwidth_by_size[1].first == (2u << 20));
  CHECK(f.bandwidth_by_size[1].second == Approx(6e9).epsilon(0.01));
  CHECK(f.gflops == Approx(5.5));
  CHECK(f.stream_bandwidth == Approx(9e9));
  CHECK(f.poll_overhead_ns == Approx(40));
  for (const auto& r : f.residuals) {
    INFO(r.bytes << " bytes: measured " << r.measured << " model " << r.model);
    CHECK(std::abs(r.error()) < 0.01);
  }
}

TEST_CASE("the fit stays within 5% of a curve with 1% noise", "[calibrate]") {
  const Truth t;
  const Fit f = mgen::calibrate::fit(synthetic(t, 0.01));
  CHECK(f.eager_threshold == t.eager);
  CHECK(f.latency_ns == Approx(t.lat * 1e3).epsilon(0.25));
  CHECK(f.bandwidth == Approx(t.base).epsilon(0.05));
  for (const auto& r : f.residuals) {
    INFO(r.bytes << " bytes: measured " << r.measured << " model " << r.model);
    CHECK(std::abs(r.error()) < 0.05);
  }
}

TEST_CASE("a size slowed by another process does not bend the fit", "[calibrate]") {
  const Truth t;
  Measurements m = synthetic(t, 0);
  m.pingpong[5].second.best *= 3;  // 32 bytes: every batch interrupted
  const Fit f = mgen::calibrate::fit(m);
  CHECK(f.eager_threshold == t.eager);
  CHECK(f.latency_ns == Approx(t.lat * 1e3).epsilon(0.1));    // the line moves a little
  CHECK(f.residuals[5].measured == Approx(t.oneway_us(64)));  // taken from the next size
}

TEST_CASE("without a protocol switch the whole curve is eager", "[calibrate]") {
  Truth t;
  t.eager = 1u << 30;
  t.rows.clear();
  const Fit f = mgen::calibrate::fit(synthetic(t, 0));
  CHECK(f.eager_threshold == (16u << 20));
  CHECK(f.bandwidth_by_size.empty());
  CHECK(f.bandwidth == Approx(t.base).epsilon(0.01));
}

TEST_CASE("a step among the small sizes gets rates of its own", "[calibrate]") {
  // 256 and 512 bytes copy at a quarter of the base rate: the small sizes' line cannot follow.
  Truth t;
  t.rows = {{300, 2e9}, {1000, 8e9}, {65536, 12e9}, {2u << 20, 6e9}};
  mgen::calibrate::FitOptions opt;
  opt.eager_threshold = t.eager;  // the step would look like the protocol's to the knee finder
  const Fit f = mgen::calibrate::fit(synthetic(t, 0), opt);
  for (const auto& r : f.residuals) {
    INFO(r.bytes << " bytes: measured " << r.measured << " model " << r.model);
    CHECK(std::abs(r.error()) < 0.03);
  }
}

namespace {

// A streaming curve as calib.c prints it: MB/s for `ns` per message at each size.
std::vector<std::pair<uint64_t, Sample>> stream(const std::vector<std::pair<uint64_t, double>>& ns) {
  std::vector<std::pair<uint64_t, Sample>> out;
  for (const auto& [b, t] : ns) {
    const double mbps = static_cast<double>(b) / t * 1e3;
    out.emplace_back(b, Sample{mbps, mbps, mbps, 5, mbps});
  }
  return out;
}

}  // namespace

TEST_CASE("streaming gaps: start at the measured time per message, then move by the difference", "[calibrate]") {
  Fit f;
  f.eager_threshold = 8192;
  f.envelope = 64;
  Measurements real, sim;
  real.stream = stream({{1, 200}, {1024, 400}, {4096, 650}, {16384, 4000}});
  // The first check: 1 B as slow as measured (no gap needed), the rest too fast.
  sim.stream = stream({{1, 210}, {1024, 250}, {4096, 300}, {16384, 2000}});
  auto g = mgen::calibrate::next_gaps(real, sim, f);
  // Rows are copy sizes (eager ones carry the envelope); below the first rendezvous size a row
  // just above the largest eager copy, in proportion.
  REQUIRE(g.size() == 5);
  CHECK(g[0].first == 65);
  CHECK(g[0].second == 0);
  CHECK(g[1].first == 1088);
  CHECK(g[1].second == Approx(400.0));
  CHECK(g[2].first == 4160);
  CHECK(g[2].second == Approx(650.0));
  CHECK(g[3].first == 8257);
  CHECK(g[3].second == Approx(4000.0 * 8257 / 16384));
  CHECK(g[4].first == 16384);
  CHECK(g[4].second == Approx(4000.0));
  // The next check: where a gap binds the time per message follows it, so it moves by the miss.
  f.gap_by_size = g;
  sim.stream = stream({{1, 210}, {1024, 420}, {4096, 640}, {16384, 4100}});
  g = mgen::calibrate::next_gaps(real, sim, f);
  CHECK(g[1].second == Approx(380.0));
  CHECK(g[2].second == Approx(660.0));
  CHECK(g[4].second == Approx(3900.0));
  // Nothing faster than measured: no gaps at all.
  f.gap_by_size.clear();
  sim.stream = stream({{1, 210}, {1024, 420}, {4096, 700}, {16384, 4100}});
  CHECK(mgen::calibrate::next_gaps(real, sim, f).empty());
}

TEST_CASE("the benchmark output parses, with its errors placed", "[calibrate]") {
  const Measurements m = synthetic(Truth{}, 0);
  std::istringstream in("mpiexec says hello\n" + mgen::calibrate::to_lines(m));
  const Measurements back = mgen::calibrate::parse(in, "out.txt");
  CHECK(back.complete);
  CHECK(back.ranks == 2);
  CHECK(back.pingpong.size() == m.pingpong.size());
  CHECK(back.pingpong[3].second.value == Approx(m.pingpong[3].second.value));

  std::istringstream none("nothing here\n");
  CHECK_THROWS_WITH(mgen::calibrate::parse(none, "x.txt"), Catch::Contains("x.txt") && Catch::Contains("no 'calib'"));
  std::istringstream bad("calib 1 2\npingpong 64 abc\n");
  CHECK_THROWS_WITH(mgen::calibrate::parse(bad, "y.txt"), Catch::Contains("y.txt:2"));
  std::istringstream size("calib 1 2\npingpong 6x4 1 1 1 5\n");
  CHECK_THROWS_WITH(mgen::calibrate::parse(size, "z.txt"), Catch::Contains("z.txt:2") && Catch::Contains("6x4"));
}
