// MPI_Type_get_envelope and MPI_Type_get_contents (MPI-4.0 §5.1.13): every derived type keeps
// its constructor's arguments (DType::c_*), recorded by the constructors.
#include <fmt/format.h>

#include "mpi/datatype.hpp"

using namespace mgen::mpi::abi;

extern "C" {

int PMPI_Type_get_envelope(MPI_Datatype type, int* num_integers, int* num_addresses, int* num_datatypes,
                           int* combiner) {
  return call("MPI_Type_get_envelope", MPI_COMM_WORLD, [&] {
    const DType& t = dtype_any(type);
    if (t.predefined) {
      *num_integers = *num_addresses = *num_datatypes = 0;
      *combiner = MPI_COMBINER_NAMED;
      return MPI_SUCCESS;
    }
    *num_integers = static_cast<int>(t.c_ints.size());
    *num_addresses = static_cast<int>(t.c_addrs.size());
    *num_datatypes = static_cast<int>(t.c_types.size());
    *combiner = t.combiner;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_get_envelope)

int PMPI_Type_get_contents(MPI_Datatype type, int max_integers, int max_addresses, int max_datatypes, int integers[],
                           MPI_Aint addresses[], MPI_Datatype datatypes[]) {
  return call("MPI_Type_get_contents", MPI_COMM_WORLD, [&] {
    const DType& t = dtype_any(type);
    if (t.predefined) fail(MPI_ERR_TYPE, "MPI_Type_get_contents of a predefined datatype (MPI_COMBINER_NAMED)");
    if (max_integers < static_cast<int>(t.c_ints.size()) || max_addresses < static_cast<int>(t.c_addrs.size()) ||
        max_datatypes < static_cast<int>(t.c_types.size())) {
      fail(MPI_ERR_ARG,
           fmt::format("room for {} integers, {} addresses and {} datatypes; the type has {}, {} and {}", max_integers,
                       max_addresses, max_datatypes, t.c_ints.size(), t.c_addrs.size(), t.c_types.size()));
    }
    std::copy(t.c_ints.begin(), t.c_ints.end(), integers);
    std::copy(t.c_addrs.begin(), t.c_addrs.end(), addresses);
    // Predefined types come back as themselves; a derived one as a new handle to the same type
    // (the caller frees it), as MPICH does.
    const auto members = t.c_types;  // adding handles may move `t`'s storage
    for (size_t i = 0; i < members.size(); ++i)
      datatypes[i] = members[i].type ? add_type_shared(members[i].type) : members[i].handle;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Type_get_contents)

}  // extern "C"
