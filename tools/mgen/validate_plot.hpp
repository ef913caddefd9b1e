// The figures `mgen validate --plots` draws: series of (x, y) points, and the gnuplot input that
// draws them (cmd_validate.cpp runs gnuplot on it).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace mgen::cli::validate {

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

// The data file's text (one block per series, blank lines between) and the script that plots
// it into `png`, reading the data from `data_file`. A series without points is left out of both:
// gnuplot counts blocks by the blank lines between them, so an empty block would give the next
// series' points to the empty one's title and style.
struct GnuplotInput {
  std::string data, script;
};
GnuplotInput gnuplot_input(const Plot& p, const std::string& data_file, const std::string& png);

}  // namespace mgen::cli::validate
