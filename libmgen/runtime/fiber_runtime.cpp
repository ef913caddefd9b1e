#include "runtime/fiber_runtime.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <pthread.h>
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
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

namespace {

size_t read_count(const char* path, bool lines) {
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) return 0;
  size_t n = 0;
  if (lines) {
    for (int c; (c = std::fgetc(f)) != EOF;)
      n += c == '\n';
  } else if (std::fscanf(f, "%zu", &n) != 1) {
    n = 0;
  }
  std::fclose(f);
  return n;
}

}  // namespace

bool StackPool::guards_fit(size_t count, size_t in_use, size_t max_map_count) {
  constexpr size_t kRoom = 4096;  // the run's own mappings to come (large allocations, files)
  return 2 * count + in_use + kRoom <= max_map_count;
}

StackPool::StackPool(size_t stack_bytes, size_t count, bool guards)
    : stack_bytes_(round_up(std::max<size_t>(stack_bytes, 16384), page_size())), count_(count) {
  guarded_ = guards;
  if (guards && count > 1024) {  // (a small pool always fits: not worth reading the map)
    const size_t limit = read_count("/proc/sys/vm/max_map_count", false);
    guarded_ = limit == 0 || guards_fit(count, read_count("/proc/self/maps", true), limit);
  }
  slot_bytes_ = stack_bytes_ + (guarded_ ? page_size() : 0);
  if (count == 0) return;
  // MAP_NORESERVE: only the pages a rank touches cost memory.
  void* p =
      mmap(nullptr, slot_bytes_ * count_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    throw std::runtime_error(fmt::format(
        "cannot reserve {} MiB of address space for {} rank stacks of {} KiB ({}); give them less with --stack",
        slot_bytes_ * count_ >> 20, count_, stack_bytes_ >> 10, std::strerror(errno)));
  }
  base_ = static_cast<char*>(p);
  // Small pages: a stack touches a few of its top pages, and a 2 MiB page would commit them all
  // (where transparent huge pages are always on).
  madvise(base_, slot_bytes_ * count_, MADV_NOHUGEPAGE);
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
    } else {
      std::memcpy(bottom, &kCanary, sizeof kCanary);  // (guarded stacks need no canary: not touched)
    }
  }
}

StackPool::~StackPool() {
#if defined(__SANITIZE_ADDRESS__)
  if (kept_) return;  // roots of the leak check at exit (keep_abandoned)
  if (base_) __asan_unpoison_memory_region(base_, slot_bytes_ * count_);
#endif
  if (base_) munmap(base_, slot_bytes_ * count_);
}

void StackPool::keep_abandoned() {
#if defined(__SANITIZE_ADDRESS__)
  if (kept_ || base_ == nullptr) return;
  kept_ = true;
  __lsan_register_root_region(base_, slot_bytes_ * count_);
#endif
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

bool StackPool::in_guard(size_t i, const void* address) const {
  const char* a = static_cast<const char*>(address);
  const char* guard = base_ + i * slot_bytes_;
  return guarded_ && i < count_ && a >= guard && a < guard + page_size();
}

void on_fault(int sig, siginfo_t* info, void* context);

namespace {
thread_local FiberRuntime* g_runtime = nullptr;  // this thread's running FiberRuntime

// ---------------------------------------------------------------- signals

constexpr int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP};
constexpr int kStopSignals[] = {SIGINT, SIGTERM};
std::mutex g_install_mutex;
int g_installed = 0;  // FiberRuntimes alive, on any thread
struct sigaction g_previous[NSIG];
std::atomic<int> g_interrupt{0};

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGABRT:
      return "SIGABRT";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "a signal";
  }
}

void write_stderr(const char* s) {
  (void)!write(STDERR_FILENO, s, std::strlen(s));
}

// The simulator itself (not a rank) faulted, or a signal came from elsewhere: say so, then let
// the signal do what it would have done.
void die_of(int sig) {
  write_stderr("mgen: internal error: ");
  write_stderr(signal_name(sig));
  write_stderr(" in the simulator itself, not in a rank's program (please report it)\n");
  signal(sig, SIG_DFL);
  raise(sig);
}

void on_interrupt(int sig) {
  int none = 0;
  if (!g_interrupt.compare_exchange_strong(none, sig)) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  write_stderr("\nmgen: ");
  write_stderr(signal_name(sig));
  write_stderr(": stopping the run after the current event (again to quit at once)\n");
}

// Each thread that runs fibers gets an alternate signal stack (unless it has one), so that a
// fiber that ran out of stack can still be reported.
struct AltStack {
  char* memory = nullptr;
  ~AltStack() {
    if (memory == nullptr) return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
    delete[] memory;
  }
  void ensure() {
    stack_t current{};
    if (memory != nullptr || sigaltstack(nullptr, &current) != 0 || (current.ss_flags & SS_DISABLE) == 0) return;
    constexpr size_t kBytes = 128 * 1024;
    memory = new char[kBytes];
    stack_t ss{};
    ss.ss_sp = memory;
    ss.ss_size = kBytes;
    sigaltstack(&ss, nullptr);
  }
};
thread_local AltStack g_alt_stack;

void install_handlers() {
  g_alt_stack.ensure();
  std::lock_guard<std::mutex> lock(g_install_mutex);
  if (g_installed++ != 0) return;
  g_interrupt = 0;
  struct sigaction sa {};
  sigemptyset(&sa.sa_mask);
  // SA_NODEFER: the handler leaves by a jump, never by returning, so the signal must not stay
  // blocked behind it.
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sa.sa_sigaction = on_fault;
  for (int sig : kFaultSignals)
    sigaction(sig, &sa, &g_previous[sig]);
  struct sigaction stop {};
  sigemptyset(&stop.sa_mask);
  stop.sa_handler = on_interrupt;
  for (int sig : kStopSignals)
    sigaction(sig, &stop, &g_previous[sig]);
}

void uninstall_handlers() {
  std::lock_guard<std::mutex> lock(g_install_mutex);
  if (--g_installed != 0) return;
  for (int sig : kFaultSignals)
    sigaction(sig, &g_previous[sig], nullptr);
  for (int sig : kStopSignals)
    sigaction(sig, &g_previous[sig], nullptr);
}

}  // namespace

int interrupt_signal() {
  return g_interrupt.load(std::memory_order_relaxed);
}

// A synchronous signal: a fiber's fault ends that fiber and returns to the engine; anything else
// is the simulator's own.
void on_fault(int sig, siginfo_t* info, void* context) {
  FiberRuntime* rt = g_runtime;
  if (rt == nullptr || rt->running_ == FiberRuntime::kEngine) {
    die_of(sig);
    return;
  }
  Fault f;
  f.fiber = rt->running_;
  f.signal = sig;
  f.code = info->si_code;
  f.address = info->si_addr;
#if defined(__x86_64__)
  const auto* uc = static_cast<const ucontext_t*>(context);
  f.pc = reinterpret_cast<const void*>(uc->uc_mcontext.gregs[REG_RIP]);
  f.sp = reinterpret_cast<const void*>(uc->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
  const auto* uc = static_cast<const ucontext_t*>(context);
  f.pc = reinterpret_cast<const void*>(uc->uc_mcontext.pc);
  f.sp = reinterpret_cast<const void*>(uc->uc_mcontext.sp);
#else
  (void)context;
#endif
  rt->abandon_running(f);
}

std::string describe_signal(const Fault& f) {
  std::string why;
  switch (f.signal) {
    case SIGSEGV:
      why = f.code == SEGV_MAPERR   ? fmt::format("invalid memory access: address {} is not mapped", f.address)
            : f.code == SEGV_ACCERR ? fmt::format("invalid memory access: address {} is protected", f.address)
                                    : fmt::format("invalid memory access at {}", f.address);
      break;
    case SIGBUS:
      why = fmt::format("bus error at address {}", f.address);
      break;
    case SIGFPE:
      why = f.code == FPE_INTDIV   ? "integer division by zero"
            : f.code == FPE_INTOVF ? "integer overflow"
            : f.code == FPE_FLTDIV ? "floating-point division by zero"
                                   : "arithmetic exception";
      break;
    case SIGILL:
      why = fmt::format("illegal instruction at {}", f.address);
      break;
    case SIGABRT:
      why = "abort() called, by the program or a failed assert() or a C library check";
      break;
    case SIGTRAP:
      why = "trap (a breakpoint instruction, or __builtin_trap)";
      break;
    default:
      why = "signal";
      break;
  }
  return fmt::format("{} ({})", signal_name(f.signal), why);
}

bool FiberRuntime::any_unfinished() const {
  return std::any_of(finished_.begin(), finished_.end(), [](uint8_t f) { return f == 0; });
}

void FiberRuntime::keep_abandoned_stacks() {
  pool_.keep_abandoned();
  for (const std::unique_ptr<StackPool>& extra : extra_)
    extra->keep_abandoned();
}

[[noreturn]] void FiberRuntime::abandon_running(const Fault& f) {
  fault_ = f;
  const uint32_t me = running_;
  const char* bottom = stack_bottom(me);
  const char* sp = static_cast<const char*>(f.sp);
  const char* address = static_cast<const char*>(f.address);
  const bool below =
      (sp != nullptr && sp < bottom) || (f.signal == SIGSEGV && address < bottom && address + 64 * 1024 >= bottom);
  fault_.stack_overflow =
      below || (me < base_ ? pool_.in_guard(me, f.address) : extra_[me - base_]->in_guard(0, f.address));
  finished_[me] = 1;
  keep_abandoned_stacks();  // every fiber's frames are left as they are: the run stops
  // The fibers still waiting to run in this pass do not: the run stops.
  for (size_t k = ready_head_; k < ready_.size(); ++k)
    queued_[ready_[k]] = 0;
  ready_.clear();
  ready_head_ = 0;
  announce(kEngine, nullptr);
  from_ = &abandoned_;
  running_ = kEngine;
  boost::context::detail::jump_fcontext(engine_, this);
  std::abort();  // unreachable: nothing resumes the abandoned context
}

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

// ThreadSanitizer follows fibers only when told: each fiber gets a TSan context of its own
// (created with its first stack, kept until the runtime goes) and every switch names the
// context that comes next (announce()). Fibers of one runtime run one at a time on its thread;
// the switch orders them as that thread's code would be ordered.
#if defined(__SANITIZE_THREAD__)
namespace {
void* tsan_current() {
  return __tsan_get_current_fiber();
}
void* tsan_create() {
  return __tsan_create_fiber(0);
}
void tsan_destroy(void* f) {
  __tsan_destroy_fiber(f);
}
void tsan_switch(void* f) {
  __tsan_switch_to_fiber(f, 0);
}
}  // namespace
#else
namespace {
void* tsan_current() {
  return nullptr;
}
void tsan_destroy(void*) {}
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
  outer_ = g_runtime;
  g_runtime = this;
  tsan_engine_ = tsan_current();
  ready_.reserve(count);
  install_handlers();
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
  for (void* f : tsan_fibers_) {
    if (f != nullptr) tsan_destroy(f);
  }
  if (g_runtime == this) g_runtime = outer_;
  uninstall_handlers();
}

uint32_t FiberRuntime::next() {
  if (ready_head_ == ready_.size()) {
    ready_.clear();
    ready_head_ = 0;
    return kEngine;
  }
  if (check_ && (++handovers_ & 1023) == 0 && check_()) {
    for (size_t k = ready_head_; k < ready_.size(); ++k)
      queued_[ready_[k]] = 0;
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
#if defined(__SANITIZE_THREAD__)
  if (to == kEngine) {
    tsan_switch(tsan_engine_);
  } else {
    if (to >= tsan_fibers_.size()) tsan_fibers_.resize(to + 1, nullptr);
    if (tsan_fibers_[to] == nullptr) tsan_fibers_[to] = tsan_create();
    tsan_switch(tsan_fibers_[to]);
  }
#endif
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
  // Helper ids are handed out on the ranks' fibers, in the order they call, but created in
  // event order: a later id can come first (rank 1's collective at an earlier time than rank
  // 0's), so grow up to `i`, leaving the ids in between creatable.
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
