// What the MPI collectives, blocking (colls.cpp) and non-blocking (nbc.cpp), build before
// the MGEN layer runs an algorithm: per-rank layouts packed to bytes, reductions in MGEN terms,
// the order-preserving choice for operations that do not commute.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "core/world.hpp"
#include "mpi/shim.hpp"

namespace mgen::mpi::abi {

inline bool in_place(const void* p) {
  return p == MPI_IN_PLACE;
}

inline int comm_size(MGEN_Comm h) {
  int n = 0;
  MGEN_Comm_size(h, &n);
  return n;
}
inline int comm_rank(MGEN_Comm h) {
  int r = 0;
  MGEN_Comm_rank(h, &r);
  return r;
}

// A per-rank ("v") layout of `t` elements: counts[i] elements at displs[i] extents. For the
// MGEN layer the blocks are packed one after the other when `t` is not dense.
class VBuf {
 public:
  VBuf(void* buf, const int* counts, const int* displs, int n, MPI_Datatype type, bool load)
      : user_(buf), type_(dtype_ref(type)), n_(n) {
    bc_.resize(n);
    bd_.resize(n);
    uint64_t total = 0;
    for (int i = 0; i < n; ++i) {
      check_count(counts[i]);
      bc_[i] = byte_count(type_->size * static_cast<uint64_t>(counts[i]));
      counts_.push_back(counts[i]);
      displs_.push_back(displs[i]);
    }
    dense_ = type_->dense();
    if (dense_) {
      for (int i = 0; i < n; ++i)
        bd_[i] = byte_count(static_cast<uint64_t>(static_cast<int64_t>(displs[i]) * type_->extent()));
      data_ = buf;
      return;
    }
    for (int i = 0; i < n; ++i) {
      bd_[i] = byte_count(total);
      total += static_cast<uint64_t>(bc_[i]);
    }
    temp_.resize(total);
    data_ = temp_.data();
    if (load) repack();
  }
  void* data() const { return data_; }
  const int* counts() const { return bc_.data(); }
  const int* displs() const { return bd_.data(); }
  // Packs the user's blocks (again: a buffer filled after this layout was made).
  void repack() {
    if (dense_ || user_ == nullptr) return;
    for (int i = 0; i < n_; ++i)
      pack(block(i), counts_[i], *type_, temp_.data() + bd_[i]);
  }
  void finish() {
    if (dense_ || user_ == nullptr) return;
    for (int i = 0; i < n_; ++i)
      unpack(temp_.data() + bd_[i], static_cast<uint64_t>(bc_[i]), block(i), counts_[i], *type_);
  }

 private:
  std::byte* block(int i) const { return static_cast<std::byte*>(user_) + displs_[i] * type_->extent(); }
  void* user_;
  std::shared_ptr<const DType> type_;  // kept alive while a non-blocking collective runs
  int n_;
  bool dense_ = true;
  void* data_ = nullptr;
  std::vector<int> bc_, bd_, counts_;
  std::vector<int64_t> displs_;
  std::vector<std::byte> temp_;
};

// MPI_Alltoallw's per-rank layout: counts[i] elements of types[i] at byte displacement
// displs[i]. When every block is a plain byte range the MGEN layer works on the user's buffer;
// otherwise the blocks are packed one after the other into a temporary. A block of zero
// elements is never looked at (its type may be any handle, as MPICH accepts).
class WBuf {
 public:
  WBuf(void* buf, const int* counts, const int* displs, const MPI_Datatype* types, int n, bool load)
      : user_(buf), n_(n), bc_(n), bd_(n), types_(n) {
    bool dense = true;
    for (int i = 0; i < n; ++i) {
      check_count(counts[i]);
      if (counts[i] == 0) continue;
      types_[i] = dtype_ref(types[i]);
      bc_[i] = byte_count(types_[i]->size * static_cast<uint64_t>(counts[i]));
      dense = dense && types_[i]->dense();
    }
    counts_.assign(counts, counts + n);
    displs_.assign(displs, displs + n);
    if (dense) {
      data_ = buf;
      bd_ = displs_;
      return;
    }
    uint64_t total = 0;
    for (int i = 0; i < n; ++i) {
      bd_[i] = byte_count(total);
      total += static_cast<uint64_t>(bc_[i]);
    }
    temp_.resize(total);
    data_ = temp_.data();
    unpack_ = true;
    if (!load) return;
    for (int i = 0; i < n; ++i) {
      if (bc_[i] > 0) pack(block(i), counts_[i], *types_[i], temp_.data() + bd_[i]);
    }
  }
  void* data() const { return data_; }
  const int* counts() const { return bc_.data(); }  // bytes
  const int* displs() const { return bd_.data(); }  // bytes from data()
  void finish() {
    if (!unpack_) return;
    for (int i = 0; i < n_; ++i) {
      if (bc_[i] > 0) unpack(temp_.data() + bd_[i], static_cast<uint64_t>(bc_[i]), block(i), counts_[i], *types_[i]);
    }
  }

 private:
  std::byte* block(int i) const { return static_cast<std::byte*>(user_) + displs_[i]; }
  void* user_;
  int n_;
  bool unpack_ = false;
  void* data_ = nullptr;
  std::vector<int> bc_, bd_, counts_, displs_;
  std::vector<std::shared_ptr<const DType>> types_;  // kept alive while a non-blocking collective runs
  std::vector<std::byte> temp_;
};

// One past the last byte a per-rank byte layout covers (what an in-place exchange must copy
// before the data it sends are overwritten).
inline uint64_t layout_end(const int* counts, const int* displs, int n) {
  uint64_t end = 0;
  for (int i = 0; i < n; ++i) {
    if (counts[i] > 0)
      end = std::max<uint64_t>(end, static_cast<uint64_t>(displs[i]) + static_cast<uint64_t>(counts[i]));
  }
  return end;
}

// A reduction in MGEN terms: the type id and element count the MGEN layer reduces, and the
// buffers (packed copies when the datatype is not dense).
struct Reduction {
  int type = 0;
  int count = 0;
  int op = 0;
  bool ordered = false;  // a non-commutative user operation
  Flat send, recv;

  // In rank order (ordered): what each rank contributes, and its size.
  uint64_t ordered_bytes() const { return recv.bytes() ? recv.bytes() : send.bytes(); }
  const void* ordered_input() const { return send.data() == MPI_IN_PLACE ? recv.data() : send.data(); }
};

Reduction reduction(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, bool recv_here);

// At the root of an ordered reduction, given every rank's input gathered in rank order:
// x0 op (x1 op (... op x_{p-1})), what MPI defines whatever the algorithm, into r.recv.
void combine_in_rank_order(const Reduction& r, const std::byte* all, int p);

// Runs `body` with order-preserving algorithms selected when the operation is not commutative.
// The override is the world's: `body` must not block (another rank would see it), so it may
// select an algorithm (build a job) but not run one.
template <class F>
void with_order(bool ordered, F&& body) {
  if (!ordered) {
    body();
    return;
  }
  World& w = scope().world();
  const CollectiveConfig saved = w.collectives();
  CollectiveConfig c = saved;
  c.reduce = "binomial";
  c.allreduce = "binomial";
  c.scan = "linear";
  w.set_collectives(c);
  try {
    body();
  } catch (...) {
    mgen::runtime::forget_unwound_frames();
    w.set_collectives(saved);
    throw;
  }
  w.set_collectives(saved);
}

}  // namespace mgen::mpi::abi
