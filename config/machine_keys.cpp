// The schema of a machine file: every key, its meaning and where it lands in the structs.
#include "reader.hpp"

namespace mgen::config::detail {

const std::vector<KeySpec>& key_specs() {
  // Captureless lambdas convert to the plain function pointers of KeySpec.
  static const std::vector<KeySpec> table = {
      {"machine.name", "short name of the machine, shown in reports (string)",
       [](const Field& f, Loaded& m) { m.machine.name = f.string(); }},
      {"machine.description", "one line describing the machine and its source (string)",
       [](const Field& f, Loaded& m) { m.machine.description = f.string(); }},

      {"network.backend", "network model: \"packet\" (virtual cut-through) or \"analytic\" (string)",
       [](const Field& f, Loaded& m) { m.machine.network.backend = f.string(); }},

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

      {"node.procs_per_node", "MPI processes per node unless `mgen run --ppn` says otherwise (integer)",
       [](const Field& f, Loaded& m) { m.machine.node.procs_per_node = f.count(); }},
      {"node.memory_bandwidth", "rate of copies between ranks of one node (bandwidth)",
       [](const Field& f, Loaded& m) { m.machine.node.memory_bandwidth = f.bandwidth(); }},
      {"node.memory_latency", "latency of a copy between ranks of one node (time)",
       [](const Field& f, Loaded& m) { m.machine.node.memory_latency = f.time(); }},
      {"node.cpu_scale", "target CPU time per second of measured host CPU time, for recompiled MPI programs (number)",
       [](const Field& f, Loaded& m) { m.machine.node.cpu_scale = f.number(); }},
      {"node.gflops", "sustained GFlop/s of one rank, for modelled work (MGEN_Comp_work, NAS skeletons) (number)",
       [](const Field& f, Loaded& m) { m.machine.node.flop_rate = f.number() * 1e9; }},
      {"node.stream_bandwidth", "sustained memory bandwidth of one rank, for modelled work (bandwidth)",
       [](const Field& f, Loaded& m) { m.machine.node.stream_bandwidth = f.bandwidth(); }},

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
