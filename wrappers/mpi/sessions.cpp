// The MPI-4.0 sessions model (§11.3): MPI_Session_init opens MPI for a library without
// MPI_Init; the process sets "mpi://WORLD" and "mpi://SELF" (the two every implementation has)
// give groups, and MPI_Comm_create_from_group makes communicators from them. Sessions and the
// world model coexist: MPI stays usable while a session is open or between MPI_Init and
// MPI_Finalize (shim.cpp's call()).
#include <fmt/format.h>

#include <strings.h>

#include <cstring>
#include <string>

#include "core/world.hpp"
#include "mpi/info.hpp"
#include "mpi/intercomm.hpp"
#include "mpi/shim.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;

namespace {

constexpr uint32_t kSessionKind = 0xb8000000u;
constexpr uint32_t kSessionMask = 0xfc000000u;

struct Sessions : World::Extension {
  explicit Sessions(World& w) : ranks(w.size()) {}
  struct Session {
    bool open = false;
    int thread_level = MPI_THREAD_SINGLE;
  };
  std::vector<std::vector<Session>> ranks;
};
const char kSessionsKey = 0;

std::vector<Sessions::Session>& mine() {
  return scope().world().extension<Sessions>(&kSessionsKey).ranks[scope().rank().id];
}

Sessions::Session& session(MPI_Session s) {
  auto& v = mine();
  const uint32_t i = static_cast<uint32_t>(s) & ~kSessionMask;
  if ((static_cast<uint32_t>(s) & kSessionMask) != kSessionKind || i >= v.size() || !v[i].open) {
    fail(MPI_ERR_SESSION, s == MPI_SESSION_NULL ? "MPI_SESSION_NULL" : fmt::format("invalid session {:#x}", s));
  }
  return v[i];
}

const char* const kPsets[] = {"mpi://WORLD", "mpi://SELF"};

int pset_index(const char* name) {
  if (name == nullptr) fail(MPI_ERR_ARG, "null process set name");
  for (int i = 0; i < 2; ++i) {
    // MPICH matches the built-in names without regard to case (MPICH's session_self asks for
    // "mpi://self").
    if (strcasecmp(name, kPsets[i]) == 0) return i;
  }
  fail(MPI_ERR_ARG, fmt::format("unknown process set \"{}\" (mgen has mpi://WORLD and mpi://SELF)", name));
}

int thread_level_of(const std::string& v) {
  if (v == "MPI_THREAD_SINGLE") return MPI_THREAD_SINGLE;
  if (v == "MPI_THREAD_FUNNELED") return MPI_THREAD_FUNNELED;
  if (v == "MPI_THREAD_SERIALIZED") return MPI_THREAD_SERIALIZED;
  if (v == "MPI_THREAD_MULTIPLE") return MPI_THREAD_MULTIPLE;
  return MPI_THREAD_SINGLE;
}

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:
      return "MPI_THREAD_MULTIPLE";
    default:
      return "MPI_THREAD_SINGLE";
  }
}

}  // namespace

extern "C" {

int PMPI_Session_init(MPI_Info info, MPI_Errhandler, MPI_Session* s) {
  return call("MPI_Session_init", MPI_COMM_WORLD, [&] {
    if (s == nullptr) fail(MPI_ERR_ARG, "null session pointer");
    info_keys(info);  // validates
    Sessions::Session fresh{true, MPI_THREAD_SINGLE};
    if (const std::string* v = info_value(info, "thread_level")) {
      // As MPI_Init_thread: ranks are fibers of one thread, so at most MPI_THREAD_SERIALIZED.
      fresh.thread_level = std::min(thread_level_of(*v), static_cast<int>(MPI_THREAD_SERIALIZED));
    }
    auto& v = mine();
    uint32_t i = 0;
    while (i < v.size() && v[i].open)
      ++i;
    if (i == v.size()) v.emplace_back();
    v[i] = fresh;
    ++state().sessions;
    *s = static_cast<MPI_Session>(kSessionKind | i);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Session_init)

int PMPI_Session_finalize(MPI_Session* s) {
  return call("MPI_Session_finalize", MPI_COMM_WORLD, [&] {
    if (s == nullptr) fail(MPI_ERR_ARG, "null session pointer");
    session(*s).open = false;
    --state().sessions;
    *s = MPI_SESSION_NULL;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Session_finalize)

int PMPI_Session_get_info(MPI_Session s, MPI_Info* info) {
  return call("MPI_Session_get_info", MPI_COMM_WORLD, [&] {
    if (info == nullptr) fail(MPI_ERR_ARG, "null info pointer");
    *info = new_info({{"thread_level", thread_level_name(session(s).thread_level)}});
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Session_get_info)

int PMPI_Session_get_num_psets(MPI_Session s, MPI_Info, int* npset_names) {
  return call("MPI_Session_get_num_psets", MPI_COMM_WORLD, [&] {
    session(s);
    *npset_names = 2;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Session_get_num_psets)

int PMPI_Session_get_nth_pset(MPI_Session s, MPI_Info, int n, int* pset_len, char* pset_name) {
  return call("MPI_Session_get_nth_pset", MPI_COMM_WORLD, [&] {
    session(s);
    if (n < 0 || n >= 2) fail(MPI_ERR_ARG, fmt::format("process set {} of 2", n));
    if (pset_len == nullptr) fail(MPI_ERR_ARG, "null length pointer");
    const std::string name = kPsets[n];
    // MPI-4.0 §11.3.2: a length of 0 asks for the size needed (with the terminating NUL).
    if (*pset_len > 0 && pset_name != nullptr) {
      const size_t k = std::min(name.size(), static_cast<size_t>(*pset_len - 1));
      std::memcpy(pset_name, name.data(), k);
      pset_name[k] = '\0';
    }
    *pset_len = static_cast<int>(name.size()) + 1;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Session_get_nth_pset)

int PMPI_Session_get_pset_info(MPI_Session s, const char* pset_name, MPI_Info* info) {
  return call("MPI_Session_get_pset_info", MPI_COMM_WORLD, [&] {
    session(s);
    const int i = pset_index(pset_name);
    int n = 1;
    if (i == 0) MGEN_Comm_size(MGEN_COMM_WORLD, &n);
    *info = new_info({{"mpi_size", std::to_string(n)}});
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Session_get_pset_info)

int PMPI_Group_from_session_pset(MPI_Session s, const char* pset_name, MPI_Group* g) {
  return call("MPI_Group_from_session_pset", MPI_COMM_WORLD, [&] {
    session(s);
    return PMPI_Comm_group(pset_index(pset_name) == 0 ? MPI_COMM_WORLD : MPI_COMM_SELF, g);
  });
}
MGEN_MPI_ALIAS(Group_from_session_pset)

// Collective over the group: the members derive the same context from the string tag (as
// MPI_Comm_create_group does from its tag) within MPI_COMM_WORLD, which holds every process.
int PMPI_Comm_create_from_group(MPI_Group g, const char* stringtag, MPI_Info info, MPI_Errhandler errhandler,
                                MPI_Comm* newcomm) {
  return call("MPI_Comm_create_from_group", MPI_COMM_WORLD, [&] {
    if (stringtag == nullptr) fail(MPI_ERR_ARG, "null string tag");
    if (newcomm == nullptr) fail(MPI_ERR_ARG, "null communicator pointer");
    info_keys(info);             // validates
    uint32_t tag = 2166136261u;  // FNV-1a of the string tag
    for (const char* c = stringtag; *c != 0; ++c)
      tag = (tag ^ static_cast<unsigned char>(*c)) * 16777619u;
    create_group(MPI_COMM_WORLD, g, static_cast<int>(tag & 0x3fffffffu), newcomm);
    if (*newcomm != MPI_COMM_NULL && errhandler != MPI_ERRHANDLER_NULL) PMPI_Comm_set_errhandler(*newcomm, errhandler);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Comm_create_from_group)

}  // extern "C"
