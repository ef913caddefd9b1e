// Butterfly reduce-scatter (Open MPI's "butterfly", coll_base_reduce_scatter.c; Träff 2005):
// recursive vector halving with distance doubling. Rabenseifner's fold first makes p a power
// of two (Fold: even ranks among the first 2 * extra hand their vector to the odd rank above).
// The vector is cut into pof2 virtual blocks (block j: the real blocks of the ranks new rank j
// stands for); at distance 1, 2, 4, ... a rank keeps the half of its current range that its
// bit at that distance selects and sends the other half. It ends holding the virtual block of
// the bit-reversed new rank, so a last exchange with that rank (a mirror permutation) delivers
// every block; a folded-out rank gets its block straight from the holder. For operations that
// commute (Open MPI's rules send the others elsewhere; the MPI layer keeps them off this path).
#include <utility>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

namespace {

int mirror(int v, int bits) {
  int r = 0;
  for (int i = 0; i < bits; ++i)
    r |= ((v >> i) & 1) << (bits - 1 - i);
  return r;
}

}  // namespace

void reduce_scatter_butterfly(Channel& ch, const ReduceScatterArgs& a) {
  const int p = ch.size(), me = ch.rank();
  const uint64_t ts = a.type_size;
  const Packed packed(p, a.regular, a.block, a.counts);  // in elements
  const void* in = a.in_place ? a.recv : a.send;
  const uint64_t mine = a.count(me) * ts;
  const uint64_t total = packed.total() * ts;
  const bool real = present(in, total) && present(a.recv, mine);
  if (p == 1) {
    if (a.in_place) return;  // the result is already at the start of recv
    copy_block(a.recv, in, mine);
    return;
  }
  const Fold f(p);
  int bits = 0;
  while ((1 << bits) < f.pof2)
    ++bits;
  Scratch first(real, total), second(real, total);
  char* psend = first.get();
  char* precv = second.get();
  copy_block(psend, in, total);
  const int vrank = f.newrank(me);
  if (vrank < 0) {  // folded out: hand over the vector, then wait for the block
    ch.send(psend, total, me + 1, kTagReduceScatter);
    const int holder = f.real(mirror(me / 2, bits));
    if (mine > 0) ch.recv(a.recv, mine, holder, kTagReduceScatter);
    return;
  }
  if (me < 2 * f.extra) {
    ch.recv(precv, total, me - 1, kTagReduceScatter);
    ch.reduce(precv, psend, packed.total(), a.type, a.op);
  }
  // Virtual blocks [lo, hi) in bytes from the start of the vector.
  auto vbegin = [&](int j) { return packed.begin(f.first(j)) * ts; };
  int nblocks = f.pof2, send_index = 0, recv_index = 0;
  for (int mask = 1; mask < f.pof2; mask <<= 1) {
    const int vpeer = vrank ^ mask, peer = f.real(vpeer);
    nblocks /= 2;
    if ((vrank & mask) == 0) {
      send_index += nblocks;
    } else {
      recv_index += nblocks;
    }
    const uint64_t soff = vbegin(send_index), sbytes = vbegin(send_index + nblocks) - soff;
    const uint64_t roff = vbegin(recv_index), rbytes = vbegin(recv_index + nblocks) - roff;
    exchange(ch, at(psend, soff), sbytes, peer, at(precv, roff), rbytes, peer, kTagReduceScatter);
    if (rbytes > 0) {
      if (vrank < vpeer) {  // the lower rank's operand first, then keep the result where it landed
        ch.reduce(at(psend, roff), at(precv, roff), rbytes / ts, a.type, a.op);
        std::swap(psend, precv);
      } else {
        ch.reduce(at(precv, roff), at(psend, roff), rbytes / ts, a.type, a.op);
      }
    } else if (vrank < vpeer) {
      std::swap(psend, precv);
    }
    send_index = recv_index;
  }
  // psend holds virtual block send_index = mirror(vrank): the blocks of new rank vpeer.
  const int vpeer = mirror(vrank, bits), peer = f.real(vpeer);
  int held = f.first(send_index);
  std::vector<uint32_t> qs;
  if (vpeer < f.extra) {  // two real blocks: the first belongs to the folded-out rank peer - 1
    if (a.count(held) > 0)
      qs.push_back(ch.isend(at(psend, packed.begin(held) * ts), a.count(held) * ts, peer - 1, kTagReduceScatter));
    ++held;
  }
  if (vpeer == vrank) {
    copy_block(a.recv, at(psend, packed.begin(held) * ts), mine);
  } else {
    if (mine > 0) qs.push_back(ch.irecv(a.recv, mine, peer, kTagReduceScatter));
    if (a.count(held) > 0)
      qs.push_back(ch.isend(at(psend, packed.begin(held) * ts), a.count(held) * ts, peer, kTagReduceScatter));
  }
  ch.waitall(qs);
}

}  // namespace mgen::mpi::colls
