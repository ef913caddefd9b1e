// Diagnostics: stopping a run on an error, unwinding every rank, and the deadlock report that
// names what each blocked rank waits for.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <tuple>

#include "core/world.hpp"

namespace mgen::mpi {

void World::fail(const std::string& message) {
  if (!error_) error_ = message;
  runtime::forget_unwound_frames();
  throw RankUnwind{};
}

void World::error(const std::string& message) {
  if (!error_) error_ = message;
  engine_.stop();
}

void World::abort_ranks() {
  stopping_ = true;
  // Every fiber not finished, helpers included (a helper created but never run returns at once).
  for (uint32_t i = 0; i < fibers_->count(); ++i) {
    if (!fibers_->finished(i)) fibers_->make_ready(i);
  }
  fibers_->run_ready();
  current_ = kNone;
}

std::string World::describe(const Exec& r) const {
  std::string what = r.call.name ? r.call.name : "an MGEN call";
  if (r.id >= ranks_.size()) what = "a non-blocking collective's algorithm";
  std::string args;
  auto add = [&](const std::string& s) { args += (args.empty() ? "" : ", ") + s; };
  if (r.call.peer != static_cast<int>(kNone))
    add(r.call.peer == kAnySource ? "source ANY" : fmt::format("peer {}", r.call.peer));
  if (r.call.tag != kAnyTag) add(fmt::format("tag {}", r.call.tag));
  if (r.call.comm != 0) add(fmt::format("comm {}", r.call.comm));
  return fmt::format("rank {} blocked in {}({}) since {:.3f} us", r.rank, what, args, r.block.since.microseconds());
}

std::string World::deadlock_report() const {
  size_t blocked = 0;
  std::string lines;
  for (const Rank& r : ranks_) {
    if (r.state == Exec::State::kFinished) continue;
    if (++blocked <= 32) lines += "  " + describe(r) + "\n";
  }
  for (const auto& h : helpers_) {
    if (h->in_use && h->state != Exec::State::kFinished) lines += "  " + describe(*h) + "\n";
  }
  if (blocked > 32) lines += fmt::format("  ... and {} more\n", blocked - 32);
  std::string out = fmt::format(
      "deadlock: {} of {} ranks are blocked and nothing else can happen (simulated time "
      "{:.3f} us):\n{}",
      blocked, ranks_.size(), engine_.now().microseconds(), lines);
  if (network_.packets_in_flight() != 0) {
    out += fmt::format("the network itself is stuck with {} packets:\n{}", network_.packets_in_flight(),
                       network_.describe_stuck(10));
  }
  return out;
}

}  // namespace mgen::mpi
