// `mgen validate --plots`: the gnuplot input for a figure. gnuplot numbers a data file's blocks
// by the blank lines between them, so a series without points must be left out of the data and
// of the plot command both, or every later series is drawn with the points of the next one
// (the flow table's deep-buffer series, empty in --quick runs, once took the diagonal's).
#include <catch2/catch.hpp>

#include <string>

#include "validate_plot.hpp"

using mgen::cli::validate::gnuplot_input;
using mgen::cli::validate::Plot;
using mgen::cli::validate::Series;

namespace {
size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size()))
    ++n;
  return n;
}
}  // namespace

TEST_CASE("validate plots: a series without points is left out of the data and the plot", "[validate]") {
  Plot p{"f.png", "title", "x", "y", false, true, {}};
  p.series = {Series{"first", {{1, 2}, {3, 4}}, "points"}, Series{"empty", {}, "points pt 6"},
              Series{"last", {{5, 6}}, "lines"}};
  const auto in = gnuplot_input(p, "/d/f.dat", "/d/f.png");
  // Two blocks, in order, each followed by the two blank lines that end a block.
  CHECK(in.data == "# first\n1 2\n3 4\n\n\n# last\n5 6\n\n\n");
  // The last series is block 1, not 2, and the empty one is not plotted at all.
  CHECK(in.script.find("'/d/f.dat' index 0 using 1:2 with points title 'first'") != std::string::npos);
  CHECK(in.script.find("'/d/f.dat' index 1 using 1:2 with lines title 'last'") != std::string::npos);
  CHECK(in.script.find("empty") == std::string::npos);
  CHECK(count(in.script, " index ") == 2);
  CHECK(in.script.find("set output '/d/f.png'") != std::string::npos);
  CHECK(in.script.find("set logscale y;") != std::string::npos);
  CHECK(in.script.find("set logscale x") == std::string::npos);
}
