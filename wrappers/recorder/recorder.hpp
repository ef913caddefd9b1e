// The recorder's state and record writer, shared by the hand-written wrappers (preload.cpp, p2p.cpp,
// colls.cpp) and the generated ones (calls_generated.cpp in the build directory, scripts/gen_recorder_calls.py).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "mgen/trace/record.hpp"

namespace mgen::recorder {

// One call being recorded: stamps the time at entry; the wrapper fills the record's fields
// (those its row of trace/include/mgen/trace/calls.def lists: the table decides what is
// written, and in which order); end() writes the record. The application's computation stops
// when a Call is made and starts again when it is destroyed, so a wrapper makes its Call
// first and keeps it to the end: the recorder's own work around it is then not computation.
class Call {
 public:
  explicit Call(trace::Op op);
  ~Call();
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;
  trace::Record& record() { return record_; }
  void end();

 private:
  uint64_t wall0_;
  trace::Record& record_;
};

bool recording();                    // between MPI_Init and MPI_Finalize
uint64_t name_id(const char* name);  // defines the name in the trace on first use
int64_t comm_id(MPI_Comm c);         // -1 for MPI_COMM_NULL; unknown ones get a fresh id
void forget_comm(MPI_Comm c);        // after MPI_Comm_free: its handle may be reused
uint64_t type_size(MPI_Datatype t);
trace::Received received(const MPI_Status& st);  // a receive's source, tag and bytes

// Requests get ids in order of creation. MPICH hands out one predefined handle for every
// request that completed at once (a small eager send, a receive from MPI_PROC_NULL), so a
// handle may stand for several live requests: the k-th occurrence of it in a call's array is
// the k-th oldest (they are all complete, so which is which does not matter).
struct Known {
  int64_t id;  // -1: not a request the trace knows
  bool receive;
};
int64_t new_request(MPI_Request r, bool receive);  // -1 for MPI_REQUEST_NULL
int64_t request_id(MPI_Request r);
// The requests of a call's array, looked up before the call frees them.
std::vector<Known> look_up(int n, const MPI_Request* rs);
void forget(MPI_Request h, int64_t id);
// After completion: a request the call set to MPI_REQUEST_NULL is gone; a persistent one
// keeps its handle (and its id).
void forget_completed(const std::vector<Known>& ks, const MPI_Request* before, const MPI_Request* after);

}  // namespace mgen::recorder
