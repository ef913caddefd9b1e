// MGEN_Call_begin / MGEN_Call_end (<mgen/mpix.h>): a tool that makes MPI calls on a program's
// behalf (the trace replay) has them counted, in reports' per-function tables, as the one call
// it stands for. The group opens a level of the calling context's facade depth (Exec::
// scope_depth), so the MPI calls inside it are not counted themselves; their bytes go to the
// group's function (Exec::call_slot), and the group's simulated time to its time.
#include <mutex>
#include <set>
#include <string>

#include "core/world.hpp"
#include "mgen/mpix.h"

using namespace mgen::mpi;

namespace {

// Reports keep a function's name as a pointer (CallTally::name): one string per name, for the
// process's lifetime, shared by every run (runs may go on at once on several threads).
const char* intern(const char* name) {
  static std::mutex lock;
  static std::set<std::string, std::less<>> names;
  const std::lock_guard<std::mutex> hold(lock);
  return names.emplace(name).first->c_str();
}

// The main context of the calling rank, or nullptr (outside a run, or on a helper context).
Exec* main_context() {
  World* w = World::active();
  if (w == nullptr || !w->in_rank()) return nullptr;
  Exec& x = w->current_exec();
  return x.id == x.rank ? &x : nullptr;
}

}  // namespace

extern "C" void MGEN_Call_begin(const char* name) {
  Exec* x = main_context();
  if (x == nullptr || x->grouped || x->scope_depth != 0) return;
  Rank& r = World::active()->current();
  x->grouped = true;
  ++x->scope_depth;
  x->call_slot = kNone;
  if (name == nullptr) return;
  x->call_slot = r.tally_slot(intern(name));
  ++r.call_tally[x->call_slot].calls;
  ++r.stats.calls;
  x->group_start = r.clock;
  if (r.log_calls) r.log_call(CallEvent::call(CallEvent::Kind::kEnter, r.call_tally[x->call_slot].name));
}

extern "C" void MGEN_Call_end(void) {
  Exec* x = main_context();
  if (x == nullptr || !x->grouped) return;
  Rank& r = World::active()->current();
  x->grouped = false;
  --x->scope_depth;
  if (x->call_slot != kNone) {
    r.call_tally[x->call_slot].time += r.clock - x->group_start;
    if (r.log_calls) r.log_call(CallEvent::call(CallEvent::Kind::kLeave, r.call_tally[x->call_slot].name));
  }
  x->call_slot = kNone;
}
