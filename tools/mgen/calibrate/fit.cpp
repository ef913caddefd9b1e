#include "fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace mgen::calibrate {

namespace {

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw std::runtime_error(fmt::format("{}: {}", where, what));
}

Sample read_sample(std::istringstream& in, const std::string& where) {
  Sample s;
  if (!(in >> s.value >> s.p25 >> s.p75 >> s.batches)) bad(where, "expected VALUE P25 P75 BATCHES [BEST]");
  if (!(in >> s.best)) s.best = s.value;
  if (!std::isfinite(s.value) || s.value < 0 || s.batches < 1 || !std::isfinite(s.best) || s.best < 0) {
    bad(where, "value out of range");
  }
  return s;
}

uint64_t read_bytes(const std::string& key, const std::string& where) {
  try {
    size_t used = 0;
    const unsigned long long v = std::stoull(key, &used);
    if (used == key.size()) return v;
  } catch (const std::exception&) {
  }
  bad(where, fmt::format("expected a size in bytes, got '{}'", key));
}

// The copy rate (bytes/s) the fit gives a copy of `bytes`.
double rate_for(const Fit& f, uint64_t bytes) {
  double r = f.bandwidth;
  for (const auto& [from, rate] : f.bandwidth_by_size) {
    if (bytes < from) break;
    r = rate;
  }
  return r;
}

// Weighted least squares of t = c + x * beta over points (x, t), weights 1/t^2 (relative error).
std::pair<double, double> line_fit(const std::vector<std::pair<double, double>>& pts) {
  double sw = 0, sx = 0, st = 0, sxx = 0, sxt = 0;
  for (const auto& [x, t] : pts) {
    const double w = 1 / (t * t);
    sw += w;
    sx += w * x;
    st += w * t;
    sxx += w * x * x;
    sxt += w * x * t;
  }
  const double det = sw * sxx - sx * sx;
  if (pts.size() < 2 || std::abs(det) < 1e-300) return {st / sw, 0};
  const double beta = (sw * sxt - sx * st) / det;
  return {(st - beta * sx) / sw, beta};
}

}  // namespace

bool parse_line(const std::string& line, Measurements& m, const std::string& where) {
  std::istringstream in(line);
  std::string what, key;
  if (!(in >> what)) return false;
  if (what == "calib") {
    int version = 0;
    if (!(in >> version >> m.ranks) || version != 1) bad(where, "expected 'calib 1 RANKS'");
    return true;
  }
  if (what == "end") {
    m.complete = true;
    return true;
  }
  if (what != "pingpong" && what != "stream" && what != "copy" && what != "overhead" && what != "compute" &&
      what != "kernel") {
    return false;
  }
  if (!(in >> key)) bad(where, "expected a key after '" + what + "'");
  const Sample s = read_sample(in, where);
  if (what == "pingpong") m.pingpong.emplace_back(read_bytes(key, where), s);
  if (what == "stream") m.stream.emplace_back(read_bytes(key, where), s);
  if (what == "copy") m.copy.emplace_back(read_bytes(key, where), s);
  if (what == "overhead") m.overhead[key] = s;
  if (what == "compute") m.compute[key] = s;
  if (what == "kernel") m.kernel[key] = s;
  return true;
}

Measurements parse(std::istream& in, const std::string& source) {
  Measurements m;
  std::string line;
  bool header = false;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::string where = fmt::format("{}:{}", source, n);
    if (!header) {
      if (line.rfind("calib ", 0) != 0) continue;
      header = true;
    }
    parse_line(line, m, where);
  }
  if (!header) bad(source, "no 'calib' header: not the output of the calibration benchmarks");
  return m;
}

double pingpong_model_us(const Fit& f, uint64_t bytes) {
  const double os = f.send_overhead_ns * 1e-3, orr = f.recv_overhead_ns * 1e-3, l = f.latency_ns * 1e-3;
  auto copy_us = [&](uint64_t n) { return static_cast<double>(n) / rate_for(f, n) * 1e6; };
  if (bytes <= f.eager_threshold) return os + orr + l + copy_us(bytes + f.envelope);
  return os + orr + 3 * l + 2 * copy_us(f.envelope) + copy_us(bytes);
}

Fit fit(const Measurements& m, const FitOptions& opt) {
  Fit f;
  f.envelope = opt.envelope;
  std::vector<std::pair<uint64_t, Sample>> pp = m.pingpong;
  std::sort(pp.begin(), pp.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  if (pp.size() < 4) throw std::runtime_error("the ping-pong curve has fewer than 4 sizes: nothing to fit");
  const auto overhead = [&](const char* key) {
    auto it = m.overhead.find(key);
    return it == m.overhead.end() ? 0.0 : it->second.best * 1e3;  // ns
  };
  f.send_overhead_ns = overhead("isend");
  f.poll_overhead_ns = overhead("iprobe");
  f.wtime_overhead_ns = overhead("wtime");
  if (auto it = m.compute.find("gflops"); it != m.compute.end()) f.gflops = it->second.best;
  if (auto it = m.compute.find("stream"); it != m.compute.end()) f.stream_bandwidth = it->second.best * 1e6;
  // The times fitted: each size's fastest batch, made non-decreasing from the largest size down.
  std::vector<double> fitted(pp.size());
  for (size_t i = pp.size(); i-- > 0;) {
    fitted[i] = i + 1 < pp.size() ? std::min(pp[i].second.best, fitted[i + 1]) : pp[i].second.best;
    if (fitted[i] < pp[i].second.best) {
      f.notes.push_back(
          fmt::format("{} bytes: fastest batch {:.3f} us is slower than a larger size's; fitted as {:.3f} us",
                      pp[i].first, pp[i].second.best, fitted[i]));
    }
  }

  const double env = static_cast<double>(f.envelope);
  // The eager threshold: where the time more than doubles from one size to the next. Sizes
  // double, so copies alone can at most double the time; more is a fixed cost added, the
  // rendezvous handshake. Without such a step every size is eager.
  size_t k = pp.size() - 1;
  if (opt.eager_threshold != 0) {
    while (k > 0 && pp[k].first > opt.eager_threshold)
      --k;
  } else {
    double steepest = opt.jump_ratio;
    bool found = false;
    // Only where fixed costs are still a large part of the time (up to 8 times the smallest
    // size's): further on, a step that more than doubles the time is a slower copy rate (a
    // cache level left behind), which the rows below take.
    for (size_t i = 0; i + 1 < pp.size() && fitted[i] <= 8 * fitted[0]; ++i) {
      const double ratio = fitted[i + 1] / fitted[i] * static_cast<double>(pp[i].first) /
                           static_cast<double>(pp[i + 1].first) * 2;  // as if the step were a doubling
      if (ratio > steepest) {
        steepest = ratio;
        k = i;
        found = true;
      }
    }
    // A step smaller than the small-message time does not show in the ratio: then the largest
    // range of sizes that one line fits within eager_tolerance is eager.
    for (; !found && k > 3; --k) {
      std::vector<std::pair<double, double>> all;
      for (size_t i = 0; i <= k; ++i)
        all.emplace_back(static_cast<double>(pp[i].first) + env, fitted[i]);
      const auto [c, b] = line_fit(all);
      double worst = 0;
      for (const auto& [x, t] : all)
        worst = std::max(worst, std::abs((c + x * b) / t - 1));
      if (worst <= opt.eager_tolerance) break;
    }
  }
  f.eager_threshold = k + 1 < pp.size() ? pp[k].first : pp.back().first;

  // The small-message line T = c + (bytes + env) beta, over the sizes up to small_limit.
  std::vector<std::pair<double, double>> pts;
  for (size_t i = 0; i <= k && (pp[i].first <= opt.small_limit || pts.size() < 2); ++i)
    pts.emplace_back(static_cast<double>(pp[i].first) + env, fitted[i]);
  const std::pair<double, double> line = line_fit(pts);
  const double c_e = line.first;
  double beta = line.second;  // us per byte
  if (beta <= 0) {
    beta = 1e-5;  // 100 GB/s
    f.notes.push_back("the small sizes show no bandwidth term; their copy rate is set to 100 GB/s");
  }
  f.bandwidth = 1e6 / beta;

  // Split c_e = o_s + o_r + L. Streaming small messages, the receiver completes one message per
  // o_r (the sender posts one per o_s, the copies overlap), so o_r is the time per message of
  // the smallest streamed size; without that measurement, L comes from the rendezvous step,
  // which the model makes 2 L + env beta.
  if (c_e - f.send_overhead_ns * 1e-3 < 0) {
    f.notes.push_back(
        fmt::format("posting an Isend ({:.3f} us) costs more than a whole small message ({:.3f} us): "
                    "the send overhead is cut to fit",
                    f.send_overhead_ns * 1e-3, c_e));
    f.send_overhead_ns = std::max(0.0, c_e) * 1e3;
  }
  const double room = std::max(0.0, c_e - f.send_overhead_ns * 1e-3);
  double l = 0;
  auto smallest_stream = std::min_element(m.stream.begin(), m.stream.end(),
                                          [](const auto& x, const auto& y) { return x.first < y.first; });
  if (smallest_stream != m.stream.end() && smallest_stream->second.best > 0) {
    const double per_message = std::max(
        0.0, static_cast<double>(smallest_stream->first) / smallest_stream->second.best - opt.stream_extra_ns * 1e-3);
    l = room - std::min(per_message, room);
  } else if (k + 1 < pp.size()) {
    const double s1 = static_cast<double>(pp[k + 1].first);
    l = (fitted[k + 1] - (c_e + (s1 + env) * beta) - env * beta) / 2;
    if (l > room) {
      f.notes.push_back(
          fmt::format("the rendezvous step asks for a copy latency of {:.3f} us, more than the {:.3f} us a small "
                      "message leaves: latency set to {:.3f} us, the rendezvous rates take the rest",
                      l, room, room));
    }
    l = std::clamp(l, 0.0, room);
  }
  f.latency_ns = l * 1e3;
  f.recv_overhead_ns = (room - l) * 1e3;

  // Every larger size: the copy rate it needs, rows merged while they agree.
  const double fixed_e = c_e;
  // Within the line's range, a size the line misses by more than merge_tolerance of its time (a
  // step in the small sizes) gets the rate it needs too, and so does the next size if that rate
  // does not fit it; tiny sizes, whose copy is a sliver of their time, are judged on time.
  for (size_t i = 1; i < pts.size(); ++i) {
    const double s = static_cast<double>(pp[i].first) + env;
    const double model = fixed_e + s / rate_for(f, pp[i].first + f.envelope) * 1e6;
    const double left = fitted[i] - fixed_e;
    if (std::abs(model / fitted[i] - 1) > opt.merge_tolerance && left > 0)
      f.bandwidth_by_size.emplace_back(pp[i].first, s / left * 1e6);
  }
  const double fixed_r = f.send_overhead_ns * 1e-3 + f.recv_overhead_ns * 1e-3 + 3 * l + 2 * env * beta;
  for (size_t i = pts.size(); i < pp.size(); ++i) {
    const bool eager = i <= k;
    const double s = static_cast<double>(pp[i].first) + (eager ? env : 0);
    const double left = fitted[i] - (eager ? fixed_e : fixed_r);
    if (left <= 0) {
      f.notes.push_back(
          fmt::format("{} bytes: faster than the model's fixed costs; given the previous rate", pp[i].first));
      continue;
    }
    const double rate = s / left * 1e6;
    const double prev = f.bandwidth_by_size.empty() ? f.bandwidth : f.bandwidth_by_size.back().second;
    if (std::abs(rate / prev - 1) > opt.merge_tolerance) f.bandwidth_by_size.emplace_back(pp[i].first, rate);
  }
  for (size_t i = 0; i < pp.size(); ++i)
    f.residuals.push_back(Residual{pp[i].first, fitted[i], pingpong_model_us(f, pp[i].first)});
  return f;
}

std::vector<std::pair<uint64_t, double>> next_gaps(const Measurements& real, const Measurements& sim, const Fit& f) {
  std::vector<std::pair<uint64_t, double>> rows;
  bool any = false;
  for (const auto& [bytes, s] : real.stream) {
    auto it = std::find_if(sim.stream.begin(), sim.stream.end(), [&](const auto& p) { return p.first == bytes; });
    if (it == sim.stream.end() || s.best <= 0 || it->second.best <= 0) continue;
    const double measured = static_cast<double>(bytes) / s.best * 1e3;            // ns per message
    const double simulated = static_cast<double>(bytes) / it->second.best * 1e3;  // ns per message
    // Rows are the copies' sizes, as node memory sees them: an eager message carries the envelope.
    const uint64_t wire = bytes <= f.eager_threshold ? bytes + f.envelope : bytes;
    double gap = 0;
    for (const auto& [b, g] : f.gap_by_size)
      if (b == wire) gap = g;
    gap = gap > 0 ? std::max(0.0, gap + measured - simulated) : (simulated < measured ? measured : 0.0);
    rows.emplace_back(wire, gap);
    any = any || gap > 0;
  }
  if (!any) return {};
  std::sort(rows.begin(), rows.end());
  // The first rendezvous row reaches down to just above the largest eager copy.
  const uint64_t e = f.eager_threshold + f.envelope;
  auto next = std::upper_bound(rows.begin(), rows.end(), std::make_pair(e, 1e300));
  if (f.eager_threshold > 0 && next != rows.end() && next->first > e + 1 && next != rows.begin()) {
    const double g = next->second * static_cast<double>(e + 1) / static_cast<double>(next->first);
    rows.insert(next, {e + 1, g});
  }
  return rows;
}

std::string to_lines(const Measurements& m) {
  std::string out = fmt::format("calib 1 {}\n", m.ranks);
  auto line = [&](const char* what, const std::string& key, const Sample& s) {
    out += fmt::format("{} {} {:.9g} {:.9g} {:.9g} {} {:.9g}\n", what, key, s.value, s.p25, s.p75, s.batches, s.best);
  };
  for (const auto& [k, s] : m.overhead)
    line("overhead", k, s);
  for (const auto& [b, s] : m.pingpong)
    line("pingpong", std::to_string(b), s);
  for (const auto& [b, s] : m.stream)
    line("stream", std::to_string(b), s);
  for (const auto& [b, s] : m.copy)
    line("copy", std::to_string(b), s);
  for (const auto& [k, s] : m.kernel)
    line("kernel", k, s);
  for (const auto& [k, s] : m.compute)
    line("compute", k, s);
  if (m.complete) out += "end\n";
  return out;
}

}  // namespace mgen::calibrate
