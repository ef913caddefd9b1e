#include "install_paths.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <vector>

#include "mgen/config/machine.hpp"

#ifndef MGEN_CONFIG_DIR
#define MGEN_CONFIG_DIR "configs"
#endif

namespace mgen::cli {

namespace fs = std::filesystem;

std::string machine_files_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path() / ".." / "share" / "mgen" / "configs";
    if (fs::is_directory(installed, ec)) return fs::weakly_canonical(installed, ec).string();
  }
  return MGEN_CONFIG_DIR;
}

std::string find_machine_file(const std::string& name) {
  std::error_code ec;
  if (name.empty() || fs::exists(name, ec) || fs::path(name).has_parent_path()) return name;
  const fs::path dir = machine_files_dir();
  for (const fs::path& p : {dir / name, dir / (name + ".toml")}) {
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  std::vector<std::string> shipped;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".toml") shipped.push_back(entry.path().stem().string());
  }
  std::sort(shipped.begin(), shipped.end());
  throw config::Error(name, "",
                      fmt::format("no such machine file, nor a shipped one of that name in {} ({})", dir.string(),
                                  shipped.empty() ? "none there" : fmt::format("{}", fmt::join(shipped, ", "))));
}

}  // namespace mgen::cli
