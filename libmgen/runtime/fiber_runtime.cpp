#include "runtime/fiber_runtime.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <boost/context/stack_context.hpp>
#if defined(__SANITIZE_ADDRESS__)
#include <pthread.h>
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#include <boost/fiber/operations.hpp>
#include <chrono>
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
  const size_t i = static_cast<size_t>(a - base_) / slot_bytes_;
  return base_ + i * slot_bytes_ + (guarded_ ? page_size() : 0);
}

namespace {
const StackPool* g_pool = nullptr;  // the running FiberRuntime's stacks (one per process)
}  // namespace

// AddressSanitizer must be told which stack the thread runs on: otherwise an exception thrown
// on a rank's stack makes it look for the frames to forget on the main thread's stack, and it
// reports its own bookkeeping as stack-use-after-scope. Every switch between contexts goes
// through pick_next (the destination is known there: a rank's context lives at the top of its
// pool stack, the main context's is the thread's) and ends where the destination resumes:
// FiberRuntime::suspend, run_ready, spawn and a fiber's first instruction.
#if defined(__SANITIZE_ADDRESS__)
namespace {
void asan_start_switch(const boost::fibers::context* to) {
  // Boost's dispatcher runs on a stack of its own and never throws: it is switched to without
  // annotation (it calls pick_next itself, which annotates its switch away).
  if (to->is_context(boost::fibers::type::dispatcher_context)) return;
  const void* bottom = g_pool ? g_pool->bottom_of(to) : nullptr;
  size_t size = bottom ? g_pool->stack_bytes() : 0;
  if (bottom == nullptr) {
    if (!to->is_context(boost::fibers::type::main_context)) return;
    static const std::pair<void*, size_t> main_stack = [] {
      pthread_attr_t attr;
      void* addr = nullptr;
      size_t bytes = 0;
      if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        pthread_attr_getstack(&attr, &addr, &bytes);
        pthread_attr_destroy(&attr);
      }
      return std::pair<void*, size_t>{addr, bytes};
    }();
    bottom = main_stack.first;
    size = main_stack.second;
  }
  if (bottom != nullptr) __sanitizer_start_switch_fiber(nullptr, bottom, size);
}
void asan_finish_switch() {
  __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
}
}  // namespace
#else
namespace {
void asan_start_switch(const boost::fibers::context*) {}
void asan_finish_switch() {}
}  // namespace
#endif

boost::fibers::context* EngineScheduler::pick_next() noexcept {
  if (ready_.empty()) return nullptr;
  boost::fibers::context* ctx = &ready_.front();
  ready_.pop_front();
  asan_start_switch(ctx);
  return ctx;
}

void forget_unwound_frames() {
#if defined(__SANITIZE_ADDRESS__)
  if (g_pool == nullptr) return;
  char* frame = static_cast<char*>(__builtin_frame_address(0));
  char* bottom = g_pool->bottom_of(frame);
  if (bottom != nullptr && frame > bottom) __asan_unpoison_memory_region(bottom, static_cast<size_t>(frame - bottom));
#endif
}

bool StackPool::canary_intact(size_t i) const {
  const char* bottom = base_ + i * slot_bytes_ + (guarded_ ? page_size() : 0);
  uint64_t v;
  std::memcpy(&v, bottom, sizeof v);
  return v == kCanary;
}

// Hands Boost.Fiber the pool's i-th stack; the pool owns and frees the memory.
struct FiberRuntime::Allocator {
  const StackPool* pool;
  size_t index;
  boost::context::stack_context allocate() {
    boost::context::stack_context sc;
    sc.size = pool->stack_bytes();
    sc.sp = pool->stack_top(index);
    return sc;
  }
  void deallocate(boost::context::stack_context&) noexcept {}
};

FiberRuntime::FiberRuntime(size_t count, size_t stack_bytes) : pool_(stack_bytes, count), finished_(count, 0) {
  boost::fibers::use_scheduling_algorithm<EngineScheduler>();
  g_pool = &pool_;
}

FiberRuntime::~FiberRuntime() {
  if (g_pool == &pool_) g_pool = nullptr;
  // Finished fibers are joined at once. One that never finished (its owner failed to unwind
  // it) cannot be joined without deadlock and is left detached.
  for (size_t i = 0; i < fibers_.size(); ++i) {
    if (!fibers_[i].joinable()) continue;
    if (finished_[i]) {
      fibers_[i].join();
    } else {
      fibers_[i].detach();
    }
  }
  fibers_.clear();
  // A terminated fiber's context lives on its stack, and Boost.Fiber's dispatcher releases it
  // only when it runs — which it does when nothing is ready. Park the engine for a moment so
  // it does, before the stacks are unmapped.
  boost::this_fiber::sleep_for(std::chrono::nanoseconds(1));
  asan_finish_switch();
}

void FiberRuntime::spawn(const std::function<void(size_t)>& body) {
  const size_t n = finished_.size();
  fibers_.reserve(n);
  contexts_.assign(n, nullptr);
  for (size_t i = 0; i < n; ++i) {
    // Launch policy `post`: the fiber only gets ready; it first runs when the engine yields.
    fibers_.emplace_back(boost::fibers::launch::post, std::allocator_arg, Allocator{&pool_, i}, [this, i, body] {
      asan_finish_switch();
      contexts_[i] = boost::fibers::context::active();
      body(i);
      finished_[i] = 1;
    });
  }
  // Let every fiber start and park itself at its first suspend() (the body's first act).
  boost::this_fiber::yield();
  asan_finish_switch();
}

void FiberRuntime::resume(size_t i) {
  make_ready(i);
  run_ready();
}

void FiberRuntime::make_ready(size_t i) {
  boost::fibers::context::active()->schedule(contexts_[i]);
}

void FiberRuntime::run_ready() {
  boost::this_fiber::yield();
  asan_finish_switch();
}

void FiberRuntime::suspend(size_t) {
  boost::fibers::context::active()->suspend();
  asan_finish_switch();
}

}  // namespace mgen::runtime
