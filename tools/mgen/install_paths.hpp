// Where mgen finds what it ships beside itself: the machine files, in the source tree (a build)
// or in PREFIX/share/mgen/configs (an installed mgen, found from the executable's own location
// so that a relocated prefix works).
#pragma once

#include <string>

namespace mgen::cli {

// The directory of the shipped machine files: the installed one next to this executable if it
// exists, else the source tree's configs/ (MGEN_CONFIG_DIR) this mgen was built from.
std::string machine_files_dir();

// What `-c NAME` names: NAME itself when it is a file, else the shipped machine file NAME or
// NAME.toml (`-c hopper`); a config::Error naming the shipped ones when neither exists. A
// NAME with a directory part is returned as it is (the reader says if it cannot be opened).
std::string find_machine_file(const std::string& name);

}  // namespace mgen::cli
