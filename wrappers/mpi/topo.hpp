// Graph and distributed-graph topologies kept beside their communicators (Cartesian grids are
// the MGEN layer's), for the attribute code that runs on MPI_Comm_dup and MPI_Comm_free.
#pragma once

#include <mpi.h>

namespace mgen::mpi::abi {

// MPI_Comm_dup: the duplicate gets the same topology.
void copy_topology(MPI_Comm from, MPI_Comm to);
// MPI_Comm_free: the topology of `c` is gone.
void forget_topology(MPI_Comm c);

}  // namespace mgen::mpi::abi

#include <vector>

namespace mgen::mpi::abi {

// A neighbourhood collective's peers in buffer order (MPI-4 §8.6), MPI_PROC_NULL included.
struct Neighbors {
  std::vector<int> in, out;
  bool cart = false;  // Cartesian: out slot k arrives at the peer's in slot k ^ 1
};
Neighbors neighbors(MPI_Comm c);  // fails with MPI_ERR_TOPOLOGY without a topology
// The communicator a neighbourhood collective on `c` sends on (made on first use).
MPI_Comm shadow(MPI_Comm c);

}  // namespace mgen::mpi::abi
