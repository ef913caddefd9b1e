// Attribute callbacks that communicator and datatype creation and destruction, MPI_Win_free and
// MPI_Finalize run.
#pragma once

#include <mpi.h>

#include <memory>

#include "mpi/shim.hpp"

namespace mgen::mpi::abi {

// Copies the attributes (and topology) of `from` to its duplicate `to` through their copy
// callbacks.
void copy_attrs(MPI_Comm from, MPI_Comm to);
// The same for MPI_Comm_dup/idup: if a copy callback fails, the duplicate is freed and `*to`
// becomes MPI_COMM_NULL before the error propagates.
void copy_attrs_or_free(MPI_Comm from, MPI_Comm* to);
// Runs the delete callbacks of every attribute of `c`, last set first, and forgets them and
// its topology.
void delete_attrs(MPI_Comm c);
// Datatypes: MPI_Type_dup copies the attributes through their copy callbacks. MPI_Type_free
// runs their delete callbacks when the type goes with its handle (`type`: the handle's type,
// still held), or keeps them until the last reference to the type goes: sweep_type_attrs(),
// after the handle is released, runs those of types gone since.
void copy_type_attrs(MPI_Datatype from, MPI_Datatype to);
void free_type_attrs(MPI_Datatype t, const std::shared_ptr<DType>& type);
void sweep_type_attrs();
// Drops the attributes of a handle without callbacks (a duplicate whose copying failed).
void forget_attrs(int handle);
// MPI_Finalize's first step: the attributes of MPI_COMM_SELF, then of MPI_COMM_WORLD, deleted.
void finalize_attrs();
// A user attribute of window `w` (for MPI_Win_get_attr); false if not set.
bool win_user_attr(MPI_Win w, int keyval, void** value);
// MPI_Win_free: the delete callbacks of the window's attributes.
void delete_win_attrs(MPI_Win w);
// MPI_LASTUSEDCODE: the largest error code in use (MPI_ERR_LASTCODE until codes are added).
int last_used_error_code();

}  // namespace mgen::mpi::abi
