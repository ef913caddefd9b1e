#include "huge_pages.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace mgen::cli {
namespace {

constexpr const char* kTunable = "glibc.malloc.hugetlb=1";
// Set in the restarted process: the user's GLIBC_TUNABLES, or kUnset if there was none.
constexpr const char* kSaved = "MGEN_SAVED_GLIBC_TUNABLES";
constexpr const char* kUnset = "\x01unset";

const char* g_state = "4 KiB pages";

// The kernel's transparent huge page mode: the bracketed word of "always [madvise] never".
std::string thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(in, line)) return "";
  const size_t open = line.find('[');
  const size_t close = line.find(']', open);
  if (open == std::string::npos || close == std::string::npos) return "";
  return line.substr(open + 1, close - open - 1);
}

}  // namespace

void restart_with_huge_pages(char** argv) {
  if (const char* saved = std::getenv(kSaved)) {
    // The restarted process: glibc has read the tunable; give the user's environment back.
    const std::string user(saved);
    if (user == kUnset) {
      unsetenv("GLIBC_TUNABLES");
    } else {
      setenv("GLIBC_TUNABLES", user.c_str(), 1);
    }
    unsetenv(kSaved);
    g_state = "2 MiB transparent huge pages (glibc.malloc.hugetlb=1)";
    return;
  }
  if (const char* off = std::getenv("MGEN_HUGEPAGES"); off != nullptr && std::strcmp(off, "0") == 0) {
    g_state = "4 KiB pages (MGEN_HUGEPAGES=0)";
    return;
  }
  const std::string mode = thp_mode();
  if (mode == "always") {
    g_state = "transparent huge pages where the kernel finds room (transparent_hugepage=always)";
    return;
  }
  if (mode != "madvise") {
    g_state = "4 KiB pages (the kernel offers no transparent huge pages)";
    return;
  }
  const char* user = std::getenv("GLIBC_TUNABLES");
  if (user != nullptr && std::strstr(user, "glibc.malloc.hugetlb") != nullptr) {
    g_state = "as GLIBC_TUNABLES says (glibc.malloc.hugetlb set by the user)";
    return;
  }
  const std::string tunables = user == nullptr || *user == '\0' ? kTunable : std::string(user) + ":" + kTunable;
  setenv(kSaved, user == nullptr ? kUnset : user, 1);
  setenv("GLIBC_TUNABLES", tunables.c_str(), 1);
  execv("/proc/self/exe", argv);
  // Could not restart (no /proc?): go on as we are, environment as it was.
  if (user == nullptr) {
    unsetenv("GLIBC_TUNABLES");
  } else {
    setenv("GLIBC_TUNABLES", user, 1);
  }
  unsetenv(kSaved);
  g_state = "4 KiB pages (could not restart with glibc.malloc.hugetlb=1)";
}

const char* heap_pages() {
  return g_state;
}

}  // namespace mgen::cli
