// Stops the run: the program called an MPI function mgen does not implement.
#pragma once

namespace mgen::mpi::abi {
[[noreturn]] void unsupported(const char* name);
}
