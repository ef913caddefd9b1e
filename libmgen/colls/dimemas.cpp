// Dimemas's collective model (Girona, Labarta & Badia 2000, §3.1) as a collective "algorithm":
// every member posts its part and waits; when the last one arrives the engine moves all the
// data at once (rank-ordered reductions, so results equal the point-to-point algorithms') and
// every member leaves after
//     T = FAN_IN + FAN_OUT,  phase = (L + SIZE/B) x MODEL_FACTOR
// with MODEL_FACTOR 0, 1, P or Nsteps (Table 1), Nsteps = sum over the ceil(log2 P) phases of a
// tree of ceil(C_i / buses) (equation 4), SIZE from the sizes the root sends and receives
// (Table 2; for collectives without a root, the largest over the members), and the row of the
// machine's [dimemas_collectives] (Table 3 by default). L, B and the buses are the Dimemas
// network's ([dimemas]), whatever backend carries point-to-point traffic.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "colls/algorithms.hpp"
#include "colls/util.hpp"
#include "core/datatype.hpp"

namespace mgen::mpi::colls {

uint64_t dimemas_log_steps(int p, uint32_t buses) {
  uint64_t steps = 0;
  // A binary tree over p members: each phase pairs the members still holding data.
  for (uint64_t remaining = static_cast<uint64_t>(p); remaining > 1; remaining = (remaining + 1) / 2) {
    const uint64_t communications = remaining / 2;
    steps += buses == 0 ? 1 : (communications + buses - 1) / buses;
  }
  return steps;
}

Time dimemas_collective_time(const DimemasRow& row, int p, uint64_t sent, uint64_t received,
                             const net::DimemasConfig& d) {
  auto phase = [&](const DimemasPhase& ph) {
    uint64_t factor = 0;
    switch (ph.model) {
      case DimemasPhase::kNone:
        return Time::zero();
      case DimemasPhase::kConstant:
        factor = 1;
        break;
      case DimemasPhase::kLinear:
        factor = static_cast<uint64_t>(p);
        break;
      case DimemasPhase::kLog:
        factor = dimemas_log_steps(p, d.buses);
        break;
    }
    // SIZE in half bytes, so that MEAN stays exact.
    const uint64_t big = std::max(sent, received), small = std::min(sent, received);
    uint64_t half_bytes = 0;
    switch (ph.size) {
      case DimemasPhase::kMax:
        half_bytes = 2 * big;
        break;
      case DimemasPhase::kMin:
        half_bytes = 2 * small;
        break;
      case DimemasPhase::kMean:
        half_bytes = sent + received;
        break;
      case DimemasPhase::kTwiceMax:
        half_bytes = 4 * big;
        break;
      case DimemasPhase::kSum:
        half_bytes = 2 * (sent + received);
        break;
    }
    // Rounded up, as point-to-point transfers are.
    const Time size_time = Time::ps((simcore::transfer_time(Bytes(half_bytes), d.bandwidth).count_ps() + 1) / 2);
    return (d.latency + size_time) * static_cast<int64_t>(factor);
  };
  return phase(row.in) + phase(row.out);
}

namespace {

// Exclusive scan is timed by the scan row but must not match an inclusive scan.
constexpr int kExscan = kDimOps;

struct BcastPart {
  void* buf;
  uint64_t bytes;
};

const OneStepPart& root_part(const std::vector<const OneStepPart*>& parts) {
  return *parts[static_cast<size_t>(std::max(parts.front()->root, 0))];
}

// The duration of the collective: the root's sizes, or the largest over the members.
Time duration(World& w, const std::vector<const OneStepPart*>& parts) {
  const OneStepPart& first = *parts.front();
  uint64_t sent = 0, received = 0;
  if (first.root >= 0) {
    sent = root_part(parts).sent;
    received = root_part(parts).received;
  } else {
    for (const OneStepPart* p : parts) {
      sent = std::max(sent, p->sent);
      received = std::max(received, p->received);
    }
  }
  const size_t row = static_cast<size_t>(first.op == kExscan ? static_cast<int>(kDimScan) : first.op);
  return dimemas_collective_time(w.collectives().dimemas[row], static_cast<int>(parts.size()), sent, received,
                                 w.network().config().dimemas);
}

template <class Args>
const Args& args_of(const OneStepPart* p) {
  return *static_cast<const Args*>(p->args);
}

std::string truncated(const OneStepPart& from, const OneStepPart& to, uint64_t bytes, uint64_t room) {
  return fmt::format("{}: rank {} sends {} bytes to rank {}, which has room for {}", from.name, from.rank, bytes,
                     to.rank, room);
}

void post(Channel& ch, OneStepPart& part, int op, int root, const void* args, OneStepFinish finish) {
  part.op = op;
  part.root = root;
  part.name = ch.context().call.name ? ch.context().call.name : "a collective";
  part.args = args;
  part.finish = finish;
  ch.world().one_step_collective(ch.context(), ch.comm(), part);
}

// ---------------------------------------------------------------- finishing functions

Time finish_barrier(World& w, const std::vector<const OneStepPart*>& parts, std::string&) {
  return duration(w, parts);
}

Time finish_bcast(World& w, const std::vector<const OneStepPart*>& parts, std::string& error) {
  const OneStepPart& root = root_part(parts);
  const BcastPart& from = args_of<BcastPart>(&root);
  for (const OneStepPart* p : parts) {
    const BcastPart& to = args_of<BcastPart>(p);
    if (to.bytes < from.bytes) {
      error = truncated(root, *p, from.bytes, to.bytes);
      return Time::zero();
    }
    copy_block(to.buf, from.buf, from.bytes);
  }
  return duration(w, parts);
}

// Folds every member's vector in rank order: result = s_0 op s_1 op ... op s_(p-1), and the
// prefixes when `prefixes` is given (scan). False if any member runs size-only.
bool fold(const std::vector<const OneStepPart*>& parts, std::vector<char>& result,
          std::vector<std::vector<char>>* prefixes, std::string& error) {
  const ReduceArgs& a0 = args_of<ReduceArgs>(parts.front());
  const uint64_t bytes = a0.count * a0.type_size;
  bool real = true;  // every member moves data (none runs size-only)
  for (const OneStepPart* p : parts) {
    const ReduceArgs& a = args_of<ReduceArgs>(p);
    if (a.count != a0.count || a.type_size != a0.type_size) {
      error = fmt::format("{}: rank {} reduces {} elements of {} bytes, rank {} {} of {}", p->name, parts.front()->rank,
                          a0.count, a0.type_size, p->rank, a.count, a.type_size);
      return false;
    }
    real = real && present(a.send, bytes);
  }
  if (!real) return false;
  result.assign(static_cast<const char*>(a0.send), static_cast<const char*>(a0.send) + bytes);
  if (prefixes) prefixes->push_back(result);
  std::vector<char> next;
  for (size_t i = 1; i < parts.size(); ++i) {
    const ReduceArgs& a = args_of<ReduceArgs>(parts[i]);
    next.assign(static_cast<const char*>(a.send), static_cast<const char*>(a.send) + bytes);
    const std::string problem = reduce_apply(a.op, a.type, result.data(), next.data(), a.count);
    if (!problem.empty()) {
      error = problem;
      return false;
    }
    result.swap(next);
    if (prefixes) prefixes->push_back(result);
  }
  return true;
}

Time finish_reduce(World& w, const std::vector<const OneStepPart*>& parts, std::string& error) {
  std::vector<char> result;
  if (fold(parts, result, nullptr, error))
    copy_block(args_of<ReduceArgs>(&root_part(parts)).recv, result.data(), result.size());
  return duration(w, parts);
}

Time finish_allreduce(World& w, const std::vector<const OneStepPart*>& parts, std::string& error) {
  std::vector<char> result;
  if (fold(parts, result, nullptr, error)) {
    for (const OneStepPart* p : parts)
      copy_block(args_of<ReduceArgs>(p).recv, result.data(), result.size());
  }
  return duration(w, parts);
}

Time finish_scan(World& w, const std::vector<const OneStepPart*>& parts, std::string& error, bool exclusive) {
  std::vector<char> result;
  std::vector<std::vector<char>> prefixes;
  if (fold(parts, result, &prefixes, error)) {
    for (size_t i = exclusive ? 1 : 0; i < parts.size(); ++i) {
      const std::vector<char>& v = prefixes[exclusive ? i - 1 : i];
      copy_block(args_of<ReduceArgs>(parts[i]).recv, v.data(), v.size());
    }
  }
  return duration(w, parts);
}
Time finish_inclusive_scan(World& w, const std::vector<const OneStepPart*>& parts, std::string& error) {
  return finish_scan(w, parts, error, false);
}
Time finish_exclusive_scan(World& w, const std::vector<const OneStepPart*>& parts, std::string& error) {
  return finish_scan(w, parts, error, true);
}

// A member's own block of an allgather or a gather: in place it already sits in its receive
// buffer.
const void* own_block(const BlockArgs& a, int index) {
  return a.in_place ? at(static_cast<const void*>(a.recv), a.recv_displ(index)) : a.send;
}

Time finish_gather(World& w, const std::vector<const OneStepPart*>& parts, std::string& error) {
  const OneStepPart& root = root_part(parts);
  const BlockArgs& r = args_of<BlockArgs>(&root);
  for (size_t i = 0; i < parts.size(); ++i) {
    const BlockArgs& a = args_of<BlockArgs>(parts[i]);
    const int index = static_cast<int>(i);
    if (parts[i] == &root && a.in_place) continue;  // its block is in place already
    if (a.send_bytes > r.recv_count(index)) {
      error = truncated(*parts[i], root, a.send_bytes, r.recv_count(index));
      return Time::zero();
    }
    if (present(r.recv, 1)) copy_block(at(r.recv, r.recv_displ(index)), a.send, a.send_bytes);
  }
  return duration(w, parts);
}

Time finish_scatter(World& w, const std::vector<const OneStepPart*>& parts, std::string& error) {
  const OneStepPart& root = root_part(parts);
  const BlockArgs& s = args_of<BlockArgs>(&root);
  for (size_t i = 0; i < parts.size(); ++i) {
    const BlockArgs& a = args_of<BlockArgs>(parts[i]);
    const int index = static_cast<int>(i);
    if (parts[i] == &root && a.in_place) continue;  // its block stays where it is
    if (s.send_count(index) > a.recv_bytes) {
      error = truncated(root, *parts[i], s.send_count(index), a.recv_bytes);
      return Time::zero();
    }
    if (present(s.send, 1)) copy_block(a.recv, at(s.send, s.send_displ(index)), s.send_count(index));
  }
  return duration(w, parts);
}

Time finish_allgather(World& w, const std::vector<const OneStepPart*>& parts, std::string& error) {
  for (size_t j = 0; j < parts.size(); ++j) {
    const BlockArgs& to = args_of<BlockArgs>(parts[j]);
    for (size_t i = 0; i < parts.size(); ++i) {
      const BlockArgs& from = args_of<BlockArgs>(parts[i]);
      const int index = static_cast<int>(i);
      const uint64_t bytes = from.in_place ? from.recv_count(index) : from.send_bytes;
      if (bytes > to.recv_count(index)) {
        error = truncated(*parts[i], *parts[j], bytes, to.recv_count(index));
        return Time::zero();
      }
      if (i == j && to.in_place) continue;
      if (present(to.recv, 1)) copy_block(at(to.recv, to.recv_displ(index)), own_block(from, index), bytes);
    }
  }
  return duration(w, parts);
}

// In place, the facades hand over a copy of the receive buffer as the send side, so `in_place`
// is never set here.
Time finish_alltoall(World& w, const std::vector<const OneStepPart*>& parts, std::string& error) {
  const size_t p = parts.size();
  for (size_t i = 0; i < p; ++i) {
    const BlockArgs& from = args_of<BlockArgs>(parts[i]);
    for (size_t j = 0; j < p; ++j) {
      const BlockArgs& to = args_of<BlockArgs>(parts[j]);
      const int si = static_cast<int>(i), dj = static_cast<int>(j);
      const uint64_t bytes = from.send_count(dj);
      if (bytes > to.recv_count(si)) {
        error = truncated(*parts[i], *parts[j], bytes, to.recv_count(si));
        return Time::zero();
      }
      if (present(to.recv, 1) && present(from.send, 1)) {
        copy_block(at(to.recv, to.recv_displ(si)), at(from.send, from.send_displ(dj)), bytes);
      }
    }
  }
  return duration(w, parts);
}

Time finish_reduce_scatter(World& w, const std::vector<const OneStepPart*>& parts, std::string& error) {
  const ReduceScatterArgs& a0 = args_of<ReduceScatterArgs>(parts.front());
  const int p = static_cast<int>(parts.size());
  const Packed packed(p, a0.regular, a0.block, a0.counts);
  const uint64_t ts = a0.type_size, bytes = packed.total() * ts;
  bool real = true;
  for (const OneStepPart* q : parts) {
    const ReduceScatterArgs& a = args_of<ReduceScatterArgs>(q);
    real = real && present(a.in_place ? a.recv : a.send, bytes);
  }
  if (real && bytes > 0) {
    auto input = [&](int i) {
      const ReduceScatterArgs& a = args_of<ReduceScatterArgs>(parts[static_cast<size_t>(i)]);
      return static_cast<const char*>(a.in_place ? a.recv : a.send);
    };
    std::vector<char> result(input(0), input(0) + bytes), next;
    for (int i = 1; i < p; ++i) {
      next.assign(input(i), input(i) + bytes);
      const std::string problem = reduce_apply(a0.op, a0.type, result.data(), next.data(), packed.total());
      if (!problem.empty()) {
        error = problem;
        return Time::zero();
      }
      result.swap(next);
    }
    for (int i = 0; i < p; ++i) {
      const ReduceScatterArgs& a = args_of<ReduceScatterArgs>(parts[static_cast<size_t>(i)]);
      copy_block(a.recv, result.data() + packed.begin(i) * ts, a0.count(i) * ts);
    }
  }
  return duration(w, parts);
}

uint64_t largest(int p, uint64_t (BlockArgs::*count)(int) const, const BlockArgs& a) {
  uint64_t m = 0;
  if (a.regular) return p > 0 ? (a.*count)(0) : 0;
  for (int i = 0; i < p; ++i)
    m = std::max(m, (a.*count)(i));
  return m;
}

}  // namespace

// ---------------------------------------------------------------- the "dimemas" algorithms

void barrier_dimemas(Channel& ch) {
  OneStepPart part;
  post(ch, part, kDimBarrier, -1, nullptr, finish_barrier);
}

void bcast_dimemas(Channel& ch, void* buf, uint64_t bytes, int root) {
  const BcastPart args{buf, bytes};
  OneStepPart part;
  (ch.rank() == root ? part.sent : part.received) = bytes;
  post(ch, part, kDimBcast, root, &args, finish_bcast);
}

void reduce_dimemas(Channel& ch, const ReduceArgs& a) {
  OneStepPart part;
  part.sent = a.count * a.type_size;
  if (ch.rank() == a.root) part.received = part.sent;
  post(ch, part, kDimReduce, a.root, &a, finish_reduce);
}

void allreduce_dimemas(Channel& ch, const ReduceArgs& a) {
  OneStepPart part;
  part.sent = part.received = a.count * a.type_size;
  post(ch, part, kDimAllreduce, -1, &a, finish_allreduce);
}

void scan_dimemas(Channel& ch, const ReduceArgs& a) {
  OneStepPart part;
  part.sent = part.received = a.count * a.type_size;
  post(ch, part, kDimScan, -1, &a, finish_inclusive_scan);
}

void exscan_dimemas(Channel& ch, const ReduceArgs& a) {
  OneStepPart part;
  part.sent = part.received = a.count * a.type_size;
  post(ch, part, kExscan, -1, &a, finish_exclusive_scan);
}

void gather_dimemas(Channel& ch, const BlockArgs& a) {
  OneStepPart part;
  part.sent = a.in_place ? a.recv_count(ch.rank()) : a.send_bytes;
  if (ch.rank() == a.root) part.received = largest(ch.size(), &BlockArgs::recv_count, a);
  post(ch, part, a.regular ? kDimGather : kDimGatherv, a.root, &a, finish_gather);
}

void scatter_dimemas(Channel& ch, const BlockArgs& a) {
  OneStepPart part;
  part.received = a.recv_bytes;
  if (ch.rank() == a.root) part.sent = largest(ch.size(), &BlockArgs::send_count, a);
  post(ch, part, a.regular ? kDimScatter : kDimScatterv, a.root, &a, finish_scatter);
}

void allgather_dimemas(Channel& ch, const BlockArgs& a) {
  OneStepPart part;
  part.sent = a.in_place ? a.recv_count(ch.rank()) : a.send_bytes;
  part.received = largest(ch.size(), &BlockArgs::recv_count, a);
  post(ch, part, a.regular ? kDimAllgather : kDimAllgatherv, -1, &a, finish_allgather);
}

void alltoall_dimemas(Channel& ch, const BlockArgs& a) {
  OneStepPart part;
  part.sent = largest(ch.size(), &BlockArgs::send_count, a);
  part.received = largest(ch.size(), &BlockArgs::recv_count, a);
  post(ch, part, a.regular ? kDimAlltoall : kDimAlltoallv, -1, &a, finish_alltoall);
}

void reduce_scatter_dimemas(Channel& ch, const ReduceScatterArgs& a) {
  OneStepPart part;
  const Packed packed(ch.size(), a.regular, a.block, a.counts);
  part.sent = packed.total() * a.type_size;
  part.received = a.count(ch.rank()) * a.type_size;
  post(ch, part, kDimReduceScatter, -1, &a, finish_reduce_scatter);
}

}  // namespace mgen::mpi::colls
