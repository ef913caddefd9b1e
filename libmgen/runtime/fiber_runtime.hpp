// Ranks as fibers, scheduled by the engine.
//
// Every rank runs in a Boost.Fiber fiber on the engine's own thread. The scheduling
// algorithm is a plain FIFO with no locks and no sleeping: the engine (the main context)
// decides when a rank may run by making it ready and yielding; the rank runs until it blocks
// in an MPI call (or returns) and control comes straight back. Simulated time never depends
// on which fiber the algorithm picks — ranks do not touch simulation state — so one FIFO is
// enough for bit-identical runs.
//
// Stacks come from one reservation. Up to kGuardedLimit ranks each stack gets a PROT_NONE guard
// page; beyond that the kernel's map-count limit (65530 mappings by default) forbids one mapping
// per stack, so a canary word at the stack bottom is checked instead at every switch.
#pragma once

#include <boost/fiber/algo/algorithm.hpp>
#include <boost/fiber/context.hpp>
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/scheduler.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace mgen::runtime {

// FIFO of ready fibers; the engine is the only one that makes ranks ready.
class EngineScheduler : public boost::fibers::algo::algorithm {
 public:
  void awakened(boost::fibers::context* ctx) noexcept override { ready_.push_back(*ctx); }
  boost::fibers::context* pick_next() noexcept override;
  bool has_ready_fibers() const noexcept override { return !ready_.empty(); }
  // Nothing ever sleeps on wall-clock time: when no rank is ready the engine is.
  void suspend_until(std::chrono::steady_clock::time_point const&) noexcept override {}
  void notify() noexcept override {}

 private:
  boost::fibers::scheduler::ready_queue_type ready_;
};

class StackPool {
 public:
  static constexpr size_t kGuardedLimit = 30000;
  StackPool(size_t stack_bytes, size_t count);
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  size_t stack_bytes() const { return stack_bytes_; }
  void* stack_top(size_t i) const;     // stacks grow down from here
  bool canary_intact(size_t i) const;  // false once the stack bottom was written over
  bool guarded() const { return guarded_; }
  // The usable bottom of the stack holding `address`, or null if no stack of the pool does.
  char* bottom_of(const void* address) const;

 private:
  size_t stack_bytes_;  // usable bytes per stack
  size_t slot_bytes_;   // stack + guard page
  size_t count_;
  bool guarded_;
  char* base_ = nullptr;
};

// Under AddressSanitizer, call right before a throw and first in every catch block that runs
// on a rank's stack: ASan cannot see Boost.Fiber's stack switches (google/sanitizers#189), so
// it does not clear the stack below a throw (its own handler then trips over stale redzones)
// nor the frames an exception skipped. This clears the rank's stack below the caller's frame.
// Without ASan it does nothing.
void forget_unwound_frames();

// Runs `count` fibers, fiber i executing body(i), with stacks of `stack_bytes`.
class FiberRuntime {
 public:
  FiberRuntime(size_t count, size_t stack_bytes);
  ~FiberRuntime();

  // Creates the fibers; none runs until resume().
  void spawn(const std::function<void(size_t)>& body);
  // From the engine (main context): runs fiber i until it suspends or finishes.
  void resume(size_t i);
  // Batch form: mark fibers ready, then run them all (in the order marked); each hands over
  // straight to the next, and the last one back to the engine.
  void make_ready(size_t i);
  void run_ready();
  // From fiber i: gives control back to the engine until resumed.
  void suspend(size_t i);
  bool finished(size_t i) const { return finished_[i]; }
  bool stack_intact(size_t i) const { return pool_.canary_intact(i); }
  const StackPool& stacks() const { return pool_; }

 private:
  struct Allocator;
  StackPool pool_;
  std::vector<boost::fibers::fiber> fibers_;
  std::vector<boost::fibers::context*> contexts_;
  std::vector<uint8_t> finished_;
};

}  // namespace mgen::runtime
