// The host side of one small message, as the Breaking Band breakdown measures it (Zambre et al.,
// ICPP 2019): the software of the low-level protocol (LLP, UCX's UCT) and of the high-level
// protocols (HLP: MPICH and UCP), the PCIe link between root complex (RC) and NIC, the wire
// and switch, and the RC writing the payload to memory. Filled from a machine file's [host]
// table (config/ is the only place that reads it); host/ composes it into the paper's
// equations and derives the MPI layer's overheads from it.
#pragma once

#include <cstdint>

#include "mgen/simcore/units.hpp"

namespace mgen::host {

using simcore::Time;

// Every field is one row of Breaking Band Table 1 (or a number of §6's text); the defaults are
// zero because a breakdown is specific to a machine: a [host] table must give every component.
struct HostConfig {
  // LLP_post, the PIO post of one 8-byte message, by category (§4.1, Fig. 4).
  Time md_setup;       // writing the message descriptor (MD), with the inlined payload
  Time md_barrier;     // store barrier after the MD (dmb st)
  Time dbc_barrier;    // store barrier after the DoorBell counter increment
  Time pio_copy;       // the 64-byte PIO copy to device memory
  Time llp_post_misc;  // function calls and branches: LLP_post less the categories
  // LLP_prog: dequeuing one completion-queue entry (§4.1).
  Time llp_prog;
  // Misc of the LLP injection benchmark (§4.2): a busy post after every successful post, and
  // the benchmark's own measurement update.
  Time busy_post;
  Time measurement_update;
  // I/O and network (§4.3).
  Time pcie;       // a 64-byte payload across PCIe between RC and NIC, one way
  Time wire;       // the interconnect's wire, NIC to NIC
  Time switch_;    // added by one switch ([host] key `switch`)
  Time rc_to_mem;  // RC-to-MEM(8B): the RC writing an 8-byte payload to memory
  // HLP_post (§5, Table 1): the MPI_Isend in MPICH and in UCP above the LLP.
  Time mpich_isend;
  Time ucp_isend;
  // HLP_rx_prog (§6): the completed MPI_Irecv's callbacks in MPICH and UCP, and MPICH's time
  // after a successful ucp_worker_progress.
  Time mpich_irecv_callback;
  Time ucp_irecv_callback;
  Time mpich_after_progress;
  // Post_prog (§6): progress of one send operation, HLP and LLP, per operation.
  Time post_prog;
  // UCX asks the NIC for a completion every `unsignaled_interval` sends (c = 64, §6), so the
  // LLP's share of Post_prog is LLP_prog / c; the rest is HLP_tx_prog.
  uint32_t unsignaled_interval = 64;
  // Misc of the overall injection overhead (§6): busy posts, amortized per operation.
  Time busy_post_amortized;
  // Derive the MPI layer's overheads and the NIC, link and switch latencies of the simulation
  // from this breakdown (see host::derive_simulation). Off: [host] only feeds `mgen whatif`.
  bool derive = true;
};

}  // namespace mgen::host
