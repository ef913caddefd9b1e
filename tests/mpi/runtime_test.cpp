// The fiber runtime on its own: fibers run when made ready, in the order made ready, hand over
// straight to one another, and return control to the engine when none is ready.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "runtime/fiber_runtime.hpp"

using mgen::runtime::FiberRuntime;

TEST_CASE("Fibers start at spawn, run in the order made ready and return to the engine", "[runtime]") {
  std::vector<std::string> log;
  FiberRuntime* rt = nullptr;
  FiberRuntime runtime(3, 64 * 1024);
  rt = &runtime;
  runtime.spawn([&](size_t i) {
    log.push_back("start " + std::to_string(i));
    rt->suspend(i);
    log.push_back("step " + std::to_string(i));
    rt->suspend(i);
    log.push_back("end " + std::to_string(i));
  });
  // spawn ran each fiber to its first suspend, in order, and came back.
  REQUIRE(log == std::vector<std::string>{"start 0", "start 1", "start 2"});
  log.clear();

  runtime.make_ready(2);
  runtime.make_ready(0);
  runtime.run_ready();
  CHECK(log == std::vector<std::string>{"step 2", "step 0"});
  log.clear();

  // Nothing ready: the engine keeps control.
  runtime.run_ready();
  CHECK(log.empty());

  runtime.make_ready(1);
  runtime.make_ready(0);
  runtime.make_ready(2);
  runtime.run_ready();
  CHECK(log == std::vector<std::string>{"step 1", "end 0", "end 2"});
  CHECK(runtime.finished(0));
  CHECK(!runtime.finished(1));
  CHECK(runtime.finished(2));
  log.clear();

  runtime.make_ready(1);
  runtime.run_ready();
  CHECK(log == std::vector<std::string>{"end 1"});
  CHECK(runtime.finished(1));
}

TEST_CASE("A fiber's locals survive its suspensions; exceptions stay on its stack", "[runtime]") {
  FiberRuntime* rt = nullptr;
  FiberRuntime runtime(2, 64 * 1024);
  rt = &runtime;
  std::vector<long> sums(2, 0);
  std::vector<int> caught(2, 0);
  runtime.spawn([&](size_t i) {
    long local[64];
    for (int k = 0; k < 64; ++k)
      local[k] = static_cast<long>(i) * 1000 + k;
    for (int round = 0; round < 10; ++round) {
      rt->suspend(i);
      try {
        if (round % 2 == 1) throw std::runtime_error("on the fiber's stack");
      } catch (const std::runtime_error&) {
        ++caught[i];
      }
    }
    for (long v : local)
      sums[i] += v;
  });
  for (int round = 0; round < 10; ++round) {
    runtime.make_ready(1);
    runtime.make_ready(0);
    runtime.run_ready();
  }
  REQUIRE(runtime.finished(0));
  REQUIRE(runtime.finished(1));
  CHECK(sums[0] == 63 * 64 / 2);
  CHECK(sums[1] == 64 * 1000 + 63 * 64 / 2);
  CHECK(caught == std::vector<int>{5, 5});
}

TEST_CASE("A fiber that never returns is dropped with the runtime, not run again", "[runtime]") {
  int ran = 0;
  {
    FiberRuntime* rt = nullptr;
    FiberRuntime runtime(2, 64 * 1024);
    rt = &runtime;
    runtime.spawn([&](size_t i) {
      ++ran;
      try {
        rt->suspend(i);
      } catch (...) {
        ++ran;  // a catch-all must not see the runtime's teardown
        throw;
      }
      ++ran;
    });
    runtime.make_ready(0);
    runtime.run_ready();
    CHECK(runtime.finished(0));
    CHECK(!runtime.finished(1));
  }
  CHECK(ran == 3);
}

TEST_CASE("The stack pool's canary shows a write at a stack's bottom", "[runtime]") {
  mgen::runtime::StackPool pool(64 * 1024, 3, false);
  CHECK(!pool.guarded());
  for (size_t i = 0; i < 3; ++i) {
    CHECK(pool.canary_intact(i));
  }
  std::memset(pool.bottom(1), 0x55, 8);
  CHECK(pool.canary_intact(0));
  CHECK(!pool.canary_intact(1));
  CHECK(pool.canary_intact(2));
}

TEST_CASE("Without guards the pool's stacks are adjacent, and the canary still tells", "[runtime]") {
  const size_t n = 40000;
  mgen::runtime::StackPool pool(16 * 1024, n, false);
  CHECK(!pool.guarded());
  // Stacks are adjacent: each one's top is the next one's bottom.
  CHECK(static_cast<char*>(pool.stack_top(0)) == pool.bottom(1));
  CHECK(pool.canary_intact(n - 1));
  std::memset(pool.bottom(n - 1), 0x55, 8);
  CHECK(!pool.canary_intact(n - 1));
  CHECK(pool.canary_intact(n - 2));
}

TEST_CASE("Guard pages are given while the map-count limit allows two mappings per stack", "[runtime]") {
  using mgen::runtime::StackPool;
  // The kernel's default limit, 65530 mappings: beside 1,000 in use, 30,000 stacks fit, 31,000 do not.
  CHECK(StackPool::guards_fit(30000, 1000, 65530));
  CHECK_FALSE(StackPool::guards_fit(31000, 1000, 65530));
  // Program copies of 13,000 recompiled ranks (five mappings each) leave room for none.
  CHECK_FALSE(StackPool::guards_fit(13000, 65000, 65530));
  // A raised limit (sysctl vm.max_map_count=1048576) guards 100,000 ranks.
  CHECK(StackPool::guards_fit(100000, 500000, 1048576));
  // A small pool on this machine is guarded, and a write into its guard page is seen as one.
  StackPool pool(64 * 1024, 4);
  REQUIRE(pool.guarded());
  CHECK(pool.in_guard(2, pool.bottom(2) - 1));
  CHECK_FALSE(pool.in_guard(2, pool.bottom(2)));
  CHECK_FALSE(pool.in_guard(1, pool.bottom(2) - 1));
}

TEST_CASE("Misusing the runtime is refused, not a jump into a stale context", "[runtime]") {
  FiberRuntime* rt = nullptr;
  FiberRuntime runtime(2, 64 * 1024);
  rt = &runtime;
  std::string inner;
  runtime.spawn([&](size_t i) {
    rt->suspend(i);
    if (i == 0) {
      try {
        rt->run_ready();
      } catch (const std::logic_error& e) {
        inner = e.what();
      }
    }
  });
  runtime.make_ready(1);
  CHECK_THROWS_WITH(runtime.make_ready(1), Catch::Contains("already ready"));
  CHECK_THROWS_WITH(runtime.suspend(1), Catch::Contains("not running"));
  runtime.make_ready(0);
  runtime.run_ready();
  CHECK(runtime.finished(0));
  CHECK(runtime.finished(1));
  CHECK_THAT(inner, Catch::Contains("from a fiber"));
  CHECK_THROWS_WITH(runtime.make_ready(0), Catch::Contains("has finished"));
}
