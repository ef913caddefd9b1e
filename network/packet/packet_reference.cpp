// The packet network's slow reference mode (router.reference = true), after SST's
// VERIFY_DECLOCKING. The fast path absorbs returning credits lazily from per-link rings, wakes
// an output or NIC on a returning credit only if it is blocked on credit, and merges a wake-up
// into one pending at the same or an earlier time. The reference takes the straightforward route:
//  - every credit is an event that adds its bytes to the upstream counter at its due time and
//    wakes the output or NIC it feeds, waiting or not;
//  - every wake-up asked for is scheduled (wake() and nic_wake() come here);
//  - a grant wakes every output of its router for when the packet's tail has left, an arriving
//    head that queues behind another re-examines the output that one waits for, and a NIC is
//    woken whenever its link frees (with the `if (reference_)` branches in packet_network.cpp).
// The timing formulas and the order of same-time events are the fast path's, so the extra
// events find nothing to do unless the fast path missed a wake-up or mislaid a credit
// (tests/network/reference_mode_test.cpp).
#include "packet/packet_network.hpp"

namespace mgen::net {

// Credit events are the first kind to run at their picosecond (PacketEventKind's order): the
// fast path counts a credit due at t in any decision taken at t (absorb_credits takes every
// entry due by `now`), so here it must be in the counter before anything else happens at t.
void PacketNetwork::ref_return_credit(RouterId r, uint32_t out_port, Time due, uint32_t vc, uint32_t bytes) {
  const uint32_t counter = vc_index(topo_.port_base(r) + out_port, vc);
  engine_.schedule_canonical(due, kinds_[kCreditArrive], r, static_cast<uint16_t>(out_port),
                             counter | (uint64_t{bytes} << 32));
}

void PacketNetwork::ref_return_nic_credit(EndpointId e, Time due, uint32_t vc, uint32_t bytes) {
  engine_.schedule_canonical(due, kinds_[kNicCreditArrive], e, 0, vc | (uint64_t{bytes} << 32));
}

void PacketNetwork::ref_credit_arrives(const simcore::Event& e) {
  const uint32_t low = static_cast<uint32_t>(e.data);
  const int32_t bytes = static_cast<int32_t>(e.data >> 32);
  // The wake-ups run later in this picosecond, with the other router and NIC wake-ups.
  if (e.kind == kinds_[kNicCreditArrive]) {
    nic_credits_[size_t{e.target} * vcs_ + low] += bytes;
    nic_wake(e.target, e.time);
  } else {
    credits_[low] += bytes;
    wake(e.target, e.port, e.time);
  }
}

// Every wake-up asked for is scheduled, except one identical to a wake-up already pending (the
// same output or NIC at the same picosecond): it would run right after that one and find
// nothing changed. Without this rule the reference would snowball, since every wake-up of a
// busy output asks for another at the moment the output frees.
void PacketNetwork::ref_wake(PacketEventKind kind, uint32_t target, uint32_t port, Time t) {
  if (ref_wakes_.emplace(t.count_ps(), kinds_[kind], target, port).second) {
    engine_.schedule_canonical(t, kinds_[kind], target, static_cast<uint16_t>(port));
  }
}

void PacketNetwork::ref_woken(const simcore::Event& e) {
  ref_wakes_.erase({e.time.count_ps(), e.kind, e.target, e.port});
}

// A packet granted at router r from input `in`: the credit for the buffer it leaves travels back
// as an event, and every output of r is woken for when its tail has left - the output's link and
// the input's crossbar connection are free then, and any output may have a request waiting on
// that input.
void PacketNetwork::ref_granted(RouterId r, const Port& in, uint32_t in_vc, uint32_t wire, Time due, Time tail) {
  if (in.kind == PeerKind::kRouter) {
    ref_return_credit(in.peer, in.peer_port, due, in_vc, wire);
  } else {
    ref_return_nic_credit(in.peer, due, in_vc, wire);
  }
  for (uint32_t port = 0; port < topo_.ports(r); ++port)
    wake(r, port, tail);
}

}  // namespace mgen::net
