#include "install_paths.hpp"

#include <filesystem>
#include <system_error>

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
  return name;
}

}  // namespace mgen::cli
