// Info objects (info.cpp) and the hints communicators and windows report through them.
#pragma once

#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

namespace mgen::mpi::abi {

using InfoKeys = std::vector<std::pair<std::string, std::string>>;  // in insertion order

// The keys of `info` (MPI_INFO_NULL and MPI_INFO_ENV: none); fails with MPI_ERR_INFO if invalid.
const InfoKeys& info_keys(MPI_Info info);
// A new info object holding `keys`.
MPI_Info new_info(InfoKeys keys);
// The value of `key` in `info`, or null.
const std::string* info_value(MPI_Info info, const std::string& key);

// Communicator hints (MPI_Comm_set_info / MPI_Comm_get_info): the ones MPICH 4.0.2 knows, with
// its defaults; other keys are ignored, as MPICH ignores them.
void comm_hints_set(MPI_Comm c, MPI_Info info);
MPI_Info comm_hints_get(MPI_Comm c);
void comm_hints_forget(MPI_Comm c);  // the communicator was freed

// Window hints (MPI_Win_set_info / MPI_Win_get_info), likewise.
void win_hints_create(MPI_Win w, MPI_Info info);  // a new window (its handle may be reused)
void win_hints_set(MPI_Win w, MPI_Info info);
MPI_Info win_hints_get(MPI_Win w);

}  // namespace mgen::mpi::abi
