// Ranks as fibers, scheduled by the engine.
//
// Every rank runs in a fiber (a Boost.Context fcontext: a stack of its own and the registers
// saved on it) on the engine's thread. There is no scheduler beyond a FIFO of ready ranks: the
// engine decides when a rank may run by making it ready; run_ready() hands control to the
// first, and each rank, when it suspends or returns, hands it straight to the next ready one,
// the last back to the engine. A switch is one jump (about 11 ns here). Simulated time never
// depends on the order fibers run in (ranks do not touch simulation state), but the FIFO keeps
// it fixed anyway.
//
// Boost.Context's low-level layer is used directly, as Boost.Fiber itself does, rather than
// Boost.Fiber's scheduler (clock reads and thread-local lookups on every switch) or
// boost::context::fiber: the runtime must see the saved context to prefetch it, and an
// fcontext owns nothing, so a rank that never finished is simply not resumed again.
//
// The ranks' stacks come from one reservation, committed page by page as they are touched.
// Each stack gets a PROT_NONE guard page below it while the kernel's map-count limit allows
// (StackPool::guards_fit: two mappings per stack); beyond that a canary word at the stack
// bottom is there for the owner to check (the World does after every pass of resumptions). Fibers created during a run
// (helpers running non-blocking collectives, a few per rank at most) get a guarded stack each, kept and reused when a
// finished fiber's id is created again.
#pragma once

#include <signal.h>

#include <boost/context/detail/fcontext.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mgen::runtime {

// A fault that stopped a fiber (see FiberRuntime): the signal, its si_code, the address it
// names (the bad address for SIGSEGV and SIGBUS, the instruction for SIGFPE and SIGILL) and
// the instruction that faulted.
struct Fault {
  static constexpr uint32_t kNone = ~uint32_t{0};
  uint32_t fiber = kNone;  // kNone: no fault
  int signal = 0;
  int code = 0;
  const void* address = nullptr;
  const void* pc = nullptr;
  const void* sp = nullptr;     // the stack pointer when it faulted
  bool stack_overflow = false;  // in the guard page below the fiber's stack, or the stack below its bottom
};

// "SIGSEGV (invalid memory access: address 0x10 is not mapped)", and the like.
std::string describe_signal(const Fault& f);

// SIGINT or SIGTERM, if one asked the runs in progress to stop (0 if not): the owner polls
// it and stops cleanly. A second one ends the process at once. The handlers are installed while
// a FiberRuntime exists, with the fault handlers; the first FiberRuntime clears this.
int interrupt_signal();

class StackPool {
 public:
  // Guard pages cost two memory mappings per stack; the kernel allows vm.max_map_count of them
  // per process (65530 by default), and the program copies of recompiled ranks need some too.
  // Whether `count` guarded stacks fit beside `in_use` mappings under that limit, with room left
  // for the run's own allocations.
  static bool guards_fit(size_t count, size_t in_use, size_t max_map_count);
  // `guards`: give each stack a guard page if guards_fit() says the process can.
  StackPool(size_t stack_bytes, size_t count, bool guards = true);
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  size_t stack_bytes() const { return stack_bytes_; }
  void* stack_top(size_t i) const;     // stacks grow down from here
  char* bottom(size_t i) const;        // the lowest usable byte of stack i
  bool canary_intact(size_t i) const;  // false once the stack bottom was written over
  bool guarded() const { return guarded_; }
  // The usable bottom of the stack holding `address`, or null if no stack of the pool does.
  char* bottom_of(const void* address) const;
  // Whether `address` is in the guard page below stack i.
  bool in_guard(size_t i, const void* address) const;
  // A fault abandoned the fibers on these stacks: what their frames hold stays reachable. Under
  // LeakSanitizer the stacks become root regions and stay mapped until the process exits, so
  // that the objects the abandoned frames own (closures, argument vectors, scratch buffers, the
  // program's own allocations) are not reported as leaks when mgen exits after the crash.
  // Nothing otherwise.
  void keep_abandoned();

 private:
  size_t stack_bytes_;  // usable bytes per stack
  size_t slot_bytes_;   // stack + guard page
  size_t count_;
  bool guarded_;
  [[maybe_unused]] bool kept_ = false;  // (read in AddressSanitizer builds only)
  char* base_ = nullptr;
};

// Under AddressSanitizer, call right before a throw and first in every catch block that runs
// on a rank's stack: it clears the rank's stack below the caller's frame, so that redzones of
// frames an exception skipped cannot trip ASan later (google/sanitizers#189). Every switch is
// also announced to ASan (see fiber_runtime.cpp), which by itself ended the false reports;
// this stays as a second line. Without ASan it does nothing.
void forget_unwound_frames();

// Runs `count` fibers, fiber i executing body(i), with stacks of `stack_bytes`; more can be
// created while it runs (create()).
class FiberRuntime {
 public:
  FiberRuntime(size_t count, size_t stack_bytes);
  ~FiberRuntime();
  FiberRuntime(const FiberRuntime&) = delete;
  FiberRuntime& operator=(const FiberRuntime&) = delete;

  // Creates the fibers and runs each until it first suspends (or returns).
  void spawn(const std::function<void(size_t)>& body);
  // From the engine: fiber `i` (the next new id, count(), or a finished fiber beyond the first
  // `count` given to the constructor) starts afresh with body(i) when next made ready.
  void create(size_t i);
  size_t count() const { return contexts_.size(); }
  // From the engine: mark fibers ready, then run them all (in the order marked); each hands
  // over straight to the next, and the last one back to the engine.
  void make_ready(size_t i);
  void run_ready();
  // From fiber i: gives control to the next ready fiber, or back to the engine, until resumed.
  void suspend(size_t i);
  bool finished(size_t i) const { return finished_[i]; }
  bool stack_intact(size_t i) const { return i < base_ ? pool_.canary_intact(i) : extra_[i - base_]->canary_intact(0); }
  const StackPool& stacks() const { return pool_; }
  // The usable bottom of the fiber stack holding `address`, or null.
  char* bottom_of(const void* address) const;

  // Faults. A synchronous signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP) raised
  // while a fiber runs is caught on an alternate signal stack (so a stack overflow is caught
  // too): that fiber has finished for good, never to run again, the fibers still waiting in this
  // pass are not run, and control goes back to the engine, whose run_ready() returns with
  // fault() set. A signal raised while the engine runs is the simulator's own failure: a line
  // on standard error, then the default action.
  const Fault& fault() const { return fault_; }
  void clear_fault() { fault_ = Fault{}; }
  // Called every 1,024 hand-overs between fibers: returning true ends the pass there (the fibers
  // still waiting do not run), and run_ready() returns to the engine.
  void set_pass_check(std::function<bool()> check) { check_ = std::move(check); }
  // Fibers left neither finished nor unwound (a fault abandons every one): the objects their
  // frames own stay reachable for AddressSanitizer's leak check (StackPool::keep_abandoned).
  // Called by the fault handler's jump, and by the World when a failed run leaves any such fiber.
  void keep_abandoned_stacks();
  bool any_unfinished() const;

 private:
  using Context = boost::context::detail::fcontext_t;
  static constexpr uint32_t kEngine = ~uint32_t{0};
  static void entry(boost::context::detail::transfer_t t);
  friend void on_fault(int, siginfo_t*, void*);
  // From the fault handler: records the fault and jumps to the engine; does not return.
  [[noreturn]] void abandon_running(const Fault& f);
  // The next ready fiber, or kEngine when none is.
  uint32_t next();
  // Saves the running context and switches to `to`; returns when the caller is resumed.
  void switch_to(uint32_t to);
  // Tells AddressSanitizer that the stack of `to` comes next (see fiber_runtime.cpp).
  void announce(uint32_t to, void** fake_stack_save);
  Context& context(uint32_t who) { return who == kEngine ? engine_ : contexts_[who]; }
  void*& fake_stack(uint32_t who) { return fake_stacks_[who == kEngine ? contexts_.size() : who]; }

  char* stack_bottom(uint32_t i) const { return i < base_ ? pool_.bottom(i) : extra_[i - base_]->bottom(0); }
  void* stack_top(uint32_t i) const { return i < base_ ? pool_.stack_top(i) : extra_[i - base_]->stack_top(0); }

  StackPool pool_;
  size_t base_;                                    // fibers with a stack in pool_
  std::vector<std::unique_ptr<StackPool>> extra_;  // the stacks of fibers created later
  std::function<void(size_t)> body_;
  std::vector<Context> contexts_;   // each suspended fiber's; stale while it runs
  Context engine_ = nullptr;        // the engine's, while fibers run
  std::vector<void*> fake_stacks_;  // AddressSanitizer's, per fiber and (last) the engine's
  std::pair<const void*, size_t> engine_stack_;
  Context* from_ = nullptr;     // where the context switching away is to be kept
  uint32_t running_ = kEngine;  // the fiber running, or kEngine
  std::vector<uint32_t> ready_;
  size_t ready_head_ = 0;
  std::vector<uint8_t> queued_, finished_;
  Fault fault_;
  std::function<bool()> check_;
  uint32_t handovers_ = 0;
  Context abandoned_ = nullptr;    // where the jump out of a fault handler leaves its context
  FiberRuntime* outer_ = nullptr;  // the runtime this thread had before this one (nested runs)
  // ThreadSanitizer's contexts (TSan builds only): per fiber, created at its first switch, and
  // the engine's (the thread's own).
  std::vector<void*> tsan_fibers_;
  void* tsan_engine_ = nullptr;
};

}  // namespace mgen::runtime
