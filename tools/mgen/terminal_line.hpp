// A status line on the terminal's last row (the progress line) that never shares a row with
// the program's output. When standard output is the same terminal as standard error, the
// output goes through a pipe and a relay thread that, for each piece, erases the line, writes
// the piece and draws the line again once the output is at the start of a row; otherwise
// (output to a file or a pipe) nothing is relayed and the line is drawn in place.
#pragma once

#include <mutex>
#include <string>
#include <thread>

namespace mgen::cli {

class TerminalLine {
 public:
  TerminalLine();
  ~TerminalLine();  // stops the relay (every piece of output written) and erases the line
  TerminalLine(const TerminalLine&) = delete;
  TerminalLine& operator=(const TerminalLine&) = delete;

  void draw(const std::string& text);
  void clear();
  bool relaying() const { return relay_.joinable(); }

 private:
  void relay();
  void draw_locked();
  void erase_locked();

  std::mutex mutex_;  // the relay thread and the simulation's thread both write to the terminal
  std::string text_;
  bool drawn_ = false;
  bool at_row_start_ = true;  // the relayed output ended with a newline
  int terminal_ = -1;         // the original standard output, while relaying
  int pipe_ = -1;             // the relay's end of the pipe
  std::thread relay_;
};

}  // namespace mgen::cli
