// The recorder's state and record writer, shared by the hand-written wrappers (preload.cpp)
// and the generated ones (calls_generated.cpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "mgen/trace/format.hpp"

namespace mgen::recorder {

// One call being recorded: stamps the time at entry; end() writes the record with the
// op's fields.
class Call {
 public:
  explicit Call(trace::Op op);
  // Fields, in the order docs/trace-format.md gives for the op.
  void u(uint64_t v) { trace::put_u(fields_, v); }
  void s(int64_t v) { trace::put_s(fields_, v); }
  void end();

 private:
  trace::Op op_;
  uint64_t cpu0_, wall0_;
  std::vector<uint8_t>& fields_;
};

bool recording();                    // between MPI_Init and MPI_Finalize
uint64_t name_id(const char* name);  // defines the name in the trace on first use
int64_t comm_id(MPI_Comm c);         // -1 for MPI_COMM_NULL; unknown ones get a fresh id
uint64_t type_size(MPI_Datatype t);

}  // namespace mgen::recorder
