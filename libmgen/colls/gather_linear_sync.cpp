// Synchronised linear gather (Open MPI's linear_sync, coll_base_gather.c): the root takes the
// ranks one at a time; for each it posts the receive for its block, sends it an empty "go"
// message and waits for the block before turning to the next. A rank waits for its go, then
// sends its block and an empty second segment (Open MPI's fixed rules pass segment size 0,
// so the first segment is the whole block and the second one is empty but still sent). So
// the root's NIC never sees more than one block in flight. Serves the "v" form too.
#include <vector>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void gather_linear_sync(Channel& ch, const BlockArgs& a) {
  const int p = ch.size(), me = ch.rank();
  if (me != a.root) {
    ch.recv(nullptr, 0, a.root, kTagGather);
    ch.send(a.send, a.send_bytes, a.root, kTagGather);
    ch.send(nullptr, 0, a.root, kTagGather);
    return;
  }
  std::vector<uint32_t> rest;
  rest.reserve(static_cast<size_t>(p));
  for (int i = 0; i < p; ++i) {
    if (i == me) continue;
    const uint32_t block = ch.irecv(at(a.recv, a.recv_displ(i)), a.recv_count(i), i, kTagGather);
    ch.send(nullptr, 0, i, kTagGather);
    rest.push_back(ch.irecv(nullptr, 0, i, kTagGather));
    ch.wait(block);
  }
  if (!a.in_place) copy_block(at(a.recv, a.recv_displ(me)), a.send, a.recv_count(me));
  ch.waitall(rest);
}

}  // namespace mgen::mpi::colls
