// A position-independent executable is a shared object with DF_1_PIE set in its dynamic
// section; glibc's dlopen refuses it for that flag alone. Built from -fPIE objects with
// --export-dynamic (mgen-cc's link flags), it is otherwise a module like mgen-cc's own output:
// its copy relocations (stderr, environ) are resolved by the dynamic loader when it is opened.
#include "pie_module.hpp"

#include <elf.h>
#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace mgen::cli {

namespace fs = std::filesystem;

namespace {

// Clears DF_1_PIE in a 64-bit little-endian ELF image; false when the image has no such flag
// (or is no ELF file of that class, which dlopen then reports itself).
bool clear_pie_flag(std::string& image) {
  Elf64_Ehdr eh;
  if (image.size() < sizeof eh) return false;
  std::memcpy(&eh, image.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_type != ET_DYN || eh.e_phentsize != sizeof(Elf64_Phdr)) {
    return false;
  }
  for (size_t i = 0; i < eh.e_phnum; ++i) {
    const size_t at = eh.e_phoff + i * sizeof(Elf64_Phdr);
    if (at + sizeof(Elf64_Phdr) > image.size()) return false;
    Elf64_Phdr ph;
    std::memcpy(&ph, image.data() + at, sizeof ph);
    if (ph.p_type != PT_DYNAMIC) continue;
    for (size_t d = ph.p_offset;
         d + sizeof(Elf64_Dyn) <= ph.p_offset + ph.p_filesz && d + sizeof(Elf64_Dyn) <= image.size();
         d += sizeof(Elf64_Dyn)) {
      Elf64_Dyn dyn;
      std::memcpy(&dyn, image.data() + d, sizeof dyn);
      if (dyn.d_tag == DT_NULL) break;
      if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE) != 0) {
        dyn.d_un.d_val &= ~static_cast<Elf64_Xword>(DF_1_PIE);
        std::memcpy(image.data() + d, &dyn, sizeof dyn);
        return true;
      }
    }
  }
  return false;
}

}  // namespace

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

LoadableModule::LoadableModule(const fs::path& program) : path_(program) {
  std::string image = file_bytes(program);
  // Only programs linked with mgen-cc's flags (their entry point, mgen_direct_run, is named in
  // the file): any other executable keeps dlopen's refusal, which the caller explains.
  if (image.find("mgen_direct_run") == std::string::npos || !clear_pie_flag(image)) return;
  const char* tmp = std::getenv("TMPDIR");
  std::string name = (fs::path(tmp ? tmp : "/tmp") / "mgen-pie-XXXXXX.so").string();
  const int fd = mkstemps(name.data(), 3);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot create a temporary copy of {}", program.string()));
  close(fd);
  path_ = name;
  temporary_ = true;
  std::ofstream out(path_, std::ios::binary);
  out.write(image.data(), static_cast<std::streamsize>(image.size()));
  if (!out.flush()) throw std::runtime_error(fmt::format("cannot write a temporary copy of {}", program.string()));
}

LoadableModule::~LoadableModule() {
  if (!temporary_) return;
  std::error_code ec;
  fs::remove(path_, ec);
}

}  // namespace mgen::cli
