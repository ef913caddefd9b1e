// Runs rank programs written as C++ lambdas (calling the MGEN_* C API) on a modelled machine.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "mgen/mgen.h"
#include "mgen/mpi/run.hpp"

namespace mgen::test {

using simcore::Bandwidth;
using simcore::Bytes;
using simcore::Time;

// A small, round-numbered machine: 4x4x4 torus at 4 GB/s (250 ps per byte), NSIM-ACE router
// delays, fast DMA, MPI overheads of 100 ns, eager up to 16 KiB, 64-byte envelopes.
inline mpi::MachineSetup test_machine() {
  mpi::MachineSetup m;
  net::NetworkConfig& n = m.network;
  n.topology.kind = "torus";
  n.topology.dims = {4, 4, 4};
  n.topology.link_bandwidth = {Bandwidth::gigabytes_per_second(4)};
  n.topology.link_latency = Time::ps(600);
  n.nic.link_bandwidth = Bandwidth::gigabytes_per_second(4);
  n.nic.link_latency = Time::ns(10);
  n.nic.dma_bandwidth = Bandwidth::gigabytes_per_second(1000);
  n.nic.packet_payload = Bytes(2048);
  n.nic.packet_header = Bytes(32);
  n.router.routing_delay = n.router.vc_alloc_delay = n.router.switch_alloc_delay = Time::ns(4);
  n.router.switch_delay = Time::ns(128);
  n.router.switch_bandwidth = Bandwidth::gigabytes_per_second(4);
  n.router.vc_buffer = Bytes(32768);
  n.nic.rx_buffer = Bytes(65536);
  m.mpi.send_overhead = Time::ns(100);
  m.mpi.recv_overhead = Time::ns(100);
  m.mpi.eager_threshold = Bytes(16384);
  m.mpi.envelope = Bytes(64);
  m.node.memory_bandwidth = Bandwidth::gigabytes_per_second(10);
  m.node.memory_latency = Time::ns(300);
  return m;
}

// Enough nodes for `ranks` ranks at one per node on a torus of at least 4x4x4.
inline mpi::MachineSetup machine_for(uint32_t ranks) {
  mpi::MachineSetup m = test_machine();
  uint32_t k = 4;
  while (k * k * k < ranks)
    ++k;
  m.network.topology.dims = {k, k, k};
  return m;
}

inline mpi::RunReport run(uint32_t ranks, const std::function<void(int, int)>& body, const mpi::MachineSetup& machine,
                          uint32_t ppn = 1) {
  mpi::JobConfig job;
  job.ranks = ranks;
  job.procs_per_node = ppn;
  job.stack_bytes = 128 * 1024;
  return mpi::run_job(machine, job,
                      [&body](int, char**) {
                        int rank = 0, size = 0;
                        MGEN_Comm_rank(MGEN_COMM_WORLD, &rank);
                        MGEN_Comm_size(MGEN_COMM_WORLD, &size);
                        body(rank, size);
                      },
                      {"test"});
}

// `body(rank, size)` on `ranks` ranks, one per node, enough nodes.
inline mpi::RunReport run(uint32_t ranks, const std::function<void(int, int)>& body) {
  return run(ranks, body, machine_for(ranks));
}

}  // namespace mgen::test
