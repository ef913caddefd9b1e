// What the datatype constructors share (datatype.cpp, datatype_ctor.cpp): building a type from
// blocks, and recording the arguments MPI_Type_get_contents returns.
#pragma once

#include <mpi.h>

#include <vector>

#include "mpi/shim.hpp"

namespace mgen::mpi::abi {

// One block of a new type: `count` elements of `type` starting `disp` bytes in.
struct TypeBlock {
  int64_t disp;
  int count;
  MPI_Datatype type;
};

// A type made of the blocks in order (every constructor reduces to this); uncommitted.
DType build(const std::vector<TypeBlock>& blocks, int combiner);

// A constructor's arguments, as MPI_Type_get_contents returns them.
struct TypeArgs {
  std::vector<int> ints;
  std::vector<MPI_Aint> addrs;
  std::vector<MPI_Datatype> types;
};
void record(DType& t, TypeArgs args);

}  // namespace mgen::mpi::abi
