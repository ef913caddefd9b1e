// `mgen validate`'s reproductions of PPT, NSIM-ACE, Breaking Band and Dimemas: small MGEN
// programs on the presets, each check naming where the paper's value comes from.
#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <tuple>

#include "mgen/host/breakdown.hpp"
#include "mgen/mgen.h"
#include "validate.hpp"

namespace mgen::cli::validate {

// ---------------------------------------------------------------- PPT (Hopper, Gemini)

// §6: 4-byte latency 1.27 us between the nearest nodes and 3.88 us between the farthest
// (network), and Fig. 6's histogram of MPI end-to-end delays from 1.27 to 4.07 us.
void ppt_latency(Context& c) {
  const config::MachineConfig m = c.machine("hopper.toml");
  const Oracle oracle(m);
  const net::NetworkModel& net = oracle.net;
  const net::Topology& t = net.topology();
  net::EndpointId far = 1;
  for (net::EndpointId e = 1; e < t.endpoints(); ++e) {
    if (t.router_hops(0, e) > t.router_hops(0, far)) far = e;
  }
  c.number("PPT §6", "4-byte latency, nearest nodes (network)", 1.27,
           net.zero_load(0, 1, simcore::Bytes(4)).delivered.microseconds(), 0.02, "us");
  c.number("PPT §6", "4-byte latency, farthest nodes (network)", 3.88,
           net.zero_load(0, far, simcore::Bytes(4)).delivered.microseconds(), 0.02, "us");

  // Rank 0 ping-pongs 4 bytes with one rank on every other node in turn; one-way = RTT / 2.
  const uint32_t nodes = t.nodes();
  const uint32_t step = c.quick ? 5 : 1;
  // Quick runs sample every fifth node, plus the nearest (node 1, on node 0's Gemini) and the
  // farthest.
  std::vector<uint32_t> placement = {0, 1};
  for (uint32_t n = step; n < nodes; n += step) {
    if (n != 1 && n != far) placement.push_back(n);
  }
  placement.push_back(far);
  const uint32_t ranks = static_cast<uint32_t>(placement.size());
  std::vector<double> one_way(ranks, 0);
  simulate(
      m, ranks,
      [&](int rank, int size) {
        int word = 0;
        if (rank == 0) {
          for (int i = 1; i < size; ++i) {
            const double t0 = MGEN_Wtime();
            MGEN_Send(&word, 4, MGEN_BYTE, i, 0, MGEN_COMM_WORLD);
            MGEN_Recv(&word, 4, MGEN_BYTE, i, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
            one_way[static_cast<size_t>(i)] = (MGEN_Wtime() - t0) / 2;
          }
        } else {
          MGEN_Recv(&word, 4, MGEN_BYTE, 0, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
          MGEN_Send(&word, 4, MGEN_BYTE, 0, 0, MGEN_COMM_WORLD);
        }
      },
      1, placement);
  one_way.erase(one_way.begin());
  const auto [lo, hi] = std::minmax_element(one_way.begin(), one_way.end());
  c.number("PPT Fig. 6", "MPI 4-byte end-to-end delay, minimum", 1.27, *lo * 1e6, 0.02, "us");
  c.number("PPT Fig. 6", "MPI 4-byte end-to-end delay, maximum", 4.07, *hi * 1e6, 0.05, "us");
  std::map<int, int> bins;  // 0.1 us bins
  for (double d : one_way)
    ++bins[static_cast<int>(std::floor(d * 1e7))];
  Plot p{"ppt_fig6_latency_histogram.png",
         "PPT Fig. 6: MPI 4-byte end-to-end delay from node 0 (Hopper)",
         "end-to-end delay (us)",
         "node pairs",
         false,
         false,
         {}};
  Series s{"mgen", {}, "boxes"};
  for (const auto& [bin, count] : bins)
    s.xy.emplace_back((bin + 0.5) / 10.0, count);
  p.series.push_back(s);
  c.plots.push_back(p);
}

// §6, Fig. 8: MPI_Send throughput between two nodes, 1, 2 and 4 processes per node, 8 bytes
// to 128 KiB: "levels off at 6.75 GB/s".
void ppt_throughput(Context& c) {
  const config::MachineConfig m = c.machine("hopper.toml");
  const Oracle oracle(m);
  const net::NetworkModel& net = oracle.net;
  uint32_t far = 1;
  for (uint32_t e = 1; e < net.topology().endpoints(); ++e) {
    if (net.topology().router_hops(0, e) > net.topology().router_hops(0, far)) far = e;
  }
  const int repeats = c.quick ? 4 : 16;
  Plot p{"ppt_fig8_mpi_throughput.png",
         "PPT Fig. 8: MPI throughput between two Hopper nodes",
         "message size (bytes)",
         "aggregate throughput (GB/s)",
         true,
         false,
         {}};
  for (const auto& [label, peer] : {std::pair<const char*, uint32_t>{"nearest", 1}, {"farthest", far}}) {
    for (uint32_t ppn : {1u, 2u, 4u}) {
      Series s{fmt::format("{} nodes, {} per node", label, ppn), {}};
      double plateau = 0;
      for (int bytes = 8; bytes <= 131072; bytes *= c.quick ? 4 : 2) {
        // Ranks [0, ppn) on node 0 send to ranks [ppn, 2 ppn) on the peer node.
        std::vector<uint32_t> nodes(2 * ppn, 0);
        for (uint32_t i = ppn; i < 2 * ppn; ++i)
          nodes[i] = peer;
        std::vector<double> done(2 * ppn, 0);
        simulate(
            m, 2 * ppn,
            [&](int rank, int) {
              const int n = static_cast<int>(ppn);
              for (int k = 0; k < repeats; ++k) {
                if (rank < n) {
                  MGEN_Send(nullptr, bytes, MGEN_BYTE, rank + n, 0, MGEN_COMM_WORLD);
                } else {
                  MGEN_Recv(nullptr, bytes, MGEN_BYTE, rank - n, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
                }
              }
              done[static_cast<size_t>(rank)] = MGEN_Wtime();
            },
            ppn, nodes);
        const double last = *std::max_element(done.begin(), done.end());
        const double gbps = static_cast<double>(ppn) * repeats * bytes / last / 1e9;
        s.xy.emplace_back(bytes, gbps);
        plateau = gbps;
      }
      p.series.push_back(s);
      if (std::string(label) == "nearest") {
        c.number("PPT Fig. 8", fmt::format("MPI throughput plateau, 128 KiB, {} per node", ppn), 6.75, plateau, 0.10,
                 "GB/s");
      }
    }
  }
  // The farthest pair is slower at small sizes (latency) and meets the same cap at 128 KiB.
  const double near_small = p.series[0].xy[1].second, far_small = p.series[3].xy[1].second;
  c.claim("PPT Fig. 8", "farthest nodes are slower than nearest at small sizes", far_small < near_small,
          fmt::format("1 per node, {} B: {:.3f} vs {:.3f} GB/s", static_cast<int>(p.series[0].xy[1].first), far_small,
                      near_small));
  c.plots.push_back(p);
}

// §6, Fig. 7: MPI_Allreduce duration against ranks and size: "logarithmic cost in the number of
// processes under the normal situation", "superlinear" when ranks and data size grow together
// and the network congests.
//
// The collective selection is pinned to mgen's own rules (the ring above 2 KiB): PPT measured
// Cray MPT on Hopper, whose allreduce choice at 64 KiB is not documented, and mgen's ring
// reproduces the superlinear growth the paper shows. Under MPICH 4.0's default choice
// (Rabenseifner above 8 bytes) the 64 KiB curve grows 2.96x from 16 to 1,024 ranks, against
// 2.5x for log2 (2026-11-25): congestion still shows, but less than the paper's figure.
void ppt_allreduce(Context& c) {
  config::MachineConfig m = c.machine("hopper.toml");
  m.collectives.selector = "mgen";
  const std::vector<uint32_t> counts = powers_of_two(16, c.quick ? 256 : 1024);
  const std::vector<int> sizes = {8, 1024, 65536};
  Plot p{"ppt_fig7_allreduce.png",
         "PPT Fig. 7: MPI_Allreduce duration on Hopper (one rank per node)",
         "MPI ranks",
         "duration (us)",
         true,
         true,
         {}};
  std::map<int, std::vector<double>> duration;
  for (int bytes : sizes) {
    Series s{fmt::format("{} bytes", bytes), {}};
    for (uint32_t ranks : counts) {
      double longest = 0;
      simulate(
          m, ranks,
          [&](int, int) {
            MGEN_Barrier(MGEN_COMM_WORLD);
            const double t0 = MGEN_Wtime();
            MGEN_Allreduce(nullptr, nullptr, bytes / 8, MGEN_DOUBLE, MGEN_SUM, MGEN_COMM_WORLD);
            longest = std::max(longest, MGEN_Wtime() - t0);
          },
          1);
      duration[bytes].push_back(longest * 1e6);
      s.xy.emplace_back(ranks, longest * 1e6);
    }
    p.series.push_back(s);
  }
  const double log_ratio = std::log2(counts.back()) / std::log2(counts.front());
  const std::vector<double>& small = duration[8];
  const double small_ratio = small.back() / small.front();
  c.claim("PPT Fig. 7", "small allreduce grows logarithmically with ranks",
          small_ratio > 0.6 * log_ratio && small_ratio < 1.6 * log_ratio,
          fmt::format("8 B: t({})/t({}) = {:.2f}, log2 ratio {:.2f}", counts.back(), counts.front(), small_ratio,
                      log_ratio));
  const std::vector<double>& large = duration[65536];
  const double large_ratio = large.back() / large.front();
  c.claim("PPT Fig. 7", "large allreduce grows faster than logarithmically (congestion)", large_ratio > 1.6 * log_ratio,
          fmt::format("64 KiB: t({})/t({}) = {:.2f}, log2 ratio {:.2f}", counts.back(), counts.front(), large_ratio,
                      log_ratio));
  c.plots.push_back(p);
}

// ---------------------------------------------------------------- NSIM-ACE

// §4.1, Fig. 1: random-ring bandwidth of 2 MB puts; two processes per node. The 16-node machine
// puts 4 and 8 processes on one switch; above, traffic crosses switches and the bandwidth drops.
void nsim_random_ring(Context& c) {
  Plot p{"nsim_fig1_random_ring.png",
         "NSIM-ACE Fig. 1: random-ring bandwidth of 2 MB puts",
         "processes",
         "throughput per process (GB/s)",
         true,
         false,
         {}};
  std::map<uint32_t, double> small_machine;
  for (const auto& [file, top] :
       {std::pair<const char*, uint32_t>{"nsim-ace-ib.toml", 32}, {"nsim-ace-ib-256.toml", c.quick ? 64u : 512u}}) {
    const config::MachineConfig m = c.machine(file);
    Series s{m.name, {}};
    for (uint32_t procs : powers_of_two(4, top)) {
      const int bytes = 2 * 1024 * 1024;
      std::vector<int> order(procs);
      std::iota(order.begin(), order.end(), 0);
      std::mt19937 rng(1);
      std::shuffle(order.begin() + 1, order.end(), rng);
      std::vector<int> pos(procs);
      for (uint32_t i = 0; i < procs; ++i)
        pos[static_cast<size_t>(order[i])] = static_cast<int>(i);
      double longest = 0;
      simulate(
          m, procs,
          [&](int rank, int size) {
            const int at = pos[static_cast<size_t>(rank)];
            const int right = order[static_cast<size_t>((at + 1) % size)];
            const int left = order[static_cast<size_t>((at + size - 1) % size)];
            MGEN_Barrier(MGEN_COMM_WORLD);
            const double t0 = MGEN_Wtime();
            MGEN_acp_handle a = MGEN_rdma_put(right, bytes, 0);
            MGEN_acp_handle b = MGEN_rdma_put(left, bytes, 1);
            MGEN_rdma_poll(0);
            MGEN_rdma_poll(1);
            MGEN_acp_complete(a);
            MGEN_acp_complete(b);
            longest = std::max(longest, MGEN_Wtime() - t0);
          },
          2);
      const double gbps = 2.0 * bytes / longest / 1e9;
      s.xy.emplace_back(procs, gbps);
      if (top == 32) small_machine[procs] = gbps;
    }
    p.series.push_back(s);
  }
  c.claim("NSIM-ACE Fig. 1", "random-ring bandwidth drops once traffic crosses switches (16 nodes)",
          small_machine[32] < small_machine[4] && small_machine[32] < small_machine[8],
          fmt::format("{:.2f} GB/s at 4, {:.2f} at 8, {:.2f} at 32 processes", small_machine[4], small_machine[8],
                      small_machine[32]));
  c.plots.push_back(p);
}

// §4.2, Fig. 2: barrier times of the ring and recursive-doubling algorithms: recursive doubling
// beats the ring, and is faster when p is a power of two than at the sizes around it.
void nsim_barrier(Context& c) {
  const config::MachineConfig base = c.machine("nsim-ace-ib.toml");
  const std::vector<uint32_t> counts = {4, 6, 8, 12, 16, 24, 32};
  Plot p{"nsim_fig2_barrier.png",
         "NSIM-ACE Fig. 2: barrier time, 2 processes per node",
         "processes",
         "barrier time (us)",
         false,
         false,
         {}};
  std::map<std::string, std::map<uint32_t, double>> t;
  for (const char* algo : {"ring", "recursive_doubling"}) {
    config::MachineConfig m = base;
    m.collectives.barrier = algo;
    Series s{algo, {}};
    for (uint32_t procs : counts) {
      double best = 1e30;
      simulate(
          m, procs,
          [&](int rank, int) {
            for (int k = 0; k < 10; ++k) {
              MGEN_Barrier(MGEN_COMM_WORLD);
              const double t0 = MGEN_Wtime();
              MGEN_Barrier(MGEN_COMM_WORLD);
              if (rank == 0) best = std::min(best, MGEN_Wtime() - t0);
            }
          },
          2);
      t[algo][procs] = best * 1e6;
      s.xy.emplace_back(procs, best * 1e6);
    }
    p.series.push_back(s);
  }
  bool faster = true;
  for (uint32_t procs : counts)
    faster = faster && t["recursive_doubling"][procs] < t["ring"][procs];
  c.claim("NSIM-ACE Fig. 2", "recursive doubling is faster than the ring at every size", faster,
          fmt::format("at 32: {:.2f} vs {:.2f} us", t["recursive_doubling"][32], t["ring"][32]));
  auto& rd = t["recursive_doubling"];
  c.claim("NSIM-ACE Fig. 2", "recursive doubling is faster at p = 2^n than at the sizes around it",
          rd[8] < rd[6] && rd[16] < rd[12] && rd[32] < rd[24],
          fmt::format("6: {:.2f}, 8: {:.2f}, 12: {:.2f}, 16: {:.2f}, 24: {:.2f}, 32: {:.2f} us", rd[6], rd[8], rd[12],
                      rd[16], rd[24], rd[32]));
  c.plots.push_back(p);
}

// ---------------------------------------------------------------- Breaking Band

// §6: modelled end-to-end latency 1387.02 ns and injection overhead (eq. 2) from Table 1's
// components; the simulated ping-pong on the same machine; Fig. 17's what-if curves.
void breaking_band(Context& c) {
  const config::MachineConfig m = c.machine("thunderx2-cx4.toml");
  if (!m.host) throw std::runtime_error("thunderx2-cx4.toml has no [host] table");
  const host::Breakdown b(*m.host);
  c.number("Breaking Band §6", "modelled end-to-end latency", 1387.02, b.total(host::Model::kLatency), 0.02, "ns");
  c.number("Breaking Band §6", "modelled overall injection overhead", 265.0, b.total(host::Model::kInjection), 0.02,
           "ns");
  c.number("Breaking Band §6", "observed latency (OSU) vs model", 1336.0, b.total(host::Model::kLatency), 0.04, "ns");
  c.number("Breaking Band §6", "observed injection (OSU message rate) vs model", 263.91,
           b.total(host::Model::kInjection), 0.05, "ns");
  // The simulated machine: a small-message ping-pong, one-way.
  double one_way = 0;
  simulate(m, 2, [&](int rank, int) {
    char x[8] = {};  // found by AddressSanitizer: an 8-byte message needs 8 bytes
    for (int k = 0; k < 10; ++k) {
      const double t0 = MGEN_Wtime();
      if (rank == 0) {
        MGEN_Send(x, 8, MGEN_BYTE, 1, 0, MGEN_COMM_WORLD);
        MGEN_Recv(x, 8, MGEN_BYTE, 1, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
        one_way = (MGEN_Wtime() - t0) / 2;
      } else {
        MGEN_Recv(x, 8, MGEN_BYTE, 0, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
        MGEN_Send(x, 8, MGEN_BYTE, 0, 0, MGEN_COMM_WORLD);
      }
    }
  });
  c.number("Breaking Band §6", "simulated 8-byte MPI latency on the preset", 1387.02, one_way * 1e9, 0.02, "ns");
  // §7's stated what-ifs.
  c.number("Breaking Band §7", "injection saved by a 20% cut of the HLP", 6.44,
           100 * b.what_if("HLP", 0.2, host::Model::kInjection).saved(), 0.05, "%");
  c.number("Breaking Band §7", "injection saved by a 20% cut of the LLP", 13.33,
           100 * b.what_if("LLP", 0.2, host::Model::kInjection).saved(), 0.05, "%");
  // §7 quotes 5.45% for a 30 ns switch (72%) "according to Figure 17d": it is that figure's 70%
  // point (108 ns to 30 ns would save 5.62%).
  c.number("Breaking Band Fig. 17d", "latency saved by a 70% cut of the switch", 5.45,
           100 * b.what_if("switch", 0.70, host::Model::kLatency).saved(), 0.02, "%");
  const double pio_inj = b.what_if("pio_copy", 0.84, host::Model::kInjection).saved();
  const double pio_lat = b.what_if("pio_copy", 0.84, host::Model::kLatency).saved();
  c.claim("Breaking Band §7", "an 84% cut of the PIO copy saves >25% of injection and >5% of latency",
          pio_inj > 0.25 && pio_lat > 0.05,
          fmt::format("injection {:.2f}%, latency {:.2f}%", 100 * pio_inj, 100 * pio_lat));
  for (const auto& [model, file, title] :
       {std::tuple{host::Model::kInjection, "bb_fig17a_injection.png", "Breaking Band Fig. 17a: injection speedup"},
        std::tuple{host::Model::kLatency, "bb_fig17b_latency.png", "Breaking Band Fig. 17b-d: latency speedup"}}) {
    Plot p{file, title, "reduction of the component (%)", "speedup", false, false, {}};
    for (const char* name : {"HLP", "LLP", "LLP_post", "pio_copy", "I/O", "switch", "wire"}) {
      Series s{name, {}};
      try {
        for (double r : {0.1, 0.3, 0.5, 0.7, 0.9})
          s.xy.emplace_back(100 * r, b.what_if(name, r, model).speedup());
      } catch (const std::invalid_argument&) {
        continue;  // a name this breakdown does not have
      }
      p.series.push_back(s);
    }
    c.plots.push_back(p);
  }
}

// ---------------------------------------------------------------- Dimemas

// §3 and §3.1, Tables 1-3, on the SGI Origin preset: point-to-point T = L + S/B, and every
// collective of Table 3 at P = 16 equal to FAN_IN + FAN_OUT.
void dimemas(Context& c) {
  const config::MachineConfig m = c.machine("sgi-origin-dimemas.toml");
  const double L = m.network.dimemas.latency.seconds();
  const double B = static_cast<double>(m.network.dimemas.bandwidth.bytes_per_s());
  const int bytes = 100000;
  double received = 0;
  simulate(m, 2, [&](int rank, int) {
    if (rank == 0) MGEN_Send(nullptr, bytes, MGEN_BYTE, 1, 0, MGEN_COMM_WORLD);
    if (rank == 1) {
      MGEN_Recv(nullptr, bytes, MGEN_BYTE, 0, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
      received = MGEN_Wtime();
    }
  });
  c.number("Dimemas eq. 1", "point-to-point T = L + S/B, 100 kB", (L + bytes / B) * 1e6, received * 1e6, 1e-6, "us");

  // Nsteps for P = 16 and 16 buses: 4 phases of one step (equation 4).
  const int p = 16, n = 1000;
  const double v = 8.0 * n, nsteps = 4;
  auto phase = [&](mpi::DimemasPhase ph, double sent, double recv) {
    const double factor = ph.model == mpi::DimemasPhase::kNone       ? 0
                          : ph.model == mpi::DimemasPhase::kConstant ? 1
                          : ph.model == mpi::DimemasPhase::kLinear   ? p
                                                                     : nsteps;
    const double size = ph.size == mpi::DimemasPhase::kMax        ? std::max(sent, recv)
                        : ph.size == mpi::DimemasPhase::kMin      ? std::min(sent, recv)
                        : ph.size == mpi::DimemasPhase::kMean     ? (sent + recv) / 2
                        : ph.size == mpi::DimemasPhase::kTwiceMax ? 2 * std::max(sent, recv)
                                                                  : sent + recv;
    return factor * (L + size / B);
  };
  struct Op {
    mpi::DimemasOp op;
    double sent, recv;
    std::function<void()> call;
  };
  const std::vector<Op> ops = {
      {mpi::kDimBarrier, 0, 0, [] { MGEN_Barrier(MGEN_COMM_WORLD); }},
      {mpi::kDimBcast, v, 0, [] { MGEN_Bcast(nullptr, n, MGEN_DOUBLE, 0, MGEN_COMM_WORLD); }},
      {mpi::kDimGather, v, v,
       [] { MGEN_Gather(nullptr, n, MGEN_DOUBLE, nullptr, n, MGEN_DOUBLE, 0, MGEN_COMM_WORLD); }},
      {mpi::kDimScatter, v, v,
       [] { MGEN_Scatter(nullptr, n, MGEN_DOUBLE, nullptr, n, MGEN_DOUBLE, 0, MGEN_COMM_WORLD); }},
      {mpi::kDimAllgather, v, v,
       [] { MGEN_Allgather(nullptr, n, MGEN_DOUBLE, nullptr, n, MGEN_DOUBLE, MGEN_COMM_WORLD); }},
      {mpi::kDimAlltoall, v, v,
       [] { MGEN_Alltoall(nullptr, n, MGEN_DOUBLE, nullptr, n, MGEN_DOUBLE, MGEN_COMM_WORLD); }},
      {mpi::kDimReduce, v, v, [] { MGEN_Reduce(nullptr, nullptr, n, MGEN_DOUBLE, MGEN_SUM, 0, MGEN_COMM_WORLD); }},
      {mpi::kDimAllreduce, v, v, [] { MGEN_Allreduce(nullptr, nullptr, n, MGEN_DOUBLE, MGEN_SUM, MGEN_COMM_WORLD); }},
      {mpi::kDimReduceScatter, v * p, v,
       [] { MGEN_Reduce_scatter_block(nullptr, nullptr, n, MGEN_DOUBLE, MGEN_SUM, MGEN_COMM_WORLD); }},
      {mpi::kDimScan, v, v, [] { MGEN_Scan(nullptr, nullptr, n, MGEN_DOUBLE, MGEN_SUM, MGEN_COMM_WORLD); }},
  };
  for (const Op& op : ops) {
    const mpi::DimemasRow row = m.collectives.dimemas[op.op];
    const double expected = phase(row.in, op.sent, op.recv) + phase(row.out, op.sent, op.recv);
    double finished = 0;
    simulate(m, p, [&](int, int) {
      op.call();
      finished = std::max(finished, MGEN_Wtime());
    });
    c.number("Dimemas Table 3", fmt::format("MPI_{} on 16 processes, 8000 B", mpi::kDimemasOpNames[op.op]),
             expected * 1e6, finished * 1e6, 1e-6, "us");
  }
}

}  // namespace mgen::cli::validate
