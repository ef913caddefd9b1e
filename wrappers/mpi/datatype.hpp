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
  int64_t count;
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

// The elements an array constructor selects (subarray, darray), validated: the array's
// sizes and, per dimension, the chosen indices; and the blocks of `old` they make.
struct ArraySelection {
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> selected;
  bool c_order = true;
};
ArraySelection subarray_selection(int ndims, const int sizes[], const int subsizes[], const int starts[], int order);
ArraySelection darray_selection(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                                const int dargs[], const int psizes[], int order);
std::vector<TypeBlock> array_blocks(const ArraySelection& a, MPI_Datatype old);

// One element's typemap: each basic element's offset and predefined type, in typemap order
// (pair types as their two members), rebuilt from the recorded constructor arguments.
std::vector<std::pair<int64_t, MPI_Datatype>> typemap(MPI_Datatype t);

}  // namespace mgen::mpi::abi
