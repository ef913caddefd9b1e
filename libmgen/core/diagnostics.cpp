// Diagnostics: stopping a run on an error, unwinding every rank, and the deadlock report that
// names what each blocked rank waits for.
#include <dlfcn.h>
#include <fmt/format.h>
#include <signal.h>

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
  // A program that faults while it unwinds is abandoned like any other; the first report stands.
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t i = 0; i < fibers_->count(); ++i) {
      if (!fibers_->finished(i)) fibers_->make_ready(i);
    }
    fibers_->run_ready();
    current_ = kNone;
    check_fault();
  }
}

void World::interrupted() {
  if (status_ == RunStatus::kInterrupted) return;
  const int sig = runtime::interrupt_signal();
  uint32_t done = 0;
  for (const Rank& r : ranks_)
    done += r.state == Exec::State::kFinished;
  const std::string message =
      fmt::format("interrupted by {} at simulated time {:.3f} us, after {} events; {} of {} ranks had finished",
                  sig == SIGTERM ? "SIGTERM" : "SIGINT", engine_.now().microseconds(), engine_.events_processed(), done,
                  ranks_.size());
  if (!error_) error_ = message;
  status_ = RunStatus::kInterrupted;
  signal_ = sig;
  engine_.stop();
}

const char* status_name(RunStatus s) {
  switch (s) {
    case RunStatus::kOk:
      return "ok";
    case RunStatus::kFailed:
      return "failed";
    case RunStatus::kCrashed:
      return "crashed";
    case RunStatus::kInterrupted:
      return "interrupted";
  }
  return "?";
}

namespace {

// " in foo (prog.so)" for the instruction a fault stopped at, if the dynamic linker knows it.
std::string code_at(const void* pc) {
  Dl_info info{};
  if (pc == nullptr || dladdr(pc, &info) == 0 || info.dli_fname == nullptr) return "";
  std::string file = info.dli_fname;
  if (const size_t slash = file.rfind('/'); slash != std::string::npos) file = file.substr(slash + 1);
  // A static function has no dynamic symbol: the offset in the file is for addr2line -f -e.
  if (info.dli_sname == nullptr) {
    return fmt::format(" in {}+{:#x}", file,
                       reinterpret_cast<uintptr_t>(pc) - reinterpret_cast<uintptr_t>(info.dli_fbase));
  }
  return fmt::format(" in {} ({})", info.dli_sname, file);
}

}  // namespace

void World::check_fault() {
  const runtime::Fault f = fibers_->fault();
  if (f.fiber == runtime::Fault::kNone) return;
  fibers_->clear_fault();
  Exec& x = exec(f.fiber);
  x.state = Exec::State::kFinished;
  const char* helper = f.fiber >= ranks_.size() ? " (in a non-blocking collective's algorithm)" : "";
  const char* last_call = ranks_[x.rank].last_call;  // (a helper's calls are its rank's)
  const std::string last = last_call != nullptr ? fmt::format("its last MPI call was {}", last_call)
                                                : std::string("it had made no MPI call");
  std::string message;
  if (f.stack_overflow) {
    const size_t suggest = std::max<size_t>(size_t{4} * job_.stack_bytes, size_t{8} << 20) >> 20;
    message = fmt::format(
        "rank {}{} overflowed its {} KiB stack{} (SIGSEGV at {}): a large local array or deep recursion; give "
        "it more with --stack, for example --stack {}MiB; {}, at simulated time {:.3f} us",
        x.rank, helper, job_.stack_bytes >> 10, code_at(f.pc), f.address, suggest, last, x.clock.microseconds());
  } else {
    message = fmt::format("rank {}{} was killed by {}{}; {}, at simulated time {:.3f} us", x.rank, helper,
                          runtime::describe_signal(f), code_at(f.pc), last, x.clock.microseconds());
  }
  if (!error_) {
    error_ = message;
    status_ = RunStatus::kCrashed;
    signal_ = f.signal;
  } else {
    *error_ += "\n(then " + message + ")";  // while the run was already stopping
  }
  engine_.stop();
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
