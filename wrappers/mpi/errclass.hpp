// User-defined error classes and codes (errclass.cpp), as MPI_Error_class and MPI_Error_string
// see them.
#pragma once

#include <optional>
#include <string>

namespace mgen::mpi::abi {

// The class of a user-defined class or code, or nothing for other values.
std::optional<int> dynamic_error_class(int code);
// The string of a user-defined class or code (empty if none was added), or nothing when the
// predefined text applies (predefined classes and codes added to them without a string).
std::optional<std::string> dynamic_error_string(int code);

}  // namespace mgen::mpi::abi
