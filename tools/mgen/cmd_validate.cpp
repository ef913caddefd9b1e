// mgen validate: every reproduction of the source papers' published numbers and figures, run on
// the machine presets in configs/. Prints one row per checked quantity (figure, paper value,
// mgen value, error, pass/fail) and per qualitative claim, writes the figures as PNGs with
// gnuplot (--plots DIR), and exits 1 if any reproduction fails.
//
// The programs are small MGEN programs written here as lambdas; each row says where the
// paper's value comes from. --quick trims the sweeps (fewer ranks, sizes and repetitions) so
// that CI can run the whole suite in a couple of minutes; every check still runs.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <random>

#include "cli_common.hpp"
#include "mgen/host/breakdown.hpp"
#include "mgen/mgen.h"
#include "mgen/net/network.hpp"

#ifndef MGEN_CONFIG_DIR
#define MGEN_CONFIG_DIR "configs"
#endif

namespace fs = std::filesystem;

namespace mgen::cli {
namespace {

struct Row {
  std::string figure, quantity;
  std::string paper, mgen, error;  // as printed
  bool pass = false;
};

struct Series {
  std::string title;
  std::vector<std::pair<double, double>> xy;
  std::string style = "linespoints";
};
struct Plot {
  std::string file, title, xlabel, ylabel;
  bool logx = false, logy = false;
  std::vector<Series> series;
};

struct Context {
  std::string configs;
  bool quick = false;
  std::vector<Row> rows;
  std::vector<Plot> plots;

  config::MachineConfig machine(const std::string& file, const std::vector<std::string>& overrides = {}) const {
    return config::load_machine((fs::path(configs) / file).string(), overrides);
  }
  // A published number: passes when |mgen - paper| <= tolerance x paper.
  void number(const std::string& figure, const std::string& quantity, double paper, double mgen_value, double tolerance,
              const std::string& unit) {
    const double err = paper == 0 ? std::abs(mgen_value) : (mgen_value - paper) / paper;
    rows.push_back(
        Row{figure, quantity, fmt::format("{:.4g} {}", paper, unit), fmt::format("{:.4g} {}", mgen_value, unit),
            fmt::format("{:+.2f}% (<= {:g}%)", 100 * err, 100 * tolerance), std::abs(err) <= tolerance + 1e-12});
  }
  // A published qualitative statement and the numbers that decide it.
  void claim(const std::string& figure, const std::string& statement, bool holds, const std::string& evidence) {
    rows.push_back(Row{figure, statement, "holds", holds ? "holds" : "does not hold", evidence, holds});
  }
};

mpi::MachineSetup setup_of(const config::MachineConfig& m) {
  return mpi::MachineSetup{m.network, m.mpi, m.node, m.collectives};
}

// Runs `body(rank, size)` on `ranks` ranks; `nodes` maps rank -> node (empty: block placement
// at `ppn` per node). Throws if the simulated job fails.
mpi::RunReport simulate(const config::MachineConfig& m, uint32_t ranks, const std::function<void(int, int)>& body,
                        uint32_t ppn = 1, const std::vector<uint32_t>& nodes = {}) {
  mpi::JobConfig job;
  job.ranks = ranks;
  job.procs_per_node = ppn;
  job.stack_bytes = 64 * 1024;
  job.measure_compute = false;
  if (!nodes.empty()) {
    job.placement = mpi::Placement::kMap;
    job.node_of_rank = nodes;
  }
  const mpi::RunReport r = mpi::run_job(setup_of(m), job,
                                        [&body](int, char**) {
                                          int rank = 0, size = 0;
                                          MGEN_Comm_rank(MGEN_COMM_WORLD, &rank);
                                          MGEN_Comm_size(MGEN_COMM_WORLD, &size);
                                          body(rank, size);
                                        },
                                        {"validate"});
  if (!r.ok) throw std::runtime_error(fmt::format("a validation run on {} failed: {}", m.name, r.error));
  return r;
}

// The machine's network on its own, for zero-load times and hop counts.
struct Oracle : net::MessageSink {
  explicit Oracle(const config::MachineConfig& m) : net(engine, m.network, *this) {}
  void on_message_sent(uint64_t, simcore::Time) override {}
  void on_message_delivered(uint64_t, simcore::Time) override {}
  simcore::Engine engine;
  net::NetworkModel net;
};

std::vector<uint32_t> powers_of_two(uint32_t from, uint32_t to) {
  std::vector<uint32_t> out;
  for (uint32_t p = from; p <= to; p *= 2)
    out.push_back(p);
  return out;
}

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
void ppt_allreduce(Context& c) {
  const config::MachineConfig m = c.machine("hopper.toml");
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
    char x = 0;
    for (int k = 0; k < 10; ++k) {
      const double t0 = MGEN_Wtime();
      if (rank == 0) {
        MGEN_Send(&x, 8, MGEN_BYTE, 1, 0, MGEN_COMM_WORLD);
        MGEN_Recv(&x, 8, MGEN_BYTE, 1, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
        one_way = (MGEN_Wtime() - t0) / 2;
      } else {
        MGEN_Recv(&x, 8, MGEN_BYTE, 0, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
        MGEN_Send(&x, 8, MGEN_BYTE, 0, 0, MGEN_COMM_WORLD);
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

// ---------------------------------------------------------------- Leiden Zipper

// MMPI's forwarding protocol (thesis §3.2-3.3), over MGEN point-to-point: a client asks the
// forwarder for a transfer with a request of 7 integers and waits for a 1-integer transfer ID;
// the forwarder pairs a send request with the matching receive request and then moves the data
// itself, receiving all of it before sending it on, one transfer at a time.
namespace mmpi {

constexpr int kRequestTag = 1, kIdTag = 2, kDataTag = 1000;
enum Kind : int { kSend = 1, kRecv = 2, kStop = 3 };

// Handshake: returns the transfer ID.
int handshake(int forwarder, Kind kind, int self, int peer, int bytes, int tag) {
  int request[7] = {kind, self, peer, bytes, tag, 0, 0};
  MGEN_Send(request, 7, MGEN_INT, forwarder, kRequestTag, MGEN_COMM_WORLD);
  int id = 0;
  if (kind != kStop) MGEN_Recv(&id, 1, MGEN_INT, forwarder, kIdTag, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
  return id;
}
// Non-blocking in MMPI's sense: the handshake blocks, the data moves behind the request.
MGEN_Request isend(int forwarder, int self, int dst, int bytes, int tag) {
  const int id = handshake(forwarder, kSend, self, dst, bytes, tag);
  MGEN_Request q;
  MGEN_Isend(nullptr, bytes, MGEN_BYTE, forwarder, kDataTag + id, MGEN_COMM_WORLD, &q);
  return q;
}
MGEN_Request irecv(int forwarder, int self, int src, int bytes, int tag) {
  const int id = handshake(forwarder, kRecv, self, src, bytes, tag);
  MGEN_Request q;
  MGEN_Irecv(nullptr, bytes, MGEN_BYTE, forwarder, kDataTag + id, MGEN_COMM_WORLD, &q);
  return q;
}

// The forwarder: serves `clients` until each has sent a stop request.
void forward(int clients) {
  struct Pending {
    int kind, from, to, bytes, tag, id;
  };
  std::vector<Pending> pending;
  int next_id = 0, stopped = 0;
  while (stopped < clients) {
    int r[7];
    MGEN_Status st;
    MGEN_Recv(r, 7, MGEN_INT, MGEN_ANY_SOURCE, kRequestTag, MGEN_COMM_WORLD, &st);
    if (r[0] == kStop) {
      ++stopped;
      continue;
    }
    // A send request (from r[1] to r[2]) matches a receive request (at r[2] from r[1]).
    const int from = r[0] == kSend ? r[1] : r[2], to = r[0] == kSend ? r[2] : r[1];
    const auto match = std::find_if(pending.begin(), pending.end(), [&](const Pending& q) {
      return q.kind != r[0] && q.from == from && q.to == to && q.tag == r[4];
    });
    if (match == pending.end()) {
      pending.push_back(Pending{r[0], from, to, r[3], r[4], next_id});
      MGEN_Send(&next_id, 1, MGEN_INT, r[1], kIdTag, MGEN_COMM_WORLD);
      ++next_id;
      continue;
    }
    const Pending q = *match;
    pending.erase(match);
    MGEN_Send(&q.id, 1, MGEN_INT, r[1], kIdTag, MGEN_COMM_WORLD);
    // Store and forward, blocking: the forwarder handles one transfer at a time.
    MGEN_Recv(nullptr, q.bytes, MGEN_BYTE, from, kDataTag + q.id, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
    MGEN_Send(nullptr, q.bytes, MGEN_BYTE, to, kDataTag + q.id, MGEN_COMM_WORLD);
  }
}

}  // namespace mmpi

// Thesis §3.3, Fig. 6: OSU bandwidth, bidirectional bandwidth and latency between the clusters
// through the forwarder, against a direct link. Ranks: 0 on LGM (node 0), 1 on DAS4 (node 8),
// 2 the forwarder (node 16).
void zipper(Context& c) {
  const config::MachineConfig m = c.machine("leiden-zipper.toml");
  const std::vector<uint32_t> nodes = {0, 8, 16};
  const int window = c.quick ? 8 : 64;  // osu_bw posts 64 sends back to back
  // One measurement: `bidirectional` both ranks send; `latency` ping-pong; otherwise 0 sends to 1.
  enum class Test { kBandwidth, kBidirectional, kLatency };
  auto measure = [&](Test test, bool via_forwarder, int bytes) {
    double seconds = 0;
    simulate(
        m, 3,
        [&](int rank, int) {
          if (rank == 2) {
            if (via_forwarder) mmpi::forward(2);
            return;
          }
          const int peer = 1 - rank;
          auto isend = [&](int tag) {
            MGEN_Request q;
            if (via_forwarder) return mmpi::isend(2, rank, peer, bytes, tag);
            MGEN_Isend(nullptr, bytes, MGEN_BYTE, peer, tag, MGEN_COMM_WORLD, &q);
            return q;
          };
          auto irecv = [&](int tag) {
            MGEN_Request q;
            if (via_forwarder) return mmpi::irecv(2, rank, peer, bytes, tag);
            MGEN_Irecv(nullptr, bytes, MGEN_BYTE, peer, tag, MGEN_COMM_WORLD, &q);
            return q;
          };
          const double t0 = MGEN_Wtime();
          if (test == Test::kLatency) {
            const int reps = 4;
            for (int k = 0; k < reps; ++k) {
              MGEN_Request q = rank == 0 ? isend(k) : irecv(k);
              MGEN_Wait(&q, MGEN_STATUS_IGNORE);
              q = rank == 0 ? irecv(k) : isend(k);
              MGEN_Wait(&q, MGEN_STATUS_IGNORE);
            }
            if (rank == 0) seconds = (MGEN_Wtime() - t0) / (2 * reps);
          } else {
            std::vector<MGEN_Request> qs;
            for (int k = 0; k < window; ++k) {
              if (rank == 0 || test == Test::kBidirectional) qs.push_back(isend(k));
              if (rank == 1 || test == Test::kBidirectional) qs.push_back(irecv(k));
            }
            MGEN_Waitall(static_cast<int>(qs.size()), qs.data(), MGEN_STATUSES_IGNORE);
            const double t = MGEN_Wtime() - t0;
            seconds = std::max(seconds, t);
          }
          if (via_forwarder) mmpi::handshake(2, mmpi::kStop, rank, 0, 0, 0);
        },
        1, nodes);
    if (test == Test::kLatency) return seconds * 1e6;  // us
    const double directions = test == Test::kBidirectional ? 2 : 1;
    return directions * window * bytes / seconds / 1e6;  // MB/s
  };
  Plot bw{"zipper_fig6_bandwidth.png",
          "Leiden Zipper Fig. 6: bandwidth through the forwarder and direct",
          "message size (bytes)",
          "bandwidth (MB/s)",
          true,
          false,
          {}};
  Plot lat{"zipper_fig6_latency.png",
           "Leiden Zipper Fig. 6: latency through the forwarder and direct",
           "message size (bytes)",
           "latency (us)",
           true,
           true,
           {}};
  std::map<std::string, std::map<int, double>> v;
  const int top = c.quick ? 1 << 20 : 4 << 20;
  for (const bool fwd : {false, true}) {
    const std::string how = fwd ? "forwarder" : "direct";
    Series b{how + ", bw", {}}, bb{how + ", bibw", {}}, l{how, {}};
    for (int bytes = 1; bytes <= top; bytes *= c.quick ? 16 : 4) {
      v[how + " bw"][bytes] = measure(Test::kBandwidth, fwd, bytes);
      v[how + " bibw"][bytes] = measure(Test::kBidirectional, fwd, bytes);
      v[how + " lat"][bytes] = measure(Test::kLatency, fwd, bytes);
      b.xy.emplace_back(bytes, v[how + " bw"][bytes]);
      bb.xy.emplace_back(bytes, v[how + " bibw"][bytes]);
      l.xy.emplace_back(bytes, v[how + " lat"][bytes]);
    }
    bw.series.push_back(b);
    bw.series.push_back(bb);
    lat.series.push_back(l);
  }
  const int big = v["direct bw"].rbegin()->first;
  const double direct_ratio = v["direct bibw"][big] / v["direct bw"][big];
  const double fwd_ratio = v["forwarder bibw"][big] / v["forwarder bw"][big];
  c.claim("Zipper §3.3, Fig. 6", "direct InfiniBand: bidirectional bandwidth doubles (full duplex)", direct_ratio > 1.8,
          fmt::format("{} B: bibw / bw = {:.2f}", big, direct_ratio));
  c.claim("Zipper §3.3, Fig. 6", "through the forwarder bidirectional bandwidth does not double (half duplex)",
          fwd_ratio < 1.2, fmt::format("{} B: bibw / bw = {:.2f}", big, fwd_ratio));
  const double small_ratio = v["forwarder lat"][1] / v["direct lat"][1];
  c.claim("Zipper §3.3, Fig. 6", "the handshake at least doubles small-message latency", small_ratio >= 2,
          fmt::format("1 B: {:.2f} us vs {:.2f} us direct ({:.2f}x)", v["forwarder lat"][1], v["direct lat"][1],
                      small_ratio));
  const double large_ratio = v["forwarder lat"][big] / v["direct lat"][big];
  c.claim("Zipper §3.3, Fig. 6", "large messages: close to two transfers in series (store and forward)",
          large_ratio > 1.8 && large_ratio < 2.4,
          fmt::format("{} B: {:.1f} us vs {:.1f} us direct ({:.2f}x)", big, v["forwarder lat"][big],
                      v["direct lat"][big], large_ratio));
  c.plots.push_back(bw);
  c.plots.push_back(lat);
}

// ---------------------------------------------------------------- the suite

struct Reproduction {
  const char* name;
  const char* what;
  void (*run)(Context&);
};
const Reproduction kReproductions[] = {
    {"ppt-latency", "PPT §6, Fig. 6: Hopper 4-byte latencies and their histogram", ppt_latency},
    {"ppt-throughput", "PPT Fig. 8: MPI throughput between two Hopper nodes, 1/2/4 per node", ppt_throughput},
    {"ppt-allreduce", "PPT Fig. 7: MPI_Allreduce duration against ranks and size", ppt_allreduce},
    {"nsim-random-ring", "NSIM-ACE Fig. 1: random-ring put bandwidth, 16 and 256 nodes", nsim_random_ring},
    {"nsim-barrier", "NSIM-ACE Fig. 2: ring and recursive-doubling barriers", nsim_barrier},
    {"breaking-band", "Breaking Band §6-7, Fig. 17: latency, injection, what-if", breaking_band},
    {"dimemas", "Dimemas §3, Tables 1-3: T = L + S/B and the collective model", dimemas},
    {"zipper", "Leiden Zipper §3.3, Fig. 6: the forwarder's bandwidth and latency", zipper},
};

void write_plot(const Plot& p, const fs::path& dir) {
  const fs::path data = dir / (p.file + ".dat");
  std::ofstream out(data);
  for (const Series& s : p.series) {
    out << "# " << s.title << "\n";
    for (const auto& [x, y] : s.xy)
      out << fmt::format("{:.9g} {:.9g}\n", x, y);
    out << "\n\n";
  }
  out.close();
  std::string plot = "plot ";
  for (size_t i = 0; i < p.series.size(); ++i) {
    plot += fmt::format("{}'{}' index {} using 1:2 with {} title '{}'", i ? ", " : "", data.string(), i,
                        p.series[i].style, p.series[i].title);
  }
  const std::string script = fmt::format(
      "set terminal pngcairo size 900,600 noenhanced; set output '{}'; set title '{}'; set xlabel '{}'; "
      "set ylabel '{}'; set grid; set key top left; {}{}set style fill solid 0.5; {}",
      (dir / p.file).string(), p.title, p.xlabel, p.ylabel, p.logx ? "set logscale x 2; " : "",
      p.logy ? "set logscale y; " : "", plot);
  const fs::path gp = dir / (p.file + ".gp");
  std::ofstream(gp) << script << "\n";
  if (std::system(fmt::format("gnuplot '{}'", gp.string()).c_str()) != 0) {
    throw std::runtime_error("gnuplot failed (is gnuplot installed?)");
  }
  fs::remove(data);
  fs::remove(gp);
}

struct ValidateCli {
  std::string only, plots, configs = MGEN_CONFIG_DIR;
  bool quick = false, list = false;
};

int run_validate(const ValidateCli& o) {
  if (o.list) {
    for (const Reproduction& r : kReproductions)
      fmt::print("{:18} {}\n", r.name, r.what);
    return 0;
  }
  Context c;
  c.configs = o.configs;
  c.quick = o.quick;
  bool any = false;
  for (const Reproduction& r : kReproductions) {
    if (!o.only.empty() && o.only != r.name) continue;
    any = true;
    const size_t before = c.rows.size();
    try {
      r.run(c);
    } catch (const std::exception& e) {
      c.rows.push_back(Row{r.name, "the reproduction ran", "-", "error", e.what(), false});
    }
    if (isatty(STDERR_FILENO)) std::fprintf(stderr, "%s: %zu checks\n", r.name, c.rows.size() - before);
  }
  if (!any) throw std::invalid_argument(fmt::format("--only: no reproduction named '{}' (see --list)", o.only));
  size_t fw = 6, qw = 8, pw = 5, mw = 4;
  for (const Row& r : c.rows) {
    fw = std::max(fw, r.figure.size());
    qw = std::max(qw, r.quantity.size());
    pw = std::max(pw, r.paper.size());
    mw = std::max(mw, r.mgen.size());
  }
  fmt::print("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {:<6}  {}\n", "figure", fw, "quantity", qw, "paper", pw, "mgen", mw,
             "result", "error / evidence");
  size_t failed = 0;
  for (const Row& r : c.rows) {
    failed += r.pass ? 0 : 1;
    fmt::print("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {:<6}  {}\n", r.figure, fw, r.quantity, qw, r.paper, pw, r.mgen, mw,
               r.pass ? "pass" : "FAIL", r.error);
  }
  fmt::print("\n{} of {} reproductions pass\n", c.rows.size() - failed, c.rows.size());
  if (!o.plots.empty()) {
    fs::create_directories(o.plots);
    for (const Plot& p : c.plots) {
      write_plot(p, o.plots);
      fmt::print("plot: {}\n", (fs::path(o.plots) / p.file).string());
    }
  }
  return failed ? 1 : 0;
}

}  // namespace

Runner add_validate(CLI::App& app) {
  auto* sub = app.add_subcommand("validate", "rerun every reproduction of the source papers and compare");
  auto o = std::make_shared<ValidateCli>();
  sub->add_option("--only", o->only, "run one reproduction (see --list)");
  sub->add_option("--plots", o->plots, "write the figures as PNG files into DIR (gnuplot)");
  sub->add_option("--configs", o->configs, "directory of the machine presets")->capture_default_str();
  sub->add_flag("--quick", o->quick, "smaller sweeps (CI); every check still runs");
  sub->add_flag("--list", o->list, "list the reproductions and exit");
  return [o] { return run_validate(*o); };
}

}  // namespace mgen::cli
