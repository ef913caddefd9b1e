// User-defined error classes, codes and strings (MPI-4.0 §9.5) and MPICH's MPIX_Delete_error_*
// extensions, numbered as MPICH 4.0.2 numbers them: classes 0x40000000 | n (n from 1), codes
// (m << 8) | class for the m-th code added (m counts every code), so MPI_Error_class of a code
// is its low byte with the dynamic bit; MPI_LASTUSEDCODE is the last class added (as MPICH
// reports it). Each rank is an MPI process: each has its own.
#include "mpi/errclass.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>

#include "core/world.hpp"
#include "mpi/attr.hpp"
#include "mpi/shim.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;

namespace {

constexpr int kDynamic = 0x40000000;

struct ErrorClasses : World::Extension {
  explicit ErrorClasses(World& w) : ranks(w.size()) {}
  struct Rank {
    std::map<int, int> classes;          // class -> how many codes it has
    std::map<int, int> codes;            // code -> its class
    std::map<int, std::string> strings;  // code or class -> its string
    int next_code = 1, last_class = 0;
  };
  std::vector<Rank> ranks;
};
const char kKey = 0;

ErrorClasses::Rank* mine() {
  World* w = World::active();
  if (w == nullptr || !w->in_rank()) return nullptr;
  return &w->extension<ErrorClasses>(&kKey).ranks[w->current().id];
}

bool predefined_class(int c) {
  return c >= MPI_SUCCESS && c <= MPI_ERR_LASTCODE && c < 0x100;
}

}  // namespace

namespace mgen::mpi::abi {

int last_used_error_code() {
  const ErrorClasses::Rank* r = mine();
  return r == nullptr || r->last_class == 0 ? MPI_ERR_LASTCODE : kDynamic | r->last_class;
}

std::optional<int> dynamic_error_class(int code) {
  const ErrorClasses::Rank* r = mine();
  if (r == nullptr) return std::nullopt;
  if (r->classes.count(code)) return code;
  auto it = r->codes.find(code);
  if (it != r->codes.end()) return it->second;
  return std::nullopt;
}

std::optional<std::string> dynamic_error_string(int code) {
  const ErrorClasses::Rank* r = mine();
  if (r == nullptr) return std::nullopt;
  auto s = r->strings.find(code);
  if (s != r->strings.end()) return s->second;
  if (r->classes.count(code)) return std::string();  // a new class has the empty string
  auto c = r->codes.find(code);
  if (c != r->codes.end() && !predefined_class(c->second)) return std::string();
  return std::nullopt;  // a code of a predefined class: the class's text
}

}  // namespace mgen::mpi::abi

extern "C" {

int PMPI_Add_error_class(int* errorclass) {
  return call("MPI_Add_error_class", MPI_COMM_WORLD, [&] {
    if (errorclass == nullptr) fail(MPI_ERR_ARG, "null error class pointer");
    ErrorClasses::Rank& r = *mine();
    // MPICH reuses the lowest deleted class number.
    int n = 1;
    while (r.classes.count(kDynamic | n))
      ++n;
    if (n > 0xff) fail(MPI_ERR_OTHER, "no more error classes (MPICH allows 255)");
    *errorclass = kDynamic | n;
    r.classes[*errorclass] = 0;
    r.last_class = std::max(r.last_class, n);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Add_error_class)

int PMPI_Add_error_code(int errorclass, int* errorcode) {
  return call("MPI_Add_error_code", MPI_COMM_WORLD, [&] {
    if (errorcode == nullptr) fail(MPI_ERR_ARG, "null error code pointer");
    ErrorClasses::Rank& r = *mine();
    if (!predefined_class(errorclass) && !r.classes.count(errorclass)) {
      fail(MPI_ERR_ARG, fmt::format("{:#x} is not an error class", errorclass));
    }
    if (r.next_code >= (1 << 22)) fail(MPI_ERR_OTHER, "no more error codes");
    *errorcode = (r.next_code++ << 8) | errorclass;
    r.codes[*errorcode] = errorclass;
    if (!predefined_class(errorclass)) ++r.classes[errorclass];
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Add_error_code)

int PMPI_Add_error_string(int errorcode, const char* string) {
  return call("MPI_Add_error_string", MPI_COMM_WORLD, [&] {
    if (string == nullptr) fail(MPI_ERR_ARG, "null string");
    ErrorClasses::Rank& r = *mine();
    if (!r.classes.count(errorcode) && !r.codes.count(errorcode)) {
      // MPICH accepts a string for a predefined class and keeps its own text.
      if (predefined_class(errorcode)) return MPI_SUCCESS;
      fail(MPI_ERR_ARG, fmt::format("{:#x} is not a user-defined error class or code", errorcode));
    }
    const std::string s(string);
    if (s.size() >= MPI_MAX_ERROR_STRING) {
      fail(MPI_ERR_ARG, fmt::format("error string of {} characters (at most {})", s.size(), MPI_MAX_ERROR_STRING - 1));
    }
    r.strings[errorcode] = s;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Add_error_string)

int PMPIX_Delete_error_string(int errorcode) {
  return call("MPIX_Delete_error_string", MPI_COMM_WORLD, [&] {
    ErrorClasses::Rank& r = *mine();
    if (!r.strings.erase(errorcode)) fail(MPI_ERR_ARG, fmt::format("no string was added for {:#x}", errorcode));
    return MPI_SUCCESS;
  });
}
#pragma weak MPIX_Delete_error_string = PMPIX_Delete_error_string

int PMPIX_Delete_error_code(int errorcode) {
  return call("MPIX_Delete_error_code", MPI_COMM_WORLD, [&] {
    ErrorClasses::Rank& r = *mine();
    auto it = r.codes.find(errorcode);
    if (it == r.codes.end()) fail(MPI_ERR_ARG, fmt::format("{:#x} is not a user-defined error code", errorcode));
    if (!predefined_class(it->second)) --r.classes[it->second];
    r.codes.erase(it);
    r.strings.erase(errorcode);
    return MPI_SUCCESS;
  });
}
#pragma weak MPIX_Delete_error_code = PMPIX_Delete_error_code

int PMPIX_Delete_error_class(int errorclass) {
  return call("MPIX_Delete_error_class", MPI_COMM_WORLD, [&] {
    ErrorClasses::Rank& r = *mine();
    auto it = r.classes.find(errorclass);
    if (it == r.classes.end()) fail(MPI_ERR_ARG, fmt::format("{:#x} is not a user-defined error class", errorclass));
    if (it->second > 0) {
      fail(MPI_ERR_ARG,
           fmt::format("error class {:#x} still has {} error codes (delete them first)", errorclass, it->second));
    }
    r.classes.erase(it);
    r.strings.erase(errorclass);
    return MPI_SUCCESS;
  });
}
#pragma weak MPIX_Delete_error_class = PMPIX_Delete_error_class

}  // extern "C"
