#include "runtime/fiber_runtime.hpp"

#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <pthread.h>
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace mgen::runtime {
namespace {

constexpr uint64_t kCanary = 0x6d67656e53544b21ULL;  // "mgenSTK!"

size_t page_size() {
  return static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

size_t round_up(size_t n, size_t to) {
  return (n + to - 1) / to * to;
}

}  // namespace

StackPool::StackPool(size_t stack_bytes, size_t count)
    : stack_bytes_(round_up(std::max<size_t>(stack_bytes, 16384), page_size())),
      count_(count),
      guarded_(count <= kGuardedLimit) {
  slot_bytes_ = stack_bytes_ + (guarded_ ? page_size() : 0);
  if (count == 0) return;
  // MAP_NORESERVE: only the pages a rank touches cost memory.
  void* p =
      mmap(nullptr, slot_bytes_ * count_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    throw std::runtime_error("cannot reserve " + std::to_string(slot_bytes_ * count_ >> 20) + " MiB of fiber stacks (" +
                             std::strerror(errno) + ")");
  }
  base_ = static_cast<char*>(p);
#if defined(__SANITIZE_ADDRESS__)
  // The mapping may reuse addresses of an earlier run's stacks, whose shadow still holds the
  // redzones of frames an exception skipped (see forget_unwound_frames).
  __asan_unpoison_memory_region(base_, slot_bytes_ * count_);
#endif
  for (size_t i = 0; i < count_; ++i) {
    char* bottom = base_ + i * slot_bytes_;
    if (guarded_) {
      if (mprotect(bottom, page_size(), PROT_NONE) != 0) {
        throw std::runtime_error(std::string("cannot protect a fiber stack guard page (") + std::strerror(errno) + ")");
      }
      bottom += page_size();
    }
    std::memcpy(bottom, &kCanary, sizeof kCanary);
  }
}

StackPool::~StackPool() {
#if defined(__SANITIZE_ADDRESS__)
  if (base_) __asan_unpoison_memory_region(base_, slot_bytes_ * count_);
#endif
  if (base_) munmap(base_, slot_bytes_ * count_);
}

void* StackPool::stack_top(size_t i) const {
  return base_ + (i + 1) * slot_bytes_;
}

char* StackPool::bottom_of(const void* address) const {
  const char* a = static_cast<const char*>(address);
  if (base_ == nullptr || a < base_ || a >= base_ + slot_bytes_ * count_) return nullptr;
  return bottom(static_cast<size_t>(a - base_) / slot_bytes_);
}

char* StackPool::bottom(size_t i) const {
  return base_ + i * slot_bytes_ + (slot_bytes_ - stack_bytes_);  // above the guard page, if any
}

namespace {
thread_local const FiberRuntime* g_runtime = nullptr;  // this thread's running FiberRuntime
}  // namespace

// AddressSanitizer must be told which stack the thread runs on: otherwise an exception thrown
// on a rank's stack makes it look for the frames to forget on the main thread's stack, and it
// reports its own bookkeeping as stack-use-after-scope. Every switch goes through switch_to()
// or a finished fiber's last jump, which announce the destination's stack and save the leaving
// context's fake stack (detect_stack_use_after_return keeps frames there; none for a finished
// fiber, whose fake stack may go); each resume point (switch_to's return, a fiber's first
// instruction) finishes the announcement with the resumed context's own fake stack.
#if defined(__SANITIZE_ADDRESS__)
namespace {
void asan_start_switch(void** fake_stack_save, const void* bottom, size_t size) {
  __sanitizer_start_switch_fiber(fake_stack_save, bottom, size);
}
void asan_finish_switch(void* fake_stack) {
  __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
}
std::pair<const void*, size_t> thread_stack() {
  pthread_attr_t attr;
  void* addr = nullptr;
  size_t bytes = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &addr, &bytes);
    pthread_attr_destroy(&attr);
  }
  return {addr, bytes};
}
}  // namespace
#else
namespace {
void asan_start_switch(void**, const void*, size_t) {}
void asan_finish_switch(void*) {}
std::pair<const void*, size_t> thread_stack() {
  return {nullptr, 0};
}
}  // namespace
#endif

void forget_unwound_frames() {
#if defined(__SANITIZE_ADDRESS__)
  if (g_runtime == nullptr) return;
  char* frame = static_cast<char*>(__builtin_frame_address(0));
  char* bottom = g_runtime->bottom_of(frame);
  if (bottom != nullptr && frame > bottom) __asan_unpoison_memory_region(bottom, static_cast<size_t>(frame - bottom));
#endif
}

bool StackPool::canary_intact(size_t i) const {
  uint64_t v;
  std::memcpy(&v, bottom(i), sizeof v);
  return v == kCanary;
}

FiberRuntime::FiberRuntime(size_t count, size_t stack_bytes)
    : pool_(stack_bytes, count),
      base_(count),
      contexts_(count, nullptr),
      fake_stacks_(count + 1, nullptr),
      engine_stack_(thread_stack()),
      queued_(count, 0),
      finished_(count, 0) {
  g_runtime = this;
  ready_.reserve(count);
}

char* FiberRuntime::bottom_of(const void* address) const {
  if (char* b = pool_.bottom_of(address)) return b;
  for (const auto& p : extra_) {
    if (char* b = p->bottom_of(address)) return b;
  }
  return nullptr;
}

// A fiber that never returned (its owner failed to unwind it) is simply never resumed: an
// fcontext owns nothing, and its stack goes with the pool.
FiberRuntime::~FiberRuntime() {
  if (g_runtime == this) g_runtime = nullptr;
}

uint32_t FiberRuntime::next() {
  if (ready_head_ == ready_.size()) {
    ready_.clear();
    ready_head_ = 0;
    return kEngine;
  }
  const uint32_t i = ready_[ready_head_++];
  queued_[i] = 0;
  // The fiber after this one will be resumed from its saved registers and the frames above
  // them, cold in cache when thousands of ranks run in one pass: fetch them while this one
  // runs (10,240 ranks: 1.25 -> 1.1 us per blocking call).
  if (ready_head_ < ready_.size()) {
    const char* sp = static_cast<const char*>(contexts_[ready_[ready_head_]]);
    for (int line = 0; line < 8; ++line)
      __builtin_prefetch(sp + 64 * line);
  }
  return i;
}

void FiberRuntime::announce(uint32_t to, void** fake_stack_save) {
  if (to == kEngine) {
    asan_start_switch(fake_stack_save, engine_stack_.first, engine_stack_.second);
  } else {
    asan_start_switch(fake_stack_save, stack_bottom(to), pool_.stack_bytes());
  }
}

void FiberRuntime::switch_to(uint32_t to) {
  const uint32_t me = running_;
  announce(to, &fake_stack(me));
  from_ = &context(me);
  running_ = to;
  const Context from = boost::context::detail::jump_fcontext(context(to), this).fctx;
  // Resumed: whoever switched here set running_ back to `me`.
  asan_finish_switch(fake_stack(me));
  *from_ = from;
}

// Every fiber starts here, at its first resumption; `t.data` is the runtime.
void FiberRuntime::entry(boost::context::detail::transfer_t t) {
  auto* rt = static_cast<FiberRuntime*>(t.data);
  asan_finish_switch(nullptr);  // a new context has no fake stack yet
  *rt->from_ = t.fctx;
  const uint32_t i = rt->running_;
  rt->body_(i);
  rt->finished_[i] = 1;
  // Hand over for good: nothing resumes this context again.
  const uint32_t to = rt->next();
  rt->announce(to, nullptr);
  rt->from_ = &rt->contexts_[i];
  rt->running_ = to;
  boost::context::detail::jump_fcontext(rt->context(to), rt);
  std::abort();  // unreachable
}

void FiberRuntime::spawn(const std::function<void(size_t)>& body) {
  body_ = body;
  for (size_t i = 0; i < contexts_.size(); ++i) {
    contexts_[i] =
        boost::context::detail::make_fcontext(stack_top(static_cast<uint32_t>(i)), pool_.stack_bytes(), &entry);
    make_ready(i);
  }
  // Let every fiber start and park itself at its first suspend() (the body's first act).
  run_ready();
}

void FiberRuntime::create(size_t i) {
  // Helper ids are handed out when ranks call (in fiber order) but created when the engine
  // reaches their start (in time order): a later id may come first, so grow up to it.
  while (i >= contexts_.size()) {
    extra_.push_back(std::make_unique<StackPool>(pool_.stack_bytes(), 1));
    contexts_.push_back(nullptr);
    fake_stacks_.insert(fake_stacks_.end() - 1, nullptr);  // the engine's stays last
    queued_.push_back(0);
    finished_.push_back(1);
  }
  if (i < base_ || i >= contexts_.size() || !finished_[i]) {
    throw std::logic_error("fiber " + std::to_string(i) + " cannot be created");
  }
  finished_[i] = 0;
  fake_stacks_[i] = nullptr;
  contexts_[i] =
      boost::context::detail::make_fcontext(stack_top(static_cast<uint32_t>(i)), pool_.stack_bytes(), &entry);
}

// Misuse would resume a stale context (a fiber queued twice would jump to its own saved state)
// or overwrite the engine's: refused outright, at the price of a flag per fiber.
void FiberRuntime::make_ready(size_t i) {
  if (finished_[i] || queued_[i]) {
    throw std::logic_error("fiber " + std::to_string(i) + (finished_[i] ? " has finished" : " is already ready"));
  }
  queued_[i] = 1;
  ready_.push_back(static_cast<uint32_t>(i));
}

void FiberRuntime::run_ready() {
  if (running_ != kEngine) throw std::logic_error("run_ready() called from a fiber");
  const uint32_t to = next();
  if (to != kEngine) switch_to(to);
}

void FiberRuntime::suspend(size_t i) {
  if (running_ != i) throw std::logic_error("fiber " + std::to_string(i) + " suspended while not running");
  switch_to(next());
}

}  // namespace mgen::runtime
