// The collectives Dimemas completes in one step: every member posts its part, the last one's
// arrival runs the finishing function once, and all leave together.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <tuple>

#include "core/world.hpp"

namespace mgen::mpi {

void World::one_step_collective(Exec& r, Comm& comm, OneStepPart& part) {
  part.rank = r.rank;
  part.context = r.id;
  r.block = Block{};
  r.block.kind = Block::kCollective;
  r.block.part = &part;
  r.block.context = comm.coll_context();
  r.block.sequence = comm.one_steps++;
  r.block.count = static_cast<uint32_t>(comm.size());
  r.block.index = comm.rank;
  block(r);
  r.block.kind = Block::kNone;
  r.clock += r.block.delay;
  r.stats.wait += r.block.delay;
}

// Engine side: a member's part arrives (at its clock); the last one finishes the collective.
void World::arrive_one_step(Exec& r) {
  const Block& b = r.block;
  if (partitioned()) {
    error(
        fmt::format("rank {}: {} is a collective done in one step (Dimemas's collective model), which needs every "
                    "member in one partition: not supported in a partitioned run (run it without --threads)",
                    r.rank, b.part->name));
    return;
  }
  OneStep& x = one_steps_[{b.context, b.sequence}];
  if (x.parts.empty()) x.parts.assign(b.count, nullptr);
  x.parts[static_cast<size_t>(b.index)] = b.part;
  if (++x.arrived < static_cast<int>(b.count)) return;
  const OneStepPart& first = *x.parts.front();
  auto what = [](const OneStepPart& q) {
    return q.root >= 0 ? fmt::format("{} (root {})", q.name, q.root) : std::string(q.name);
  };
  for (const OneStepPart* p : x.parts) {
    if (p->op != first.op || p->root != first.root) {
      error(fmt::format("mismatched collectives on one communicator: rank {} called {} while rank {} called {}",
                        first.rank, what(first), p->rank, what(*p)));
      return;
    }
  }
  std::vector<const OneStepPart*> parts = std::move(x.parts);
  one_steps_.erase({b.context, b.sequence});
  std::string problem;
  const Time duration = first.finish(*this, parts, problem);
  if (!problem.empty()) {
    error(problem);
    return;
  }
  for (const OneStepPart* p : parts) {
    Exec& m = exec(p->context);
    m.block.flag = true;
    m.block.delay = duration;
    wake_if_ready(m);
  }
}

}  // namespace mgen::mpi
