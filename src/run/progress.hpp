// SPDX-License-Identifier: Apache-2.0
// progress.hpp: the progress line of a sweep on stderr: step i of n (a step is one variant of one
// case), problem, shape, variant, elapsed time and an estimate of the time left (the mean time
// per finished step times the steps left).
//   terminal: one line, redrawn in place at every step;
//   otherwise (a log file, CI): a plain line at the first step and then at most every
//   kPlainEverySeconds, so logs stay short.
// Warnings (SKIP reasons, throttled clocks, outliers) go through warn(): printed on their own
// line whether the progress line is shown or not (--quiet), never overwritten by it.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace nvfp4 {

class Progress {
 public:
  static constexpr double kPlainEverySeconds = 10.0;

  // `shown`: draw the progress line at all; `terminal`: redraw in place; `width`: the terminal's
  // columns (the line is cut to fit); `now`: seconds from any fixed origin (tests pass a fake).
  Progress(std::ostream& os, int total_steps, bool shown, bool terminal, int width = 100,
           std::function<double()> now = {});
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Step `index` (0-based) starts.
  void step(int index, std::string_view problem, std::string_view shape, std::string_view variant);
  void warn(const std::string& line);
  void finish();  // clears the line (terminal)

  // "1:05", "12:00:07": elapsed and remaining times.
  static std::string clock_text(double seconds);
  std::string line_text(int index, std::string_view problem, std::string_view shape, std::string_view variant) const;

 private:
  void clear();
  void draw();

  std::ostream& m_os;
  int m_total;
  bool m_shown, m_terminal;
  int m_width;
  std::function<double()> m_now;
  double m_start = 0;
  double m_last_plain = -1e300;
  std::string m_line;  // on screen now (terminal), "" when none
};

// Columns of the terminal on stderr, or 0 when stderr is not a terminal.
int stderr_terminal_width();

}  // namespace nvfp4
