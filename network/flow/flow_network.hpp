// Flow backend: every message is a flow over the route the packet model takes, sharing every
// resource on it (source DMA engine, NIC injection link, router output links, the ejection link,
// receive DMA engine; with the FMA transport also the responses' reverse path) max-min fairly.
//
// Timing. On an idle network a message takes exactly its zero-load closed form (ZeroLoadModel,
// the analytic backend's timing): `X` is the time its bytes need at the rate of its own
// bottleneck, and the rest of the closed form is latency, paid at the end (delivered = bytes done
// + ld, sent = bytes done + ls; when ls < 0, sent is the moment the remaining work drops to -ls).
// Under contention the flow progresses at `rate / alone`, its max-min rate over the rate it
// would have alone, so only the bandwidth part stretches.
//
// Sharing. Rates are max-min fair (progressive filling): every resource's capacity is shared so
// that no flow can get more without taking from one with less. A flow uses a resource in
// proportion to its wire bytes: coefficient 1 on the links it crosses, payload / wire on DMA
// engines, packets x response bytes / wire on the FMA reverse path, and the fraction of its
// packets that cross a link when the routing spreads packets (hashed, random, adaptive).
//
// Incremental. A change (a flow starts or ends) re-solves only the flows on the resources it
// touched, with every other flow's rate held fixed; then it checks the max-min conditions where
// the two meet (a flow's bottleneck resource is saturated and no flow on it is faster) and pulls
// in the outside flows that fail them, until none does. Flows whose rate does not change keep
// their completion time. Completions are kept in the backend's own heap; the engine holds one
// wake-up for the earliest. Flows started at the same picosecond share one solve.
//
// Pacing. After a solve of at least flow.pace_from flows, the starts and ends of the next
// solve_pace x (messages in flight), at most pace_share of the time the re-solved flows still
// need, wait and share one solve at its end (an ended flow's share idles, a new flow has no
// rate until then); a start that would wait more than pace_share of its own expected time is
// solved at once. This bounds the solver's work under dense traffic (docs/network-model.md).
//
// Mice. A one-packet message of at most flow.mouse_bytes (rendezvous requests and answers,
// small eager messages) is not solved: on each resource it is served after the mice started
// there before it, at the share it would get there as one more flow, and it leaves the other
// flows' rates as they are (its bytes are a packet's worth next to theirs).
//
// Head-of-line waits (flow.hol_wait). A router input serves one packet at a time: while its head
// packet waits for an output that another input is using, the packets behind it for other
// outputs wait too. An input with flows to two or more outputs that other inputs also feed has
// its capacity divided by 1 + hol_wait x (the mean, over its flows, of 1 - 1/n, n the number of
// inputs feeding that flow's output), recomputed as flows start and end, in steps of at least
// 3% of its link (the whole link back at once when no wait is left). Deterministic routings only
// (one route per message).
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "analytic/zero_load.hpp"
#include "mgen/net/backend.hpp"

namespace mgen::net {

class FlowNetwork final : public Backend {
 public:
  enum EventKind : uint16_t {
    kWake,       // the earliest flow milestone is due
    kSolve,      // flows started at this picosecond get their rates
    kSent,       // data = flow
    kDelivered,  // data = flow
    kKindCount,
  };

  explicit FlowNetwork(const BackendContext& context);

  void inject(EndpointId src, EndpointId dst, Bytes size, uint64_t cookie) override;
  void dispatch(const simcore::Event& e) override;
  NetworkTotals totals() const override {
    NetworkTotals t = totals_;
    t.solves = solves_;
    t.flows_resolved = solved_flows_;
    t.paced_solves = paced_solves_;
    t.paced_waits = paced_waits_;
    t.paced_wait_sum = paced_wait_sum_;
    t.mice = mice_;
    return t;
  }
  const std::vector<LinkStats>* router_link_stats() const override { return &link_stats_; }
  const std::vector<LinkStats>* nic_link_stats() const override { return &nic_stats_; }
  uint64_t in_flight() const override { return live_; }

 private:
  struct Use {
    uint32_t res = 0;   // resource
    uint32_t slot = 0;  // index of this flow in the resource's member list
    double coef = 1;    // bytes of the resource per packet of the flow
  };
  // A flow's uses: up to kInlineUses inside the flow, so that a solve reads a flow and its
  // resources from adjacent cache lines (a 2- or 3-level fat tree's routes fit); longer routes
  // (a torus's, FMA's reverse paths) go to the heap.
  static constexpr uint32_t kInlineUses = 8;
  class UseList {
   public:
    UseList() = default;
    UseList(UseList&& o) noexcept { take(o); }
    UseList& operator=(UseList&& o) noexcept {
      if (this != &o) {
        free_heap();
        take(o);
      }
      return *this;
    }
    UseList(const UseList&) = delete;
    UseList& operator=(const UseList&) = delete;
    ~UseList() { free_heap(); }
    // Replaces the list by [b, e): inside the flow when it fits (a heap buffer is freed), else
    // in the heap buffer, kept while it is large enough.
    void assign(const Use* b, const Use* e) {
      const auto n = static_cast<uint32_t>(e - b);
      if (n > kInlineUses && n > cap_) {
        Use* grown = new Use[n];  // before anything changes, should it throw
        free_heap();
        data_ = grown;
        cap_ = n;
      }
      Use* to = n <= kInlineUses ? inline_ : data_;
      std::copy(b, e, to);
      if (n <= kInlineUses) {
        free_heap();  // back inside
        data_ = inline_;
      }
      size_ = n;
    }
    uint32_t size() const { return size_; }
    Use& operator[](uint32_t i) { return data_[i]; }
    const Use& operator[](uint32_t i) const { return data_[i]; }
    Use* begin() { return data_; }
    Use* end() { return data_ + size_; }
    const Use* begin() const { return data_; }
    const Use* end() const { return data_ + size_; }

   private:
    void free_heap() {
      if (data_ != inline_) delete[] data_;
      data_ = inline_;
      cap_ = 0;
    }
    void take(UseList& o) {
      size_ = std::exchange(o.size_, 0);
      cap_ = std::exchange(o.cap_, 0);
      if (o.data_ == o.inline_) {
        std::copy(o.inline_, o.inline_ + size_, inline_);
        data_ = inline_;
      } else {
        data_ = std::exchange(o.data_, o.inline_);
      }
    }
    Use* data_ = inline_;  // inline_ or a heap buffer of cap_ uses
    uint32_t size_ = 0, cap_ = 0;
    Use inline_[kInlineUses];
  };
  struct alignas(64) Flow {
    // What a solve reads first: the first two cache lines hold these and up to five uses.
    uint32_t mark = 0;                // solve epoch in which the flow is being re-solved
    uint32_t new_bottleneck = kNoId;  // a solve's candidate for bneck_
    bool active = false;              // on its resources
    bool sent = false, delivered = false;
    double rate = 0;      // max-min rate, packets/ps
    double new_rate = 0;  // a solve's candidate
    UseList uses;
    // The rest.
    uint64_t cookie = 0;
    Time posted;
    Time last;         // when rem was last brought up to date
    Time ld;           // delivered = bytes done + ld
    int64_t ls = 0;    // sent = bytes done + ls (ps; negative: before the bytes are done)
    double alone = 0;  // rate alone on the network, packets/ps
    double rem = 0;    // bandwidth work left, ps at rate `alone`
    Time key;          // its next milestone while in the heap
    uint32_t next_free = kNoId;
    // uses[route_begin, route_end): the injection link, then each router output in route order
    // (head-of-line waits); empty for hashed routings
    uint16_t route_begin = 0, route_end = 0;
  };
  static_assert(sizeof(Flow) == 256);  // four cache lines
  struct Member {
    uint32_t flow = 0;
    uint32_t use = 0;  // index into the flow's uses
  };
  // Two cache lines: what every message's start, end and mouse reads, then the solve's scratch.
  struct alignas(64) Resource {
    double capacity = 0;  // bytes/ps
    double usage = 0;     // sum of coef x rate over members
    double level = 0;     // rate of the flows bottlenecked here
    std::vector<Member> members;
    uint32_t bottlenecked = 0;
    uint32_t seeded = 0;    // == seed_round_ while in seeds_
    int64_t mice_free = 0;  // ps: when the bytes of the mice started here so far are through
    // solve scratch
    alignas(64) uint32_t mark = 0;
    uint32_t in_set = 0;  // uses of it by the flows being solved
    uint32_t unfrozen = 0, old_b = 0, new_b = 0;
    double fixed = 0, left = 0, wsum = 0, max_new = 0;
  };
  static_assert(sizeof(Resource) == 128);
  // Head-of-line bookkeeping of a resource (FlowConfig::hol_wait). As a router input (the
  // injection link or a router-to-router link, into the router at its far end): how many of its
  // flows leave by each output. As a router output: how many flows come from each input.
  struct Hol {
    std::vector<std::pair<uint32_t, uint32_t>> outs;  // (output resource, flows)
    std::vector<std::pair<uint32_t, uint32_t>> ins;   // (input resource, flows)
    bool dirty = false;                               // in hol_dirty_
    bool all = false;  // capacity dropped below usage: the next solve re-solves every member
  };

  // Resource numbering: per endpoint its source DMA, injection link and receive DMA, then one per
  // router output port (router-to-router links and ejection links).
  uint32_t src_dma(EndpointId e) const { return e; }
  uint32_t inj_link(EndpointId e) const { return endpoints_ + e; }
  uint32_t rx_dma(EndpointId e) const { return 2 * endpoints_ + e; }
  uint32_t port_res(uint32_t gp) const { return 3 * endpoints_ + gp; }

  // Adds to `uses` the router output ports from `src` to `dst`, each weighted by `coef` times the
  // fraction of the message's packets that cross it.
  void add_route(EndpointId src, EndpointId dst, uint64_t packets, uint32_t seq, double coef, std::vector<Use>& uses);
  void attach(uint32_t f);
  void detach(uint32_t f);
  // Head-of-line waits: counts `f`'s input/output pairs in (delta +1) or out (-1), then gives the
  // inputs whose waits may have changed their capacity and seeds those that changed.
  void hol_count(const Flow& f, int delta);
  void hol_mark(uint32_t input);
  void hol_recompute();
  void seed(uint32_t res);  // res_[res]'s flows are re-solved at the next solve
  void touch(const Flow& f);
  void touch_freed(const Flow& f);
  void solve();
  // Loading ahead in the solve's passes: a flow's first three cache lines (what the solve reads,
  // and up to eight uses), then, once they have come, a longer route's uses on the heap; the
  // line of a flow that rerate() and the pacing read.
  void prefetch_flow(uint32_t id) const {
    const char* p = reinterpret_cast<const char*>(&flows_[id]);
    __builtin_prefetch(p);
    __builtin_prefetch(p + 64);
    __builtin_prefetch(p + 128);
  }
  void prefetch_heap_uses(uint32_t id) const {
    const UseList& uses = flows_[id].uses;
    if (uses.size() <= kInlineUses) return;
    const char* p = reinterpret_cast<const char*>(uses.begin());
    const size_t bytes = uses.size() * sizeof(Use);
    for (size_t at = 0; at < bytes; at += 64)
      __builtin_prefetch(p + at);
  }
  void prefetch_rate_line(uint32_t id) const { __builtin_prefetch(&flows_[id].last); }
  // Visits the members of `ms` that `take` accepts (by flow), in order, loading ahead: the
  // entry of the dense per-flow array `take` reads 2 x kAhead members ahead, the flows it
  // accepts kAhead ahead and their uses on the heap kAhead / 2 ahead.
  template <class Take, class Visit>
  void walk_members(const std::vector<Member>& ms, const uint32_t* dense, Take take, Visit visit);
  // Clears every flow's and resource's marks (open_ too) and starts the epochs again (epoch_).
  void renumber_epochs();
  uint32_t next_epoch();
  void schedule_solve(Time at);
  bool solve_pending_at(Time at) const;
  // Pacing (FlowConfig::solve_pace): the changes wait for a solve at the end of the quiet time.
  void defer_solve();
  // Solves now, or (while a paced solve's quiet time runs) at the end of it; `changes` starts or
  // ends wait for it.
  void solve_or_defer(Time now, uint64_t changes);
  void count_wait(Time now, uint64_t changes);
  double expected_time(const Flow& f) const;
  // The rate (packets/ps) a flow would get on `r` as one more flow there: the room left, or its
  // share of the level of the flows bottlenecked there.
  double share_of(const Resource& r, const Use& u) const;
  // A mouse (FlowConfig::mouse_bytes): timed as it starts, no solve.
  void start_mouse(uint32_t id, Time now);
  // Brings `f`'s work up to `now` at its current rate.
  void advance(Flow& f, Time now);
  // Brings `f`'s work up to `now` at its old rate, then moves it to `rate`.
  void rerate(Flow& f, double rate, Time now);
  // The same at the engine's now, and moves `f` in the milestone heap.
  void set_rate(uint32_t f, double rate);
  Time milestone(const Flow& f) const;
  void heap_update(uint32_t f);
  void heap_remove(uint32_t f);
  void heap_rebuild();  // drops flows without a milestone, then restores the heap order
  void heap_up(uint32_t i);
  void heap_down(uint32_t i);
  // The milestone heap's order: (milestone, flow).
  struct HeapEntry {
    Time key;
    uint32_t flow = 0;
  };
  static bool heap_less(const HeapEntry& a, const HeapEntry& b) {
    return a.key != b.key ? a.key < b.key : a.flow < b.flow;
  }
  void ensure_wake();
  void on_wake();
  void finish(uint32_t f);
  void release(uint32_t f);

  simcore::Engine& engine_;
  const Topology& topo_;
  Routing spread_;  // the routing whose hashes spread packets like the packet model's
  bool hashed_;     // packets of one message may take different routes
  MessageSink& sink_;
  simcore::KindRange kinds_;
  ZeroLoadModel model_;
  uint32_t endpoints_;
  uint64_t payload_max_;
  uint32_t header_;
  bool fma_;
  bool reference_;  // flow.reference: re-solve everything on every change
  double tol_;      // flow.tolerance (at least the rounding slack): when a resource counts as full
  uint32_t response_;
  Time pace_;                        // flow.solve_pace: simulated time per message in flight
  double pace_share_;                // flow.pace_share
  uint64_t pace_from_;               // flow.pace_from
  uint64_t mouse_bytes_;             // flow.mouse_bytes (0 in the reference mode)
  double full_packet_;               // wire bytes of a full packet
  double hol_wait_;                  // flow.hol_wait (0 with hashed routings: off)
  Time quiet_until_ = Time::zero();  // a paced solve's quiet time runs until then
  uint32_t seq_ = 0;

  std::vector<Resource> res_;
  std::vector<double> base_;  // each resource's capacity without head-of-line waits
  std::vector<Hol> hol_;      // per resource while hol_wait_ > 0
  std::vector<uint32_t> hol_dirty_;
  std::vector<Flow> flows_;
  uint32_t free_flows_ = kNoId;
  std::vector<HeapEntry> heap_;  // flows by (next milestone, id), with their milestones
  std::vector<uint32_t> hpos_;   // per flow slot: its position in heap_, or kNoId
  std::multiset<Time> wakes_;    // wake-ups scheduled and not yet run
  std::vector<uint32_t> seeds_;  // resources whose flows changed since the last solve
  std::set<Time> solve_events_;  // kSolve events scheduled and not yet run
  Time last_inline_ = Time::max();
  // Marks of solve rounds (Flow::mark, open_, Resource::mark) and of seeding (Resource::seeded);
  // both counters start again, with every mark cleared, before they reach epoch_limit_.
  uint32_t epoch_ = 0;
  uint32_t seed_round_ = 1;
  uint32_t epoch_limit_;
  // Solves, and the flows they re-solved in all (their regrowth rounds included): totals().
  uint64_t live_ = 0, solved_flows_ = 0, solves_ = 0;
  uint64_t paced_solves_ = 0, paced_waits_ = 0, mice_ = 0;
  Time paced_wait_sum_;
  // solve scratch
  std::vector<uint32_t> set_, rlist_, added_;
  // Per flow slot: the solve's epoch while the flow is in the set and not yet frozen, else 0.
  std::vector<uint32_t> open_;
  // Per flow slot: the resource its rate is bottlenecked at (kNoId: not solved yet, or not on
  // the network). Apart from the flows, so that the seeding reads 4 bytes per member.
  std::vector<uint32_t> bneck_;
  std::vector<Use> route_;  // inject's scratch: the new flow's uses
  // The filling's queue of resources by (fair share, resource): a 4-ary min-heap (half the
  // depth of a binary one), whose top can be raised in place.
  class ShareQueue {
   public:
    using Entry = std::pair<double, uint32_t>;
    void clear() { h_.clear(); }
    void push_unordered(double key, uint32_t res) { h_.emplace_back(key, res); }
    void heapify() {
      for (size_t i = h_.size() / 4 + 1; i-- > 0;)
        down(i);
    }
    bool empty() const { return h_.empty(); }
    const Entry& top() const { return h_.front(); }
    void pop() {
      h_.front() = h_.back();
      h_.pop_back();
      if (!h_.empty()) down(0);
    }
    void raise_top(double key) {
      h_.front().first = key;
      down(0);
    }

   private:
    static bool less(const Entry& a, const Entry& b) {
      return a.first != b.first ? a.first < b.first : a.second < b.second;
    }
    void down(size_t i) {
      const size_t n = h_.size();
      if (i >= n) return;
      const Entry e = h_[i];
      for (;;) {
        const size_t c = 4 * i + 1;
        if (c >= n) break;
        size_t best = c;
        const size_t last = std::min(c + 4, n);
        for (size_t j = c + 1; j < last; ++j)
          if (less(h_[j], h_[best])) best = j;
        if (!less(h_[best], e)) break;
        h_[i] = h_[best];
        i = best;
      }
      h_[i] = e;
    }
    std::vector<Entry> h_;
  };
  ShareQueue pq_;
  std::vector<uint32_t> finished_;

  std::vector<LinkStats> link_stats_, nic_stats_;
  NetworkTotals totals_;
};

}  // namespace mgen::net
