// Pieces the collective algorithms share: power-of-two arithmetic, Rabenseifner's fold of a
// non-power-of-two communicator, block layouts, scratch buffers that exist only when data is
// real, and exchanges that leave out empty messages.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "colls/colls.hpp"
#include "core/datatype.hpp"

namespace mgen::mpi::colls {

inline bool is_pof2(int p) {
  return p > 0 && (p & (p - 1)) == 0;
}
// Largest power of two <= p (p >= 1).
inline int pof2_floor(int p) {
  int k = 1;
  while (k * 2 <= p)
    k *= 2;
  return k;
}
// Lowest set bit of v > 0.
inline int lowbit(int v) {
  return v & -v;
}

// Rabenseifner's fold (Thakur, Rabenseifner & Gropp 2005, §4): p = 2^n + extra ranks become
// 2^n. Among the first 2 * extra ranks every even rank hands its vector to the odd rank above
// it and sits out the power-of-two phase; the odd rank stands for both. Ranks keep their
// order, so combining in new-rank order is combining in rank order.
struct Fold {
  int pof2, extra;
  explicit Fold(int p) : pof2(pof2_floor(p)), extra(p - pof2_floor(p)) {}
  // Rank in the power-of-two phase, or -1 for a rank that sits out.
  int newrank(int rank) const {
    if (rank < 2 * extra) return rank % 2 ? rank / 2 : -1;
    return rank - extra;
  }
  int real(int newrank) const { return newrank < extra ? 2 * newrank + 1 : newrank + extra; }
  // The first real rank whose data new rank `n` carries (n in [0, pof2]; pof2 gives p).
  int first(int n) const { return n < extra ? 2 * n : n + extra; }
};

// `count` elements cut into `parts` contiguous blocks, the first count % parts of them one
// element longer (so any count works, including count < parts: then some blocks are empty).
struct EvenSplit {
  uint64_t count;
  int parts;
  uint64_t begin(int i) const {
    const uint64_t q = count / static_cast<uint64_t>(parts), r = count % static_cast<uint64_t>(parts);
    const uint64_t u = static_cast<uint64_t>(i);
    return u * q + std::min(u, r);
  }
  uint64_t size(int lo, int hi) const { return begin(hi) - begin(lo); }
};

// Where block i starts when p blocks lie end to end: i * block for regular collectives (no
// O(p) table), prefix sums of the counts otherwise.
class Packed {
 public:
  Packed(int p, bool regular, uint64_t block, const std::vector<uint64_t>& counts)
      : p_(p), regular_(regular), block_(block) {
    if (regular_) return;
    prefix_.resize(static_cast<size_t>(p) + 1, 0);
    for (int i = 0; i < p; ++i)
      prefix_[i + 1] = prefix_[i] + counts[i];
  }
  uint64_t begin(int i) const { return regular_ ? block_ * static_cast<uint64_t>(i) : prefix_[i]; }
  uint64_t size(int lo, int hi) const { return begin(hi) - begin(lo); }
  uint64_t total() const { return begin(p_); }

 private:
  int p_;
  bool regular_;
  uint64_t block_;
  std::vector<uint64_t> prefix_;
};

// A temporary buffer that exists only when the call moves real data: in size-only mode get()
// is null, and every Channel call, copy and reduction then skips the bytes.
class Scratch {
 public:
  Scratch(bool real, uint64_t bytes)
      : buf_(real && bytes > 0 ? std::make_unique_for_overwrite<char[]>(bytes) : nullptr) {}
  char* get() const { return buf_.get(); }

 private:
  std::unique_ptr<char[]> buf_;
};

// Whether a buffer can take part: it has an address or nothing to hold. MPI allows NULL for
// empty buffers (a rank's zero-length block), so only NULL with a size means size-only.
inline bool present(const void* buf, uint64_t bytes) {
  return buf != nullptr || bytes == 0;
}

// `base + offset`, or null in size-only mode.
inline char* at(void* base, uint64_t offset) {
  return base ? static_cast<char*>(base) + offset : nullptr;
}
inline const char* at(const void* base, uint64_t offset) {
  return base ? static_cast<const char*>(base) + offset : nullptr;
}

// sendrecv that leaves out an empty side. Both partners compute the same sizes, so an empty
// message is left out on both ends: uneven splits (count < p) cost no zero-byte messages.
inline void exchange(Channel& ch, const void* sbuf, uint64_t sbytes, int dst, void* rbuf, uint64_t rbytes, int src,
                     int tag) {
  uint32_t qs[2], n = 0;
  if (rbytes > 0) qs[n++] = ch.irecv(rbuf, rbytes, src, tag);
  if (sbytes > 0) qs[n++] = ch.isend(sbuf, sbytes, dst, tag);
  ch.waitall(qs, n);
}

// Whether `a op b` and `b op a` are the same bits for every predefined type, so a received
// operand can be folded into the accumulator whichever rank it came from, in place, as MPICH's
// algorithms do for commutative operations. Sums and products (IEEE addition and
// multiplication commute, complex ones too: each part is the same products added in either
// order) and the logical and bitwise operations do; MAX and MIN do not quite (signed zeros,
// NaN: which operand is returned depends on the order), nor may user-defined operations.
inline bool folds_in_place(int op) {
  return op == kOpSum || op == kOpProd || (op >= kOpLand && op <= kOpBxor);
}

// acc = (lower op higher) over `count` elements, where `tmp` holds the other operand and may
// be overwritten: MPI's canonical rank order at the price of one local copy when the
// received operand is the higher one, unless the operation gives the same bits in either
// order (folds_in_place).
inline void combine(Channel& ch, char* tmp, char* acc, bool tmp_is_lower, uint64_t count, int type, uint32_t type_size,
                    int op) {
  if (tmp_is_lower || folds_in_place(op)) {
    ch.reduce(tmp, acc, count, type, op);
  } else {
    ch.reduce(acc, tmp, count, type, op);
    copy_block(acc, tmp, count * type_size);
  }
}

// The reduce-scatter half of Rabenseifner's algorithm, by recursive halving (Thakur,
// Rabenseifner & Gropp 2005, §4.4): the pof2 participants of `fold` exchange half of their
// current range with the partner pof2/2 away, keep the other half and reduce into it, then
// halve again at distance pof2/4, ..., 1. Afterwards `acc` holds at new block `newrank` the
// reduction over every rank, combined in rank order. New block i spans elements
// [begin(i), begin(i + 1)) of the vector; `tmp` is as large as the vector, and not used (may
// be null) for an operation that folds_in_place: then each received half is reduced into
// `acc` where it lands (Channel::irecv_fold), never copied.
// With `in` (only for an operation that folds_in_place), `acc` does not hold the rank's vector
// yet: the first step sends from `in` and folds the partner's half with the rank's own half of
// `in` into `acc`. That saves copying the whole vector into `acc` first.
template <class Begin>
void reduce_scatter_halving(Channel& ch, const Fold& fold, int newrank, char* acc, char* tmp, const Begin& begin,
                            int type, uint32_t type_size, int op, int tag, const char* in = nullptr) {
  const bool fold_in = acc != nullptr && folds_in_place(op);
  int lo = 0, hi = fold.pof2;
  for (int dist = fold.pof2 / 2; dist >= 1; dist /= 2) {
    const int partner = fold.real(newrank ^ dist), mid = lo + dist;
    const bool lower = (newrank & dist) == 0;
    const int keep_lo = lower ? lo : mid, keep_hi = lower ? mid : hi;
    const int give_lo = lower ? mid : lo, give_hi = lower ? hi : mid;
    const uint64_t keep = begin(keep_lo) * type_size, keep_n = begin(keep_hi) - begin(keep_lo);
    const uint64_t give = begin(give_lo) * type_size, give_n = begin(give_hi) - begin(give_lo);
    if (fold_in) {
      const char* mine = in != nullptr ? in : acc;
      uint32_t qs[2], n = 0;
      if (keep_n > 0) qs[n++] = ch.irecv_fold(at(acc, keep), at(mine, keep), keep_n, type_size, type, op, partner, tag);
      if (give_n > 0) qs[n++] = ch.isend(at(mine, give), give_n * type_size, partner, tag);
      ch.waitall(qs, n);
      in = nullptr;
    } else {
      exchange(ch, at(acc, give), give_n * type_size, partner, at(tmp, keep), keep_n * type_size, partner, tag);
      combine(ch, at(tmp, keep), at(acc, keep), !lower, keep_n, type, type_size, op);
    }
    lo = keep_lo;
    hi = keep_hi;
  }
}

}  // namespace mgen::mpi::colls
