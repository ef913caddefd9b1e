// Programs linked as position-independent executables (a plain `gcc` link of a CMake target
// using mgen-cc's flags through find_package(MPI): the flags it parses drop -shared and -fPIC).
#pragma once

#include <filesystem>
#include <string>

namespace mgen::cli {

// The whole file, as bytes (empty if it cannot be read).
std::string file_bytes(const std::filesystem::path& path);

// The file to hand dlopen for `program`: the program itself, or, for a position-independent
// executable linked with mgen-cc's flags (DF_1_PIE, which glibc refuses to dlopen), a copy
// without that flag in a temporary file that is removed when this object goes (dlopen keeps
// its mapping).
class LoadableModule {
 public:
  explicit LoadableModule(const std::filesystem::path& program);
  ~LoadableModule();
  LoadableModule(const LoadableModule&) = delete;
  LoadableModule& operator=(const LoadableModule&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  bool temporary_ = false;
};

}  // namespace mgen::cli
