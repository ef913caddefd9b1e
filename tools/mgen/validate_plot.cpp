#include "validate_plot.hpp"

#include <fmt/format.h>

namespace mgen::cli::validate {

GnuplotInput gnuplot_input(const Plot& p, const std::string& data_file, const std::string& png) {
  GnuplotInput in;
  std::string plot = "plot ";
  size_t index = 0;
  for (const Series& s : p.series) {
    if (s.xy.empty()) continue;
    in.data += "# " + s.title + "\n";
    for (const auto& [x, y] : s.xy)
      in.data += fmt::format("{:.9g} {:.9g}\n", x, y);
    in.data += "\n\n";
    plot += fmt::format("{}'{}' index {} using 1:2 with {} title '{}'", index ? ", " : "", data_file, index, s.style,
                        s.title);
    ++index;
  }
  in.script = fmt::format(
      "set terminal pngcairo size 900,600 noenhanced; set output '{}'; set title '{}'; set xlabel '{}'; "
      "set ylabel '{}'; set grid; set key top left; {}{}set style fill solid 0.5; {}",
      png, p.title, p.xlabel, p.ylabel, p.logx ? "set logscale x 2; " : "", p.logy ? "set logscale y; " : "", plot);
  return in;
}

}  // namespace mgen::cli::validate
