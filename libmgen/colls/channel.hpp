// What a collective algorithm sees: its rank and communicator, blocking and non-blocking
// point-to-point on the communicator's collective context (so collective traffic never
// matches user messages), and local reductions. Algorithms are plain blocking code: the rank
// runs in a fiber, so no state machines are needed. The channel is bound to one execution
// context of the rank: its main program (blocking collectives) or a helper (non-blocking ones).
#pragma once

#include <cstdint>
#include <vector>

#include "core/comm.hpp"
#include "core/world.hpp"

namespace mgen::mpi::colls {

class Channel {
 public:
  Channel(World& world, Exec& context, Comm& comm)
      : world_(world), exec_(context), rank_(world.owner(context)), comm_(comm) {}

  int rank() const { return comm_.rank; }
  int size() const { return comm_.size(); }
  World& world() { return world_; }
  Rank& self() { return rank_; }
  Exec& context() { return exec_; }
  Comm& comm() { return comm_; }

  // Buffers may be null: then only the size travels.
  uint32_t isend(const void* buf, uint64_t bytes, int peer, int tag) {
    return world_.post_send(exec_, buf, bytes, comm_.world(peer), tag, comm_, comm_.coll_context(), true);
  }
  uint32_t irecv(void* buf, uint64_t bytes, int peer, int tag) {
    return world_.post_recv(exec_, buf, bytes, static_cast<int>(comm_.world(peer)), tag, comm_.coll_context(), true);
  }
  // A receive whose payload is reduced where it lands instead of being copied there, `count`
  // elements of `type` (`type_size` bytes each): buf = payload (op) with, where `with` holds
  // this rank's operand and is buf itself or another buffer. One pass over the data where a
  // copy and then a reduction would make two. Only for an operation that gives the same bits
  // in either operand order (folds_in_place); both buffers stay untouched until the receive
  // completes.
  uint32_t irecv_fold(void* buf, const void* with, uint64_t count, uint32_t type_size, int type, int op, int peer,
                      int tag) {
    const uint32_t q = irecv(buf, count * type_size, peer, tag);
    Request& req = rank_.requests[q];
    req.fold_op = op;
    req.fold_type = type;
    req.fold_size = type_size;
    req.fold_with = with;
    return q;
  }
  void wait(uint32_t q) { waitall(&q, 1); }
  // Waits for every request and frees them. A truncated piece means the members passed
  // mismatched arguments that the cross-rank check does not cover: it stops the run.
  void waitall(const uint32_t* qs, uint32_t n) {
    world_.wait_all(exec_, qs, n);
    for (uint32_t i = 0; i < n; ++i) {
      if (rank_.requests[qs[i]].status.error == kErrTruncated) truncated(qs[i]);
      rank_.free_request_slot(qs[i]);
    }
  }
  // The same, and empties the vector.
  void waitall(std::vector<uint32_t>& qs) {
    waitall(qs.data(), static_cast<uint32_t>(qs.size()));
    qs.clear();
  }
  void send(const void* buf, uint64_t bytes, int peer, int tag) { wait(isend(buf, bytes, peer, tag)); }
  void recv(void* buf, uint64_t bytes, int peer, int tag) { wait(irecv(buf, bytes, peer, tag)); }
  void sendrecv(const void* sbuf, uint64_t sbytes, int dst, void* rbuf, uint64_t rbytes, int src, int tag) {
    const uint32_t qs[2] = {irecv(rbuf, rbytes, src, tag), isend(sbuf, sbytes, dst, tag)};
    waitall(qs, 2);
  }

  // inout = in (op) inout, elementwise; nothing when either buffer is null (size-only runs).
  void reduce(const void* in, void* inout, uint64_t count, int type, int op);

 private:
  [[noreturn]] void truncated(uint32_t q);

  World& world_;
  Exec& exec_;
  Rank& rank_;
  Comm& comm_;
};

}  // namespace mgen::mpi::colls
