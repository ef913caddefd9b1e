// The schema of a machine file: every key, its meaning and where it lands in the structs.
#include <fmt/format.h>

#include "reader.hpp"

namespace mgen::config::detail {

namespace {

// "LOG 2MAX LOG MAX": MODEL_IN SIZE_IN MODEL_OUT SIZE_OUT, the columns of Dimemas's Table 3.
template <mpi::DimemasOp op>
void set_dimemas_row(const Field& f, Loaded& m) {
  const std::string text = f.string();
  std::vector<std::string> words;
  for (size_t i = 0; i < text.size();) {
    const size_t j = text.find_first_of(" \t", i);
    if (j != i) words.push_back(text.substr(i, j == std::string::npos ? std::string::npos : j - i));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  if (words.size() != 4) {
    f.fail(
        fmt::format("expected \"MODEL_IN SIZE_IN MODEL_OUT SIZE_OUT\" (e.g. \"LOG 2MAX LOG MAX\"), got \"{}\"", text));
  }
  auto model = [&](const std::string& w) {
    if (w == "0") return mpi::DimemasPhase::kNone;
    if (w == "CT") return mpi::DimemasPhase::kConstant;
    if (w == "LIN") return mpi::DimemasPhase::kLinear;
    if (w == "LOG") return mpi::DimemasPhase::kLog;
    f.fail(fmt::format("unknown model '{}' (known: 0, CT, LIN, LOG)", w));
  };
  auto size = [&](const std::string& w) {
    if (w == "MAX") return mpi::DimemasPhase::kMax;
    if (w == "MIN") return mpi::DimemasPhase::kMin;
    if (w == "MEAN") return mpi::DimemasPhase::kMean;
    if (w == "2MAX" || w == "2*MAX") return mpi::DimemasPhase::kTwiceMax;
    if (w == "S+R") return mpi::DimemasPhase::kSum;
    f.fail(fmt::format("unknown size '{}' (known: MAX, MIN, MEAN, 2MAX, S+R)", w));
  };
  m.machine.collectives.dimemas[op] =
      mpi::DimemasRow{{model(words[0]), size(words[1])}, {model(words[2]), size(words[3])}};
}

}  // namespace

const std::vector<KeySpec>& key_specs() {
  // Captureless lambdas convert to the plain function pointers of KeySpec.
  static const std::vector<KeySpec> table = {
      {"machine.name", "short name of the machine, shown in reports (string)",
       [](const Field& f, Loaded& m) { m.machine.name = f.string(); }},
      {"machine.description", "one line describing the machine and its source (string)",
       [](const Field& f, Loaded& m) { m.machine.description = f.string(); }},

      {"network.backend",
       "network model: \"packet\" (virtual cut-through), \"flow\" (max-min fair flows on the same routes), "
       "\"analytic\" (zero-load) or \"dimemas\" (L + S/B with links and buses) (string)",
       [](const Field& f, Loaded& m) { m.machine.network.backend = f.string(); }},

      {"analytic.nic_contention",
       "analytic backend: messages leave each NIC one after another and take turns at its ejection side, so "
       "ranks sharing a NIC share its bandwidth; no contention inside the network (bool)",
       [](const Field& f, Loaded& m) { m.machine.network.analytic.nic_contention = f.boolean(); }},

      {"flow.reference",
       "flow backend: re-solve every flow's rate on every change (slow; for checking the incremental solver) "
       "(bool)",
       [](const Field& f, Loaded& m) { m.machine.network.flow.reference = f.boolean(); }},
      {"flow.tolerance",
       "flow backend: a resource counts as full at (1 - tolerance) of its capacity when an incremental "
       "solve decides which flows it holds fixed must be re-solved too; 0 = exact max-min, at most 0.01 "
       "(the default: dense all-to-all traffic then does not re-solve most flows in flight at every start) "
       "(number)",
       [](const Field& f, Loaded& m) {
         // Above 0.01 the slack was measured to move short messages' latencies by 10-25%.
         m.machine.network.flow.tolerance = f.fraction_at_most(0.01);
       }},

      {"flow.solve_pace",
       "flow backend: after a solve of at least flow.pace_from flows, the next one waits solve_pace x "
       "(messages in flight) of simulated time, at most flow.pace_share of the time its flows still need; "
       "starts and ends in between share it (bounds the solver's work under dense traffic); 0 = solve every "
       "change at once (time)",
       [](const Field& f, Loaded& m) { m.machine.network.flow.solve_pace = f.time(); }},
      {"flow.pace_share",
       "flow backend: a paced solve waits at most this share of the mean time the flows the last solve "
       "re-solved still need, from 0 to 0.1 (number)",
       [](const Field& f, Loaded& m) { m.machine.network.flow.pace_share = f.fraction_at_most(0.1); }},
      {"flow.pace_from",
       "flow backend: only a solve that re-solved at least this many flows is followed by a paced wait (integer)",
       [](const Field& f, Loaded& m) { m.machine.network.flow.pace_from = f.count(); }},
      {"flow.mouse_bytes",
       "flow backend: a one-packet message of at most this many bytes takes the share it finds as it starts, "
       "after the small messages already queued on its resources, without re-solving the other flows; "
       "0 = every message is solved (size)",
       [](const Field& f, Loaded& m) { m.machine.network.flow.mouse_bytes = f.size(); }},
      {"flow.hol_wait",
       "flow backend: head-of-line waits: a router input with flows to two or more outputs that other "
       "inputs also feed gets its link's capacity divided by 1 + hol_wait x (mean over its flows of 1 - 1/n, n "
       "the inputs feeding that flow's output); 0 = pure max-min, below 1 (deterministic routings only) "
       "(number)",
       [](const Field& f, Loaded& m) { m.machine.network.flow.hol_wait = f.fraction_at_most(1.0); }},

      {"dimemas.latency", "Dimemas model: latency L of every message (time)",
       [](const Field& f, Loaded& m) { m.machine.network.dimemas.latency = f.time(); }},
      {"dimemas.bandwidth", "Dimemas model: bandwidth B, a message holds its resources S/B (bandwidth)",
       [](const Field& f, Loaded& m) { m.machine.network.dimemas.bandwidth = f.bandwidth(); }},
      {"dimemas.buses", "Dimemas model: transfers the network carries at once, 0 = unlimited (integer)",
       [](const Field& f, Loaded& m) { m.machine.network.dimemas.buses = f.count(); }},
      {"dimemas.input_links", "Dimemas model: links into each node (integer)",
       [](const Field& f, Loaded& m) { m.machine.network.dimemas.input_links = f.count(); }},
      {"dimemas.output_links", "Dimemas model: links out of each node (integer)",
       [](const Field& f, Loaded& m) { m.machine.network.dimemas.output_links = f.count(); }},
      {"dimemas.half_duplex", "Dimemas model: a node's links carry one transfer at a time in either direction (bool)",
       [](const Field& f, Loaded& m) { m.machine.network.dimemas.half_duplex = f.boolean(); }},

      {"topology.kind", "torus, mesh, fattree or crossbar (string)",
       [](const Field& f, Loaded& m) { m.machine.network.topology.kind = f.string(); }},
      {"topology.dims", "torus/mesh: routers per dimension, 1 to 6 dimensions (array of integers)",
       [](const Field& f, Loaded& m) { m.machine.network.topology.dims = f.counts(); }},
      {"topology.channels", "torus/mesh: parallel links per direction in each dimension (array of integers)",
       [](const Field& f, Loaded& m) { m.machine.network.topology.channels = f.counts(); }},
      {"topology.link_bandwidth",
       "router-to-router link rate; one value, or one per dimension / per fat-tree link level (bandwidth or array)",
       [](const Field& f, Loaded& m) { m.machine.network.topology.link_bandwidth = f.bandwidths(); }},
      {"topology.link_latency", "router-to-router link latency (time)",
       [](const Field& f, Loaded& m) { m.machine.network.topology.link_latency = f.time(); }},
      {"topology.nodes_per_router", "torus/mesh: nodes attached to each router (integer)",
       [](const Field& f, Loaded& m) { m.machine.network.topology.nodes_per_router = f.count(); }},
      {"topology.down", "fattree: children per switch at each level, leaves first (array of integers)",
       [](const Field& f, Loaded& m) {
         m.machine.network.topology.down = f.counts();
         m.down_node = &f.node();
       }},
      {"topology.up", "fattree: parents per switch for levels 1..h-1 (array of integers)",
       [](const Field& f, Loaded& m) {
         m.machine.network.topology.up = f.counts();
         m.up_node = &f.node();
       }},
      {"topology.k", "fattree shorthand with `levels`: k-ary n-tree, down=[k]*n, up=[k]*(n-1) (integer)",
       [](const Field& f, Loaded& m) {
         m.k = f.count();
         m.k_node = &f.node();
       }},
      {"topology.levels", "fattree shorthand with `k`: number of switch levels n (integer)",
       [](const Field& f, Loaded& m) {
         m.levels = f.count();
         m.levels_node = &f.node();
       }},
      {"topology.nodes", "crossbar: nodes on the single switch (integer)",
       [](const Field& f, Loaded& m) { m.machine.network.topology.crossbar_nodes = f.count(); }},

      {"router.routing",
       "routing algorithm: dor, hashed, adaptive (torus/mesh); dmodk, random, adaptive_up (fat tree); "
       "empty = the topology's default (string)",
       [](const Field& f, Loaded& m) { m.machine.network.router.routing = f.string(); }},
      {"router.vcs", "virtual channels per input port (integer)",
       [](const Field& f, Loaded& m) { m.machine.network.router.vcs = f.count(); }},
      {"router.vc_buffer", "buffer per virtual channel (size)",
       [](const Field& f, Loaded& m) { m.machine.network.router.vc_buffer = f.size(); }},
      {"router.routing_delay", "route computation latency (time)",
       [](const Field& f, Loaded& m) { m.machine.network.router.routing_delay = f.time(); }},
      {"router.vc_alloc_delay", "virtual-channel allocation latency (time)",
       [](const Field& f, Loaded& m) { m.machine.network.router.vc_alloc_delay = f.time(); }},
      {"router.switch_alloc_delay", "switch allocation latency (time)",
       [](const Field& f, Loaded& m) { m.machine.network.router.switch_alloc_delay = f.time(); }},
      {"router.switch_delay", "switch traversal latency (time)",
       [](const Field& f, Loaded& m) { m.machine.network.router.switch_delay = f.time(); }},
      {"router.switch_bandwidth", "crossbar rate per port (bandwidth)",
       [](const Field& f, Loaded& m) { m.machine.network.router.switch_bandwidth = f.bandwidth(); }},
      {"router.arbitration", "switch arbitration: round_robin or age (string)",
       [](const Field& f, Loaded& m) { m.machine.network.router.arbitration = f.string(); }},
      {"router.reference", "slow reference mode for checking the fast paths (bool)",
       [](const Field& f, Loaded& m) { m.machine.network.router.reference = f.boolean(); }},
      {"router.trains",
       "router steps: a router runs everything due before its horizon in one event; false: one event per packet and "
       "hop (bool)",
       [](const Field& f, Loaded& m) { m.machine.network.router.trains = f.boolean(); }},
      {"router.dateline", "dateline virtual channels on tori; false only to demonstrate deadlock (boolean)",
       [](const Field& f, Loaded& m) { m.machine.network.router.dateline = f.boolean(); }},

      {"nic.nics_per_node", "network interfaces per node (integer)",
       [](const Field& f, Loaded& m) { m.machine.network.nic.nics_per_node = f.count(); }},
      {"nic.link_bandwidth", "NIC-to-router link rate (bandwidth)",
       [](const Field& f, Loaded& m) { m.machine.network.nic.link_bandwidth = f.bandwidth(); }},
      {"nic.link_latency", "NIC-to-router link latency (time)",
       [](const Field& f, Loaded& m) { m.machine.network.nic.link_latency = f.time(); }},
      {"nic.dma_bandwidth", "host memory to NIC rate, each way (bandwidth)",
       [](const Field& f, Loaded& m) { m.machine.network.nic.dma_bandwidth = f.bandwidth(); }},
      {"nic.dma_latency", "host memory to NIC latency (time)",
       [](const Field& f, Loaded& m) { m.machine.network.nic.dma_latency = f.time(); }},
      {"nic.packet_payload", "payload bytes per packet (size)",
       [](const Field& f, Loaded& m) { m.machine.network.nic.packet_payload = f.size(); }},
      {"nic.packet_header", "header bytes added to every packet on the wire (size)",
       [](const Field& f, Loaded& m) { m.machine.network.nic.packet_header = f.size(); }},
      {"nic.transport",
       "\"packets\" or \"fma\": Gemini FMA puts, each packet answered by a response packet back to the "
       "sender (string)",
       [](const Field& f, Loaded& m) { m.machine.network.nic.transport = f.string(); }},
      {"nic.response_bytes", "fma transport: bytes of the response to each put (PPT: 9) (size)",
       [](const Field& f, Loaded& m) { m.machine.network.nic.response_bytes = f.size(); }},
      {"nic.rx_buffer", "ejection buffer, freed as packets are written to memory (size)",
       [](const Field& f, Loaded& m) { m.machine.network.nic.rx_buffer = f.size(); }},

      {"mpi.eager_threshold", "largest message sent eagerly; larger ones use rendezvous (size)",
       [](const Field& f, Loaded& m) { m.machine.mpi.eager_threshold = f.size(); }},
      {"mpi.envelope", "bytes of an MPI envelope: added to eager messages, the whole of control messages (size)",
       [](const Field& f, Loaded& m) { m.machine.mpi.envelope = f.size(); }},
      {"mpi.send_overhead", "host software time to post a send (time)",
       [](const Field& f, Loaded& m) { m.machine.mpi.send_overhead = f.time(); }},
      {"mpi.recv_overhead", "host software time to complete a receive (time)",
       [](const Field& f, Loaded& m) { m.machine.mpi.recv_overhead = f.time(); }},
      {"mpi.rdma_overhead", "host software time per RDMA put or get (NSIM-ACE's library overhead) (time)",
       [](const Field& f, Loaded& m) { m.machine.mpi.rdma_overhead = f.time(); }},
      {"mpi.poll_overhead", "host software time of an unsuccessful test or probe (time)",
       [](const Field& f, Loaded& m) { m.machine.mpi.poll_overhead = f.time(); }},
      {"mpi.wtime_overhead",
       "host time of an MPI_Wtime that finds the clock where the rank's previous MPI_Wtime left it (a loop spinning "
       "on the clock advances by this per read) (time)",
       [](const Field& f, Loaded& m) { m.machine.mpi.wtime_overhead = f.time(); }},
      {"mpi.send_progress_overhead",
       "host software time to progress a completed send, charged when a wait or test finds it done (time)",
       [](const Field& f, Loaded& m) { m.machine.mpi.send_progress_overhead = f.time(); }},

      {"node.procs_per_node", "MPI processes per node unless `mgen run --ppn` says otherwise (integer)",
       [](const Field& f, Loaded& m) { m.machine.node.procs_per_node = f.count(); }},
      {"node.memory_bandwidth", "rate of copies between ranks of one node (bandwidth)",
       [](const Field& f, Loaded& m) { m.machine.node.memory_bandwidth = f.bandwidth(); }},
      {"node.memory_bandwidth_by_size",
       "rates of large copies between ranks of one node: [[size, bandwidth], ...], sizes increasing; a copy of at "
       "least `size` bytes runs at the last such row's rate (array of pairs)",
       [](const Field& f, Loaded& m) { m.machine.node.memory_bandwidth_by_size = f.size_bandwidths(); }},
      {"node.copy_gap_by_size",
       "copies between ranks of one node without a copy engine per node: a rank takes in one message per this "
       "time, by size (a stream's time per message; a copy's latency stays its length plus node.memory_latency): "
       "[[size, time], ...], sizes increasing, linear between rows, proportional to size beyond the last (array "
       "of pairs)",
       [](const Field& f, Loaded& m) { m.machine.node.copy_gap_by_size = f.size_times(); }},
      {"node.memory_latency", "latency of a copy between ranks of one node (time)",
       [](const Field& f, Loaded& m) { m.machine.node.memory_latency = f.time(); }},
      {"node.cpu_scale", "target CPU time per second of measured host CPU time, for recompiled MPI programs (number)",
       [](const Field& f, Loaded& m) { m.machine.node.cpu_scale = f.number(); }},
      {"node.gflops", "sustained GFlop/s of one rank, for modelled work (MGEN_Comp_work, NAS skeletons) (number)",
       [](const Field& f, Loaded& m) { m.machine.node.flop_rate = f.number() * 1e9; }},
      {"node.stream_bandwidth", "sustained memory bandwidth of one rank, for modelled work (bandwidth)",
       [](const Field& f, Loaded& m) { m.machine.node.stream_bandwidth = f.bandwidth(); }},

      // Breaking Band (Zambre et al., ICPP 2019): one small message's components. A [host] table
      // must give all of them but unsignaled_interval and derive (see resolve_host in machine.cpp).
      {"host.md_setup", "LLP_post: writing the message descriptor, with the inlined payload (§4.1, Table 1) (time)",
       [](const Field& f, Loaded& m) { m.host.md_setup = f.time(); }},
      {"host.md_barrier", "LLP_post: store barrier after the message descriptor (§4.1, Table 1) (time)",
       [](const Field& f, Loaded& m) { m.host.md_barrier = f.time(); }},
      {"host.dbc_barrier", "LLP_post: store barrier after the DoorBell counter increment (§4.1, Table 1) (time)",
       [](const Field& f, Loaded& m) { m.host.dbc_barrier = f.time(); }},
      {"host.pio_copy", "LLP_post: the 64-byte PIO copy to the NIC's device memory (§4.1, Table 1) (time)",
       [](const Field& f, Loaded& m) { m.host.pio_copy = f.time(); }},
      {"host.llp_post_misc", "LLP_post: calls and branches outside the categories (§4.1, Table 1) (time)",
       [](const Field& f, Loaded& m) { m.host.llp_post_misc = f.time(); }},
      {"host.llp_prog", "LLP_prog: dequeuing one completion-queue entry (§4.1, Table 1) (time)",
       [](const Field& f, Loaded& m) { m.host.llp_prog = f.time(); }},
      {"host.busy_post", "LLP injection benchmark: a post refused by a full transmit queue (§4.2, Table 1) (time)",
       [](const Field& f, Loaded& m) { m.host.busy_post = f.time(); }},
      {"host.measurement_update", "LLP injection benchmark: its timestamp and rate update (§4.2, Table 1) (time)",
       [](const Field& f, Loaded& m) { m.host.measurement_update = f.time(); }},
      {"host.pcie", "PCIe: a 64-byte payload between root complex and NIC, one way (§4.3, Table 1) (time)",
       [](const Field& f, Loaded& m) { m.host.pcie = f.time(); }},
      {"host.wire", "Wire: the interconnect's physical wire, NIC to NIC (§4.3, Table 1) (time)",
       [](const Field& f, Loaded& m) { m.host.wire = f.time(); }},
      {"host.switch", "Switch: the latency one network switch adds (§4.3, Table 1) (time)",
       [](const Field& f, Loaded& m) { m.host.switch_ = f.time(); }},
      {"host.rc_to_mem", "RC-to-MEM(8B): the root complex writing an 8-byte payload to memory (§4.3, Table 1) (time)",
       [](const Field& f, Loaded& m) { m.host.rc_to_mem = f.time(); }},
      {"host.mpich_isend", "HLP_post: MPI_Isend's time in MPICH (§5, Table 1) (time)",
       [](const Field& f, Loaded& m) { m.host.mpich_isend = f.time(); }},
      {"host.ucp_isend", "HLP_post: MPI_Isend's time in UCP (§5, Table 1) (time)",
       [](const Field& f, Loaded& m) { m.host.ucp_isend = f.time(); }},
      {"host.mpich_irecv_callback", "HLP_rx_prog: MPICH's callback for a completed MPI_Irecv (§6, Table 1) (time)",
       [](const Field& f, Loaded& m) { m.host.mpich_irecv_callback = f.time(); }},
      {"host.ucp_irecv_callback", "HLP_rx_prog: UCP's callback for a completed MPI_Irecv (§6, Table 1) (time)",
       [](const Field& f, Loaded& m) { m.host.ucp_irecv_callback = f.time(); }},
      {"host.mpich_after_progress", "HLP_rx_prog: MPICH's time after a successful ucp_worker_progress (§6) (time)",
       [](const Field& f, Loaded& m) { m.host.mpich_after_progress = f.time(); }},
      {"host.post_prog", "Post_prog: HLP and LLP progress of one send operation (§6) (time)",
       [](const Field& f, Loaded& m) { m.host.post_prog = f.time(); }},
      {"host.busy_post_amortized", "Misc of the overall injection overhead: busy posts per operation (§6) (time)",
       [](const Field& f, Loaded& m) { m.host.busy_post_amortized = f.time(); }},
      {"host.unsignaled_interval",
       "sends per signaled completion, c (§6; default 64): LLP_prog / c of Post_prog is the LLP's (integer)",
       [](const Field& f, Loaded& m) { m.host.unsignaled_interval = f.count(); }},
      {"host.derive",
       "derive mpi.send_overhead, mpi.recv_overhead, mpi.send_progress_overhead, nic.dma_latency, "
       "nic.link_latency and router.switch_delay from [host] (default true) (boolean)",
       [](const Field& f, Loaded& m) { m.host.derive = f.boolean(); }},

      {"collectives.model",
       "\"algorithms\" (point-to-point algorithms, \"auto\" picks by size) or \"dimemas\" (\"auto\" means "
       "Dimemas's analytic collective model, [dimemas_collectives]) (string)",
       [](const Field& f, Loaded& m) { m.machine.collectives.model = f.string(); }},
      {"collectives.selector",
       "whose rules \"auto\" follows: \"mpich\" (the default: MPICH 4.0.2's default algorithm choices), "
       "\"ompi\" (Open MPI 4.1.6's fixed decision rules) or \"mgen\" (mgen's own earlier rules) (string; "
       "`mgen info` prints the active table)",
       [](const Field& f, Loaded& m) { m.machine.collectives.selector = f.string(); }},
      {"collectives.barrier", "barrier algorithm, or \"auto\" (string; `mgen info` lists them)",
       [](const Field& f, Loaded& m) { m.machine.collectives.barrier = f.string(); }},
      {"collectives.bcast", "broadcast algorithm, or \"auto\" (string)",
       [](const Field& f, Loaded& m) { m.machine.collectives.bcast = f.string(); }},
      {"collectives.reduce", "reduce algorithm, or \"auto\" (string)",
       [](const Field& f, Loaded& m) { m.machine.collectives.reduce = f.string(); }},
      {"collectives.allreduce", "allreduce algorithm, or \"auto\" (string)",
       [](const Field& f, Loaded& m) { m.machine.collectives.allreduce = f.string(); }},
      {"collectives.gather", "gather(v) algorithm, or \"auto\" (string)",
       [](const Field& f, Loaded& m) { m.machine.collectives.gather = f.string(); }},
      {"collectives.scatter", "scatter(v) algorithm, or \"auto\" (string)",
       [](const Field& f, Loaded& m) { m.machine.collectives.scatter = f.string(); }},
      {"collectives.allgather", "allgather(v) algorithm, or \"auto\" (string)",
       [](const Field& f, Loaded& m) { m.machine.collectives.allgather = f.string(); }},
      {"collectives.alltoall", "alltoall(v) algorithm, or \"auto\" (string)",
       [](const Field& f, Loaded& m) { m.machine.collectives.alltoall = f.string(); }},
      {"collectives.reduce_scatter", "reduce-scatter algorithm, or \"auto\" (string)",
       [](const Field& f, Loaded& m) { m.machine.collectives.reduce_scatter = f.string(); }},
      {"collectives.scan", "scan and exscan algorithm, or \"auto\" (string)",
       [](const Field& f, Loaded& m) { m.machine.collectives.scan = f.string(); }},
      {"dimemas_collectives.barrier",
       "Dimemas collective model row for MPI_Barrier: \"MODEL_IN SIZE_IN MODEL_OUT SIZE_OUT\" (string)",
       set_dimemas_row<mpi::kDimBarrier>},
      {"dimemas_collectives.bcast",
       "Dimemas collective model row for MPI_Bcast: \"MODEL_IN SIZE_IN MODEL_OUT SIZE_OUT\" (string)",
       set_dimemas_row<mpi::kDimBcast>},
      {"dimemas_collectives.gather",
       "Dimemas collective model row for MPI_Gather: \"MODEL_IN SIZE_IN MODEL_OUT SIZE_OUT\" (string)",
       set_dimemas_row<mpi::kDimGather>},
      {"dimemas_collectives.gatherv",
       "Dimemas collective model row for MPI_Gatherv: \"MODEL_IN SIZE_IN MODEL_OUT SIZE_OUT\" (string)",
       set_dimemas_row<mpi::kDimGatherv>},
      {"dimemas_collectives.scatter",
       "Dimemas collective model row for MPI_Scatter: \"MODEL_IN SIZE_IN MODEL_OUT SIZE_OUT\" (string)",
       set_dimemas_row<mpi::kDimScatter>},
      {"dimemas_collectives.scatterv",
       "Dimemas collective model row for MPI_Scatterv: \"MODEL_IN SIZE_IN MODEL_OUT SIZE_OUT\" (string)",
       set_dimemas_row<mpi::kDimScatterv>},
      {"dimemas_collectives.allgather",
       "Dimemas collective model row for MPI_Allgather: \"MODEL_IN SIZE_IN MODEL_OUT SIZE_OUT\" (string)",
       set_dimemas_row<mpi::kDimAllgather>},
      {"dimemas_collectives.allgatherv",
       "Dimemas collective model row for MPI_Allgatherv: \"MODEL_IN SIZE_IN MODEL_OUT SIZE_OUT\" (string)",
       set_dimemas_row<mpi::kDimAllgatherv>},
      {"dimemas_collectives.alltoall",
       "Dimemas collective model row for MPI_Alltoall: \"MODEL_IN SIZE_IN MODEL_OUT SIZE_OUT\" (string)",
       set_dimemas_row<mpi::kDimAlltoall>},
      {"dimemas_collectives.alltoallv",
       "Dimemas collective model row for MPI_Alltoallv: \"MODEL_IN SIZE_IN MODEL_OUT SIZE_OUT\" (string)",
       set_dimemas_row<mpi::kDimAlltoallv>},
      {"dimemas_collectives.reduce",
       "Dimemas collective model row for MPI_Reduce: \"MODEL_IN SIZE_IN MODEL_OUT SIZE_OUT\" (string)",
       set_dimemas_row<mpi::kDimReduce>},
      {"dimemas_collectives.allreduce",
       "Dimemas collective model row for MPI_Allreduce: \"MODEL_IN SIZE_IN MODEL_OUT SIZE_OUT\" (string)",
       set_dimemas_row<mpi::kDimAllreduce>},
      {"dimemas_collectives.reduce_scatter",
       "Dimemas collective model row for MPI_Reduce_scatter: \"MODEL_IN SIZE_IN MODEL_OUT SIZE_OUT\" (string)",
       set_dimemas_row<mpi::kDimReduceScatter>},
      {"dimemas_collectives.scan",
       "Dimemas collective model row for MPI_Scan: \"MODEL_IN SIZE_IN MODEL_OUT SIZE_OUT\" (string)",
       set_dimemas_row<mpi::kDimScan>},
  };
  return table;
}

}  // namespace mgen::config::detail

namespace mgen::config {

const std::vector<KeyDoc>& key_reference() {
  static const std::vector<KeyDoc> docs = [] {
    std::vector<KeyDoc> out;
    for (const detail::KeySpec& s : detail::key_specs())
      out.push_back({s.key, s.meaning});
    return out;
  }();
  return docs;
}

}  // namespace mgen::config
