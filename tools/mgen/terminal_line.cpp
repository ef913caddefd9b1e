#include "terminal_line.hpp"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace mgen::cli {

namespace {

void write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t k = ::write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return;
    p += k;
    n -= static_cast<size_t>(k);
  }
}

// Standard output and standard error are one terminal (the rows they write interleave).
bool same_terminal() {
  struct stat out {
  }, err{};
  return isatty(STDOUT_FILENO) && isatty(STDERR_FILENO) && fstat(STDOUT_FILENO, &out) == 0 &&
         fstat(STDERR_FILENO, &err) == 0 && out.st_rdev == err.st_rdev;
}

}  // namespace

TerminalLine::TerminalLine() {
  if (!same_terminal()) return;
  int fds[2];
  if (pipe(fds) != 0) return;
  std::fflush(stdout);
  // A pipe would make stdout fully buffered; the program keeps the line buffering of a terminal.
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  terminal_ = dup(STDOUT_FILENO);
  if (terminal_ < 0 || dup2(fds[1], STDOUT_FILENO) < 0) {
    if (terminal_ >= 0) close(terminal_);
    terminal_ = -1;
    close(fds[0]);
    close(fds[1]);
    return;
  }
  close(fds[1]);
  pipe_ = fds[0];
  relay_ = std::thread([this] { relay(); });
}

TerminalLine::~TerminalLine() {
  if (relay_.joinable()) {
    std::fflush(stdout);
    dup2(terminal_, STDOUT_FILENO);  // closes the pipe's last write end: the relay reads to its end
    relay_.join();
    close(pipe_);
    close(terminal_);
  }
  clear();
}

void TerminalLine::relay() {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(pipe_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    std::lock_guard<std::mutex> lock(mutex_);
    erase_locked();
    write_all(terminal_, buf, static_cast<size_t>(n));
    at_row_start_ = buf[n - 1] == '\n';
    if (at_row_start_ && !text_.empty()) draw_locked();
  }
}

void TerminalLine::draw(const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  text_ = text;
  // Mid-row (a prompt, a partial line) the line waits: drawing would overwrite the output.
  if (at_row_start_) draw_locked();
}

void TerminalLine::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  erase_locked();
  text_.clear();
}

void TerminalLine::draw_locked() {
  // Cut to the terminal's width: a line that wrapped would leave its upper rows behind at every
  // redraw, and the erase clears only the last one.
  std::string text = text_;
  winsize ws{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 && text.size() >= ws.ws_col)
    text.resize(ws.ws_col - 1);
  const std::string row = "\r" + text + "\033[K";
  write_all(STDERR_FILENO, row.data(), row.size());
  drawn_ = true;
}

void TerminalLine::erase_locked() {
  if (!drawn_) return;
  write_all(STDERR_FILENO, "\r\033[K", 4);
  drawn_ = false;
}

}  // namespace mgen::cli
