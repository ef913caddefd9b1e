// Bruck's alltoall (Bruck, Ho, Kipnis, Upfal & Weathersby 1997; MPICH's alltoall for blocks of
// at most 256 bytes): ceil(log2 p) rounds instead of p - 1, each moving about half the data,
// so it wins when latency dominates. The blocks are rotated so that position j holds the
// block for rank + j; in the round at distance 2^k every block whose position has bit k set
// moves 2^k ranks on, keeping its position; after all rounds position j at rank r holds the
// block from rank r - j, and an inverse rotation puts it in place. Needs every block's size
// at every rank, so alltoallv goes pairwise.
#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

void alltoall_bruck(Channel& ch, const BlockArgs& a) {
  if (!a.regular) {
    alltoall_pairwise(ch, a);
    return;
  }
  const int p = ch.size(), me = ch.rank();
  const uint64_t block = a.block;
  auto off = [&](int j) { return static_cast<uint64_t>(j) * block; };
  const bool real = a.send != nullptr && a.recv != nullptr;
  Scratch rotated_buf(real, off(p)), out_buf(real, off(p / 2 + 1)), in_buf(real, off(p / 2 + 1));
  char* rotated = rotated_buf.get();
  char* out = out_buf.get();
  char* in = in_buf.get();
  copy_block(rotated, at(a.send, off(me)), off(p - me));
  copy_block(at(rotated, off(p - me)), a.send, off(me));
  for (int dist = 1; dist < p; dist <<= 1) {
    int n = 0;
    for (int j = dist; j < p; ++j) {
      if (j & dist) copy_block(at(out, off(n++)), at(rotated, off(j)), block);
    }
    exchange(ch, out, off(n), (me + dist) % p, in, off(n), (me - dist + p) % p, kTagAlltoall);
    n = 0;
    for (int j = dist; j < p; ++j) {
      if (j & dist) copy_block(at(rotated, off(j)), at(in, off(n++)), block);
    }
  }
  for (int j = 0; j < p; ++j)
    copy_block(at(a.recv, off((me - j + p) % p)), at(rotated, off(j)), block);
}

}  // namespace mgen::mpi::colls
