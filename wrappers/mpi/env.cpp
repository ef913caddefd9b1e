// MPI environment: init and finalize, time, errors and error handlers, processor names,
// version, Pcontrol, and mgen's own MPI_Comp.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <optional>

#include "core/world.hpp"
#include "mgen/mpi/run.hpp"
#include "mgen/mpix.h"
#include "mpi/attr.hpp"
#include "mpi/errclass.hpp"
#include "mpi/shim.hpp"
#include "mpi/unsupported.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;

namespace {

const char* error_text(int c) {
  switch (c) {
    case MPI_SUCCESS:
      return "MPI_SUCCESS: no error";
    case MPI_ERR_BUFFER:
      return "MPI_ERR_BUFFER: invalid buffer pointer";
    case MPI_ERR_COUNT:
      return "MPI_ERR_COUNT: invalid count argument";
    case MPI_ERR_TYPE:
      return "MPI_ERR_TYPE: invalid datatype";
    case MPI_ERR_TAG:
      return "MPI_ERR_TAG: invalid tag";
    case MPI_ERR_COMM:
      return "MPI_ERR_COMM: invalid communicator";
    case MPI_ERR_RANK:
      return "MPI_ERR_RANK: invalid rank";
    case MPI_ERR_ROOT:
      return "MPI_ERR_ROOT: invalid root";
    case MPI_ERR_GROUP:
      return "MPI_ERR_GROUP: invalid group";
    case MPI_ERR_OP:
      return "MPI_ERR_OP: invalid reduce operation";
    case MPI_ERR_TOPOLOGY:
      return "MPI_ERR_TOPOLOGY: invalid topology";
    case MPI_ERR_DIMS:
      return "MPI_ERR_DIMS: invalid dimension argument";
    case MPI_ERR_ARG:
      return "MPI_ERR_ARG: invalid argument";
    case MPI_ERR_UNKNOWN:
      return "MPI_ERR_UNKNOWN: unknown error";
    case MPI_ERR_TRUNCATE:
      return "MPI_ERR_TRUNCATE: message truncated";
    case MPI_ERR_OTHER:
      return "MPI_ERR_OTHER: other error";
    case MPI_ERR_INTERN:
      return "MPI_ERR_INTERN: internal error";
    case MPI_ERR_IN_STATUS:
      return "MPI_ERR_IN_STATUS: error code is in status";
    case MPI_ERR_PENDING:
      return "MPI_ERR_PENDING: pending request";
    case MPI_ERR_REQUEST:
      return "MPI_ERR_REQUEST: invalid request";
    case MPI_ERR_WIN:
      return "MPI_ERR_WIN: invalid window";
    case MPI_ERR_KEYVAL:
      return "MPI_ERR_KEYVAL: invalid attribute key";
    case MPI_ERR_RMA_SYNC:
      return "MPI_ERR_RMA_SYNC: wrong synchronization of RMA calls";
    case MPI_ERR_RMA_RANGE:
      return "MPI_ERR_RMA_RANGE: target memory is not part of the window";
    case MPI_ERR_RMA_ATTACH:
      return "MPI_ERR_RMA_ATTACH: memory cannot be attached";
    case MPI_ERR_RMA_FLAVOR:
      return "MPI_ERR_RMA_FLAVOR: passed window has the wrong flavor for the called function";
    case MPI_ERR_RMA_SHARED:
      return "MPI_ERR_RMA_SHARED: memory cannot be shared";
    case MPI_ERR_RMA_CONFLICT:
      return "MPI_ERR_RMA_CONFLICT: conflicting accesses to window";
    case MPI_ERR_SIZE:
      return "MPI_ERR_SIZE: invalid size argument";
    case MPI_ERR_DISP:
      return "MPI_ERR_DISP: invalid displacement argument";
    case MPI_ERR_LOCKTYPE:
      return "MPI_ERR_LOCKTYPE: invalid locktype argument";
    case MPI_ERR_ASSERT:
      return "MPI_ERR_ASSERT: invalid assert argument";
    case MPI_ERR_BASE:
      return "MPI_ERR_BASE: invalid base address";
    default:
      return nullptr;
  }
}

int set_errhandler(MPI_Comm c, MPI_Errhandler e) {
  comm(c);
  if (e != MPI_ERRORS_ARE_FATAL && e != MPI_ERRORS_RETURN && e != MPI_ERRORS_ABORT) {
    const size_t i = static_cast<uint32_t>(e) & 0xffff;
    if ((static_cast<uint32_t>(e) & 0xffff0000u) != 0x94000000u || i >= state().errhandlers.size() ||
        !state().errhandlers[i].used) {
      fail(MPI_ERR_ARG, fmt::format("invalid error handler {:#x}", e));
    }
  }
  state().comm_errhandler[c] = e;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Init(int*, char***) {
  return call("MPI_Init", MPI_COMM_WORLD, [&] {
    RankState& st = state();
    if (st.initialized) fail(MPI_ERR_OTHER, "MPI_Init called twice");
    st.initialized = true;
    MGEN_Init(nullptr, nullptr);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Init)

int PMPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  return call("MPI_Init_thread", MPI_COMM_WORLD, [&] {
    PMPI_Init(argc, argv);
    // Ranks are fibers of one thread: every level up to SERIALIZED holds trivially; a
    // program that starts threads of its own inside a rank is not supported.
    *provided = required > MPI_THREAD_SERIALIZED ? MPI_THREAD_SERIALIZED : required;
    state().thread_level = *provided;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Init_thread)

int PMPI_Query_thread(int* provided) {
  return call("MPI_Query_thread", MPI_COMM_WORLD, [&] {
    *provided = state().thread_level;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Query_thread)

int PMPI_Is_thread_main(int* flag) {
  *flag = 1;
  return MPI_SUCCESS;
}
MGEN_MPI_ALIAS(Is_thread_main)

int PMPI_Finalize(void) {
  return call("MPI_Finalize", MPI_COMM_WORLD, [&] {
    RankState& st = state();
    if (!st.initialized) fail(MPI_ERR_OTHER, "MPI_Finalize without MPI_Init");
    if (st.finalized) fail(MPI_ERR_OTHER, "MPI_Finalize called twice");
    // First, before anything is torn down: MPI_COMM_SELF's attribute delete callbacks, last
    // set first (MPI-4 §11.2.4), then MPI_COMM_WORLD's.
    finalize_attrs();
    // MPI_Finalize is collective; MPICH synchronises the ranks (a barrier) before tearing down.
    MGEN_Barrier(MGEN_COMM_WORLD);
    st.finalized = true;
    MGEN_Finalize();
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Finalize)

int PMPI_Initialized(int* flag) {
  *flag = in_rank() && state().initialized ? 1 : 0;
  return MPI_SUCCESS;
}
MGEN_MPI_ALIAS(Initialized)

int PMPI_Finalized(int* flag) {
  *flag = in_rank() && state().finalized ? 1 : 0;
  return MPI_SUCCESS;
}
MGEN_MPI_ALIAS(Finalized)

int PMPI_Abort(MPI_Comm, int errorcode) {
  return call("MPI_Abort", MPI_COMM_WORLD, [&]() -> int {
    scope().world().fail(fmt::format("rank {} called MPI_Abort with error code {}", scope().rank().id, errorcode));
  });
}
MGEN_MPI_ALIAS(Abort)

double PMPI_Wtime(void) {
  double t = 0;
  call("MPI_Wtime", MPI_COMM_WORLD, [&] {
    // Reading a clock that has not moved since the last read costs the read itself, so that a
    // program waiting for the clock to pass a mark (OSU's dummy compute under --ignore-compute,
    // MPICH's timeout tests) gets there; timing code around MPI calls or measured work reads
    // exactly the rank's clock. Replay (sizes_only) reads the clock for its own bookkeeping,
    // and its recorded computation already holds what the program's clock reads cost.
    auto& r = scope().rank();
    RankState& st = state();
    if (r.clock == st.last_wtime && !scope().world().job().sizes_only) {
      const auto cost = scope().world().mpi().wtime_overhead;
      r.clock += cost;
      r.stats.overhead += cost;
    }
    st.last_wtime = r.clock;
    t = r.clock.seconds();
    return MPI_SUCCESS;
  });
  return t;
}
MGEN_MPI_ALIAS(Wtime)

double PMPI_Wtick(void) {
  return 1e-12;
}
MGEN_MPI_ALIAS(Wtick)

int PMPI_Get_processor_name(char* name, int* resultlen) {
  return call("MPI_Get_processor_name", MPI_COMM_WORLD, [&] {
    const std::string n = fmt::format("node{}", scope().rank().node);
    std::snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", n.c_str());
    *resultlen = static_cast<int>(n.size());
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Get_processor_name)

int PMPI_Get_version(int* version, int* subversion) {
  // What the header the program was compiled with says (MPICH's): programs compare the two.
  // The functions mgen implements are listed in docs/mpi-coverage.md; the rest stop the run.
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}
MGEN_MPI_ALIAS(Get_version)

int PMPI_Get_library_version(char* version, int* resultlen) {
  const char* v = "mgen (simulated MPI over MPICH's ABI)";
  std::snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "%s", v);
  *resultlen = static_cast<int>(std::strlen(v));
  return MPI_SUCCESS;
}
MGEN_MPI_ALIAS(Get_library_version)

int PMPI_Pcontrol(const int, ...) {
  return MPI_SUCCESS;
}
MGEN_MPI_ALIAS(Pcontrol)

int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
  const std::optional<std::string> user = dynamic_error_string(errorcode);
  const char* t = error_text(dynamic_error_class(errorcode).value_or(errorcode));
  const std::string s = user ? *user : t ? t : fmt::format("MPI error code {}", errorcode);
  std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", s.c_str());
  *resultlen = static_cast<int>(std::min<size_t>(s.size(), MPI_MAX_ERROR_STRING - 1));
  return MPI_SUCCESS;
}
MGEN_MPI_ALIAS(Error_string)

int PMPI_Error_class(int errorcode, int* errorclass) {
  // mgen's own error codes are the classes themselves.
  *errorclass = dynamic_error_class(errorcode).value_or(errorcode);
  return MPI_SUCCESS;
}
MGEN_MPI_ALIAS(Error_class)

int PMPI_Comm_set_errhandler(MPI_Comm c, MPI_Errhandler e) {
  return call("MPI_Comm_set_errhandler", c, [&] { return set_errhandler(c, e); });
}
MGEN_MPI_ALIAS(Comm_set_errhandler)

int PMPI_Errhandler_set(MPI_Comm c, MPI_Errhandler e) {
  return PMPI_Comm_set_errhandler(c, e);
}
MGEN_MPI_ALIAS(Errhandler_set)

// MPI-1's names (removed in MPI-3, still in MPICH): the same as the Comm_ functions.
int PMPI_Errhandler_create(MPI_Comm_errhandler_function* fn, MPI_Errhandler* e) {
  return PMPI_Comm_create_errhandler(fn, e);
}
MGEN_MPI_ALIAS(Errhandler_create)

int PMPI_Errhandler_get(MPI_Comm c, MPI_Errhandler* e) {
  return PMPI_Comm_get_errhandler(c, e);
}
MGEN_MPI_ALIAS(Errhandler_get)

int PMPI_Comm_get_errhandler(MPI_Comm c, MPI_Errhandler* e) {
  return call("MPI_Comm_get_errhandler", c, [&] {
    comm(c);
    auto it = state().comm_errhandler.find(c);
    *e = it == state().comm_errhandler.end() ? MPI_ERRORS_ARE_FATAL : it->second;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_get_errhandler)

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* fn, MPI_Errhandler* e) {
  return call("MPI_Comm_create_errhandler", MPI_COMM_WORLD, [&] {
    auto& v = state().errhandlers;
    v.push_back(Errhandler{fn, true});
    *e = static_cast<MPI_Errhandler>(0x94000000u | (v.size() - 1));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_create_errhandler)

int PMPI_Errhandler_free(MPI_Errhandler* e) {
  *e = MPI_ERRHANDLER_NULL;  // handlers stay valid for communicators still using them
  return MPI_SUCCESS;
}
MGEN_MPI_ALIAS(Errhandler_free)

int PMPI_Comm_call_errhandler(MPI_Comm c, int errorcode) {
  return call("MPI_Comm_call_errhandler", c,
              [&]() -> int { fail(errorcode, fmt::format("MPI_Comm_call_errhandler with error code {}", errorcode)); });
}
MGEN_MPI_ALIAS(Comm_call_errhandler)

// mgen's own: `seconds` of computation on this rank (as MGEN_Comp); for programs that model
// their computation instead of (or besides) having it measured.
int MPI_Comp(double seconds) {
  return call("MPI_Comp", MPI_COMM_WORLD, [&] {
    if (!(seconds >= 0) || seconds > 1e6) fail(MPI_ERR_ARG, fmt::format("computation time {} s", seconds));
    scope().world().compute(scope().rank(), mgen::simcore::Time::ps(std::llround(seconds * 1e12)));
    return MPI_SUCCESS;
  });
}

}  // extern "C"

namespace mgen::mpi::abi {

void unsupported(const char* name) {
  World* w = World::active();
  const std::string message =
      fmt::format("the program called {}, which mgen does not support (docs/mpi-coverage.md lists what it does)", name);
  if (w != nullptr && w->in_rank()) {
    api::binding() = api::Binding{};
    w->fail(fmt::format("rank {}: {}", w->current().id, message));
  }
  std::fprintf(stderr, "mgen: %s\n", message.c_str());
  std::abort();
}

}  // namespace mgen::mpi::abi

// `mgen-cc` links programs with --wrap=exit: a rank that calls exit() ends its own main, instead
// of the simulator; `mgen run` then runs the rank's exit handlers, and a status other than 0
// ends the whole run (mpi_program_status).
extern "C" [[noreturn]] void __wrap_exit(int code) {
  World* w = World::active();
  if (w == nullptr || !w->in_rank()) std::exit(code);
  api::binding() = api::Binding{};
  mgen::runtime::forget_unwound_frames();
  throw mgen::mpi::ProgramExit{code};
}
