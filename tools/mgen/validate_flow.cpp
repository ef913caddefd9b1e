// `mgen validate --only flow`: the flow backend against the packet backend, its reference, on a
// torus and on a fat tree. Each workload (halos, all-to-all and allreduce algorithms, a random
// ring, NAS kernels) runs on both backends; a row per workload gives the flow backend's error of
// the predicted time, and rows check the median (<= 5%) and the worst case (<= 15%; 25% on the
// torus) of all of them. The torus's workloads but the NAS kernels run again with deep router
// buffers (1 MiB per VC), the network the flow backend models (worst <= 20%). The plot puts
// flow against packet for every run, those with deep buffers apart.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>

#include "mgen/mgen.h"
#include "nas.hpp"
#include "validate.hpp"

namespace mgen::cli::validate {

namespace {

struct Machine {
  std::string name;
  std::vector<std::string> overrides;
  bool torus = false;
  // The error allowed per run. The target is 15% everywhere; on tori the flow backend is held to
  // 25% until it models input-FIFO blocking (docs/validation.md, worst cases).
  double tolerance() const { return torus ? 0.25 : 0.15; }
};

// A 2-D (or 3-D) halo: each rank exchanges `bytes` with its 4 (or 6) neighbours on a periodic
// grid, Isend/Irecv then Waitall, `iterations` times.
void halo(int rank, int size, int dims, int bytes, int iterations) {
  // The most balanced grid: the largest factor not above the root, dimension by dimension.
  int k[3] = {1, 1, 1};
  int left = size;
  for (int d = 0; d < dims; ++d) {
    const int root = static_cast<int>(std::floor(std::pow(left, 1.0 / (dims - d)) + 1e-9));
    int f = std::max(1, root);
    while (left % f != 0)
      --f;
    k[d] = f;
    left /= f;
  }
  k[dims - 1] *= left;
  const int c[3] = {rank % k[0], (rank / k[0]) % k[1], rank / (k[0] * k[1])};
  auto at = [&](int x, int y, int z) {
    return ((x + k[0]) % k[0]) + k[0] * (((y + k[1]) % k[1]) + k[1] * ((z + k[2]) % k[2]));
  };
  std::vector<int> peers;
  for (int d = 0; d < dims; ++d) {
    for (const int s : {-1, 1}) {
      int p[3] = {c[0], c[1], c[2]};
      p[d] += s;
      peers.push_back(at(p[0], p[1], p[2]));
    }
  }
  std::vector<MGEN_Request> req(2 * peers.size());
  for (int it = 0; it < iterations; ++it) {
    for (size_t i = 0; i < peers.size(); ++i) {
      MGEN_Irecv(nullptr, bytes, MGEN_BYTE, peers[i], static_cast<int>(i ^ 1), MGEN_COMM_WORLD, &req[2 * i]);
      MGEN_Isend(nullptr, bytes, MGEN_BYTE, peers[i], static_cast<int>(i), MGEN_COMM_WORLD, &req[2 * i + 1]);
    }
    MGEN_Waitall(static_cast<int>(req.size()), req.data(), MGEN_STATUSES_IGNORE);
  }
}

// Every rank sends `bytes` to its successor on a random ring (the same permutation everywhere)
// and receives from its predecessor, `iterations` times.
void random_ring(int rank, int size, int bytes, int iterations) {
  std::vector<int> order(static_cast<size_t>(size));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(42);
  std::shuffle(order.begin(), order.end(), rng);
  const auto me = static_cast<size_t>(std::find(order.begin(), order.end(), rank) - order.begin());
  const int next = order[(me + 1) % order.size()], prev = order[(me + order.size() - 1) % order.size()];
  for (int it = 0; it < iterations; ++it) {
    MGEN_Request r[2];
    MGEN_Irecv(nullptr, bytes, MGEN_BYTE, prev, 0, MGEN_COMM_WORLD, &r[0]);
    MGEN_Isend(nullptr, bytes, MGEN_BYTE, next, 0, MGEN_COMM_WORLD, &r[1]);
    MGEN_Waitall(2, r, MGEN_STATUSES_IGNORE);
  }
}

struct Workload {
  std::string name;
  std::vector<std::string> overrides;  // collective algorithm choices
  std::function<void(int, int)> body;
  const nas::Kernel* kernel = nullptr;
  char cls = 'S';
};

double predict(const config::MachineConfig& m, uint32_t ranks, const Workload& w, double& wall_s) {
  const auto t0 = std::chrono::steady_clock::now();
  double t = 0;
  if (w.kernel) {
    mpi::JobConfig job;
    job.procs_per_node = 1;
    job.stack_bytes = 256 * 1024;
    const nas::Result r = nas::simulate(*w.kernel, nas::Problem{w.cls, static_cast<int>(ranks), 0},
                                        mpi::MachineSetup{m.network, m.mpi, m.node, m.collectives}, job);
    if (!r.report.ok) throw std::runtime_error(fmt::format("{} failed: {}", w.name, r.report.error));
    t = r.time_s;
  } else {
    t = simulate(m, ranks, w.body).predicted_s();
  }
  wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return t;
}

}  // namespace

void flow_vs_packet(Context& c) {
  // Quick runs (CI) put 16 ranks on a 4x4x4 torus and a 4-ary 2-tree (four leaves, so that
  // traffic crosses the spines as in the full runs: 16 ranks on one leaf of the 16-ary tree
  // start in phase, and the packet routers' round robins stay in phase, which no run with any
  // skew does; docs/network-model.md, "Head-of-line waits"); the full runs use the default
  // 8x8x8 torus and a 16-ary 2-tree.
  const std::vector<Machine> machines = {
      c.quick ? Machine{"torus 4x4x4", {"topology.dims=[4, 4, 4]"}, true} : Machine{"torus 8x8x8", {}, true},
      c.quick ? Machine{"fat tree 4-ary 2-tree",
                        {"topology.kind=\"fattree\"", "topology.down=[4, 4]", "topology.up=[4]"},
                        false}
              : Machine{"fat tree 16-ary 2-tree",
                        {"topology.kind=\"fattree\"", "topology.down=[16, 16]", "topology.up=[16]"},
                        false},
  };
  const std::vector<uint32_t> sizes = c.quick ? std::vector<uint32_t>{16} : std::vector<uint32_t>{64, 256};
  const int iters = c.quick ? 2 : 5;
  std::vector<Workload> workloads = {
      {"2-D halo 4 x 64 KiB", {}, [=](int r, int s) { halo(r, s, 2, 65536, iters); }},
      {"3-D halo 6 x 32 KiB", {}, [=](int r, int s) { halo(r, s, 3, 32768, iters); }},
      {"random ring 1 MiB", {}, [=](int r, int s) { random_ring(r, s, 1 << 20, iters); }},
  };
  for (const char* algo : {"pairwise", "bruck", "linear"}) {
    workloads.push_back(
        {fmt::format("alltoall {} 4 KiB", algo), {fmt::format("collectives.alltoall=\"{}\"", algo)}, [](int, int) {
           MGEN_Alltoall(nullptr, 4096, MGEN_BYTE, nullptr, 4096, MGEN_BYTE, MGEN_COMM_WORLD);
         }});
  }
  for (const char* algo : {"ring", "rabenseifner"}) {
    workloads.push_back(
        {fmt::format("allreduce {} 1 MiB", algo), {fmt::format("collectives.allreduce=\"{}\"", algo)}, [](int, int) {
           MGEN_Allreduce(nullptr, nullptr, 131072, MGEN_DOUBLE, MGEN_SUM, MGEN_COMM_WORLD);
         }});
  }
  // The NAS rows keep mgen's earlier collective rules (the table in docs/validation.md was made
  // with them). FT and IS also run under MPICH's choice (the default), whose scattered
  // all-to-all keeps 32 peers in flight per rank: the dense case the solver's pacing is for
  // (FT class A at 256 ranks took 1,814 s on flow on 2026-11-25, exact max-min; about 15 s paced).
  if (!c.quick) {
    for (const char* k : {"is", "ft", "cg", "mg", "lu", "bt", "sp", "ep"})
      workloads.push_back({fmt::format("NAS {} class A", k), {"collectives.selector=\"mgen\""}, {}, nas::find(k), 'A'});
    for (const char* k : {"is", "ft"})
      workloads.push_back({fmt::format("NAS {} class A, MPICH's collectives", k), {}, {}, nas::find(k), 'A'});
  }

  std::vector<double> errors;
  double tree_worst = 0, torus_worst = 0;
  Plot plot{"flow_vs_packet.png",
            "Predicted time: flow backend against packet backend",
            "packet (s)",
            "flow (s)",
            true,
            true,
            {}};
  Series points{"workloads", {}, "points pt 7"}, diagonal{"flow = packet", {}, "lines"};
  double lo = 1e30, hi = 0;
  // Runs `w` on the packet backend, then on the flow backend, of the machine `machine` (its
  // overrides) plus the workload's own; a row in `section` with the flow backend's error, a
  // point of `series`; returns the error's size.
  auto compare = [&](const std::string& section, const std::vector<std::string>& machine, const std::string& name,
                     uint32_t ranks, const Workload& w, double tolerance, Series& series) {
    std::vector<std::string> over = machine;
    over.insert(over.end(), w.overrides.begin(), w.overrides.end());
    over.push_back("network.backend=\"packet\"");
    double wall_packet = 0, wall_flow = 0;
    const double packet = predict(c.default_machine(over), ranks, w, wall_packet);
    over.back() = "network.backend=\"flow\"";
    const double flow = predict(c.default_machine(over), ranks, w, wall_flow);
    c.number(section, fmt::format("{}, {} ranks, {}", w.name, ranks, name), packet * 1e6, flow * 1e6, tolerance, "us");
    c.rows.back().error += fmt::format("  wall {:.2f} s vs {:.2f} s", wall_packet, wall_flow);
    // The full run takes a while: say what is done.
    if (!c.quick)
      std::fprintf(stderr, "%s: %s: %s\n", section.c_str(), c.rows.back().quantity.c_str(),
                   c.rows.back().error.c_str());
    series.xy.emplace_back(packet, flow);
    lo = std::min(lo, packet);
    hi = std::max(hi, packet);
    return std::abs((flow - packet) / packet);
  };
  for (const Machine& mach : machines) {
    for (const uint32_t ranks : sizes) {
      for (const Workload& w : workloads) {
        if (w.kernel && !w.kernel->check(nas::Problem{w.cls, static_cast<int>(ranks), 0}).empty()) continue;
        const double err = compare("flow vs packet", mach.overrides, mach.name, ranks, w, mach.tolerance(), points);
        errors.push_back(err);
        double& worst = mach.torus ? torus_worst : tree_worst;
        worst = std::max(worst, err);
      }
    }
  }
  std::sort(errors.begin(), errors.end());
  const double median = errors.empty() ? 0 : errors[errors.size() / 2];
  c.claim("flow vs packet", "median error of the predicted time at most 5%", median <= 0.05,
          fmt::format("median {:.2f}% over {} runs", 100 * median, errors.size()));
  c.claim("flow vs packet", "worst error on the fat tree at most 15%", tree_worst <= 0.15,
          fmt::format("worst {:.2f}%", 100 * tree_worst));
  c.claim("flow vs packet", "worst error on the torus at most 25% (target 15%: not met)", torus_worst <= 0.25,
          fmt::format("worst {:.2f}%", 100 * torus_worst));
  // The same torus runs with deep router buffers (1 MiB per VC instead of 16 KiB, enough for
  // what these exchanges have in flight on a route): the flow backend has no buffers, and on the
  // torus most of its error is the packet routers' FIFOs filling (docs/validation.md, "Buffers").
  // The NAS kernels hardly fill them (every torus row within 7.4% with 16 KiB) and are left out.
  // The flow runs are repeated, not reused: the machine is another one, and nothing in it may
  // reach them. Not in quick runs, whose 16 ranks do not fill 16 KiB buffers (a unit test covers
  // that: flow_test.cpp), nor when --set chooses the buffers, which this pass would override.
  const bool buffers_set = std::any_of(c.sets.begin(), c.sets.end(), [](std::string s) {
    std::erase(s, ' ');
    return s.starts_with("router.vc_buffer=");
  });
  Series deep{"torus, 1 MiB buffers", {}, "points pt 6"};
  if (!c.quick && !buffers_set) {
    double deep_worst = 0;
    const Machine& torus = machines.front();
    std::vector<std::string> deep_machine = torus.overrides;
    deep_machine.push_back("router.vc_buffer=\"1MiB\"");
    for (const uint32_t ranks : sizes) {
      for (const Workload& w : workloads) {
        if (w.kernel) continue;
        deep_worst = std::max(deep_worst, compare("flow vs packet, 1 MiB buffers", deep_machine,
                                                  torus.name + ", 1 MiB buffers", ranks, w, 0.20, deep));
      }
    }
    c.claim("flow vs packet, 1 MiB buffers", "worst error on the torus with 1 MiB buffers at most 20%",
            deep_worst <= 0.20, fmt::format("worst {:.2f}%", 100 * deep_worst));
  }
  diagonal.xy = {{lo, lo}, {hi, hi}};
  plot.series = {points, deep, diagonal};
  c.plots.push_back(plot);
}

}  // namespace mgen::cli::validate
