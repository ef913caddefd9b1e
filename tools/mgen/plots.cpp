// `--plot PREFIX`: where a predicted run's time goes, drawn with gnuplot.
//   PREFIX-ranks.png  each rank's compute, communication and waiting, stacked
//   PREFIX-links.png  every link's utilisation (busy time over the run) drawn on the topology:
//                     torus and mesh planes (routers at their coordinates, each direction of a
//                     link a segment of its own, wrap-around links as stubs past the edge), fat
//                     tree levels (NICs at the bottom, up and down links side by side), or for
//                     any other topology the links in order of utilisation.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "cli_common.hpp"

namespace mgen::cli {

void gnuplot(const std::filesystem::path& script) {
  const std::string cmd = fmt::format("gnuplot '{}'", script.string());
  if (std::system(cmd.c_str()) != 0) {
    throw std::runtime_error(fmt::format("gnuplot failed on {} (is gnuplot installed?)", script.string()));
  }
}

namespace {

double utilization(const net::LinkInfo& l, double elapsed) {
  return elapsed > 0 ? l.stats.busy.seconds() / elapsed : 0.0;
}

void plot_ranks(const std::string& prefix, const mpi::RunReport& r, const std::string& title) {
  const std::string data = prefix + "-ranks.dat", script = prefix + "-ranks.gp";
  {
    std::ofstream out(data);
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", data));
    out << "# rank compute_s communication_s wait_s\n";
    for (const mpi::RankReport& k : r.ranks)
      out << fmt::format("{} {:.12g} {:.12g} {:.12g}\n", k.rank, k.compute_s(), k.overhead_s(), k.wait_s());
  }
  // Seconds, or the unit that keeps the axis' numbers readable.
  const double t = std::max(r.predicted_s(), 1e-300);
  const auto [scale, unit] = t >= 1      ? std::pair{1.0, "s"}
                             : t >= 1e-3 ? std::pair{1e3, "ms"}
                             : t >= 1e-6 ? std::pair{1e6, "us"}
                                         : std::pair{1e9, "ns"};
  {
    std::ofstream gp(script);
    gp << "set terminal pngcairo size 1000,600 noenhanced\n";
    gp << fmt::format("set output '{}-ranks.png'\n", prefix);
    gp << fmt::format("set title '{}'\n", title);
    gp << "set style data histograms\nset style histogram rowstacked\nset style fill solid 1.0 border -1\n";
    gp << "set boxwidth 0.9 relative\nset key outside top center horizontal\n";
    gp << fmt::format("set xlabel 'rank'\nset ylabel 'time ({})'\nset yrange [0:*]\nset grid y\n", unit);
    // At most about 32 labelled ranks on the axis.
    const size_t every = std::max<size_t>(1, (r.ranks.size() + 31) / 32);
    gp << fmt::format(
        "plot '{0}' using ($2*{1}):xtic(int($0)%{2}==0 ? stringcolumn(1) : '') title 'compute' lc rgb '#4477aa', "
        "'' using ($3*{1}) title 'communication' lc rgb '#ee6677', '' using ($4*{1}) title 'waiting' lc rgb "
        "'#cccccc'\n",
        data, scale, every);
  }
  gnuplot(script);
  std::filesystem::remove(data);
  std::filesystem::remove(script);
}

// A segment per link: x y dx dy utilisation, for `with vectors ... lc palette`.
struct Segment {
  double x, y, dx, dy, u;
};
// A point per router or NIC: x y utilisation of its busiest NIC link.
struct Point {
  double x, y, u;
};

// Torus and mesh: the first two dimensions are a plane; the others number the planes, laid out
// in a square-ish grid, first plane top left. Each plane is labelled with its index.
void lay_out_grid(const net::TopologyConfig& t, const std::vector<net::LinkInfo>& links, double elapsed,
                  std::vector<Segment>& segs, std::vector<Point>& points, std::vector<std::string>& labels) {
  const uint32_t nx = t.dims.empty() ? 1 : t.dims[0];
  const uint32_t ny = t.dims.size() < 2 ? 1 : t.dims[1];
  uint32_t planes = 1;
  for (size_t d = 2; d < t.dims.size(); ++d)
    planes *= t.dims[d];
  const auto across = static_cast<uint32_t>(std::ceil(std::sqrt(static_cast<double>(planes) * ny / nx)));
  const uint32_t across_planes = std::clamp<uint32_t>(across, 1, planes);
  const uint32_t rows = (planes + across_planes - 1) / across_planes;
  auto place = [&](uint32_t router, double& x, double& y) {
    const uint32_t px = router % nx, py = (router / nx) % ny, plane = router / (nx * ny);
    x = px + (plane % across_planes) * (nx + 1.5);
    y = py + (rows - 1 - plane / across_planes) * (ny + 2.0);
  };
  if (planes > 1) {
    for (uint32_t p = 0; p < planes; ++p) {
      double x, y;
      place(p * nx * ny, x, y);
      labels.push_back(fmt::format("set label 'plane {}' at {:.2f},{:.2f} left font ',9'", p, x - 0.4, y + ny - 0.2));
    }
  }
  std::map<uint32_t, double> nic_load;  // router -> its busiest NIC link
  for (const net::LinkInfo& l : links) {
    const double u = utilization(l, elapsed);
    if (l.from_nic || l.to_nic) {
      const uint32_t router = l.from_nic ? l.to : l.from;
      nic_load[router] = std::max(nic_load[router], u);
      continue;
    }
    double x0, y0;
    place(l.from, x0, y0);
    const double sign = l.dir == 0 ? 1.0 : -1.0;
    // Each direction on its own side of the line between the routers.
    const double side = 0.08 * sign;
    double dx = 0, dy = 0;
    if (l.dim == 0) {
      dx = sign * (l.wraps ? 0.45 : 0.9);
      y0 += side;
    } else if (l.dim == 1) {
      dy = sign * (l.wraps ? 0.45 : 0.9);
      x0 -= side;
    } else {
      continue;  // links between planes: the NIC points and the planes' links carry the picture
    }
    segs.push_back({x0 + (l.dim == 0 ? 0.05 * sign : 0), y0 + (l.dim == 1 ? 0.05 * sign : 0), dx, dy, u});
  }
  const uint32_t routers = nx * ny * planes;
  for (uint32_t r = 0; r < routers; ++r) {
    double x, y;
    place(r, x, y);
    points.push_back({x, y, nic_load[r]});
  }
}

// Fat tree: level 0 the NICs, level 1 the routers they attach to, level k+1 the routers the up
// links of level k reach; each level spread evenly across the width.
void lay_out_tree(const std::vector<net::LinkInfo>& links, double elapsed, std::vector<Segment>& segs,
                  std::vector<Point>& points) {
  std::map<uint32_t, uint32_t> level;  // router -> level
  std::map<uint32_t, double> nics;     // nic -> busiest of its two links
  for (const net::LinkInfo& l : links) {
    if (l.from_nic) level[l.to] = 1;
    if (l.from_nic || l.to_nic) {
      const uint32_t nic = l.from_nic ? l.from : l.to;
      nics[nic] = std::max(nics[nic], utilization(l, elapsed));
    }
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (const net::LinkInfo& l : links) {
      if (l.from_nic || l.to_nic || l.dim != 1) continue;
      auto from = level.find(l.from);
      if (from == level.end()) continue;
      auto [to, added] = level.emplace(l.to, from->second + 1);
      grew |= added;
    }
  }
  std::map<uint32_t, std::vector<uint32_t>> members;
  for (auto [router, lv] : level) {
    members[lv].push_back(router);
  }
  const double width = std::max<double>(nics.size(), 1);
  std::map<uint32_t, double> x_of;
  for (auto& [lv, rs] : members) {
    for (size_t i = 0; i < rs.size(); ++i)
      x_of[rs[i]] = (i + 0.5) * width / static_cast<double>(rs.size());
  }
  for (const net::LinkInfo& l : links) {
    const double u = utilization(l, elapsed);
    if (l.from_nic || l.to_nic) {
      const uint32_t nic = l.from_nic ? l.from : l.to, router = l.from_nic ? l.to : l.from;
      const double off = l.from_nic ? -0.15 : 0.15;
      segs.push_back({nic + 0.5 + off, 0, x_of[router] - nic - 0.5, 1, u});
      continue;
    }
    if (!level.contains(l.from) || !level.contains(l.to)) continue;
    const double off = l.dim == 1 ? -0.2 : 0.2;
    const double y0 = level[l.from], y1 = level[l.to];
    segs.push_back({x_of[l.from] + off, y0, x_of[l.to] - x_of[l.from], y1 - y0, u});
  }
  for (auto [nic, u] : nics)
    points.push_back({nic + 0.5, 0, u});
  for (auto [router, lv] : level)
    points.push_back({x_of[router], static_cast<double>(lv), 0});
}

void plot_links(const std::string& prefix, const config::MachineConfig& m, const mpi::RunReport& r,
                const std::string& title) {
  const std::string segs_file = prefix + "-links.dat", points_file = prefix + "-nodes.dat",
                    script = prefix + "-links.gp";
  const double elapsed = r.drained_s();
  const net::TopologyConfig& t = m.network.topology;
  std::vector<Segment> segs;
  std::vector<Point> points;
  std::vector<std::string> labels;
  bool drawn = true;
  if (t.kind == "torus" || t.kind == "mesh") {
    lay_out_grid(t, r.links, elapsed, segs, points, labels);
  } else if (t.kind == "fattree" || t.kind == "fat_tree") {
    lay_out_tree(r.links, elapsed, segs, points);
  } else {
    drawn = false;
  }
  double peak = 0;
  for (const net::LinkInfo& l : r.links)
    peak = std::max(peak, utilization(l, elapsed));
  const bool idle = peak == 0;
  std::ofstream gp(script);
  gp << "set terminal pngcairo size 1200,800 noenhanced\n";
  gp << fmt::format("set output '{}-links.png'\n", prefix);
  gp << fmt::format("set title '{}{}'\n", title,
                    idle ? " (no link loads: the backend reports none, or nothing crossed the network)" : "");
  gp << fmt::format("set cbrange [0:{}]\nset cblabel 'utilisation (busy time / run)'\n", std::max(peak, 1e-9));
  gp << "set palette defined (0 '#f0f0f0', 0.25 '#4477aa', 0.6 '#ddaa33', 1 '#bb0000')\n";
  if (drawn) {
    // Busy links last, so that idle ones never hide them.
    std::stable_sort(segs.begin(), segs.end(), [](const Segment& a, const Segment& b) { return a.u < b.u; });
    {
      std::ofstream s(segs_file);
      for (const Segment& g : segs)
        s << fmt::format("{:.4f} {:.4f} {:.4f} {:.4f} {:.6f}\n", g.x, g.y, g.dx, g.dy, g.u);
      std::ofstream p(points_file);
      for (const Point& q : points)
        p << fmt::format("{:.4f} {:.4f} {:.6f}\n", q.x, q.y, q.u);
    }
    gp << "unset xtics\nunset ytics\nunset border\nunset key\nset size ratio -1\n";
    for (const std::string& l : labels)
      gp << l << "\n";
    if (t.kind == "torus" || t.kind == "mesh") {
      gp << "set xlabel 'planes of the higher dimensions side by side; segments: each direction of each link; points: "
            "routers, coloured by their "
            "busiest NIC link'\n";
    } else {
      gp << "set size noratio\nset ytics 1\nset border 2\nset ylabel 'level (0: NICs)'\nset yrange [-0.2:*]\n"
            "set xlabel 'NICs at level 0, the switch levels above them; up links drawn left of down links'\n";
    }
    const double lw = segs.size() > 4000 ? 1 : segs.size() > 1000 ? 1.5 : 2.5;
    gp << fmt::format(
        "plot '{}' using 1:2:3:4:5 with vectors nohead lw {} lc palette z, '{}' using 1:2:3 with points pt 7 ps "
        "{} lc palette z\n",
        segs_file, lw, points_file, points.size() > 2000 ? 0.3 : 0.8);
  } else {
    // Any other topology: the links in order of utilisation.
    std::vector<double> u;
    for (const net::LinkInfo& l : r.links)
      u.push_back(utilization(l, elapsed));
    std::sort(u.rbegin(), u.rend());
    {
      std::ofstream s(segs_file);
      for (size_t i = 0; i < u.size(); ++i)
        s << i << " " << u[i] << "\n";
    }
    gp << "set xlabel 'links, busiest first'\nset ylabel 'utilisation'\nset yrange [0:*]\nunset key\n";
    gp << fmt::format("plot '{}' using 1:2:2 with impulses lw 2 lc palette z\n", segs_file);
  }
  gp.close();
  gnuplot(script);
  std::filesystem::remove(segs_file);
  std::filesystem::remove(points_file);
  std::filesystem::remove(script);
}

}  // namespace

void plot_traffic(const std::string& prefix, const nlohmann::json& points, const std::string& title) {
  const std::string data = prefix + "-latency.dat", script = prefix + "-latency.gp";
  {
    std::ofstream out(data);
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", data));
    out << "# offered accepted mean_ns p50_ns p99_ns saturated\n";
    for (const auto& p : points) {
      out << fmt::format("{:.6g} {:.6g} {:.6g} {:.6g} {:.6g} {}\n", p["offered"].get<double>(),
                         p["accepted"].get<double>(), p["latency_mean_ns"].get<double>(),
                         p["latency_p50_ns"].get<double>(), p["latency_p99_ns"].get<double>(),
                         p["saturated"].get<bool>() ? 1 : 0);
    }
  }
  {
    std::ofstream gp(script);
    gp << "set terminal pngcairo size 1000,750 noenhanced\n";
    gp << fmt::format("set output '{}-latency.png'\n", prefix);
    gp << "set multiplot layout 2,1 title '" << title << "'\n";
    gp << "set grid\nset key top left\nset xrange [0:*]\n";
    gp << "set ylabel 'latency (ns)'\nset logscale y\nunset xlabel\n";
    gp << fmt::format(
        "plot '{0}' using 1:3 with linespoints pt 7 title 'mean', '' using 1:5 with linespoints pt 5 title '99th "
        "percentile', '' using ($6 > 0 ? $1 : 1/0):3 with points pt 6 ps 2.5 lc rgb '#bb0000' title 'saturated'\n",
        data);
    gp << "unset logscale y\nset ylabel 'accepted load'\nset xlabel 'offered load (fraction of injection "
          "bandwidth)'\nset yrange [0:*]\n";
    gp << fmt::format(
        "plot '{0}' using 1:2 with linespoints pt 7 title 'accepted', x with lines dt 2 lc rgb '#888888' title "
        "'accepted = offered'\n",
        data);
    gp << "unset multiplot\n";
  }
  gnuplot(script);
  std::filesystem::remove(data);
  std::filesystem::remove(script);
}

void plot_run(const std::string& prefix, const config::MachineConfig& m, const mpi::RunReport& r,
              const std::string& program) {
  const std::string what = fmt::format("{}: {} ranks on {} (backend {}), predicted {}", program, r.ranks.size(), m.name,
                                       r.backend, seconds(r.predicted_s()));
  plot_ranks(prefix, r, what);
  plot_links(prefix, m, r, what);
}

}  // namespace mgen::cli
