#include "flow/flow_network.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace mgen::net {

using simcore::Event;
using simcore::transfer_time;

namespace {

constexpr double kPsPerS = 1e12;
// Relative tolerance of the max-min conditions (rates and usages are sums of doubles).
constexpr double kEps = 1e-9;
// Packets sampled per message to weigh the links of a routing that spreads packets.
constexpr uint64_t kRouteSamples = 16;
// How many flows ahead the passes over a solve's set load the flows they will read.
constexpr size_t kAhead = 16;

double bytes_per_ps(Bandwidth b) {
  return static_cast<double>(b.bytes_per_s()) / kPsPerS;
}

// The routing whose per-packet hash spreads a message's packets as the packet model's does. The
// adaptive routings choose by credits the flow model does not have; they are taken as spreading
// evenly over their minimal choices (hashed dimension order, random up ports).
RouterConfig spread_config(const RouterConfig& c, const Routing& routing) {
  RouterConfig s = c;
  if (routing.algo() == RoutingAlgo::kAdaptive) s.routing = "hashed";
  if (routing.algo() == RoutingAlgo::kAdaptiveUp) s.routing = "random";
  return s;
}

}  // namespace

FlowNetwork::FlowNetwork(const BackendContext& c)
    : engine_(c.engine),
      topo_(c.topology),
      spread_(c.topology, spread_config(c.config.router, c.routing)),
      hashed_(spread_.algo() == RoutingAlgo::kHashed || spread_.algo() == RoutingAlgo::kRandom),
      sink_(c.sink),
      kinds_(c.kinds),
      model_(c.config, c.topology, c.routing),
      endpoints_(c.topology.endpoints()),
      payload_max_(c.config.nic.packet_payload.count()),
      header_(static_cast<uint32_t>(c.config.nic.packet_header.count())),
      fma_(c.config.nic.transport == "fma"),
      reference_(c.config.flow.reference),
      tol_(std::max(kEps, c.config.flow.tolerance)),
      response_(static_cast<uint32_t>(c.config.nic.response_bytes.count())),
      // The reference mode solves every change when it happens: it checks the solver, not pacing.
      pace_(c.config.flow.reference ? Time::zero() : c.config.flow.solve_pace),
      pace_share_(c.config.flow.pace_share),
      pace_from_(c.config.flow.pace_from),
      mouse_bytes_(c.config.flow.reference ? 0 : c.config.flow.mouse_bytes.count()),
      full_packet_(static_cast<double>(c.config.nic.packet_payload.count() + c.config.nic.packet_header.count())),
      hol_wait_(hashed_ ? 0.0 : c.config.flow.hol_wait),
      link_stats_(c.topology.total_ports()),
      nic_stats_(c.topology.endpoints()) {
  epoch_limit_ = std::max<uint32_t>(c.config.flow.epoch_limit, 16);
  res_.resize(3 * size_t{endpoints_} + topo_.total_ports());
  const double dma = bytes_per_ps(c.config.nic.dma_bandwidth);
  const double sw = bytes_per_ps(c.config.router.switch_bandwidth);
  for (EndpointId e = 0; e < endpoints_; ++e) {
    res_[src_dma(e)].capacity = dma;
    res_[inj_link(e)].capacity = bytes_per_ps(topo_.endpoint_bandwidth());
    res_[rx_dma(e)].capacity = dma;
  }
  // A router output serves a packet in max(w / link, w / crossbar).
  for (uint32_t gp = 0; gp < topo_.total_ports(); ++gp)
    res_[port_res(gp)].capacity = std::min(bytes_per_ps(topo_.link_at(gp).bandwidth), sw);
  base_.resize(res_.size());
  for (size_t i = 0; i < res_.size(); ++i)
    base_[i] = res_[i].capacity;
  if (hol_wait_ > 0) hol_.resize(res_.size());
}

// ---------------------------------------------------------------- injection

void FlowNetwork::add_route(EndpointId src, EndpointId dst, uint64_t packets, uint32_t seq, double coef,
                            std::vector<Use>& uses) {
  const size_t first = uses.size();
  const uint64_t samples = hashed_ ? std::min(packets, kRouteSamples) : 1;
  const double weight = coef / static_cast<double>(samples);
  for (uint64_t j = 0; j < samples; ++j) {
    // The packet model's hash of packet j of message `seq`.
    const uint32_t hash = mix_hash((uint64_t{seq} << 32) | j);
    RouteState state;
    RouterId r = topo_.endpoint_router(src);
    for (uint32_t guard = 0;; ++guard) {
      if (guard > topo_.routers() + 1) {
        throw std::logic_error(fmt::format("routing from endpoint {} to {} does not terminate", src, dst));
      }
      const Route route = spread_.route(r, dst, hash, state, nullptr, 0);
      const uint32_t gp = topo_.port_base(r) + route.port;
      const uint32_t id = port_res(gp);
      auto it = std::find_if(uses.begin() + static_cast<std::ptrdiff_t>(first), uses.end(),
                             [id](const Use& u) { return u.res == id; });
      if (it == uses.end()) {
        uses.push_back(Use{id, 0, weight});
      } else {
        it->coef += weight;
      }
      const PortLink& link = topo_.link_at(gp);
      if (link.kind == PeerKind::kEndpoint) break;
      r = link.peer;
    }
  }
}

void FlowNetwork::inject(EndpointId src, EndpointId dst, Bytes size, uint64_t cookie) {
  if (src >= endpoints_ || dst >= endpoints_) {
    throw std::out_of_range(
        fmt::format("inject from endpoint {} to {}: the machine has {} endpoints", src, dst, endpoints_));
  }
  const Time now = engine_.now();
  // The endpoints' resources are read below, after the route is computed: start loading them.
  __builtin_prefetch(&res_[src_dma(src)]);
  __builtin_prefetch(&res_[inj_link(src)]);
  __builtin_prefetch(&res_[rx_dma(dst)]);
  uint32_t id;
  if (free_flows_ != kNoId) {
    id = free_flows_;
    free_flows_ = flows_[id].next_free;
  } else {
    id = static_cast<uint32_t>(flows_.size());
    flows_.emplace_back();
    open_.push_back(0);
    bneck_.push_back(kNoId);
    hpos_.push_back(kNoId);
  }
  // A slot comes back off its resources and out of the milestone heap.
  assert(bneck_[id] == kNoId && hpos_[id] == kNoId);
  Flow& f = flows_[id];
  UseList kept = std::move(f.uses);  // its heap buffer, if any, is reused
  f = Flow{};
  f.uses = std::move(kept);
  std::vector<Use>& uses = route_;
  uses.clear();
  f.cookie = cookie;
  f.posted = now;
  f.last = now;

  const uint64_t payload = size.count();
  const uint64_t packets = payload == 0 ? 1 : (payload + payload_max_ - 1) / payload_max_;
  const uint64_t wire = payload + packets * header_;
  const double w = static_cast<double>(wire);
  const uint32_t seq = seq_++;

  // The zero-load closed form; it leaves the message's route (hash 0) in model_.path().
  const ZeroLoadModel::Timing t = model_.zero_load(src, dst, size, now);
  const uint32_t hops = static_cast<uint32_t>(model_.path().size());

  // The resources and how much of each a wire byte of this message takes.
  if (payload > 0) {
    uses.push_back(Use{src_dma(src), 0, static_cast<double>(payload) / w});
    uses.push_back(Use{rx_dma(dst), 0, static_cast<double>(payload) / w});
  }
  f.route_begin = static_cast<uint16_t>(uses.size());
  uses.push_back(Use{inj_link(src), 0, 1.0});
  if (hashed_) {
    add_route(src, dst, packets, seq, 1.0, uses);
    f.route_end = f.route_begin;  // several routes: no head-of-line bookkeeping
  } else {
    // A deterministic routing takes the closed form's route whatever the hash.
    for (const ZeroLoadModel::Stage& s : model_.path()) {
      __builtin_prefetch(&res_[port_res(s.out_gp)]);
      __builtin_prefetch(&link_stats_[s.out_gp]);
      uses.push_back(Use{port_res(s.out_gp), 0, 1.0});
    }
    f.route_end = static_cast<uint16_t>(uses.size());
  }
  if (fma_) {
    // Every put packet is answered by a response of response_ bytes on the reverse path.
    const double back = static_cast<double>(packets * response_) / w;
    uses.push_back(Use{inj_link(dst), 0, back});
    add_route(dst, src, packets, seq, back, uses);
  }
  f.uses.assign(uses.data(), uses.data() + uses.size());

  // Alone on the network: the tightest of its resources.
  double alone = std::numeric_limits<double>::infinity();
  for (const Use& u : f.uses)
    alone = std::min(alone, base_[u.res] / u.coef);
  const int64_t x = std::max<int64_t>(1, std::llround(w / alone));
  f.rem = static_cast<double>(x);
  f.ls = (t.sent - now).count_ps() - x;
  f.ld = Time::ps(std::max<int64_t>(0, (t.delivered - now).count_ps() - x));

  // Statistics: what the message puts on each link.
  for (const Use& u : f.uses) {
    if (u.res < 3 * endpoints_) continue;
    const uint32_t gp = u.res - 3 * endpoints_;
    LinkStats& l = link_stats_[gp];
    const double bytes = w * u.coef;
    l.bytes += static_cast<uint64_t>(std::llround(bytes));
    l.packets += static_cast<uint64_t>(std::llround(static_cast<double>(packets) * std::min(1.0, u.coef)));
    l.busy += Time::ps(std::llround(bytes / base_[u.res]));
  }
  // Rates count packets, not bytes: routers and NICs take turns a packet at a time, so a
  // one-packet message (a rendezvous request) sharing a link with a long one waits a whole
  // packet of it, not a share of its own few bytes. A use's coefficient becomes bytes per packet.
  const double per_packet = w / static_cast<double>(packets);
  for (Use& u : f.uses)
    u.coef *= per_packet;
  f.alone = alone / per_packet;
  LinkStats& nic = nic_stats_[src];
  nic.bytes += wire;
  nic.packets += packets;
  nic.busy += transfer_time(Bytes(wire), topo_.endpoint_bandwidth());
  ++live_;
  ++totals_.messages_injected;
  totals_.packets += packets;
  totals_.packet_hops += packets * (hops + 1);  // the injection link, then each router output
  totals_.payload_bytes += payload;

  if (mouse_bytes_ > 0 && packets == 1 && payload <= mouse_bytes_) {
    start_mouse(id, now);
    return;
  }
  attach(id);
  touch(f);
  // The first start at a picosecond is solved at once; more starts at the same picosecond share
  // one solve (an all-to-all posts hundreds at once).
  if (solve_pending_at(now)) return;
  // While a paced solve's quiet time runs, a start waits for the next solve unless the wait
  // would be more than flow.pace_share of its own expected time (a short message among long
  // ones is solved at once).
  if (now < quiet_until_) {
    const double wait = static_cast<double>((quiet_until_ - now).count_ps());
    if (pace_share_ * expected_time(f) >= wait) {
      defer_solve();
      count_wait(now, 1);
      return;
    }
  }
  if (last_inline_ == now) {
    schedule_solve(now);
    return;
  }
  last_inline_ = now;
  solve();
  ensure_wake();
}

bool FlowNetwork::solve_pending_at(Time at) const {
  return solve_events_.find(at) != solve_events_.end();
}

void FlowNetwork::schedule_solve(Time at) {
  if (solve_pending_at(at)) return;
  solve_events_.insert(at);
  engine_.schedule(at, kinds_[kSolve], 0);
}

void FlowNetwork::defer_solve() {
  if (solve_events_.empty() || *solve_events_.begin() > quiet_until_) schedule_solve(quiet_until_);
}

void FlowNetwork::solve_or_defer(Time now, uint64_t changes) {
  if (seeds_.empty() || solve_pending_at(now)) return;
  if (now < quiet_until_) {
    defer_solve();
    count_wait(now, changes);
    return;
  }
  solve();
}

void FlowNetwork::count_wait(Time now, uint64_t changes) {
  paced_waits_ += changes;
  paced_wait_sum_ += (*solve_events_.begin() - now) * static_cast<int64_t>(changes);
}

double FlowNetwork::share_of(const Resource& r, const Use& u) const {
  double here = std::max(0.0, r.capacity - r.usage) / u.coef;
  if (r.bottlenecked > 0) {
    const double b = static_cast<double>(r.bottlenecked);
    here = std::max(here, r.level * b / (b + 1));
  }
  return here;
}

// The time `f` would take at the rate it would get if it started now: on each resource the room
// left there, or (where flows are bottlenecked) its share of their level as one more of them.
double FlowNetwork::expected_time(const Flow& f) const {
  double rate = f.alone;
  for (const Use& u : f.uses)
    rate = std::min(rate, share_of(res_[u.res], u));
  if (rate <= 0) return std::numeric_limits<double>::infinity();
  return f.rem * f.alone / rate;
}

// A mouse's bytes are done when the slowest of its resources has served it. A resource serves
// it a turn after it starts there: one of its packets at the share it would get there as one
// more flow (at least a round robin's turn: one packet of each flow there, a full one at most,
// then the mouse's). Mice start there one after another, each after the bytes of the mice
// before it (their turns overlap, as in a round robin), so the last of k mice arriving together
// is served when exact max-min would serve all of them. On an idle network that is the closed
// form's time exactly; no other flow's rate changes.
void FlowNetwork::start_mouse(uint32_t id, Time now) {
  Flow& f = flows_[id];
  ++mice_;
  const int64_t t0 = now.count_ps();
  const double x = f.rem;  // ps alone: one packet at `alone`
  // ps for its packet at `rate` (packets/ps); exactly x at its own pace
  auto time_at = [&](double rate) { return static_cast<int64_t>(rate >= f.alone ? x : std::ceil(x * f.alone / rate)); };
  const int64_t alone_ps = static_cast<int64_t>(x);
  int64_t done = t0 + alone_ps;
  for (const Use& u : f.uses) {
    Resource& r = res_[u.res];
    const double own = base_[u.res] / u.coef;  // packets/ps alone on this resource
    const double turn = static_cast<double>(r.members.size()) * full_packet_ + u.coef;
    const double rate = std::min(own, std::max(share_of(r, u), r.capacity / turn));
    // Its own packet, and its turn, at this resource.
    const int64_t start = std::max(t0, r.mice_free);
    r.mice_free = start + time_at(own);
    done = std::max(done, start + time_at(rate));
  }
  int64_t sent = done + f.ls;
  if (f.ls < 0) {
    // The sent point: where the work left drops to -ls, at the mouse's pace; served at its own
    // pace (an idle route) that is done + ls, to the picosecond, as the closed form has it.
    if (done - t0 == alone_ps) {
      sent = std::max(t0, done + f.ls);
    } else {
      const double part = std::max(0.0, x + static_cast<double>(f.ls)) / x;
      sent = t0 + static_cast<int64_t>(std::ceil(static_cast<double>(done - t0) * part));
    }
  }
  engine_.schedule(Time::ps(sent), kinds_[kSent], 0, 0, id);
  engine_.schedule(Time::ps(done) + f.ld, kinds_[kDelivered], 0, 0, id);
}

void FlowNetwork::attach(uint32_t id) {
  Flow& f = flows_[id];
  for (uint32_t i = 0; i < f.uses.size(); ++i) {
    Use& u = f.uses[i];
    Resource& r = res_[u.res];
    u.slot = static_cast<uint32_t>(r.members.size());
    r.members.push_back(Member{id, i});
  }
  f.active = true;
  if (hol_wait_ > 0) hol_count(f, +1);
}

void FlowNetwork::detach(uint32_t id) {
  Flow& f = flows_[id];
  for (const Use& u : f.uses) {
    Resource& r = res_[u.res];
    const uint32_t last = static_cast<uint32_t>(r.members.size() - 1);
    if (u.slot != last) {
      const Member moved = r.members[last];
      r.members[u.slot] = moved;
      flows_[moved.flow].uses[moved.use].slot = u.slot;
    }
    r.members.pop_back();
    r.usage -= u.coef * f.rate;
    if (r.members.empty()) r.usage = 0;
  }
  uint32_t& b = bneck_[id];
  if (b != kNoId) --res_[b].bottlenecked;
  b = kNoId;
  f.rate = 0;
  f.active = false;
  if (hol_wait_ > 0) hol_count(f, -1);
}

// ---------------------------------------------------------------- head-of-line waits

namespace {
// An input's capacity follows its waits in steps of at least this share of its link
// (docs/network-model.md, "Head-of-line waits"; docs/PERFORMANCE.md for the steps tried).
constexpr double kHolStep = 0.03;

// Adds `delta` to the count of `key` in `list`; true when the key came in or went out.
bool add_count(std::vector<std::pair<uint32_t, uint32_t>>& list, uint32_t key, int delta) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].first != key) continue;
    list[i].second = static_cast<uint32_t>(static_cast<int64_t>(list[i].second) + delta);
    if (list[i].second > 0) return false;
    list[i] = list.back();
    list.pop_back();
    return true;
  }
  if (delta <= 0) throw std::logic_error("flow backend: head-of-line count went below zero");
  list.emplace_back(key, static_cast<uint32_t>(delta));
  return true;
}
}  // namespace

void FlowNetwork::hol_mark(uint32_t input) {
  Hol& h = hol_[input];
  if (h.dirty) return;
  h.dirty = true;
  hol_dirty_.push_back(input);
}

void FlowNetwork::hol_count(const Flow& f, int delta) {
  for (uint32_t j = f.route_begin; j + 1 < f.route_end; ++j) {
    const uint32_t in = f.uses[j].res, out = f.uses[j + 1].res;
    Hol& hi = hol_[in];
    add_count(hi.outs, out, delta);
    hol_mark(in);
    // A new or a last input at an output changes the waits of every input feeding it.
    if (add_count(hol_[out].ins, in, delta)) {
      for (const auto& [feeder, n] : hol_[out].ins)
        hol_mark(feeder);
    }
  }
  hol_recompute();
}

// An input's capacity: its link's, divided by 1 + hol_wait x the mean over its flows of 1 - 1/n
// (n: the inputs feeding the flow's output there), when two or more of its outputs are fed by
// other inputs too. With one such output, its head's waits there fall in the turns it takes at
// the others (a shift by two around a ring loses nothing in the packet model), so it keeps its
// link's capacity.
void FlowNetwork::hol_recompute() {
  for (uint32_t in : hol_dirty_) {
    Hol& h = hol_[in];
    h.dirty = false;
    double wait = 0;
    if (h.outs.size() >= 2) {
      uint32_t contended = 0, flows = 0;
      for (const auto& [out, n] : h.outs) {
        flows += n;
        const size_t feeders = hol_[out].ins.size();
        if (feeders < 2) continue;
        ++contended;
        wait += static_cast<double>(n) * (1.0 - 1.0 / static_cast<double>(feeders));
      }
      wait = contended >= 2 ? wait * hol_wait_ / static_cast<double>(flows) : 0.0;
    }
    const double capacity = base_[in] / (1.0 + wait);
    Resource& r = res_[in];
    // Within 3% of its link (or the tolerance) of the capacity it has, it keeps it: under dense
    // traffic every start moves an input's mix a little, and each change re-solves the flows on
    // it. Without a wait it always gets its whole link back, so a lone message keeps its closed
    // form. The capacity so depends on the order flows came and went, which the reference mode
    // replays in the same order.
    if (wait > 0 ? std::abs(capacity - r.capacity) <= std::max(tol_, kHolStep) * base_[in] : capacity == r.capacity)
      continue;
    r.capacity = capacity;
    // Over its new capacity, every flow on it must be re-solved (some are held elsewhere and
    // must slow down); otherwise only the flows it holds, as after an end; a resource that holds
    // none and is not over is still not a bottleneck, and nothing changes.
    if (r.usage > capacity * (1 + kEps)) {
      h.all = true;
      seed(in);
    } else if (r.bottlenecked > 0) {
      seed(in);
    }
  }
  hol_dirty_.clear();
}

void FlowNetwork::seed(uint32_t res) {
  Resource& r = res_[res];
  if (r.seeded == seed_round_) return;  // once per solve: a burst touches a NIC many times
  r.seeded = seed_round_;
  seeds_.push_back(res);
}

void FlowNetwork::touch(const Flow& f) {
  for (const Use& u : f.uses)
    seed(u.res);
}

// After `f` left its resources: the ones where the flows bottlenecked there may now grow. A
// resource where no flow is bottlenecked changes nothing (its flows are held elsewhere); one
// still full within the tolerance counts as full, as it does in solve()'s checks. The reference
// mode re-solves on every change.
void FlowNetwork::touch_freed(const Flow& f) {
  if (reference_) {
    touch(f);
    return;
  }
  for (const Use& u : f.uses) {
    const Resource& r = res_[u.res];
    if (r.bottlenecked > 0 && r.usage < r.capacity * (1 - tol_)) seed(u.res);
  }
}

// ---------------------------------------------------------------- max-min sharing

void FlowNetwork::renumber_epochs() {
  for (Flow& f : flows_)
    f.mark = 0;
  std::fill(open_.begin(), open_.end(), 0);
  for (Resource& r : res_)
    r.mark = 0;
  epoch_ = 0;
}

uint32_t FlowNetwork::next_epoch() {
  // Wraps at epoch_limit_ (UINT32_MAX unless a test lowers it) as a 32-bit count would, to 1
  // (0 is a cleared mark); solve() renumbers before that can happen within a solve, as long as
  // the limit exceeds the flow slots (always, but for a test's limit below them).
  if (++epoch_ == epoch_limit_) epoch_ = 1;
  return epoch_;
}

template <class Take, class Visit>
void FlowNetwork::walk_members(const std::vector<Member>& ms, const uint32_t* dense, Take take, Visit visit) {
  const size_t n = ms.size();
  for (size_t i = 0; i < n; ++i) {
    if (i + 2 * kAhead < n) __builtin_prefetch(dense + ms[i + 2 * kAhead].flow);
    if (i + kAhead < n && take(ms[i + kAhead].flow)) prefetch_flow(ms[i + kAhead].flow);
    if (i + kAhead / 2 < n && take(ms[i + kAhead / 2].flow)) prefetch_heap_uses(ms[i + kAhead / 2].flow);
    if (take(ms[i].flow)) visit(ms[i].flow);
  }
}

// Re-solves the flows on the resources in seeds_ (and whichever outside flows the max-min
// conditions pull in), holding every other flow's rate fixed.
void FlowNetwork::solve() {
  if (seeds_.empty()) return;
  ++solves_;
  const uint64_t solved_before = solved_flows_;
  // A solve takes an epoch, then one per round, and a round adds at least one flow: renumber
  // before the counter could wrap within it (a mark must never meet a stale one).
  if (uint64_t{epoch_} + flows_.size() + 2 >= epoch_limit_) renumber_epochs();
  const uint32_t epoch = next_epoch();
  uint32_t rmark = next_epoch();  // the resources of the current round
  set_.clear();
  rlist_.clear();
  // The resources of the set, with the capacity the fixed flows leave them: `gather` adds a set
  // flow's part. In the first round each flow is gathered as it joins the set, while it is in
  // the cache (the seeding has just read it).
  auto gather = [&](uint32_t id) {
    Flow& f = flows_[id];
    open_[id] = epoch;
    f.new_rate = 0;
    f.new_bottleneck = kNoId;
    for (const Use& u : f.uses) {
      Resource& r = res_[u.res];
      if (r.mark != rmark) {
        r.mark = rmark;
        rlist_.push_back(u.res);
        r.fixed = r.usage;
        r.wsum = 0;
        r.unfrozen = 0;
        r.in_set = 0;
        r.old_b = 0;
        r.new_b = 0;
        r.max_new = 0;
      }
      r.fixed -= u.coef * f.rate;
      r.wsum += u.coef;
      ++r.unfrozen;
      ++r.in_set;
    }
    if (const uint32_t b = bneck_[id]; b != kNoId) ++res_[b].old_b;
  };
  bool first_round = true;
  auto add_flow = [&](uint32_t id) {
    Flow& f = flows_[id];
    if (f.mark == epoch || !f.active) return;
    f.mark = epoch;
    set_.push_back(id);
    if (first_round) gather(id);
  };
  // Every flow in flight, in the order of their slots (one pass over the flows, not one per
  // resource over its members).
  auto add_all = [&] {
    for (uint32_t id = 0; id < flows_.size(); ++id)
      add_flow(id);
  };
  // Start from the flows that can change first: new flows, and flows bottlenecked where a flow
  // started or ended. The checks below pull in whichever others must follow. The reference mode
  // takes every flow, from scratch.
  // A resource whose capacity dropped below its usage (head-of-line waits) re-solves every flow
  // on it.
  if (reference_) add_all();
  for (uint32_t r : seeds_) {
    const bool all = !hol_.empty() && hol_[r].all;
    if (all) hol_[r].all = false;
    if (reference_) continue;
    // Its members not bottlenecked elsewhere (bneck_, 4 bytes a member, read without the flow).
    walk_members(
        res_[r].members, bneck_.data(),
        [&](uint32_t id) {
          const uint32_t b = bneck_[id];
          return all || b == kNoId || b == r;
        },
        add_flow);
  }
  seeds_.clear();
  if (++seed_round_ == epoch_limit_) {
    // The count wraps: nothing is seeded now (seeds_ is empty), so clear the marks and start
    // again.
    for (Resource& r : res_)
      r.seeded = 0;
    seed_round_ = 1;
  }
  if (set_.empty()) return;

  bool full = reference_;
  size_t changed = 0;  // flows of the set whose rate the last round changed
  for (;;) {
    solved_flows_ += set_.size();
    if (!first_round) {
      rlist_.clear();
      rmark = next_epoch();
      for (size_t i = 0; i < set_.size(); ++i) {
        if (i + kAhead < set_.size()) prefetch_flow(set_[i + kAhead]);
        if (i + kAhead / 2 < set_.size()) prefetch_heap_uses(set_[i + kAhead / 2]);
        gather(set_[i]);
      }
    }
    first_round = false;
    // Progressive filling: all unfrozen flows grow at one rate; the resource that fills first
    // freezes its flows at that rate. Ties go to the lower resource number.
    // A freeze at the current level never lowers another resource's key (its fair share
    // (left - c x level) / (wsum - c) is at least left / wsum when that is at least the level),
    // so a queued key is a lower bound of the resource's key: the entry is checked when it comes
    // to the top and queued again if its key has risen since. The first entry whose key still
    // holds is the least key of all (and the lowest resource number among equal ones), as if
    // every touched resource had been queued again at once, without queueing them.
    pq_.clear();
    auto key = [](const Resource& r) { return r.unfrozen == 0 ? 0.0 : std::max(0.0, r.left) / r.wsum; };
    for (uint32_t rid : rlist_) {
      Resource& r = res_[rid];
      r.left = std::max(0.0, r.capacity - r.fixed);
      pq_.push_unordered(key(r), rid);
    }
    pq_.heapify();
    double level = 0;
    size_t unfrozen_flows = set_.size();
    changed = 0;
    while (!pq_.empty() && unfrozen_flows > 0) {
      const auto [k, rid] = pq_.top();
      Resource& r = res_[rid];
      if (r.unfrozen == 0) {  // every flow on it is frozen
        pq_.pop();
        continue;
      }
      if (const double now = key(r); now != k) {
        pq_.raise_top(now);  // raised since it was queued
        continue;
      }
      pq_.pop();
      level = std::max(level, k);
      // The set's flows on it, in the order of its members. open_ (4 bytes a flow) skips the
      // members outside the set, and those frozen, without reading the flow.
      walk_members(
          r.members, open_.data(), [&](uint32_t id) { return open_[id] == epoch; },
          [&](uint32_t id) {
            open_[id] = 0;
            Flow& f = flows_[id];
            f.new_rate = level;
            changed += level != f.rate;
            f.new_bottleneck = rid;
            ++r.new_b;
            --unfrozen_flows;
            for (const Use& u : f.uses) {
              Resource& q = res_[u.res];
              q.left -= u.coef * level;
              q.wsum -= u.coef;
              --q.unfrozen;
              q.max_new = std::max(q.max_new, level);
            }
          });
    }

    // Where the set meets the fixed flows, check the max-min conditions.
    added_.clear();
    const uint32_t amark = epoch;
    auto pull = [&](uint32_t id) {
      Flow& g = flows_[id];
      if (g.mark == amark) return;
      g.mark = amark;
      added_.push_back(id);
    };
    for (uint32_t rid : rlist_) {
      Resource& r = res_[rid];
      if (r.members.size() == r.in_set) continue;  // no fixed flow here
      const double usage = r.capacity - r.left;
      // Full within the tolerance (flow.tolerance): the other conditions stay exact, so that
      // the slack they allow cannot compound from one solve to the next.
      const bool saturated = usage >= r.capacity * (1 - tol_);
      // Fixed flows bottlenecked here stay so only if it is still full and no set flow is faster.
      const uint32_t outside_b = r.bottlenecked - r.old_b;
      if (outside_b > 0 && (!saturated || r.max_new > r.level * (1 + kEps))) {
        for (const Member& m : r.members) {
          if (bneck_[m.flow] == rid && flows_[m.flow].mark != epoch) pull(m.flow);
        }
      }
      // A set flow bottlenecked here must be at least as fast as every fixed flow here. Those
      // are at most the old level when the resource was full with fixed flows bottlenecked here.
      if (r.new_b > 0) {
        const double lam = r.max_new;
        const bool bounded = outside_b > 0 && r.level <= lam * (1 + kEps);
        if (!bounded) {
          for (const Member& m : r.members) {
            const Flow& g = flows_[m.flow];
            if (g.mark != epoch && g.rate > lam * (1 + kEps)) pull(m.flow);
          }
        }
      }
    }
    if (added_.empty() || full) break;
    for (uint32_t id : added_) {
      flows_[id].mark = epoch;
      set_.push_back(id);
    }
    // Once the set reaches a quarter of the flows in flight, solving them all at once is cheaper
    // than growing it further (no fixed flows are left, so nothing needs checking).
    if (set_.size() * 4 > live_) {
      add_all();
      full = true;
    }
  }

  // Commit: new rates, bottlenecks, usages and levels.
  for (uint32_t rid : rlist_) {
    Resource& r = res_[rid];
    r.usage = r.members.empty() ? 0 : r.capacity - r.left;
    if (r.usage < 0) r.usage = 0;
    if (r.new_b > 0) r.level = r.max_new;
  }
  // New bottlenecks and rates in one pass over the set. Many new rates (a dense batch): set
  // them all, then heapify once, instead of moving each flow in the milestone heap. The heap
  // orders by (milestone, flow), so the order milestones come out in is the same either way.
  const bool rebuild = changed * 4 > heap_.size() + 64;
  const Time now = engine_.now();
  for (size_t i = 0; i < set_.size(); ++i) {
    if (i + kAhead < set_.size()) {
      // A large set is not in the cache any more: load the flow, and the line rerate() reads.
      __builtin_prefetch(&flows_[set_[i + kAhead]]);
      prefetch_rate_line(set_[i + kAhead]);
    }
    const uint32_t id = set_[i];
    Flow& f = flows_[id];
    if (uint32_t& b = bneck_[id]; b != f.new_bottleneck) {
      if (b != kNoId) --res_[b].bottlenecked;
      ++res_[f.new_bottleneck].bottlenecked;
      b = f.new_bottleneck;
    }
    if (f.new_rate == f.rate) continue;
    if (rebuild) {
      rerate(f, f.new_rate, now);
      f.key = milestone(f);
      if (uint32_t& pos = hpos_[id]; pos != kNoId) {
        heap_[pos].key = f.key;
      } else if (f.key != Time::max()) {
        pos = static_cast<uint32_t>(heap_.size());
        heap_.push_back(HeapEntry{f.key, id});
      }
    } else {
      set_rate(id, f.new_rate);
    }
  }
  if (rebuild) heap_rebuild();
  if (pace_ > Time::zero() && solved_flows_ - solved_before >= pace_from_) {
    // Paced: the next solve waits in proportion to the flows in flight, at most a share of the
    // mean time the flows just re-solved still need.
    ++paced_solves_;
    double ahead = 0;
    uint64_t counted = 0;
    for (size_t i = 0; i < set_.size(); ++i) {
      if (i + kAhead < set_.size()) prefetch_rate_line(set_[i + kAhead]);
      if (hpos_[set_[i]] == kNoId) continue;
      const Flow& f = flows_[set_[i]];
      ahead += static_cast<double>((f.key - now).count_ps());
      ++counted;
    }
    const double by_work = static_cast<double>(live_) * static_cast<double>(pace_.count_ps());
    const double by_error = counted == 0 ? 0.0 : pace_share_ * ahead / static_cast<double>(counted);
    quiet_until_ = now + Time::ps(static_cast<int64_t>(std::min(by_work, by_error)));
  } else {
    quiet_until_ = Time::zero();
  }
}

void FlowNetwork::advance(Flow& f, Time now) {
  if (f.rate > 0 && now > f.last) f.rem -= static_cast<double>((now - f.last).count_ps()) * (f.rate / f.alone);
  f.last = now;
}

void FlowNetwork::rerate(Flow& f, double rate, Time now) {
  advance(f, now);
  if (f.rem < 0) f.rem = 0;
  f.rate = rate;
}

void FlowNetwork::set_rate(uint32_t id, double rate) {
  rerate(flows_[id], rate, engine_.now());
  heap_update(id);
}

// ---------------------------------------------------------------- milestones

// The next moment something happens to `f`: its sent point (when sent comes before the bytes
// are done), else its bytes are done.
Time FlowNetwork::milestone(const Flow& f) const {
  if (f.rate <= 0) return Time::max();
  const double target = (!f.sent && f.ls < 0) ? static_cast<double>(-f.ls) : 0.0;
  const double work = std::max(0.0, f.rem - target);
  const double speed = f.rate / f.alone;
  const double dt = speed == 1.0 ? work : std::ceil(work / speed);
  return f.last + Time::ps(static_cast<int64_t>(dt));
}

void FlowNetwork::heap_up(uint32_t i) {
  const HeapEntry e = heap_[i];
  while (i > 0) {
    const uint32_t parent = (i - 1) / 2;
    if (!heap_less(e, heap_[parent])) break;
    heap_[i] = heap_[parent];
    hpos_[heap_[i].flow] = i;
    i = parent;
  }
  heap_[i] = e;
  hpos_[e.flow] = i;
}

void FlowNetwork::heap_down(uint32_t i) {
  const uint32_t n = static_cast<uint32_t>(heap_.size());
  const HeapEntry e = heap_[i];
  for (;;) {
    const uint32_t l = 2 * i + 1, r = l + 1;
    uint32_t best = l;
    if (l >= n) break;
    if (r < n && heap_less(heap_[r], heap_[l])) best = r;
    if (!heap_less(heap_[best], e)) break;
    heap_[i] = heap_[best];
    hpos_[heap_[i].flow] = i;
    i = best;
  }
  heap_[i] = e;
  hpos_[e.flow] = i;
}

void FlowNetwork::heap_update(uint32_t id) {
  Flow& f = flows_[id];
  f.key = milestone(f);
  if (f.key == Time::max()) {
    heap_remove(id);
    return;
  }
  if (hpos_[id] == kNoId) {
    hpos_[id] = static_cast<uint32_t>(heap_.size());
    heap_.push_back(HeapEntry{f.key, id});
    heap_up(hpos_[id]);
  } else {
    const uint32_t i = hpos_[id];
    heap_[i].key = f.key;
    heap_up(i);
    heap_down(hpos_[id]);
  }
}

void FlowNetwork::heap_rebuild() {
  size_t n = 0;
  for (const HeapEntry& e : heap_) {
    if (e.key == Time::max()) {
      hpos_[e.flow] = kNoId;
      continue;
    }
    hpos_[e.flow] = static_cast<uint32_t>(n);
    heap_[n++] = e;
  }
  heap_.resize(n);
  for (size_t i = n / 2; i-- > 0;)
    heap_down(static_cast<uint32_t>(i));
}

void FlowNetwork::heap_remove(uint32_t id) {
  const uint32_t i = hpos_[id];
  if (i == kNoId) return;
  hpos_[id] = kNoId;
  const HeapEntry last = heap_.back();
  heap_.pop_back();
  if (last.flow == id) return;
  heap_[i] = last;
  hpos_[last.flow] = i;
  heap_up(i);
  heap_down(hpos_[last.flow]);
}

void FlowNetwork::ensure_wake() {
  if (heap_.empty()) return;
  const Time next = heap_[0].key;
  if (!wakes_.empty() && *wakes_.begin() <= next) return;
  wakes_.insert(next);
  engine_.schedule(next, kinds_[kWake], 0);
}

void FlowNetwork::on_wake() {
  const Time now = engine_.now();
  if (auto it = wakes_.find(now); it != wakes_.end()) wakes_.erase(it);
  finished_.clear();
  while (!heap_.empty() && heap_[0].key <= now) {
    const uint32_t id = heap_[0].flow;
    Flow& f = flows_[id];
    advance(f, now);
    if (!f.sent && f.ls < 0 && f.rem > 0.5) {
      // The sent point: the rest of the bytes are on their way (the sender's NIC is faster than
      // the path's bottleneck).
      f.rem = static_cast<double>(-f.ls);
      f.sent = true;
      heap_update(id);
      sink_.on_message_sent(f.cookie, now);
      continue;
    }
    heap_remove(id);
    f.rem = 0;
    detach(id);
    touch_freed(f);
    finished_.push_back(id);
  }
  solve_or_defer(now, finished_.size());
  ensure_wake();
  // Report after the state is consistent: the sink may inject at once.
  for (uint32_t id : finished_)
    finish(id);
}

void FlowNetwork::finish(uint32_t id) {
  Flow& f = flows_[id];
  const Time now = engine_.now();
  if (!f.sent) {
    if (f.ls <= 0) {
      f.sent = true;
      sink_.on_message_sent(flows_[id].cookie, now);
    } else {
      engine_.schedule(now + Time::ps(f.ls), kinds_[kSent], 0, 0, id);
    }
  }
  engine_.schedule(now + flows_[id].ld, kinds_[kDelivered], 0, 0, id);
}

void FlowNetwork::release(uint32_t id) {
  Flow& f = flows_[id];
  if (!f.sent || !f.delivered) return;
  f.next_free = free_flows_;
  free_flows_ = id;
}

void FlowNetwork::dispatch(const Event& e) {
  switch (e.kind - kinds_.begin) {
    case kWake:
      on_wake();
      break;
    case kSolve:
      solve_events_.erase(e.time);
      solve();
      ensure_wake();
      break;
    case kSent: {
      const uint32_t id = static_cast<uint32_t>(e.data);
      flows_[id].sent = true;
      const uint64_t cookie = flows_[id].cookie;
      release(id);
      sink_.on_message_sent(cookie, e.time);
      break;
    }
    case kDelivered: {
      const uint32_t id = static_cast<uint32_t>(e.data);
      Flow& f = flows_[id];
      f.delivered = true;
      const Time latency = e.time - f.posted;
      ++totals_.messages_delivered;
      totals_.latency_sum += latency;
      totals_.latency_max = simcore::max(totals_.latency_max, latency);
      --live_;
      const uint64_t cookie = f.cookie;
      release(id);
      sink_.on_message_delivered(cookie, e.time);
      break;
    }
    default:
      throw std::logic_error(fmt::format("flow network got an event of unknown kind {}", e.kind));
  }
}

}  // namespace mgen::net
